"""``ModelList``: an editable list of one contract model (an agency's Contacts), one
:class:`ModelForm` per item. The screen owns the keys that add and remove items. Each
item keeps the fields it has no input for (DynamicData), as a ModelForm does."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import BaseModel
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widget import Widget
from textual.widgets import Collapsible, Static

from tui_app.contract.errors import FieldError
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
        context: dict | None = None,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self.model = model
        self.item_name = item_name
        self.hint = hint
        self.context = context
        self._made = 0  # ids stay unique while items come and go

    def compose(self) -> ComposeResult:
        yield Static(self.hint, classes="model-list-hint")

    @property
    def forms(self) -> list[ModelForm]:
        return list(self.query(ModelForm))

    def data(self) -> list[dict[str, Any]]:
        return [form.data() for form in self.forms]

    async def load(self, items: Iterable[Mapping[str, Any]]) -> None:
        await self.query(Collapsible).remove()
        for item in items:
            await self.add(item)

    async def add(self, values: Mapping[str, Any] | None = None) -> ModelForm:
        """Append an item (blank, or filled with ``values``) and return its form."""
        self._made += 1
        form = ModelForm(self.model, context=self.context, id=f"{self.id}-{self._made}")
        title = f"{self.item_name} {len(self.forms) + 1}"
        await self.mount(Collapsible(form, title=title, collapsed=False))
        form.load(values or {})
        self._retitle()
        return form

    async def remove_form(self, form: ModelForm) -> None:
        await self._holder(form).remove()
        self._retitle()

    def form_of(self, widget: Widget | None) -> ModelForm | None:
        """The item form holding ``widget`` (e.g. the focused input), if any."""
        for node in (widget, *(widget.ancestors if widget else ())):
            if isinstance(node, ModelForm) and node in self.forms:
                return node
        return None

    def _holder(self, form: ModelForm) -> Collapsible:
        return next(a for a in form.ancestors if isinstance(a, Collapsible))

    @property
    def fields_to_correct(self) -> int:
        return sum(form.fields_to_correct for form in self.forms)

    def _retitle(self) -> None:
        """Number the items, each title counting the fields to correct inside it, so a
        collapsed item still says it holds an error."""
        for n, form in enumerate(self.forms, 1):
            title_group(
                self._holder(form), f"{self.item_name} {n}", to_correct=form.fields_to_correct
            )

    @on(ModelForm.Changed)
    def _edited(self) -> None:
        self._retitle()  # and the change goes on up: the list's owner counts it too

    # --- validation ---

    def validate(self) -> bool:
        """Check every item, showing all errors; True when every item is valid."""
        valid = all([form.result() is not None for form in self.forms])  # a list: check all
        self._retitle()
        return valid

    def show_errors(self, errors: Iterable[FieldError]) -> list[FieldError]:
        """Place errors named ``[i].Field`` on item i; returns those naming no item."""
        forms = self.forms
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
        self._retitle()
        return rest

    def focus_first_error(self) -> bool:
        for form in self.forms:
            if form.error_paths():
                self._holder(form).collapsed = False
                return form.focus_first_error()
        return False
