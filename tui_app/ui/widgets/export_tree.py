"""``ExportTree``: an export as a tree of data sets and their records.

A data set's records become nodes only when it is opened, a page at a time, with a last
"… N more" node that adds the next page when selected: a data set of any size opens at
once and the tree never holds more nodes than the user asked to see.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual import on
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from tui_app.contract.export import DataSet
from tui_app.pii import pii_kind
from tui_app.words import counted

PAGE = 100
LABEL_VALUES = 3


@dataclass(frozen=True)
class SetEntry:
    data_set: DataSet


@dataclass(frozen=True)
class RecordEntry:
    data_set: DataSet
    index: int

    @property
    def record(self) -> dict[str, Any]:
        return self.data_set.records[self.index]


@dataclass(frozen=True)
class MoreEntry:
    data_set: DataSet
    start: int


Entry = SetEntry | RecordEntry | MoreEntry


def record_label(index: int, record: Mapping[str, Any]) -> str:
    """``3. BusinessAddress · Springfield · IL``: its number and first few short values,
    never personal data (labels are not re-masked when the user reveals)."""
    shown = [
        str(v) for k, v in record.items()
        if pii_kind(k) is None and isinstance(v, str | int) and not isinstance(v, bool)
        and len(str(v)) <= 30
    ][:LABEL_VALUES]  # fmt: skip
    return f"{index + 1}. " + " · ".join(shown)


class ExportTree(Tree[Entry]):
    def show(self, title: str, data_sets: Sequence[DataSet]) -> None:
        self.clear()
        self.root.set_label(Text(title))  # what the service sent is shown as it is
        for ds in data_sets:
            count = len(ds.records)
            label = f"{ds.name}  ({counted(count, 'record')})"
            self.root.add(Text(label), data=SetEntry(ds), allow_expand=bool(count))
        self.root.expand()

    @on(Tree.NodeExpanded)
    def _opened(self, event: Tree.NodeExpanded[Entry]) -> None:
        node = event.node
        if isinstance(node.data, SetEntry) and not node.children:
            self._add_page(node, node.data.data_set, 0)

    @on(Tree.NodeSelected)
    def _more(self, event: Tree.NodeSelected[Entry]) -> None:
        node = event.node
        if isinstance(node.data, MoreEntry) and node.parent is not None:
            parent, more = node.parent, node.data
            node.remove()
            self._add_page(parent, more.data_set, more.start)

    def _add_page(self, node: TreeNode[Entry], ds: DataSet, start: int) -> None:
        end = min(start + PAGE, len(ds.records))
        for i in range(start, end):
            node.add_leaf(Text(record_label(i, ds.records[i])), data=RecordEntry(ds, i))
        if end < len(ds.records):
            more = len(ds.records) - end
            node.add_leaf(
                Text(f"… {more:,} more (Enter shows {min(PAGE, more)})", style="italic"),
                data=MoreEntry(ds, end),
            )
        # The lines moved under the cursor without it moving: say what it is on now.
        if self.cursor_node is not None:
            self.post_message(Tree.NodeHighlighted(self.cursor_node))
