"""``FieldGroup``: a form's collapsible group of fields, whose title says when fields in
it need correcting."""

from __future__ import annotations

from textual.widgets import Collapsible


class FieldGroup(Collapsible):
    """A ``Collapsible`` that marks its title, not itself, as invalid. A class on the
    group restyles every widget it holds: the order form's Data group, on each key that
    made its first error appear or its last one go."""

    @property
    def invalid(self) -> bool:
        return self._title.has_class("-invalid")

    @invalid.setter
    def invalid(self, invalid: bool) -> None:
        self._title.set_class(invalid, "-invalid")  # Collapsible's own title widget
