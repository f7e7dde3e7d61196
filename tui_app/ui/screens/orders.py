"""Orders: file appointments and terminations in a form validated as typed, and follow
every order filed from this machine until it reaches a final status."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widget import Widget
from textual.widgets import (
    Button,
    DataTable,
    Input,
    Label,
    Select,
    Static,
    TabbedContent,
    TabPane,
)

from tui_app.client.errors import ClientError, InvalidInput, NotFound, Rejected
from tui_app.contract.base import warnings
from tui_app.contract.order import FINAL_STATUSES, Order, OrderResponse, OrderStatusQuery
from tui_app.export_files import order_draft_format, read_order_draft, save_order_draft
from tui_app.tracking import OrderBook, OrderBookThread
from tui_app.ui.fields import misfits
from tui_app.ui.order_words import render_order
from tui_app.ui.screens.base import AreaScreen
from tui_app.ui.screens.dialogs import ConfirmScreen, file_problem, may_replace
from tui_app.ui.widgets.model_form import ModelForm
from tui_app.ui.widgets.plain_table import PlainTable
from tui_app.ui.widgets.text_input import TextInput
from tui_app.words import utc_time

PRODUCER_TYPES = [("Individual", "I"), ("Agency", "A")]
FILING_TYPES = [("Appointment", "A"), ("Termination", "T")]
FILING = ("tlq.pType", "tlq.fType")
"""Chosen above the form (the filing's kind), so a draft must hold one of their choices."""
REFRESH_EVERY = 2.0
LOOKUP_SETTLE = 0.15
"""Seconds the tracking list's cursor rests on an order before its detail is asked for."""
TLQ_FIRST = ["juris", "lType", "clientOrderNum", "userId", "filingMode"]


def order_layout(ptype: str, ftype: str) -> dict[str, list[str]]:
    """The fields a filing needs most, first: agency fields for agencies, termination
    fields for terminations. Every other field follows under "more fields"."""
    if ptype == "A":
        who = [
            "firmName",
            "residentStateText",
            "officerTitle",
            "firstName",
            "lastName",
            "taxId",
            "niprNoReq",
        ]
    else:
        who = [
            "firstName",
            "middleName",
            "lastName",
            "taxId",
            "dateOfBirth",
            "niprNoReq",
            "residentStateYN",
        ]
    if ftype == "T":
        what = ["trm", "termReasonText", "termCauseYN", "dateEffective", "loa"]
    else:
        what = ["dateEffective", "loa", "sponsoringCompany", "feinNumber", "naicNum"]
    return {"tlq": TLQ_FIRST, "data": who + what}


DETAIL_HINT = "Select an order to see its notes and fees."
TRACKING_COLUMNS = ("Order", "Status", "State", "Filing", "Producer", "Applicant", "Fees",
                    "Last checked")  # fmt: skip


class OrdersScreen(AreaScreen):
    AREA = "Orders"
    AUTO_FOCUS = "#ptype"
    BINDINGS = [
        Binding("f5", "submit", "Submit", id="orders.submit"),
        Binding("f6", "save_draft", "Save draft", id="orders.save_draft", priority=True),
        Binding("f7", "load_draft", "Load draft", id="orders.load_draft", priority=True),
        Binding("f8", "tab('file')", "Form", id="orders.form"),
        Binding("f9", "tab('tracking')", "Tracking", id="orders.tracking"),
        Binding("f10", "refresh", "Refresh", id="orders.refresh"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.book = OrderBookThread()
        """Every read and write of the order book runs on its thread, off the loop."""
        self.ptype, self.ftype = "I", "A"
        self.shown: dict[str, str | None] = {"order-result": None, "tracked-detail": None}
        """The order each side panel shows, so a newer status replaces what it says."""
        self.baseline: dict[str, Any] = {}
        """The form as last filled, filed or saved: what differs is unsaved."""
        self.answers: dict[str, OrderResponse] = {}
        """The last answer about each order a panel shows, to draw again masked or not."""
        self.updated: set[str] = set()
        """Orders whose last filing from here replaced one that existed: said with each
        newer status too (the service's answer need not say so)."""
        self.tabs = TabbedContent(id="order-tabs", initial="file")
        """The form's tab and the tracking list's (held, not queried: see check_action)."""

    def compose_body(self) -> ComposeResult:
        with self.tabs:
            with TabPane("File an order", id="file"):
                with Horizontal(id="order-top"):
                    with Vertical(classes="picker"):
                        yield Label("Producer type")
                        yield Select(PRODUCER_TYPES, value="I", allow_blank=False, id="ptype")
                    with Vertical(classes="picker"):
                        yield Label("Filing type")
                        yield Select(FILING_TYPES, value="A", allow_blank=False, id="ftype")
                    yield Button(f"Submit  {self.key('orders.submit')}", id="submit",
                                 variant="primary")  # fmt: skip
                    yield Button(f"Save draft  {self.key('orders.save_draft')}", id="save-draft")
                    yield Button(f"Load draft  {self.key('orders.load_draft')}", id="load-draft")
                with Horizontal(id="order-main"):
                    yield Vertical(id="order-form-box")
                    with VerticalScroll(id="order-result-box"):
                        yield Static(self.result_hint(), id="order-result", markup=False)
            with TabPane("Tracking", id="tracking"):
                yield TextInput(
                    placeholder="look up any order by its client order number ⏎", id="lookup"
                )
                yield PlainTable(id="tracked", cursor_type="row", zebra_stripes=True)
                with VerticalScroll(id="tracked-detail-box"):
                    yield Static(DETAIL_HINT, id="tracked-detail", markup=False)

    async def on_mount(self) -> None:
        await self._rebuild_form()
        self.baseline = self.form.data()
        self.set_interval(REFRESH_EVERY, self._tick)
        self.watch(self.app, "env_name", self._env_changed, init=False)
        self.watch(self.app, "reveal_pii", self._reveal_changed, init=False)
        self.fill_tracking()

    async def on_unmount(self) -> None:
        await self.book.aclose()

    def _env_changed(self) -> None:
        """The orders of the old environment are not this one's."""
        self.answers.clear()
        self._show("order-result", None, self.result_hint())
        self._show("tracked-detail", None, DETAIL_HINT)
        self.fill_tracking()

    def _show(self, panel: str, num: str | None, content: Text | str) -> None:
        self.shown[panel] = num
        self.query_one("#" + panel, Static).update(content)

    def _latest(self, response: OrderResponse) -> None:
        """A newer answer about an order: every panel showing that order says it."""
        num = response.order.orderDetails.clientOrderNum
        for panel, shown in self.shown.items():
            if shown == num:
                self._show(panel, num, self._rendered(response))

    def _rendered(self, response: OrderResponse) -> Text:
        num = response.order.orderDetails.clientOrderNum
        if num is not None:
            self.answers[num] = response
        return render_order(response, self.app.reveal_pii, num in self.updated)

    def _reveal_changed(self) -> None:
        """Personal data shown or masked again: in the panels too (an order filed while
        it was shown kept its SSN on screen after Ctrl+R masked it)."""
        for panel, num in self.shown.items():
            if num is not None and num in self.answers:
                self._show(panel, num, self._rendered(self.answers[num]))

    def field_home(self, field: Widget) -> Widget | None:
        if self.query_one("#tracking", TabPane) in field.ancestors:
            return self.query_one("#tracked")
        return super().field_home(field)

    # --- the form ---

    @property
    def form(self) -> ModelForm:
        return self.query_one("#order-form", ModelForm)

    async def _rebuild_form(self, values: dict[str, Any] | None = None) -> None:
        box = self.query_one("#order-form-box")
        old = box.query(ModelForm)
        kept = values if values is not None else (old.first().data() if old else {})
        form = ModelForm(
            Order,
            layout=order_layout(self.ptype, self.ftype),
            open_groups={"tlq", "data"},
            exclude={"tlq.pType", "tlq.fType"},
            fixed={"tlq.pType": self.ptype, "tlq.fType": self.ftype},
            id="order-form",
        )
        await old.remove()
        await box.mount(form)
        form.load(kept)

    @on(Select.Changed, "#ptype")
    @on(Select.Changed, "#ftype")
    async def _filing_changed(self) -> None:
        ptype = str(self.query_one("#ptype", Select).value)
        ftype = str(self.query_one("#ftype", Select).value)
        if (ptype, ftype) != (self.ptype, self.ftype):
            self.ptype, self.ftype = ptype, ftype
            await self._rebuild_form()

    def unsaved(self) -> str | None:
        if self.form.data() != self.baseline:
            return "the order form has changes neither submitted nor saved"
        return None

    @work(exclusive=True, group="order-prefill")
    async def prefill_asking(self, values: dict[str, Any]) -> None:
        """:meth:`prefill`, once the user agrees to lose what the form holds unsaved."""
        if await self.may_discard():
            await self.prefill(values)

    async def prefill(self, values: dict[str, Any]) -> None:
        """Open the form filled with ``values`` (an order's ``tlq`` and ``data``)."""
        tlq = values.get("tlq", {})
        self.ptype, self.ftype = tlq.get("pType", "I"), tlq.get("fType", "A")
        for selector, value in (("#ptype", self.ptype), ("#ftype", self.ftype)):
            select = self.query_one(selector, Select)
            with select.prevent(Select.Changed):
                select.value = value
        self.tabs.active = "file"
        await self._rebuild_form(values)
        self.baseline = self.form.data()
        # The panel told of the last order sent; this form is another one.
        self._show("order-result", None, self.result_hint())
        if not self.form.focus_first_error():
            self.form.focus_first_field()

    # --- submitting ---

    @on(Button.Pressed, "#submit")
    def action_submit(self) -> None:
        order = self.form.result()
        if order is None:
            self.form.focus_first_error()
            self.notify(
                "The order is not valid yet: correct the fields marked ✗.", severity="warning"
            )
            return
        self.submit_order(order)

    @work(exclusive=True, group="order-submit")
    async def submit_order(self, order: Order) -> None:
        num = order.tlq.clientOrderNum
        try:
            client = await self.app.client()
            status = await self._status_of(client, num)
            existed = status is not None
            if existed:
                final = (
                    f" and is {status}, a final status: submitting it again UPDATES it with "
                    "what this form says and starts its processing again"
                    if status in FINAL_STATUSES
                    else ". Submitting it again UPDATES that order with what this form says"
                )
                update = await self.app.push_screen_wait(
                    ConfirmScreen(f"Order {num} already exists{final}. Update it?", yes="Update")
                )
                if not update:
                    self.notify(f"Order {num} was not changed.")
                    return
            response = await client.submit_order(order)
        except (InvalidInput, Rejected) as exc:
            self.form.show_errors(exc.errors)
            self.form.focus_first_error()
            self.notify(exc.message, title="Order refused", severity="error")
            return
        except ClientError as exc:
            self.notify(exc.message, title="Order not sent", severity="error")
            return
        await self.book.call(OrderBook.record, self.app.env_name, response)
        details = response.order.orderDetails
        if existed or details.updated:
            self.updated.add(num)
        else:
            self.updated.discard(num)
        self._show("order-result", num, self._rendered(response))
        self.fill_tracking()
        verb = "updated" if details.updated or existed else "filed"
        self.baseline = self.form.data()  # sent: nothing unsaved
        self.notify(f"Order {num} {verb}: {details.status}")

    async def _status_of(self, client, num: str) -> str | None:
        """The status of order ``num`` as the service says it now; None if it has none."""
        try:
            response = await client.order_status(num)
        except NotFound:
            return None
        return response.order.orderDetails.status

    def result_hint(self) -> str:
        return f"Fill the order and press {self.key('orders.submit')} to submit."

    # --- drafts ---

    @on(Button.Pressed, "#save-draft")
    def action_save_draft(self) -> None:
        self.ask_path("Save the draft as (.json or .xml)", "order-draft.json", self._save_draft)

    @work(exclusive=True, group="draft")
    async def _save_draft(self, path: Path | None) -> None:
        if path is None:
            return
        try:
            order_draft_format(path)  # a wrong suffix is refused before asking to replace
            if not await may_replace(self.app, [path]):
                return
            data = self.form.data()
            await asyncio.to_thread(save_order_draft, path, data)
        except (OSError, ValueError) as exc:
            self.notify(file_problem(path, exc), severity="error")
            return
        self.baseline = data
        self.notify(f"Draft saved to {path}")

    @on(Button.Pressed, "#load-draft")
    def action_load_draft(self) -> None:
        self.ask_path("Load a draft (.json or .xml)", "order-draft.json", self._load_draft)

    @work(exclusive=True, group="draft")
    async def _load_draft(self, path: Path | None) -> None:
        if path is None:
            return
        try:
            values = await asyncio.to_thread(read_order_draft, path)
            if problems := misfits(Order, values, closed=FILING):
                raise ValueError(f"not a draft of an order ({'; '.join(problems[:3])})")
        except (OSError, ValueError) as exc:
            self.notify(file_problem(path, exc), severity="error")
            return
        if not await self.may_discard():
            return
        await self.prefill(values)
        if marked := len(self.form.marked()):
            fields = "a field" if marked == 1 else f"{marked} fields"
            self.notify(f"Draft loaded from {path}; correct {fields} marked ✗ before filing",
                        severity="warning")  # fmt: skip
        else:
            self.notify(f"Draft loaded from {path}")

    # --- tracking ---

    FORM_ACTIONS = frozenset({"submit", "save_draft", "load_draft"})

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The form's keys only while the form is in view (QA: F5 on the tracking list,
        a refresh key elsewhere, filed the hidden form). This runs for every key of the
        footer on every focus move: a query of the tabs walked the whole screen each time,
        some 60 ms of CPU for a Tab between two fields."""
        if action in self.FORM_ACTIONS and self.tabs.is_attached:
            return self.tabs.active == "file"
        return True

    @on(TabbedContent.TabActivated, "#order-tabs")
    def _tab_shown(self) -> None:
        self.refresh_bindings()

    def action_tab(self, tab: str) -> None:
        self.tabs.active = tab
        # Focus follows into the tab: left in the hidden one, it would switch straight back.
        if tab == "file":
            self.form.focus_first_field()
        else:
            self.query_one("#tracked").focus()

    def action_refresh(self) -> None:
        self.refresh_tracking()

    def _tick(self) -> None:
        # Poll only while the area is in view (either tab: the status under the form is
        # of an order filed from here too, and stood still there; QA).
        if self.is_current:
            self.refresh_tracking()

    @work(exclusive=True, group="tracking")
    async def refresh_tracking(self) -> None:
        """Ask the service for every order not yet final (only while the area is open)."""
        env = self.app.env_name
        pending = [o for o in await self.book.call(OrderBook.orders, env) if not o.final]
        if not pending:
            return
        try:
            client = await self.app.client()
            for order in pending:
                response = await client.order_status(order.client_order_num)
                await self.book.call(OrderBook.update, env, response)
                self._latest(response)
        except ClientError as exc:
            self.app.service_state = f"○ {exc.message}"
        if self.query("#tracked"):
            self.fill_tracking()

    @work(exclusive=True, group="tracking-list")
    async def fill_tracking(self) -> None:
        """The list of orders filed from here, read from the order book's thread."""
        orders = await self.book.call(OrderBook.orders, self.app.env_name)
        if problem := self.book.problem:  # said once: the book is in memory from now on
            self.book.problem = None
            self.notify(problem, title="Order book", severity="error", timeout=15)
        if not self.query("#tracked"):
            return  # the area is being taken down (the app quits)
        table = self.query_one("#tracked", PlainTable)
        # The cursor stays on its order, not its row number: a new order comes first.
        selected = table.cursor_key
        # Columns too, so each is as wide as what it holds now: a status of 20 letters
        # left Status that wide for good, pushing Fees off an 80-column screen (QA).
        table.clear(columns=True)
        table.add_columns(*TRACKING_COLUMNS)
        for o in orders:
            status = Text(o.status, style="bold" if o.final else "")
            table.add_row(
                Text(o.client_order_num),
                status,
                Text(o.juris),
                Text("termination" if o.ftype == "T" else "appointment"),
                Text("agency" if o.ptype == "A" else "individual"),
                Text(o.applicant),
                Text(f"${o.total_fee:.2f}"),
                Text(utc_time(o.checked_at, seconds=True)),
                key=o.client_order_num,
            )
        if selected is not None and selected in table.rows:
            table.move_cursor(row=table.get_row_index(selected))

    @on(DataTable.RowSelected, "#tracked")
    def _open_tracked(self, event: DataTable.RowSelected) -> None:
        self.look_up(str(event.row_key.value))

    @on(DataTable.RowHighlighted, "#tracked")
    def _follow_cursor(self) -> None:
        """The detail is of the order the user moved to (QA: it kept the one opened with
        Enter beside another highlighted, final status and all). Only a move of the user's:
        the list's refresh keeps its cursor on its order, and a lookup typed stays. The
        cursor's order as it is now, not the event's: a refresh's rows, cleared and added
        again, pass the cursor over others on the way."""
        table = self.query_one("#tracked", PlainTable)
        num = table.cursor_key
        if table.has_focus and num and self.shown["tracked-detail"] != num:
            self.look_up(num, settle=LOOKUP_SETTLE)

    @on(Input.Submitted, "#lookup")
    def _lookup(self, event: Input.Submitted) -> None:
        if event.value.strip():
            self.look_up(event.value.strip())

    @work(exclusive=True, group="lookup")
    async def look_up(self, num: str, settle: float = 0.0) -> None:
        # Not the last lookup's answer while this one is under way.
        self._show("tracked-detail", None, Text(f"Looking up order {num}…"))
        # A cursor held down asks for the row it stops on, not every row passed (a newer
        # lookup cancels this one while it waits).
        await asyncio.sleep(settle)
        try:
            client = await self.app.client()
            response = await client.order_status(num)
        except InvalidInput as exc:  # in the words of the field typed in, not the query's
            why = "; ".join(e.message for e in exc.errors) or exc.message
            self._show("tracked-detail", None, Text(f"{num} is not a client order number: {why}"))
            return
        except ClientError as exc:
            # The spec lets any text of 0..20 be asked for; one no order could be filed
            # under says so beside the service's "not found" (QA: "bad num!").
            why = "".join(f"; {num} {m}" for _, m in warnings(OrderStatusQuery, {"order_num": num}))
            self._show("tracked-detail", None, Text(f"Order {num}: {exc.message}{why}"))
            return
        if await self.book.call(OrderBook.knows, self.app.env_name, num):
            await self.book.call(OrderBook.update, self.app.env_name, response)
            self.fill_tracking()
        self.shown["tracked-detail"] = num
        self._latest(response)
