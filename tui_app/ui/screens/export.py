"""Export: fetch chosen data sets of one agent or agency profile, browse them as a tree of
data sets and records beside the selected record's fields, save them as JSON or CSV, and
open the profile in the editor.

Data sets are the listed ones chosen plus any names typed (the interface's type names such
as ``AgentAddressDataSet``, or others: the service decides). A request missing a key or a
data set, or naming one the interface does not list, is sent with a warning (issue 10)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Input, Label, Select, SelectionList, Static, Tree

from tui_app.client.errors import ClientError
from tui_app.contract.base import warnings
from tui_app.contract.export import AgencyExportRequest, AgentExportRequest, ExportResponse
from tui_app.export_files import export_paths, save_export
from tui_app.ui.key_values import key_values
from tui_app.ui.screens.base import AreaScreen
from tui_app.ui.screens.dialogs import file_problem, may_replace
from tui_app.ui.typed_app import screen_as
from tui_app.ui.widgets.export_tree import (
    PAGE,
    ExportTree,
    MoreEntry,
    RecordEntry,
    SetEntry,
)
from tui_app.ui.widgets.marked import MarkedSelectionList
from tui_app.ui.widgets.snug_static import SnugStatic
from tui_app.ui.widgets.text_input import TextInput
from tui_app.words import counted, file_name_part

KINDS = [("Agent", "agent"), ("Agency", "agency")]
REQUESTS = {"agent": AgentExportRequest, "agency": AgencyExportRequest}


class ExportScreen(AreaScreen):
    AREA = "Export"
    AUTO_FOCUS = "#export-kind"
    # fmt: off
    BINDINGS = [
        Binding("f5", "fetch", "Fetch", tooltip="The chosen data sets of the profile", id="export.fetch"),
        Binding("f2", "select_all", "All sets", tooltip="Choose every data set", id="export.all"),
        Binding("f3", "select_none", "No sets", tooltip="Clear the choice", id="export.none"),
        Binding("f4", "browse", "Browse", tooltip="Move to the tree of the result", id="export.browse"),
        Binding("f6", "save", "Save", tooltip=".json, or .csv for one file per data set", id="export.save"),
        Binding("f7", "edit", "Edit profile", tooltip="Open the profile in Profiles", id="export.edit"),
    ]
    # fmt: on

    def __init__(self) -> None:
        super().__init__()
        self.kind = "agent"
        self.result: ExportResponse | None = None
        self.fetched: tuple[str, str] | None = None
        """(kind, profileKey) of the result shown."""
        self._detail_of: object = None
        """The tree node the detail shows (shown again, as on a reveal, it keeps its place)."""

    def compose_body(self) -> ComposeResult:
        with Horizontal(id="export-top"):
            with Vertical(classes="picker"):
                yield Label("Profile kind")
                yield Select(KINDS, value="agent", allow_blank=False, id="export-kind")
            with Vertical(id="export-key-box"):
                yield Label("ProfileKey")
                yield TextInput(placeholder="the profile's key ⏎", id="export-key")
            yield Button(f"Fetch  {self.key('export.fetch')}", id="export-fetch",
                         variant="primary")  # fmt: skip
            yield Button(f"Save  {self.key('export.save')}", id="export-save")
            yield Button(f"Edit profile  {self.key('export.edit')}", id="export-edit")
        with Horizontal(id="export-main"):
            with Vertical(id="export-sets-box"):
                # Short enough for the narrow layout's 24 columns.
                yield Label(f"Sets ({self.key('export.all')} all, {self.key('export.none')} none)")
                yield MarkedSelectionList(id="export-sets")
                yield TextInput(
                    placeholder="others (a, b, …)",
                    tooltip="Data sets not listed above, comma-separated",
                    id="export-other",
                )
            with Vertical(id="export-browse"):
                yield ExportTree("No export yet", id="export-tree")
                yield Static(
                    f"Type a ProfileKey, choose the data sets and press "
                    f"{self.key('export.fetch')} (or Enter) to fetch them.",
                    id="export-info",
                    markup=False,
                )
            with VerticalScroll(id="export-detail-box"):
                yield SnugStatic("", id="export-detail", markup=False)

    def on_mount(self) -> None:
        self._set_kind("agent")
        self.watch(self.app, "reveal_pii", self._show_detail, init=False)

    @property
    def data_tree(self) -> ExportTree:
        return self.query_one("#export-tree", ExportTree)

    @property
    def sets(self) -> SelectionList[str]:
        return self.query_one("#export-sets", SelectionList)

    # --- the request ---

    def _set_kind(self, kind: str) -> None:
        self.kind = kind
        self.sets.clear_options()
        self.sets.add_options([(name, name, True) for name in REQUESTS[kind].valid])

    @on(Select.Changed, "#export-kind")
    def _kind_changed(self, event: Select.Changed) -> None:
        if str(event.value) != self.kind:
            self._set_kind(str(event.value))

    def action_select_all(self) -> None:
        self.sets.select_all()

    def action_select_none(self) -> None:
        self.sets.deselect_all()

    def action_browse(self) -> None:
        self.set_focus(self.data_tree)

    @on(Input.Submitted, "#export-key")
    @on(Button.Pressed, "#export-fetch")
    def action_fetch(self) -> None:
        key = self.query_one("#export-key", Input).value.strip()
        typed = self.query_one("#export-other", Input).value
        names = [*self.sets.selected, *(n.strip() for n in typed.split(",") if n.strip())]
        model = REQUESTS[self.kind]
        request = model(profileKey=key or None, dataSets=names or None)
        found = warnings(model, request)
        if found:
            self.notify(
                "; ".join(f"{path}: {message}" for path, message in found),
                title="Sent with warnings",
                severity="warning",
            )
        self.query_one("#export-info", Static).update(f"Fetching {self.kind} {key}…")
        self.fetch(self.kind, request)

    @work(exclusive=True, group="export-fetch")
    async def fetch(self, kind: str, request: AgentExportRequest | AgencyExportRequest) -> None:
        info = self.query_one("#export-info", Static)
        try:
            client = await self.app.client()
            result = await getattr(client, f"export_{kind}")(request)
        except ClientError as exc:
            # What is still shown below is said to be the last fetch's, not this one's (QA:
            # "no agent profile with ProfileKey NOPE-9" over AQS-1's data, unmarked).
            before = f" Below: {' '.join(self.fetched)}, as fetched before." if self.fetched else ""
            info.update(Text(f"✗ Not fetched: {exc.message}.{before}"))
            self.notify(exc.message, title="Export failed", severity="error")
            return
        self.show_result(kind, request.profileKey or "", result)

    def show_result(self, kind: str, key: str, result: ExportResponse) -> None:
        self.result, self.fetched = result, (kind, key)
        data_sets = result.dataSets or []
        total = sum(len(ds.records) for ds in data_sets)
        self.data_tree.show(f"{kind} {key}", data_sets)
        self.query_one("#export-info", Static).update(
            f"{counted(len(data_sets), 'data set')}, {counted(total, 'record')}. Enter opens "
            f"a data set ({PAGE} records at a time); {self.key('export.save')} saves, "
            f"{self.key('export.edit')} edits the profile."
        )
        self.query_one("#export-detail", Static).update("")

    # --- browsing ---

    @on(Tree.NodeHighlighted, "#export-tree")
    def _show_detail(self, _changed: object = None) -> None:
        node = self.data_tree.cursor_node
        entry = node.data if node is not None else None
        detail = self.query_one("#export-detail", Static)
        if node is not self._detail_of:  # another entry opens at its top (QA: its title
            self._detail_of = node  # was scrolled off, kept at the last record's place)
            self.query_one("#export-detail-box").scroll_home(animate=False)
        if isinstance(entry, RecordEntry):
            text = Text()
            text.append(f"{entry.data_set.name} record {entry.index + 1}\n\n", style="bold")
            detail.update(text + key_values(entry.record, self.app.reveal_pii))
        elif isinstance(entry, SetEntry):
            ds = entry.data_set
            detail.update(f"{ds.name} ({ds.dataSetType}): {counted(len(ds.records), 'record')}.")
        elif isinstance(entry, MoreEntry):
            detail.update("Enter shows the next records of this data set.")
        else:
            detail.update("")

    # --- saving, editing ---

    @on(Button.Pressed, "#export-save")
    def action_save(self) -> None:
        if self.result is None or self.fetched is None:
            self.notify(f"Fetch an export first ({self.key('export.fetch')}).", severity="warning")
            return
        self.ask_path(
            "Save the export as .json, or as .csv (one file per data set)",
            f"export-{self.fetched[0]}-{file_name_part(self.fetched[1])}.json",
            self._save,
        )

    @work(exclusive=True, group="export-file")
    async def _save(self, path: Path | None) -> None:
        if path is None or self.result is None:
            return
        try:
            if not await may_replace(self.app, export_paths(self.result, path)):
                return
            # A large export is written off the event loop, so the screen stays live.
            written = await asyncio.to_thread(save_export, self.result, path)
        except (OSError, ValueError) as exc:
            self.notify(file_problem(path, exc), title="Not saved", severity="error")
            return
        names = ", ".join(p.name for p in written[:3]) + (", …" if len(written) > 3 else "")
        empty = [ds.name for ds in self.result.dataSets or [] if not ds.records]
        skipped = (
            f" No file for the empty data sets: {', '.join(empty)}."
            if empty and path.suffix.lower() == ".csv"
            else ""
        )
        self.notify(f"Saved {counted(len(written), 'file')} in {path.parent}: {names}.{skipped}")

    @on(Button.Pressed, "#export-edit")
    async def action_edit(self) -> None:
        if self.fetched is None:
            self.notify(f"Fetch an export first ({self.key('export.fetch')}).", severity="warning")
            return
        kind, key = self.fetched
        typed = self.query_one("#export-key", Input).value.strip()
        if (self.kind, typed) != (kind, key):
            # The fields name another profile than the one fetched: say which F7 means.
            self.notify(
                f"{self.key('export.edit')} edits the profile fetched ({kind} {key}); the "
                f"fields now say {self.kind} {typed or '(no key)'}: fetch it first "
                f"({self.key('export.fetch')}).",
                title="Not opened",
                severity="warning",
            )
            return
        from tui_app.ui.screens.profiles import ProfilesScreen  # loaded with its area

        await self.app.switch_mode("profiles")
        screen_as(self.app, ProfilesScreen).open_profile(kind, key)
