"""``ModelList``: an editable list of one contract model (an agency's Contacts), one
:class:`ModelForm` per item in a collapsible titled with who it is. The screen owns the
keys that add and remove items. Each item keeps the fields it has no input for
(DynamicData), as a ModelForm does.

An item's form is built (its widgets mounted) when the item first opens: a form holds its
values and errors without widgets, and an agency of 60 contacts built whole took 12 s to
load and half a second a key after. Loaded items start closed; an added one starts open.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from pydantic import BaseModel
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widget import AwaitMount, Widget
from textual.widgets import Collapsible, Static

from tui_app.contract.errors import FieldError
from tui_app.ui.widgets.field_group import FieldGroup
from tui_app.ui.widgets.model_form import ModelForm, title_group

_ITEM = re.compile(r"\[(\d+)\]\.?(.*)")


class ModelList(Vertical):
    DEFAULT_CLASSES = "model-list"

    def __init__(
        self,
        model: type[BaseModel],
        *,
        item_name: str,
        hint: str = "",
        summary: Callable[[dict[str, Any]], str] | None = None,
        context: dict | None = None,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self.model = model
        self.item_name = item_name
        self.hint = hint
        self.summary = summary
        """Says who an item is (from its data), after its number in its title."""
        self.context = context
        self._forms: list[ModelForm] = []
        self._holders: dict[ModelForm, FieldGroup] = {}
        self._building: dict[ModelForm, AwaitMount] = {}
        """Forms of items opened, until their inputs exist."""
        self._made = 0  # ids stay unique while items come and go

    def compose(self) -> ComposeResult:
        yield Static(self.hint, classes="model-list-hint")

    @property
    def forms(self) -> list[ModelForm]:
        """Every item's form, in order, built or not."""
        return list(self._forms)

    def data(self) -> list[dict[str, Any]]:
        return [form.data() for form in self._forms]

    async def load(self, items: Iterable[Mapping[str, Any]]) -> None:
        """Show ``items``, each closed (its form built when it opens)."""
        await self.query(Collapsible).remove()
        self._forms, self._holders, self._building = [], {}, {}
        holders = [self._item(values, open_=False) for values in items]
        await self.mount_all(holders)  # one mount: one restyle and layout for all
        self._retitle()

    async def add(self, values: Mapping[str, Any] | None = None) -> ModelForm:
        """Append an item (blank, or filled with ``values``), open, and return its form."""
        holder = self._item(values or {}, open_=True)
        await self.mount(holder)
        self._retitle()
        return self._forms[-1]

    def _item(self, values: Mapping[str, Any], *, open_: bool) -> FieldGroup:
        self._made += 1
        form = ModelForm(self.model, context=self.context, id=f"{self.id}-{self._made}")
        form.load(values)
        # Born with the class its state gives it (Collapsible adds it on mount otherwise).
        holder = FieldGroup(
            *([form] if open_ else []),
            title=self.item_name,
            collapsed=not open_,
            classes="" if open_ else "-collapsed",
        )
        self._forms.append(form)
        self._holders[form] = holder
        return holder

    def open(self, form: ModelForm) -> AwaitMount | None:
        """Open ``form``'s item, building the form if it is not yet: the mounting to
        await before its inputs exist, or None when they do."""
        holder = self._holders[form]
        holder.collapsed = False
        if form.is_mounted:
            return None
        if form not in self._building:
            self._building[form] = holder.query_one(Collapsible.Contents).mount(form)
        return self._building[form]

    @on(Collapsible.Expanded)
    async def _expanded(self, event: Collapsible.Expanded) -> None:
        form = next((f for f, h in self._holders.items() if h is event.collapsible), None)
        if form is not None:
            event.stop()
            mounting = self.open(form)
            if mounting is not None:
                await mounting

    async def remove_form(self, form: ModelForm) -> None:
        holder = self._holders.pop(form)
        self._building.pop(form, None)
        self._forms.remove(form)
        await holder.remove()
        self._retitle()

    def form_of(self, widget: Widget | None) -> ModelForm | None:
        """The item holding ``widget`` (the focused input, or an item's title), if any."""
        for node in (widget, *(widget.ancestors if widget else ())):
            for form, holder in self._holders.items():
                if node is form or node is holder:
                    return form
        return None

    @property
    def fields_to_correct(self) -> int:
        return sum(form.fields_to_correct for form in self._forms)

    def _retitle(self) -> None:
        """Number the items, say who each is, and count the fields to correct inside it,
        so a closed item still says it holds an error."""
        for n, form in enumerate(self._forms, 1):
            who = self.summary(form.data()) if self.summary else ""
            name = f"{self.item_name} {n}" + (f": {who}" if who else "")
            title_group(self._holders[form], name, to_correct=form.fields_to_correct)

    @on(ModelForm.Changed)
    def _edited(self) -> None:
        self._retitle()  # and the change goes on up: the list's owner counts it too

    # --- validation ---

    def validate(self) -> bool:
        """Check every item, showing all errors (the first item holding one opens); True
        when every item is valid."""
        valid = all([form.result() is not None for form in self._forms])  # a list: check all
        self._open_invalid()
        self._retitle()
        return valid

    def show_errors(self, errors: Iterable[FieldError]) -> list[FieldError]:
        """Place errors named ``[i].Field`` on item i (the first such item opens); returns
        those naming no item."""
        forms = self._forms
        per_item: dict[int, list[FieldError]] = {}
        rest: list[FieldError] = []
        for err in errors:
            found = _ITEM.fullmatch(err.path)
            if found and int(found[1]) < len(forms):
                per_item.setdefault(int(found[1]), []).append(FieldError(found[2], err.message))
            else:
                rest.append(err)
        for i, form in enumerate(forms):
            form.show_errors(per_item.get(i, []))
        self._open_invalid()
        self._retitle()
        return rest

    def _open_invalid(self) -> None:
        """Open the first item at fault; the others' titles count their errors (opening
        all would build them all: 60 contacts short of an email took 7 s again)."""
        first = next((form for form in self._forms if form.error_paths()), None)
        if first is not None:
            self.open(first)

    def focus_first_error(self) -> bool:
        form = next((f for f in self._forms if f.error_paths()), None)
        if form is None:
            return False
        mounting = self.open(form)
        if mounting is None:
            return form.focus_first_error()

        async def focus_when_built() -> None:
            await mounting
            form.focus_first_error()

        self.call_later(focus_when_built)
        return True
