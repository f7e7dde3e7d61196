"""``ProfileEditor``: an agent or agency profile as a form generated from its contract
model, validated as the XML document it becomes, with an agency's Contacts as a list of
forms among the sections.

Fields the XML document cannot carry (DynamicData outside BusinessAddress, an agent's
bulk-only employment address, ...) have no input. When a loaded profile holds some, they
are kept aside and come back in :meth:`ProfileEditor.data`, so nothing loaded is lost.
The widget talks to no service; the screen does.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from textual import on
from textual.containers import Vertical
from textual.widget import Widget

from tui_app.contract.errors import FieldError
from tui_app.contract.profile import AgencyContact
from tui_app.contract.profile_sets import RECORD_MODELS, Record
from tui_app.export_files import split_for_xml, xml_input_excludes
from tui_app.ui.fields import check, set_path
from tui_app.ui.widgets.field_group import FieldGroup
from tui_app.ui.widgets.model_form import ModelForm, title_group, widget_id
from tui_app.ui.widgets.model_list import ModelList

XML = {"format": "xml"}


def contact_summary(contact: Mapping[str, Any]) -> str:
    """Who a contact is, for its title: its type, name and email, as far as filled."""
    name = " ".join(str(contact[k]) for k in ("FirstName", "LastName") if contact.get(k))
    parts = (contact.get("ContactType"), name, contact.get("EmailAddress"))
    return " · ".join(str(part) for part in parts if part)


class ProfileEditor(Vertical):
    def __init__(self, *, contacts_hint: str, id: str | None = None) -> None:
        super().__init__(id=id)
        self.contacts_hint = contacts_hint
        """Says how contacts are added and removed, under an agency's contacts."""
        self.kind = "agent"
        self.form: ModelForm | None = None
        self.contacts: ModelList | None = None
        self.held: dict[str, Any] = {}
        """Values of the loaded profile the XML document cannot carry, by path."""
        self.had_contacts = False
        self._marked: list[FieldGroup] = []
        """Section groups whose title carries an error."""
        self._contacts_notes: list[str] = []
        """Errors naming the Contacts section as a whole, for its title."""

    @property
    def model(self) -> type[Record]:
        return RECORD_MODELS[self.kind]

    async def load(self, kind: str, data: Mapping[str, Any]) -> None:
        """Show a profile (by field names, either form of each section) in a form built
        afresh, so nothing typed before counts as touched."""
        self.kind = kind
        await self.remove_children()
        self.form = ModelForm(
            self.model, context=XML, exclude=xml_input_excludes(self.model), id="profile-form"
        )
        await self.mount(self.form)
        self.contacts = None
        if kind == "agency":
            self.contacts = ModelList(
                AgencyContact,
                item_name="Contact",
                id="contacts",
                hint=self.contacts_hint,
                summary=contact_summary,
            )
            # A group among the form's own, in the record's order, scrolling with them.
            await self.form.mount(
                FieldGroup(self.contacts, title="Contacts", id="contacts-group"),
                before="#" + widget_id("Demographic") + "-group",
            )
        values = dict(data)
        contacts = values.pop("Contacts", None) or []
        shown, self.held = split_for_xml(self.model, values)
        self.form.load(shown)
        if self.contacts is not None:
            await self.contacts.load(contacts)
        self.had_contacts = bool(contacts)
        self._marked = []
        self._contacts_notes = []
        self._title_contacts()

    def data(self) -> dict[str, Any]:
        """The whole profile: the form, the values kept aside (where their section still
        is), the contacts."""
        assert self.form is not None
        data = self.form.data()
        for path, value in self.held.items():
            section = path.rpartition(".")[0]
            if not section or section in data:
                set_path(data, path, value)
        if self.contacts is not None:
            items = self.contacts.data()
            # An emptied list is sent, so the import clears the stored contacts.
            if items or self.had_contacts:
                data["Contacts"] = items
        return data

    def xml_parts(self) -> tuple[dict[str, Any], dict[str, Any]]:
        """(what the XML document carries, what it leaves out by path)."""
        return split_for_xml(self.model, self.data())

    def xml_record(self) -> Record | None:
        """The profile as the import sends it, or None with every error shown."""
        assert self.form is not None
        ok = self.form.result() is not None
        ok = (self.contacts is None or self.contacts.validate()) and ok
        record, errors = check(self.model, self.xml_parts()[0], XML) if ok else (None, [])
        self.mark_groups(errors)
        return record

    # --- contacts ---

    async def add_contact(self) -> ModelForm | None:
        if self.contacts is None:
            return None
        self._contacts_group.collapsed = False
        return await self.contacts.add()

    async def remove_contact(self, near: Widget | None) -> bool:
        """Remove the contact holding ``near`` (the focus: in its fields or on its title);
        False if the focus is in none (the last contact went, unseen, from a key pressed
        in the ProfileKey)."""
        form = self.contacts.form_of(near) if self.contacts is not None else None
        if self.contacts is None or form is None:
            return False
        await self.contacts.remove_form(form)
        self._title_contacts()
        return True

    # --- errors ---

    def place_errors(self, errors: list[FieldError]) -> None:
        """Put errors (a server's) on the inputs they name, opening their sections; an
        error naming a whole section (``Demographic: is required for a new agent
        profile``) or a field without an input goes on the title of its section."""
        assert self.form is not None
        listed = [e for e in errors if e.path.startswith("Contacts[")]
        self.form.show_errors([e for e in errors if e not in listed])
        named = {e.path for e in errors}
        for path in self.form.error_paths():
            if path in named:
                self.form.open_to(path)
        rest = self.form.unmatched_errors()
        if self.contacts is not None:
            rest += self.contacts.show_errors(
                FieldError(e.path.removeprefix("Contacts"), e.message) for e in listed
            )
        self.mark_groups(rest)

    def mark_groups(self, errors: list[FieldError]) -> None:
        """Show ``errors`` on the titles of their sections, opened (clearing earlier marks)."""
        assert self.form is not None
        notes: dict[str, list[str]] = {}
        for err in errors:
            section, _, rest = err.path.split("[")[0].partition(".")
            notes.setdefault(section, []).append(f"✗ {rest + ': ' if rest else ''}{err.message}")
        self.form.note_groups(notes)
        self._marked = []
        for section in notes:
            group = self._group(section)
            if group is not None:
                self._marked.append(group)
                group.collapsed = False
        self._contacts_notes = notes.get("Contacts", [])
        self._title_contacts()

    @on(ModelForm.Changed)
    def _title_contacts(self) -> None:
        """Title the Contacts section with the fields to correct in its contacts and what
        is wrong with it as a whole, so it says so collapsed."""
        if self.contacts is None:
            return
        title_group(
            self._contacts_group,
            "Contacts",
            self._contacts_notes,
            to_correct=self.contacts.fields_to_correct,
        )

    @property
    def _contacts_group(self) -> FieldGroup:
        return self.query_one("#contacts-group", FieldGroup)

    def _group(self, section: str) -> FieldGroup | None:
        group_id = "contacts-group" if section == "Contacts" else widget_id(section) + "-group"
        return self.query_one_optional("#" + group_id, FieldGroup) if section else None

    def focus_first_field(self) -> None:
        assert self.form is not None
        self.form.focus_first_field()

    def focus_first_error(self) -> bool:
        assert self.form is not None
        if self.form.focus_first_error():
            return True
        if self.contacts is not None and self.contacts.focus_first_error():
            self._contacts_group.collapsed = False  # else the focus is in a closed section
            return True
        for group in self._marked:
            if self.form.focus_group(group):
                return True
            controls = group.query(".field-row > Input, .field-row > Select")  # contacts
            if controls:
                controls.first().focus()
                return True
        return False
