"""An order's answer in words, for the Orders area's panels."""

from __future__ import annotations

from rich.text import Text

from tui_app.contract.order import OrderResponse
from tui_app.pii import PiiKind
from tui_app.ui.key_values import key_values
from tui_app.words import utc_time


def render_order(response: OrderResponse, reveal: bool, updated: bool = False) -> Text:
    """An order response in words: status, fees, processing notes and the data filed.
    ``updated``: this submission replaced an order that existed (known to the screen even
    when the service's answer does not say so: its members are "not shown")."""
    info = response.order
    d = info.orderDetails
    text = Text()
    text.append(f"Order {d.clientOrderNum}", style="bold")
    if d.orderNum:
        text.append(f"  (service number {d.orderNum})")
    text.append(f"\nStatus: {d.status}", style="bold")
    text.append(" — final" if d.final else " — in progress")
    if d.statusDate:
        text.append(f"  since {utc_time(d.statusDate, seconds=True)}")
    if d.updated or updated:
        text.append("\nThis submission updated an existing order.")
    if d.message:
        text.append(f"\n{d.message}")
    if d.fees:
        text.append("\n\nFees\n", style="bold")
        for fee in d.fees:
            amount = f"${fee.amount:.2f}"  # one word: a narrow panel wraps before it, not in it
            text.append(f"  {fee.state or '':3} {fee.description or '':40} {amount:>9}\n")
        total = f"${d.totalFee:.2f}"
        text.append(f"  {'total':44} {total:>9}\n")
    if d.notes:
        text.append("\nProcessing notes\n", style="bold")
        stage = max(12, *(len(note.stage or "") for note in d.notes))  # "state decision"
        for note in d.notes:
            at = utc_time(note.at, seconds=True) if note.at else ""
            text.append(f"  {at:23} {note.stage or '':{stage}} {note.text}\n")
    if info.itemDetails:
        text.append("\nAs filed\n", style="bold")
        # The applicant's taxId: an agency's is its FEIN (QA: "***-**-0001" as an SSN).
        kinds: dict[str, PiiKind] = (
            {"taxId": "fein"} if info.itemDetails.get("pType") == "A" else {}
        )
        text.append_text(key_values(info.itemDetails, reveal, indent="  ", kinds=kinds))
    return text
