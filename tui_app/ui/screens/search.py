"""Producer search: pick agents or agencies and a SearchType, fill the fields that type
uses (validated as typed, from the contract), browse the hits, open a full record.

A firm search of type NPN has no field for the number (DOMAIN.md): the form asks for the
NPN and reads the firm with ``GET /agency?Npn=``. A hit without an NPN is listed but
cannot be opened (a service need not send one)."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Container, Horizontal, Vertical
from textual.widget import Widget
from textual.widgets import Button, DataTable, Input, Label, RadioSet, Select, Static

from tui_app.client.errors import ClientError, InvalidInput, Rejected
from tui_app.contract.search import (
    AgencySearch,
    AgencySearchResponse,
    AgentSearch,
    AgentSearchResponse,
    FullRecordQuery,
    SearchKind,
)
from tui_app.pii import format_fein, format_ssn
from tui_app.ui.fields import check
from tui_app.ui.screens.base import AreaScreen
from tui_app.ui.widgets.marked import MarkedRadioButton
from tui_app.ui.widgets.model_form import ModelForm
from tui_app.ui.widgets.plain_table import PlainTable
from tui_app.ui.widgets.text_input import TextInput

SEARCHES = {"agent": AgentSearch, "agency": AgencySearch}


class SearchScreen(AreaScreen):
    AREA = "Search"
    REVEAL_NOTE = "results carry only an SSN's last four; the record opened next shows it all"
    # Start on the agents/agencies switch, not in a text field, so 1-6 and ? work at once.
    AUTO_FOCUS = "#kind"
    # Priority for the keys that move the focus, so keys typed straight after follow it
    # (not "/": a field may hold one).
    BINDINGS = [
        Binding("slash", "filter", "Filter rows", id="search.filter", key_display="/"),
        Binding("f2", "focus_form", "Edit search", id="search.form", priority=True),
        Binding("f3", "focus_npn", "Open by NPN", id="search.npn", priority=True),
        Binding("f4", "focus_results", "Results", id="search.results", priority=True),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.kind = "agent"
        self.form_kind = "agent"
        """The kind the form on show was built for (``kind`` changes first)."""
        self.typed: dict[str, dict[str, Any]] = {}
        """What the forms of each kind held when last left, by field."""
        self.result_kind = "agent"
        self.rows: list[tuple[int | None, tuple[Text, ...]]] = []
        self.more = ""
        """Said after the count when the service cut the hits short."""

    def compose_body(self) -> ComposeResult:
        with Horizontal(id="search-top"):
            with RadioSet(id="kind"):
                yield MarkedRadioButton("Agents", value=True, id="kind-agent")
                yield MarkedRadioButton("Agencies", id="kind-agency")
            with Vertical(id="type-box"):
                yield Label("SearchType")
                kinds = AgentSearch.kinds
                yield Select(
                    [(k.value, k.value) for k in kinds],
                    value=kinds[0].value,
                    id="search-type",
                    allow_blank=False,
                )
            with Vertical(id="npn-box"):
                yield Label("Open by NPN")
                with Horizontal():
                    yield TextInput(placeholder="NPN", id="npn", type="integer")
                    # Enter in the NPN field opens: the button is for the mouse, so Tab
                    # goes from the NPN straight on to the search form.
                    open_npn = Button("Open", id="open-npn")
                    open_npn.can_focus = False
                    yield open_npn
        with Horizontal(id="search-main"):
            with Vertical(id="form-column"):
                yield Container(self._form(SearchKind.NAME), id="form-box")
                yield Button("Search  ⏎", id="run-search", variant="primary")
            with Vertical(id="results-column"):
                yield TextInput(placeholder="filter the rows in view (Esc clears)", id="filter")
                yield PlainTable(id="results", cursor_type="row", zebra_stripes=True)
                yield Static(
                    "Fill the fields and press Enter to search.", id="result-info", markup=False
                )

    def on_mount(self) -> None:
        self.query_one("#filter").display = False
        self.watch(self.app, "env_name", self._env_changed, init=False)

    def _env_changed(self) -> None:
        """Hits and records of the old environment do not belong under the new name."""
        self._clear_results(f"Environment changed to {self.app.env_name}: search again.")

    def _clear_results(self, why: str | Text) -> None:
        """Empty the table, saying ``why`` in its place."""
        self.rows = []
        self._clear_filter()
        self.query_one("#results", DataTable).clear(columns=True)
        self.query_one("#result-info", Static).update(why)

    # --- the form follows the kind and the SearchType ---

    def _model(self):
        return SEARCHES[self.kind]

    async def _set_kind(self, kind: str) -> None:
        self.kind = kind
        select = self.query_one("#search-type", Select)
        kinds = self._model().kinds
        with select.prevent(Select.Changed):
            select.set_options([(k.value, k.value) for k in kinds])
            select.value = kinds[0].value
        await self._rebuild_form()

    def _form(self, kind: SearchKind) -> ModelForm:
        """The fields a search of this kind evaluates, the required ones marked."""
        model = self._model()
        if self.kind == "agency" and kind == SearchKind.NPN:
            # "Firm by NPN" is the full-record lookup: GET /agency?Npn= (DOMAIN.md).
            return ModelForm(FullRecordQuery, id="search-form", classes="firm-by-npn")
        return ModelForm(
            model,
            fields=model.fields_for(kind),
            required=model.required_when.get(kind, ()),
            fixed={"SearchType": kind.value},
            id="search-form",
        )

    async def _rebuild_form(self) -> None:
        """A new form for the chosen kind and type, keeping the values both share and what
        was typed in a form of this kind before (Agents, Agencies, Agents again lost the
        names typed; so did a NAME search switched to SSN and back)."""
        old = self.query_one(ModelForm)
        kept = old.data()
        cleared = [path for path in old.inputs if path not in kept]  # not brought back
        left = self.typed.setdefault(self.form_kind, {})
        left.update({path: kept[path] for path in old.inputs if path in kept})
        for path in cleared:
            left.pop(path, None)
        chosen = self.query_one("#search-type", Select).value
        assert isinstance(chosen, str), "the search type has no blank"
        form = self._form(SearchKind(chosen))
        await old.remove()
        await self.query_one("#form-box").mount(form)
        self.form_kind = self.kind
        values = {**self.typed.get(self.kind, {}), **kept}
        for path in cleared:  # in the form just left, and so in this kind's memory too
            values.pop(path, None)
        form.load({k: v for k, v in values.items() if k in form.inputs})

    @on(RadioSet.Changed, "#kind")
    async def _kind_changed(self, event: RadioSet.Changed) -> None:
        await self._set_kind("agent" if event.pressed.id == "kind-agent" else "agency")

    @on(Select.Changed, "#search-type")
    async def _type_changed(self) -> None:
        await self._rebuild_form()

    # --- searching ---

    @on(ModelForm.Submitted)
    @on(Button.Pressed, "#run-search")
    def _search(self) -> None:
        form = self.query_one(ModelForm)
        request = form.result()
        if request is None:
            form.focus_first_error()
            self.notify("Correct the fields marked ✗ first.", severity="warning")
            return
        if isinstance(request, FullRecordQuery):
            self.query_one("#result-info", Static).update(
                "A firm search has no NPN field: opening the firm with GET /agency?Npn=."
            )
            self.open_record("agency", request.Npn)
            return
        self.query_one("#result-info", Static).update("Searching…")
        self.run_search(self.kind, request)

    @work(exclusive=True, group="search")
    async def run_search(self, kind: str, request) -> None:
        """A newer search cancels this one, so an old answer never overwrites a new one."""
        form = self.query_one(ModelForm)
        result: AgentSearchResponse | AgencySearchResponse
        try:
            client = await self.app.client()
            if kind == "agent":
                result = await client.search_agents(request)
            else:
                result = await client.search_agencies(request)
        except (InvalidInput, Rejected) as exc:
            form.show_errors(exc.errors)
            self._fail(exc.message)
            return
        except ClientError as exc:
            self._fail(exc.message)
            return
        self.show_results(kind, result)

    def _fail(self, message: str) -> None:
        # The previous search's hits would pass for this one's answer.
        self._clear_results(Text(f"Search failed: {message}"))
        self.notify(message, title="Search failed", severity="error")

    def show_results(self, kind: str, result: AgentSearchResponse | AgencySearchResponse) -> None:
        table = self.query_one("#results", DataTable)
        table.clear(columns=True)
        if isinstance(result, AgentSearchResponse):
            # NPN, name and state first: a narrow terminal still shows them.
            table.add_columns("NPN", "Name", "Resident", "SSN", "Licensed in")
            hits = result.IndividualsSummaryInfo.Individuals
            self.rows = [
                (
                    h.Npn,
                    (
                        Text("" if h.Npn is None else str(h.Npn)),
                        Text(" ".join(p for p in (h.FirstName, h.MiddleName, h.LastName) if p)),
                        Text(h.ResidentState or ""),
                        Text(format_ssn(h.SsnLast4 or "")),
                        Text(", ".join(h.LicenseStates)),
                    ),
                )
                for h in hits
            ]
        else:
            table.add_columns("NPN", "Firm", "Domicile", "FEIN", "Licensed in")
            firms = result.NiprFirmsSummaryInfo.Firms
            self.rows = [
                (
                    h.Npn,
                    (
                        Text("" if h.Npn is None else str(h.Npn)),
                        Text(h.FirmName or ""),
                        Text(h.ResidentState or ""),
                        Text(format_fein(h.FeinLast4 or "")),
                        Text(", ".join(h.LicenseStates)),
                    ),
                )
                for h in firms
            ]
        self.result_kind = kind
        entity = result.AdditionalInfo.Entity if result.AdditionalInfo else None
        self.more = " (more exist: narrow the search)" if entity and entity.Truncated else ""
        # A new search shows all its hits: the old filter was for the old rows.
        self._clear_filter()
        if self.rows:
            table.focus()

    def _fill(self, needle: str) -> None:
        table = self.query_one("#results", DataTable)
        table.clear()
        needle = needle.lower().strip()
        matched: set[int] = set()  # the columns the filter found it in
        for index, (_, cells) in enumerate(self.rows):
            found = {i for i, cell in enumerate(cells) if needle in cell.plain.lower()}
            if not needle or found:
                table.add_row(*cells, key=str(index))
                matched |= found
        total, shown = len(self.rows), table.row_count
        hits = f"{total} {'hit' if total == 1 else 'hits'}"
        if not total:
            info = "No producer matches this search."
        elif needle:
            # Named, as a column it matched may be out of sight (QA: "/TX" kept rows of
            # residents of CA, for their licences in TX, off an 80-column screen).
            labels = [str(c.label) for c in table.columns.values()]
            where = f" in {', '.join(labels[i] for i in sorted(matched))}" if matched else ""
            info = f"{shown} of {total} shown (filter {needle!r}{where}; Esc clears it)."
        else:
            info = f"{hits}{self.more}. Enter opens the record; / filters."
        self.query_one("#result-info", Static).update(info)

    def _clear_filter(self) -> None:
        box = self.query_one("#filter", Input)
        box.display = False
        with box.prevent(Input.Changed):
            box.value = ""
        self._fill("")

    # --- filter, open, back ---

    def action_filter(self) -> None:
        box = self.query_one("#filter", Input)
        box.display = True
        self.set_focus(box)

    @on(Input.Changed, "#filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        self._fill(event.value)

    @on(Input.Submitted, "#filter")
    def _filter_done(self) -> None:
        self.set_focus(self.query_one("#results"))

    def field_home(self, field: Widget) -> Widget | None:
        if field.id == "filter":
            self._clear_filter()
        return self.query_one("#results") if self.rows else super().field_home(field)

    def back_out(self) -> None:
        if self.query_one("#filter").display:
            self._clear_filter()
            self.set_focus(self.query_one("#results"))
        elif self.rows and self.focused is not self.query_one("#results"):
            self.set_focus(self.query_one("#results"))

    def action_focus_form(self) -> None:
        form = self.query_one(ModelForm)
        inputs = form.query(Input)
        if inputs:
            self.set_focus(inputs.first())

    def action_focus_npn(self) -> None:
        self.set_focus(self.query_one("#npn"))

    def action_focus_results(self) -> None:
        self.set_focus(self.query_one("#results"))

    @on(DataTable.RowSelected, "#results")
    def _open_row(self, event: DataTable.RowSelected) -> None:
        index = event.row_key.value
        assert index is not None, "each row is added with its index as its key"
        npn = self.rows[int(index)][0]
        if npn is None:
            self.notify(
                "The service sent this hit without an NPN, so its record cannot be "
                "opened; search by another field.",
                title="Record",
                severity="warning",
            )
            return
        self.open_record(self.result_kind, npn)

    @on(Input.Submitted, "#npn")
    @on(Button.Pressed, "#open-npn")
    def _open_npn(self) -> None:
        box = self.query_one("#npn", Input)
        typed = box.value.strip()  # nothing typed is a missing NPN, not a bad number
        query, errors = check(FullRecordQuery, {"Npn": typed} if typed else {})
        if query is None:
            self.notify("; ".join(str(e) for e in errors), title="NPN", severity="warning")
            return
        self.open_record(self.kind, query.Npn)

    def open_record(self, kind: str, npn: int) -> None:
        from tui_app.ui.screens.record import RecordScreen

        self.app.push_screen(RecordScreen(kind, npn))
