"""Profiles: edit an agent or agency profile (a :class:`ProfileEditor`), open one from the
service through export, preview the XML document, import it, and save it as XML or as an
NDJSON bulk line. Values the XML document cannot carry stay in the editor: an NDJSON line
keeps them, and an import says it will leave them out before it sends anything."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Input, Label, Select, Static

from tui_app.client.errors import ClientError, InvalidInput, Rejected
from tui_app.contract.errors import ContractError, parse_validations
from tui_app.contract.profile import ImportResult
from tui_app.contract.profile_sets import (
    PROFILE_DATA_SETS,
    RECORD_MODELS,
    Record,
    record_from_data_sets,
)
from tui_app.export_files import (
    ManyRecords,
    profile_file_format,
    profile_line,
    profile_xml,
    read_profile,
    without_unknown,
)
from tui_app.pii import mask_tree
from tui_app.private_files import write_private
from tui_app.ui.fields import check
from tui_app.ui.screens.base import AreaScreen
from tui_app.ui.screens.dialogs import ConfirmScreen, file_problem, may_replace
from tui_app.ui.widgets.model_form import ModelForm, widget_id
from tui_app.ui.widgets.profile_editor import XML, ProfileEditor
from tui_app.wire.errors import WireError
from tui_app.wire.xml import readable_xml
from tui_app.words import file_name_part

KINDS = [("Agent", "agent"), ("Agency", "agency")]


def render_result(result: ImportResult) -> Text:
    text = Text()
    text.append("✓ Imported" if result.Success else "✗ Not imported", style="bold")
    text.append(f"   Success: {str(result.Success).lower()}")
    if result.Message:
        text.append(f"\nMessage: {result.Message}")
    if result.Validations:
        text.append("\n\nValidations\n", style="bold")
        for line in result.Validations.splitlines():
            text.append(f"  {line}\n")
    return text


class ProfilesScreen(AreaScreen):
    AREA = "Profiles"
    AUTO_FOCUS = "#profile-kind"
    # fmt: off
    BINDINGS = [
        Binding("f2", "open", "Open", tooltip="The profile named by ProfileKey, read through export", id="profiles.open"),
        Binding("f3", "new", "New", tooltip="An empty form", id="profiles.new"),
        Binding("f4", "preview", "Preview XML", tooltip="The document an import sends", id="profiles.preview"),
        Binding("f5", "import", "Import", tooltip="Send it to the single import", id="profiles.import"),
        Binding("f6", "save", "Save", tooltip=".xml, or an .ndjson bulk line", id="profiles.save", priority=True),
        Binding("f7", "load", "Load", tooltip=".xml or .ndjson", id="profiles.load", priority=True),
        Binding("f8", "add_contact", "Add contact", tooltip="A new contact of the agency", id="profiles.add_contact"),
        Binding("f9", "remove_contact", "Remove contact", tooltip="The one you are in", id="profiles.remove_contact"),
    ]
    # fmt: on

    def __init__(self) -> None:
        super().__init__()
        self.baseline: dict[str, Any] = {}
        """The profile as loaded or last imported or saved, to tell whether it changed."""
        self.drafts: dict[str, tuple[dict, dict | None]] = {}
        """The other kind's profile and baseline, kept while the user looks at this one."""
        self.preview: Record | None = None

    def hint(self) -> str:
        return (
            f"Fill the profile, or type a ProfileKey (and its Ssn or Tin) and press "
            f"{self.key('profiles.open')} to open it from the service.\n"
            f"{self.key('profiles.preview')} previews the XML document, "
            f"{self.key('profiles.import')} imports it; {self.key('profiles.save')} saves it "
            f"as .xml or as an .ndjson bulk line, {self.key('profiles.load')} loads either."
        )

    def compose_body(self) -> ComposeResult:
        with Horizontal(id="profile-top"):
            with Vertical(classes="picker"):
                yield Label("Profile kind")
                yield Select(KINDS, value="agent", allow_blank=False, id="profile-kind")
            yield Button(f"Open  {self.key('profiles.open')}", id="profile-open")
            yield Button(f"Preview  {self.key('profiles.preview')}", id="profile-preview")
            yield Button(f"Import  {self.key('profiles.import')}", id="profile-import",
                         variant="primary")  # fmt: skip
            yield Button(f"Save  {self.key('profiles.save')}", id="profile-save")
            yield Button(f"Load  {self.key('profiles.load')}", id="profile-load")
        with Horizontal(id="profile-main"):
            yield ProfileEditor(
                contacts_hint=f"{self.key('profiles.add_contact')} adds a contact; "
                f"{self.key('profiles.remove_contact')} removes the one you are in (or on).",
                id="profile-editor",
            )
            with VerticalScroll(id="profile-right"):
                yield Static(self.hint(), id="profile-result", markup=False)
                yield Static("", id="profile-xml", markup=False)

    async def on_mount(self) -> None:
        await self.show_profile("agent", {})
        self.watch(self.app, "reveal_pii", self._render_xml, init=False)

    @property
    def editor(self) -> ProfileEditor:
        return self.query_one(ProfileEditor)

    async def show_profile(
        self, kind: str, data: Mapping[str, Any], baseline: dict | None = None
    ) -> None:
        """Show a profile (by field names, either form of each section) in the editor."""
        editor = self.editor
        await editor.load(kind, data)
        select = self.query_one("#profile-kind", Select)
        with select.prevent(Select.Changed):
            select.value = kind
        self.refresh_bindings()
        self.preview = None
        self.query_one("#profile-result", Static).update(self.hint())
        self._render_xml()
        self.baseline = editor.data() if baseline is None else baseline
        if self.focused is None:  # it was in the old form: back to the start of the screen
            select.focus()

    def _dirty(self, *, but_identity: bool = False) -> bool:
        """Changed since loaded; ``but_identity``: not counting the ProfileKey and Ssn (or
        Tin), which F2 reads to open a profile."""
        ids = ("ProfileKey", self.editor.model.id_field) if but_identity else ()

        def rest(d: dict) -> dict:
            return {k: v for k, v in d.items() if k not in ids}

        return rest(self.editor.data()) != rest(self.baseline)

    def unsaved(self) -> str | None:
        return "the profile has changes neither imported nor saved" if self._dirty() else None

    @on(Select.Changed, "#profile-kind")
    async def _kind_changed(self, event: Select.Changed) -> None:
        kind, editor = str(event.value), self.editor
        if kind == editor.kind:
            return
        self.drafts[editor.kind] = (editor.data(), self.baseline)
        data, baseline = self.drafts.pop(kind, ({}, None))
        await self.show_profile(kind, data, baseline)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("add_contact", "remove_contact"):
            return self.editor.contacts is not None
        return True

    async def action_add_contact(self) -> None:
        form = await self.editor.add_contact()
        self._form_changed()
        if form is not None and (outer := self.editor.form) is not None:
            field = form.query(Input).first()
            field.focus()
            # Brought into view once the new contact has its place (as it took the focus it
            # had none yet).
            self.call_after_refresh(outer.bring_into_view, field)

    async def action_remove_contact(self) -> None:
        if await self.editor.remove_contact(self.focused):
            self._form_changed()
            self.notify("Contact removed (the import sends the list as it is now).")
        else:
            self.notify("Put the cursor in the contact to remove (or on its title), then "
                        f"{self.key('profiles.remove_contact')}.")  # fmt: skip

    # --- preview and import ---

    @on(ModelForm.Changed)
    def _form_changed(self) -> None:
        """A preview is of the form as it was: once the form changes it goes, said so
        (QA: a contact added left the document without it, titled "to send")."""
        if self.preview is not None:
            self.preview = None
            self.query_one("#profile-xml", Static).update(
                f"The form changed since the preview: {self.key('profiles.preview')} shows "
                "the document it makes now."
            )

    def _valid_record(self) -> Record | None:
        record = self.editor.xml_record()
        if record is None:
            self.editor.focus_first_error()
            self.notify(
                "The profile is not valid yet: correct the fields marked ✗.", severity="warning"
            )
        return record

    @on(Button.Pressed, "#profile-preview")
    def action_preview(self) -> None:
        self.preview = self._valid_record()
        self._render_xml()
        if self.preview is not None:
            # Narrow, the panel is a few rows under the form, its hint on top (QA at 80x24:
            # F4 seemed to do nothing): the document is brought into them if out of sight.
            self.call_after_refresh(self._xml_in_sight)

    def _xml_in_sight(self) -> None:
        panel, xml = self.query_one("#profile-right"), self.query_one("#profile-xml", Static)
        if xml.region.y + 1 >= panel.region.bottom:  # (its first row is blank)
            panel.scroll_to_widget(xml, top=True, animate=False)

    def _render_xml(self, _reveal: bool | None = None) -> None:
        _, dropped = self.editor.xml_parts()
        text = Text()
        if self.preview is not None:
            reveal = self.app.reveal_pii
            data = self.preview.model_dump(mode="json", exclude_none=True)
            text.append("\nThe XML document to send", style="bold")
            text.append(
                "\nindented here for reading"
                + ("" if reveal else "; SSN, TIN and birth date masked (Ctrl+R reveals)"),
                style="italic",
            )
            document = profile_xml(self.preview.kind, mask_tree(data, reveal))
            text.append("\n" + readable_xml(document))
        if dropped:
            text.append("\nNot part of the XML document, so an import leaves out: ", style="bold")
            text.append(", ".join(dropped) + " (an .ndjson line keeps them)\n")
        self.query_one("#profile-xml", Static).update(text)

    @on(Button.Pressed, "#profile-import")
    def action_import(self) -> None:
        record = self._valid_record()
        if record is not None:
            self.preview = record
            self._render_xml()
            self.import_profile(record, list(self.editor.xml_parts()[1]))

    @work(exclusive=True, group="profile-import")
    async def import_profile(self, record: Record, dropped: list[str]) -> None:
        if dropped and not await self.app.push_screen_wait(
            ConfirmScreen(
                f"The XML import cannot carry {len(dropped)} value(s) of this profile: "
                f"{', '.join(dropped)}. The service replaces those sections without them. "
                f"Import anyway? ({self.key('profiles.save')} saves an .ndjson bulk line, "
                "which keeps them.)",
                yes="Import",
            )
        ):
            self.notify("Not imported.")
            return
        editor = self.editor
        try:
            client = await self.app.client()
            result = await getattr(client, f"import_{record.kind}")(record)
        except (InvalidInput, Rejected) as exc:
            editor.place_errors(exc.errors)
            editor.focus_first_error()
            self.notify(exc.message, title="Not imported", severity="error")
            return
        except ClientError as exc:
            self.notify(exc.message, title="Not imported", severity="error")
            return
        self.query_one("#profile-result", Static).update(render_result(result))
        editor.place_errors(parse_validations(result.Validations))
        if result.Success:
            self.baseline = editor.data()
            self.notify(result.Message or f"{record.kind.title()} profile imported.")
        else:
            editor.focus_first_error()
            self.notify(
                result.Message or "The service did not import the profile.",
                title="Not imported",
                severity="error",
            )

    # --- open, new ---

    @on(Button.Pressed, "#profile-open")
    def action_open(self) -> None:
        editor = self.editor
        data = editor.data()
        if not data.get("ProfileKey"):
            self.set_focus(self.query_one("#" + widget_id("ProfileKey"), Input))
            self.notify("Type the ProfileKey (and the Ssn or Tin) of the profile, then "
                        f"{self.key('profiles.open')}.")  # fmt: skip
            return
        self.open_profile(
            editor.kind, data["ProfileKey"], data.get(editor.model.id_field), typed=True
        )

    @work(exclusive=True, group="profile-open")
    async def open_profile(
        self, kind: str, key: str, identity: str | None = None, *, typed: bool = False
    ) -> None:
        """Read a profile through export (its profile data sets) and load it. ``typed``:
        its ProfileKey (and ``identity``) typed in the form to open it (F2), a change that
        may go unasked; opened from Export, an Ssn edited here was replaced without a word
        (QA)."""
        typed_only = typed and not self._dirty(but_identity=True)
        if not typed_only and not await self.may_discard():
            return
        try:
            client = await self.app.client()
            export = await getattr(client, f"export_{kind}")(
                {"profileKey": key, "dataSets": list(PROFILE_DATA_SETS[kind])}
            )
            record = record_from_data_sets(kind, export.dataSets or [])
        except ClientError as exc:
            self.notify(exc.message, title="Cannot open the profile", severity="error")
            return
        except ContractError as exc:
            self.notify(str(exc), title="The export does not make a profile", severity="error")
            return
        if identity and record.identity[1] != identity:
            self.notify(
                f"The {kind} profile {key} has another {record.id_field}.",
                title="Not opened",
                severity="warning",
            )
            return
        await self.show_profile(kind, record.model_dump(mode="json", exclude_none=True))
        self.notify(f"Opened {kind} profile {key}.")

    @work(exclusive=True, group="profile-open")
    async def action_new(self) -> None:
        if await self.may_discard():
            await self.show_profile(self.editor.kind, {})
            self.editor.focus_first_field()

    # --- files ---

    def _default_path(self) -> str:
        editor = self.editor
        return f"{editor.kind}-{file_name_part(editor.data().get('ProfileKey') or 'profile')}.xml"

    @on(Button.Pressed, "#profile-save")
    def action_save(self) -> None:
        self.ask_path(
            "Save the profile as .xml, or as .ndjson (one bulk import line)",
            self._default_path(),
            self._save,
        )

    @work(exclusive=True, group="profile-file")
    async def _save(self, path: Path | None) -> None:
        if path is None:
            return
        try:
            xml = profile_file_format(path) == "xml"  # refused before asking to replace
        except ValueError as exc:
            self.notify(file_problem(path, exc), title="Not saved", severity="error")
            return
        if not await may_replace(self.app, [path]):
            return
        editor = self.editor
        data = editor.data()
        if xml:
            xml_data, dropped = editor.xml_parts()
            record, errors = check(editor.model, xml_data, XML)
            try:
                content = profile_xml(editor.kind, record or xml_data)
            except WireError as exc:  # a draft, but one XML cannot hold (a control character)
                editor.place_errors(errors)
                editor.focus_first_error()
                self.notify(f"{exc}; an .ndjson line can hold it.", title="Not saved",
                            severity="error")  # fmt: skip
                return
            note = f" as a draft: {len(errors)} problem(s) left" if errors else ""
            note += f"; not in XML: {', '.join(dropped)}" if dropped else ""
        else:
            record, errors = check(editor.model, data)
            if record is None:
                editor.place_errors(errors)
                editor.focus_first_error()
                self.notify(
                    "A bulk import line must be a valid record: " + "; ".join(map(str, errors[:4])),
                    title="Not saved",
                    severity="error",
                )
                return
            content, note = profile_line(record), ""
        try:
            # 0600: a profile holds an SSN or a FEIN. On a thread: the folder may be slow.
            await asyncio.to_thread(write_private, path, content)
        except OSError as exc:
            self.notify(file_problem(path, exc), severity="error")
            return
        self.baseline = data
        self.notify(f"Saved to {path.absolute()}{note}")

    @on(Button.Pressed, "#profile-load")
    def action_load(self) -> None:
        self.ask_path(
            "Load a profile (.xml, or .ndjson: its first record)", self._default_path(), self._load
        )

    @work(exclusive=True, group="profile-file")
    async def _load(self, path: Path | None) -> None:
        if path is None:
            return
        many: ManyRecords | None = None
        try:
            kind, data = await asyncio.to_thread(read_profile, path)
        except ManyRecords as exc:  # the first is one to edit; the rest are said to be left
            kind, data, many = exc.kind, exc.data, exc
        except (OSError, ValueError) as exc:
            self.notify(file_problem(path, exc), severity="error")
            return
        if not await self.may_discard():
            return
        # The form has no place for them: say so rather than keep them as errors no
        # field shows, or drop them without a word.
        data, unknown = without_unknown(RECORD_MODELS[kind], data)
        await self.show_profile(kind, data)
        note = f"Loaded the {kind} profile from {path}"
        if many is not None:
            note += (f", its first record: the file holds more (the next on line "
                     f"{many.next_line}), which the Bulk area imports")  # fmt: skip
        if unknown:
            note += f"; left out what is not a field of an {kind} profile: {', '.join(unknown)}"
        # Every problem of the file at once, as after a failed import.
        valid = self.editor.xml_record() is not None
        if not valid:
            self.editor.focus_first_error()
            note += ". Correct the fields marked ✗ before importing."
        quiet = valid and not unknown and many is None
        self.notify(note, severity="information" if quiet else "warning")
