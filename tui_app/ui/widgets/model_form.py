"""``ModelForm``: a form generated from a contract model, validating as the user types.

Each field's bounds become its live check, a ``Literal`` or enum becomes a select, a nested
object a collapsible group. Errors are the contract's own messages (``must be exactly 2
characters``), shown under the field they name, including a cross-field rule's message on
every field it names. Warnings (``⚠``) are our habits beyond the spec (a 9-digit SSN, a
known state code): shown the same way, they never block a submit (issue 10). The widget
knows nothing of orders or searches.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from copy import deepcopy
from typing import Any

from pydantic import BaseModel
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.markup import escape
from textual.message import Message
from textual.widget import AwaitMount, Widget
from textual.widgets import Collapsible, Input, Label, Select, Static

from tui_app.contract.base import warnings
from tui_app.contract.errors import FieldError
from tui_app.pii import pii_kind
from tui_app.ui.fields import (
    FieldSpec,
    GroupSpec,
    check,
    describe,
    flatten,
    from_text,
    get_path,
    groups,
    prune,
    set_path,
    to_text,
)
from tui_app.ui.widgets.field_group import FieldGroup
from tui_app.ui.widgets.snug_static import SnugStatic
from tui_app.ui.widgets.text_input import TextInput
from tui_app.words import counted


def widget_id(path: str) -> str:
    return "f-" + path.replace(".", "--")


def title_group(
    group: FieldGroup, name: str, notes: Sequence[str] = (), *, to_correct: int = 0
) -> None:
    """Title ``group`` with its ``name``, how many fields inside it to correct and what
    else is wrong with it, so a collapsed group still says it holds an error."""
    count = [f"✗ {counted(to_correct, 'field')} to correct"] if to_correct else []
    title = escape("  ".join([name, *count, *notes]))  # a service's words, not markup
    if group.title != title:
        group.title = title
        group.invalid = bool(to_correct or notes)


def _choices(spec: FieldSpec, text: str) -> list[tuple[Text, str]]:
    """A choice field's options; a value from elsewhere that is none of them (a service's
    EmpStatus 7099) is added, shown as what it is, and the contract's error flags it.
    Prompts are Text: a Select reads a string as markup, and a file's ``[/x]`` ended the
    app."""
    options = list(zip(spec.labels or spec.choices, spec.choices, strict=True))
    if text and text not in spec.choices:
        options.append((f"{text} (not one of the choices)", text))
    return [(Text(label), value) for label, value in options]


class ModelForm(VerticalScroll, can_focus=False):
    """A form for ``model``. ``fields`` limits and orders the top-level fields shown;
    ``fixed`` values are merged in before validation (e.g. the SearchType picked
    elsewhere); ``required`` marks conditionally required fields."""

    DEFAULT_CLASSES = "model-form"
    DEFAULT_CSS = """
    ModelForm .field-error.-warning { color: $warning; }
    """

    class Submitted(Message):
        """Enter was pressed in one of the form's inputs."""

        def __init__(self, form: ModelForm) -> None:
            super().__init__()
            self.form = form

    class Changed(Message):
        def __init__(self, form: ModelForm) -> None:
            super().__init__()
            self.form = form

    def __init__(
        self,
        model: type[BaseModel],
        *,
        fields: Iterable[str] | None = None,
        required: Iterable[str] = (),
        fixed: Mapping[str, Any] | None = None,
        context: dict | None = None,
        layout: Mapping[str, Sequence[str]] | None = None,
        open_groups: Iterable[str] = (),
        exclude: Iterable[str] = (),
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(id=id, classes=classes)
        self.model = model
        self.fixed = dict(fixed or {})
        self.context = context
        self.open_groups = set(open_groups)
        self.specs = describe(
            model,
            list(fields) if fields else None,
            required=required,
            layout=layout,
            exclude=frozenset(exclude),
        )
        self.inputs = {spec.path: spec for spec in flatten(self.specs)}
        self._text = dict.fromkeys(self.inputs, "")
        """Each input's text, built or not: what :meth:`data` reads."""
        self._marks: dict[str, tuple[str, bool]] = {}
        """Each input's error line as shown (or to show once built), and if it blocks."""
        self._controls: dict[str, Input | Select[str]] = {}
        self._boxes: dict[str, Vertical] = {}
        self._error_lines: dict[str, Static] = {}
        self.group_specs = {spec.path: spec for spec in groups(self.specs)}
        self._above: dict[str, list[str]] = {}
        """The groups holding each field, outer first: by the spec tree, not the path (a
        layout's "more fields" group holds data.feinNumber, and no prefix says so)."""
        for group in self.group_specs.values():  # outer before inner
            for child in group.children:
                self._above[child.path] = [*self._above.get(group.path, []), group.path]
        self._groups: dict[str, FieldGroup] = {}
        self._group_notes: dict[str, list[str]] = {}
        """What the caller says is wrong with a group as a whole, on its title."""
        self._built: dict[str, AwaitMount | None] = {}
        """Groups whose fields exist, with their mounting (None: built with the form)."""
        self._base: dict[str, Any] = {}
        self._touched: set[str] = set()
        self._show_all = False
        self._server_errors: list[FieldError] = []
        self.errors: list[FieldError] = []
        self.warnings: list[FieldError] = []
        """Habits of ours the data breaks: shown on the field, never blocking."""

    def on_mount(self) -> None:
        # Personal data typed or loaded into the form is masked like everywhere else.
        if hasattr(self.app, "reveal_pii"):
            self.watch(self.app, "reveal_pii", self._reveal)

    def _reveal(self, reveal: bool) -> None:
        # Every input built, mounted or still mounting (a group just opened).
        for control in self._controls.values():
            if isinstance(control, Input) and control.has_class("pii"):
                control.password = not reveal

    # --- layout ---
    # A collapsed group's fields are built when it first opens: an order form has some
    # 350 widgets in collapsed groups, a profile 600, and styling them was most of the
    # time an area took to open. The form's values and errors live in ``_text`` and
    # ``_marks`` for every field; the widgets of a built field mirror them.

    def compose(self) -> ComposeResult:
        yield from self._widgets(self.specs)

    def _widgets(self, specs: Iterable[FieldSpec | GroupSpec]) -> list[Widget]:
        return [self._group(s) if isinstance(s, GroupSpec) else self._field(s) for s in specs]

    def _group(self, spec: GroupSpec) -> FieldGroup:
        """A collapsible group, its fields built now only if it starts open."""
        open_ = spec.path in self.open_groups
        # Born with the class its state gives it: Collapsible adds "-collapsed" on mount
        # otherwise, and each such change restyles the group's whole subtree.
        group = FieldGroup(
            *(self._widgets(spec.children) if open_ else ()),
            title=spec.name,
            collapsed=not open_,
            id=widget_id(spec.path) + "-group",
            classes="" if open_ else "-collapsed",
        )
        self._groups[spec.path] = group
        if open_:
            self._built[spec.path] = None
        return group

    def _field(self, spec: FieldSpec) -> Widget:
        """One row: the field's name (``*`` when required) beside its input, the bound in
        the input's placeholder, and the error, when there is one, underneath."""
        wid = widget_id(spec.path)
        text = self._text[spec.path]
        control: Input | Select[str]
        if spec.kind == "choice":
            control = Select(
                _choices(spec, text),
                compact=True,
                id=wid,
                allow_blank=True,
                prompt="choose…" if spec.required else "(none)",
                value=text or Select.NULL,
            )
        else:
            pii = pii_kind(spec.name) is not None
            control = TextInput(
                text,
                id=wid,
                compact=True,
                placeholder=spec.hint,
                type="integer" if spec.kind == "int" else "text",
                password=pii and not getattr(self.app, "reveal_pii", False),
                classes="pii" if pii else None,
                tooltip=spec.hint or None,
            )
        mark = " *" if spec.required else ""
        error = SnugStatic("", classes="field-error", id=wid + "-error", markup=False)
        box = Vertical(
            Horizontal(
                Label(f"{spec.name}{mark}", classes="field-label"), control, classes="field-row"
            ),
            error,
            classes="field",
            id=wid + "-box",
        )
        self._controls[spec.path], self._boxes[spec.path] = control, box
        self._error_lines[spec.path] = error
        self._show_mark(spec.path)
        return box

    async def reveal(self, path: str) -> Input | Select[str]:
        """The input of ``path``, its groups opened (and built) first."""
        for group in self._groups_above(path):
            await self._build(group)
            self._groups[group].collapsed = False
        return self._controls[path]

    def bring_into_view(self, widget: Widget) -> None:
        """Scroll so ``widget``, somewhere inside this form, is in its view. By the regions
        on screen: Textual's ``scroll_to_widget`` sums the offsets of the containers in
        between, and misses a row for each padded one (a field in a contact, inside two
        collapsibles, stayed a row below the view at 80x24; QA)."""
        view, region = self.scrollable_content_region, widget.region
        if region.bottom > view.bottom:
            self.scroll_relative(y=min(region.bottom - view.bottom, region.y - view.y),
                                 animate=False)  # fmt: skip
        elif region.y < view.y:
            self.scroll_relative(y=region.y - view.y, animate=False)

    def open_to(self, path: str) -> None:
        """Open (and build) the groups holding ``path``'s input, soon."""
        self.call_later(self.reveal, path)

    def _groups_above(self, path: str) -> list[str]:
        return self._above.get(path, [])

    async def _build(self, group: str) -> None:
        if group not in self._built:
            contents = self._groups[group].query_one(Collapsible.Contents)
            children = self.group_specs[group].children
            self._built[group] = contents.mount_all(self._widgets(children))
        mounting = self._built[group]
        if mounting is not None:
            await mounting

    @on(Collapsible.Expanded)
    async def _expanded(self, event: Collapsible.Expanded) -> None:
        path = self._path_of(event.collapsible.id, "-group")
        if path is not None and self._groups.get(path) is event.collapsible:
            event.stop()
            await self._build(path)

    # --- values ---

    def load(self, data: BaseModel | Mapping[str, Any]) -> None:
        """Fill the form. Fields without an input (e.g. ``DynamicData``) are kept and
        come back unchanged from :meth:`data`, so loading and reading back loses nothing."""
        if isinstance(data, BaseModel):
            data = data.model_dump(mode="json", by_alias=False, exclude_none=True)
        self._base = deepcopy(dict(data))
        with self.prevent(Input.Changed, Select.Changed):
            self._fill()
        # A value filled in counts as given: a draft or a file may hold a bad one, and it
        # shows (and counts on its group's title) at once. An empty field waits, as in a
        # new form, until it is touched or the form is submitted.
        self._touched = {path for path, text in self._text.items() if text}
        self._show_all = False
        self._server_errors = []
        self.refresh_errors()

    def _fill(self) -> None:
        for path, spec in self.inputs.items():
            value = get_path(self._base, path)
            self._text[path] = to_text(spec, value) if value is not None else ""
            widget = self._controls.get(path)
            if isinstance(widget, Select):
                widget.set_options(_choices(spec, self._text[path]))
                widget.value = self._text[path] or Select.NULL
            elif widget is not None:
                widget.value = self._text[path]

    def data(self) -> dict[str, Any]:
        """The form's values as the model's dict (blank inputs left out)."""
        out = deepcopy(self._base)
        for path, spec in self.inputs.items():
            set_path(out, path, from_text(spec, self._text[path]))
        for path, value in self.fixed.items():
            set_path(out, path, value)
        return prune(out)

    def result(self) -> BaseModel | None:
        """The validated model, or ``None`` with every error shown."""
        self._show_all = True
        return self._validate()

    # --- errors ---

    def show_errors(self, errors: Iterable[FieldError]) -> None:
        """Place errors from elsewhere (a server's rejection) on the fields they name."""
        self._server_errors = list(errors)
        self._show_all = True
        self.refresh_errors()

    def refresh_errors(self) -> None:
        self._validate()

    def _validate(self) -> BaseModel | None:
        """Check the form's data (read once: it runs on every keystroke) and paint."""
        data = self.data()
        model, self.errors = check(self.model, data, self.context)
        self.warnings = [FieldError(p, m) for p, m in warnings(self.model, data, self.context)]
        self._paint(data)
        return model

    def _paint(self, data: dict[str, Any]) -> None:
        """Show each field's errors once it was touched (or after a submit); a cross-field
        rule's errors show on every field it names as soon as the user starts typing."""
        rules = getattr(self.model, "rule_errors", None)
        ruled = {self._owner(p) for p, _ in rules(data)} if rules and self._touched else set()
        by_path: dict[str, list[str]] = {}
        for err in [*self.errors, *self._server_errors]:
            by_path.setdefault(self._owner(err.path), []).append(f"✗ {err.message}")
        invalid = set(by_path)
        for warning in self.warnings:
            owner = self._owner(warning.path)
            if owner not in invalid:  # an error says enough; its warning waits
                by_path.setdefault(owner, []).append(f"⚠ {warning.message}")
        for path in self.inputs:
            visible = self._show_all or path in self._touched or path in ruled
            text = "\n".join(by_path.get(path, [])) if visible else ""
            mark = (text, bool(text) and path in invalid)
            if self._marks.get(path, ("", False)) != mark:
                self._marks[path] = mark
                self._show_mark(path)
        self._title_groups()

    def note_groups(self, notes: Mapping[str, list[str]]) -> None:
        """Put ``notes`` (errors naming a group, or a field without an input) on the titles
        of the groups they name, replacing earlier ones."""
        self._group_notes = dict(notes)
        self._title_groups()

    def _title_groups(self) -> None:
        invalid = Counter(
            group
            for path, (_, blocks) in self._marks.items()
            if blocks
            for group in self._groups_above(path)
        )
        for path, group in self._groups.items():
            name, notes = self.group_specs[path].name, self._group_notes.get(path, [])
            title_group(group, name, notes, to_correct=invalid[path])

    def _show_mark(self, path: str) -> None:
        if path not in self._boxes:
            return  # not built: shown when its group opens
        text, invalid = self._marks.get(path, ("", False))
        self._boxes[path].set_class(invalid, "-invalid")
        self._error_lines[path].update(text)
        self._error_lines[path].set_class(bool(text), "-shown")
        self._error_lines[path].set_class(bool(text) and not invalid, "-warning")

    def _owner(self, path: str) -> str:
        """The input an error belongs to: ``data.loa[0]`` belongs to ``data.loa``."""
        base = path.split("[")[0]
        while base and base not in self.inputs:
            base = base.rpartition(".")[0]
        return base or path

    @property
    def fields_to_correct(self) -> int:
        """How many fields show an error that blocks (a group's title counts them)."""
        return sum(blocks for _, blocks in self._marks.values())

    def error_paths(self) -> list[str]:
        return [
            p
            for p in self.inputs
            if any(self._owner(e.path) == p for e in [*self.errors, *self._server_errors])
        ]

    def marked(self) -> list[str]:
        """Inputs marked ✗ on screen now (an error shown; a warning does not count)."""
        return [path for path, (_, blocks) in self._marks.items() if blocks]

    def focus_first_error(self) -> bool:
        """Move focus to the first invalid field, opening its group. False if none."""
        for path in self.error_paths():
            self._focus(path)
            return True
        return False

    def focus_first_field(self) -> None:
        """Move focus to the form's first field, opening its group."""
        if self.inputs:
            self._focus(next(iter(self.inputs)))

    def focus_group(self, group: Collapsible) -> bool:
        """Move focus to the first field of ``group``, if it is one of this form's."""
        path = self._path_of(group.id, "-group")
        if path is None:
            return False
        first = next((p for p in self.inputs if p.startswith(f"{path}.")), None)
        if first is None:
            return False
        self._focus(first)
        return True

    def _focus(self, path: str) -> None:
        above = self._groups_above(path)
        # Built already: focus now, in order with what the caller does next (a tab it
        # switches to); only a group still to build makes it wait.
        if all(group in self._built for group in above):
            for group in above:
                self._groups[group].collapsed = False
            self._controls[path].focus()
            return

        async def reveal_and_focus() -> None:
            (await self.reveal(path)).focus()

        self.call_later(reveal_and_focus)

    def warning_paths(self) -> list[str]:
        """Inputs with a warning (never blocking a submit)."""
        return [p for p in self.inputs if any(self._owner(w.path) == p for w in self.warnings)]

    def unmatched_errors(self) -> list[FieldError]:
        """Errors that name no input of this form (shown by the caller as a summary)."""
        return [
            e
            for e in [*self.errors, *self._server_errors]
            if self._owner(e.path) not in self.inputs
        ]

    # --- events ---

    def _path_of(self, widget_id_: str | None, suffix: str = "") -> str | None:
        """The path of one of this form's inputs (or, with ``-group``, its groups)."""
        if not widget_id_ or not widget_id_.startswith("f-") or not widget_id_.endswith(suffix):
            return None
        path = widget_id_[2 : len(widget_id_) - len(suffix)].replace("--", ".")
        return path if path in (self.group_specs if suffix else self.inputs) else None

    @on(Input.Changed)
    @on(Select.Changed)
    def _changed(self, event: Input.Changed | Select.Changed) -> None:
        path = self._path_of(event.control.id)
        if path is None:
            return
        event.stop()
        value = event.value
        if value != event.control.value:
            return  # stale: the field was filled again (a load) before this arrived
        text = "" if value is Select.NULL else str(value)
        if text == self._text[path]:
            return  # a field built (or filled) with the form's own value
        self._text[path] = text
        self._touched.add(path)
        self._server_errors = [e for e in self._server_errors if self._owner(e.path) != path]
        self.refresh_errors()
        self.post_message(self.Changed(self))

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        if self._path_of(event.control.id) is not None:
            event.stop()
            self.post_message(self.Submitted(self))
