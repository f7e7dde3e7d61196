"""The full registry record of one producer, in tabs: overview, addresses, licenses with
their lines of authority, appointments, regulatory actions, organization, every other
member, raw document. SSN, FEIN and birth date stay masked until the user reveals them
(Ctrl+R or v).

A service may send members no model knows, or leave out ones we expect (issue 10): the
known members go in their tabs, and every member the tabs do not show (unknown ones, and
known ones without a column) is in the "More" tab's tree, so nothing sent is dropped."""

from __future__ import annotations

import json
from typing import Any

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import DataTable, Static, TabbedContent, TabPane, TextArea, Tree

from tui_app.client.errors import ClientError, NotFound
from tui_app.contract.record import FullInfo
from tui_app.pii import format_dob, format_fein, format_ssn, mask_tree, mask_value
from tui_app.standing import license_standing
from tui_app.ui.record_members import unshown_members, us_date
from tui_app.ui.screens.base import HELP_KEY, AreaScreen, ProducerScreen
from tui_app.ui.widgets.keys_footer import KeysFooter
from tui_app.ui.widgets.plain_table import PlainTable
from tui_app.ui.widgets.status_bar import StatusBar
from tui_app.words import utc_time

TABS = (
    "overview",
    "addresses",
    "licenses",
    "authority",
    "appointments",
    "actions",
    "organization",
    "more",
    "raw",
)


def cell(value: object) -> Text:
    return Text("" if value is None else str(value))


class RecordScreen(ProducerScreen):
    BINDINGS = [
        HELP_KEY,
        Binding("escape", "back", "Back", id="record.back"),
        # One key, named for what it will do: the footer shows whichever applies.
        Binding("v", "reveal(True)", "Reveal PII", id="record.reveal"),
        Binding("v", "reveal(False)", "Mask PII", id="record.reveal"),
        Binding("c", "copy_npn", "Copy NPN", id="record.copy"),
        Binding("a", "order('A')", "Appoint", id="record.appoint"),
        Binding("t", "order('T')", "Terminate", id="record.terminate"),
        Binding("left,h", "tab(-1)", "Prev tab", id="record.prev", show=False),
        Binding("right,l", "tab(1)", "Next tab", id="record.next", show=False),
        # Search's own keys, over a record opened from it, close the record and do what
        # they do there (QA: F3 then an NPN typed went nowhere while a record was open).
        Binding("f2", "in_search('focus_form')", "Edit search", id="search.form", show=False),
        Binding("f3", "in_search('focus_npn')", "Open by NPN", id="search.npn", show=False),
        Binding("f4", "in_search('focus_results')", "Results", id="search.results", show=False),
    ]

    def __init__(self, kind: str, npn: int, *, came_from: str = "Search") -> None:
        super().__init__()
        self.kind = kind
        self.npn = npn
        self.came_from = came_from
        """The area the record was opened from, for the breadcrumb."""
        self.info: FullInfo | None = None
        self.failure: str | None = None
        """Why the record could not be read, once that is known."""
        self.env_left: str | None = None
        """The environment switched to since the record opened, if any."""

    def compose(self) -> ComposeResult:
        yield StatusBar(f"{self.came_from} › Record")
        yield Static(f"Loading {self.kind} NPN {self.npn}…", id="record-title", markup=False)
        with TabbedContent(id="record-tabs"):
            with TabPane("Overview", id="overview"):
                yield VerticalScroll(Static(id="overview-text", markup=False))
            for tab, title, columns in (
                (
                    "addresses",
                    "Addresses",
                    ("Type", "Line 1", "Line 2", "City", "State", "ZIP", "Country", "Updated"),
                ),
                (
                    "licenses",
                    "Licenses",
                    # Standing and expiry first after the license itself: at 80 columns
                    # the table showed up to "Expir" (QA).
                    (
                        "State",
                        "Number",
                        "Standing",
                        "Expires",
                        "Class",
                        "Res.",
                        "Issued",
                        "CE",
                        "Lines",
                    ),
                ),
                (
                    "authority",
                    "Lines of authority",
                    ("State", "Code", "Line", "Status", "Reason", "Since"),
                ),
                (
                    "appointments",
                    "Appointments",
                    # What a clerk checks first, then the identifiers: an 80-column
                    # terminal showed State, Company, FEIN, NAIC and Line, no status.
                    (
                        "State",
                        "Company",
                        "Line",
                        "Status",
                        "Since",
                        "Renews",
                        "Reason",
                        "NAIC",
                        "FEIN",
                    ),
                ),
                (
                    "actions",
                    "Regulatory actions",
                    (
                        "State",
                        "Origin",
                        "Reason",
                        "Disposition",
                        "Action date",
                        "Effective",
                        "Penalty",
                    ),
                ),
                ("organization", "Organization", ("NPN", "Name", "Type", "Role", "State", "Since")),
            ):
                with TabPane(title, id=tab):
                    table = PlainTable(id=f"{tab}-table", cursor_type="row", zebra_stripes=True)
                    table.add_columns(*columns)
                    yield table
            with TabPane("More", id="more"):
                yield Tree("Members not shown in the other tabs", id="more-tree")
            with TabPane("Raw", id="raw"):
                yield TextArea("", id="raw-text", read_only=True, soft_wrap=False)
        yield KeysFooter()

    def on_mount(self) -> None:
        self.watch(self.app, "reveal_pii", self._reveal_changed, init=False)
        self.watch(self.app, "env_name", self._env_changed, init=False)
        self.load()

    def on_unmount(self) -> None:
        # What was revealed was this producer's: the next record (and the results behind
        # this one) open as the config says (masked by default), not revealed for everyone
        # looked at after.
        self.app.reveal_pii = not self.app.config.mask_pii

    def _reveal_changed(self, _: bool) -> None:
        self._render_info()
        self.refresh_bindings()  # "Reveal PII" becomes "Mask PII", and back

    def _env_changed(self, name: str) -> None:
        """The record is the old environment's: it closes when the user comes back."""
        self.env_left = name

    def action_back(self) -> None:
        """Close the record. The area it was opened from takes its keys as commands
        again: the focus leaves the field the record was opened from (the NPN), or the
        next key, an area's digit, was typed into it."""
        below = self.app.screen_stack[-2]
        if isinstance(below, AreaScreen):
            below.leave_field()
        self.app.pop_screen()

    def on_screen_resume(self) -> None:
        if self.env_left:
            self.app.pop_screen()
            self.app.notify(
                f"The record of NPN {self.npn} was closed: it belonged to the "
                f"environment used before {self.env_left}."
            )

    @work(exclusive=True, group="record")
    async def load(self) -> None:
        try:
            client = await self.app.client()
            if self.kind == "agent":
                response = await client.get_agent(self.npn)
            else:
                response = await client.get_agency(self.npn)
        except ClientError as exc:
            self.failure = exc.message
            if isinstance(exc, NotFound):  # the kind comes from the Search form's switch
                other, switch = (
                    ("agency", "Agencies") if self.kind == "agent" else ("agent", "Agents")
                )
                self.failure += f" (if it is an {other}'s NPN, open it with Search set to {switch})"
            self.query_one("#record-title", Static).update(
                Text(f"Cannot show {self.kind} NPN {self.npn}: {self.failure}  (Esc goes back)")
            )
            self.notify(self.failure, title="Record", severity="error")
            self.refresh_bindings()  # nothing of the record's to reveal, copy or file
            return
        self.info = response.NiprFullInfo
        self._render_info()
        self.query_one("#record-tabs").focus()

    # --- rendering ---

    def _render_info(self) -> None:
        info = self.info
        if info is None:
            return
        reveal = self.app.reveal_pii
        bio = info.Biographic
        if self._is_firm(info):
            name = bio.FirmName if bio else None
            ident = f"FEIN {format_fein(bio.Fein or '', reveal)}" if bio and bio.Fein else ""
        else:
            name = (
                " ".join(p for p in (bio.FirstName, bio.MiddleName, bio.LastName, bio.Suffix) if p)
                if bio
                else None
            )
            ident = f"SSN {format_ssn(bio.Ssn or '', reveal)}" if bio and bio.Ssn else ""
        shown = "shown" if reveal else "masked: v reveals"
        title = Text.assemble(
            (name or "(no name)", "bold"),
            f"   NPN {info.Producer.Npn or self.npn}   {ident}   ",
            (f"personal data {shown}", "dim"),
        )
        self.query_one("#record-title", Static).update(title)
        self.query_one("#overview-text", Static).update(self._overview(info, reveal))
        self._fill_tables(info, reveal)
        self._fill_more(info, reveal)
        raw = mask_tree(info.model_dump(mode="json", exclude_none=True), reveal)
        self.query_one("#raw-text", TextArea).load_text(json.dumps(raw, indent=2))

    def _is_firm(self, info: FullInfo) -> bool:
        entity = info.Producer.EntityType
        return entity.upper() == "FIRM" if entity else self.kind == "agency"

    def _overview(self, info: FullInfo, reveal: bool) -> Text:
        bio = info.Biographic
        entity = info.Producer.EntityType or ("FIRM" if self.kind == "agency" else "INDIVIDUAL")
        rows: list[tuple[str, object]] = [
            ("Entity", entity.title()),
            ("NPN", info.Producer.Npn or self.npn),
        ]
        if bio is not None:
            if self._is_firm(info):
                rows += [
                    ("Firm name", bio.FirmName),
                    ("FEIN", format_fein(bio.Fein or "", reveal)),
                    ("Domicile state", bio.DomicileState),
                ]
            else:
                rows += [
                    ("First name", bio.FirstName),
                    ("Middle name", bio.MiddleName),
                    ("Last name", bio.LastName),
                    ("Suffix", bio.Suffix),
                    ("Date of birth", format_dob(bio.DateOfBirth, reveal)),
                    ("SSN", format_ssn(bio.Ssn or "", reveal)),
                ]
        licenses = info.LicenseData.Licenses if info.LicenseData else []
        standings = [
            license_standing(lic.Active, us_date(lic.ExpirationDate), self.app.today)
            for lic in licenses
        ]
        resident = next((lic.State for lic in licenses if lic.Residency == "R"), None)
        rows += [
            ("Resident state", resident),
            (
                "Licenses",
                f"{len(licenses)} "
                f"({sum(level == 'bad' for _, level in standings)} expired, "
                f"{sum(level == 'warn' for _, level in standings)} expiring soon)",
            ),
            ("Last updated", info.LastUpdated and utc_time(info.LastUpdated)),
        ]
        addresses = info.AddressInfo.Addresses if info.AddressInfo else []
        for address in addresses:
            line = ", ".join(
                p
                for p in (address.Line1, address.Line2, address.City, address.State, address.Zip)
                if p
            )
            kind = f"{address.Type.title()} address" if address.Type else "Address"
            rows.append((kind, line))
        text = Text()
        for label, value in rows:
            if value not in (None, ""):
                text.append(f"{label:>18}  ", style="bold")
                text.append(f"{value}\n")
        return text

    def _fill_tables(self, info: FullInfo, reveal: bool) -> None:
        colours = self.app.theme_variables
        style = {
            "bad": f"bold {colours.get('error', 'red')}",
            "warn": f"bold {colours.get('warning', 'yellow')}",
            "ok": colours.get("success", "green"),
            "none": "dim",
        }
        licenses = info.LicenseData.Licenses if info.LicenseData else []
        tables = {tab: self.query_one(f"#{tab}-table", DataTable) for tab in TABS[1:-2]}
        for table in tables.values():
            table.clear()
        for a in info.AddressInfo.Addresses if info.AddressInfo else []:
            tables["addresses"].add_row(
                *map(
                    cell,
                    (a.Type, a.Line1, a.Line2, a.City, a.State, a.Zip, a.Country, a.DateUpdated),
                )
            )
        for lic in licenses:
            words, level = license_standing(lic.Active, us_date(lic.ExpirationDate), self.app.today)
            lines = ", ".join(loa.Name or loa.Code or "" for loa in lic.LinesOfAuthority)
            tables["licenses"].add_row(
                *map(cell, (lic.State, lic.LicenseNumber)),
                Text(words, style=style[level]),
                *map(cell, (lic.ExpirationDate, lic.LicenseClass, lic.Residency, lic.IssueDate)),
                *map(cell, (lic.CeCompliance, lines)),
            )
            for loa in lic.LinesOfAuthority:
                tables["authority"].add_row(
                    *map(
                        cell,
                        (
                            lic.State,
                            loa.Code,
                            loa.Name,
                            loa.Status,
                            loa.StatusReason,
                            loa.StatusDate,
                        ),
                    )
                )
            for ap in lic.Appointments:
                tables["appointments"].add_row(
                    *map(
                        cell,
                        (
                            lic.State,
                            ap.CompanyName,
                            ap.LineOfAuthority,
                            ap.Status,
                            ap.StatusDate,
                            ap.RenewalDate,
                            ap.TerminationReason,
                            ap.NaicCode,
                            format_fein(ap.Fein or "", reveal),
                        ),
                    )
                )
            for act in lic.RegulatoryActions:
                tables["actions"].add_row(
                    *map(
                        cell,
                        (
                            lic.State,
                            act.Origin,
                            act.Reason,
                            act.Disposition,
                            act.DateOfAction,
                            act.EffectiveDate,
                            act.Penalty,
                        ),
                    )
                )
        for org in info.Organization:
            tables["organization"].add_row(
                *map(cell, (org.Npn, org.Name, org.EntityType, org.Role, org.State, org.StartDate))
            )
        for table in tables.values():
            if not table.row_count:  # headers alone look like a table still loading
                table.add_row(Text("none", style="italic"), *[""] * (len(table.columns) - 1))

    def _fill_more(self, info: FullInfo, reveal: bool) -> None:
        tree = self.query_one("#more-tree", Tree)
        tree.clear()
        found = unshown_members(info)
        tree.root.set_label(
            Text(
                f"Members not shown in the other tabs: {len(found)}"
                if found
                else "Every member of this record is shown in the other tabs"
            )
        )
        for path, value in found:
            _add_node(tree.root, path, value, reveal)
        tree.root.expand_all()

    # --- actions ---

    ON_THE_RECORD = frozenset({"reveal", "copy_npn", "order", "tab"})
    """Actions that need a record: not offered once it could not be read."""

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if self.failure and action in self.ON_THE_RECORD:
            return False
        if action == "reveal":  # the one of its two keys that changes something
            return parameters[0] != self.app.reveal_pii
        if action == "in_search":
            return self.came_from == "Search"
        return True

    async def action_in_search(self, action: str) -> None:
        search = self.app.screen_stack[-2]
        self.action_back()
        await search.run_action(action)

    def action_reveal(self, reveal: bool) -> None:
        if reveal != self.app.reveal_pii:
            self.app.action_toggle_reveal()

    async def action_order(self, filing: str) -> None:
        if self.info is None:  # not loaded yet (one never read offers no such key)
            self.notify("The record has not loaded yet.", severity="warning")
            return
        from tui_app.prefill import order_from_record

        await self.app.new_order(order_from_record(self.info, filing))

    def action_copy_npn(self) -> None:
        self.app.copy_to_clipboard(str(self.npn))
        self.notify(f"NPN {self.npn} copied to the clipboard")

    def action_tab(self, step: int) -> None:
        tabs = self.query_one("#record-tabs", TabbedContent)
        index = TABS.index(tabs.active) if tabs.active in TABS else 0
        tabs.active = TABS[(index + step) % len(TABS)]


def _add_node(parent: Any, name: str, value: Any, reveal: bool) -> None:
    """One member as a tree node: a leaf ``name: value``, or a branch for an object or a
    list. Labels are plain Text, never markup, whatever the service sent."""
    key = name.rsplit(".", 1)[-1]
    if isinstance(value, dict):
        node = parent.add(Text(f"{name} ({len(value)} members)"), expand=True)
        for child, inner in value.items():
            _add_node(node, str(child), inner, reveal)
    elif isinstance(value, list):
        node = parent.add(Text(f"{name} ({len(value)} items)"), expand=True)
        for i, inner in enumerate(value):
            _add_node(
                node, f"{key}[{i}]" if isinstance(inner, dict | list) else f"[{i}]", inner, reveal
            )
    else:
        shown = mask_value(key.split("[")[0], value, reveal)
        parent.add_leaf(Text(f"{name}: {'null' if shown is None else shown}"))
