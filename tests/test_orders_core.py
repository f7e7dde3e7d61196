"""The order book (local tracking) and the record-to-order prefill."""

from __future__ import annotations

import os
import stat

import pytest

from tui_app.contract.order import Order, OrderResponse
from tui_app.contract.record import FullInfo
from tui_app.prefill import order_from_record
from tui_app.tracking import OrderBook


def response(num: str, status: str, **item) -> OrderResponse:
    return OrderResponse.model_validate(
        {
            "order": {
                "orderDetails": {"clientOrderNum": num, "status": status, "totalFee": 25.0},
                "itemDetails": {
                    "juris": "CA",
                    "pType": "I",
                    "fType": "A",
                    "firstName": "Avery",
                    "lastName": "Sample",
                    "taxId": "000121234",
                    **item,
                },
            }
        }
    )


def test_book_keeps_orders_per_environment_across_restarts(tmp_path):
    book = OrderBook(tmp_path / "orders.db")
    book.record("sandbox", response("A1", "RECEIVED"))
    book.record("staging", response("B1", "RECEIVED", firmName="Sample Risk Partners LLC"))
    book.update("sandbox", response("A1", "APPROVED"))
    book.close()
    again = OrderBook(tmp_path / "orders.db")
    [mine] = again.orders("sandbox")
    assert (mine.client_order_num, mine.status, mine.applicant) == (
        "A1",
        "APPROVED",
        "Avery Sample",
    )
    assert mine.final
    assert again.orders("staging")[0].applicant == "Sample Risk Partners LLC"
    assert again.knows("sandbox", "A1") and not again.knows("sandbox", "B1")


def test_book_never_stores_the_tax_id(tmp_path):
    book = OrderBook(tmp_path / "orders.db")
    book.record("sandbox", response("A1", "RECEIVED"))
    book.close()
    assert b"000121234" not in (tmp_path / "orders.db").read_bytes()


def test_the_book_is_private(tmp_path):
    """Seen: orders.db (applicants' names) was created 0644 while every other file of the
    app is 0600 in a 0700 folder."""
    data = tmp_path / "data"  # the data folder (conftest), as an older version left it
    data.mkdir(mode=0o755)
    old_umask = os.umask(0o022)
    try:
        book = OrderBook()
        book.record("sandbox", response("A1", "RECEIVED"))
        modes = {p.name: stat.S_IMODE(p.stat().st_mode) for p in data.iterdir()}
        book.close()
    finally:
        os.umask(old_umask)
    assert modes == {"orders.db": 0o600, "orders.db-wal": 0o600, "orders.db-shm": 0o600}
    assert stat.S_IMODE(data.stat().st_mode) == 0o700


def test_an_older_versions_readable_files_are_narrowed(tmp_path):
    """Seen: orders.db-wal and -shm left 0644 by an older version stayed 0644 (SQLite keeps
    an existing file's mode), so applicants' names written to them were readable by all."""
    data = tmp_path / "data"
    data.mkdir(mode=0o700)
    book = OrderBook()
    book.record("sandbox", response("A1", "RECEIVED"))
    book.close()
    for path in data.iterdir():
        path.chmod(0o644)
    (data / "orders.db-journal").write_bytes(b"")
    (data / "orders.db-journal").chmod(0o644)
    book = OrderBook()
    book.record("sandbox", response("A2", "RECEIVED"))
    modes = {p.name: stat.S_IMODE(p.stat().st_mode) for p in data.iterdir()}
    book.close()
    assert set(modes.values()) == {0o600}, modes


def full_info(entity: str, **bio) -> FullInfo:
    return FullInfo.model_validate(
        {
            "Producer": {"Npn": 19000001, "EntityType": entity},
            "Biographic": bio,
            "LicenseData": {
                "Licenses": [{"State": "TX", "Residency": "NR"}, {"State": "CA", "Residency": "R"}]
            },
        }
    )


def test_prefill_of_an_individual_appointment():
    info = full_info(
        "INDIVIDUAL",
        FirstName="Avery",
        MiddleName="Quinn",
        LastName="Sample",
        Ssn="000121234",
        DateOfBirth="01/02/1980",
    )
    prefill = order_from_record(info, "A")
    assert prefill == {
        "tlq": {"pType": "I", "fType": "A", "juris": "CA"},
        "data": {
            "niprNoReq": "19000001",
            "firstName": "Avery",
            "lastName": "Sample",
            "middleName": "Quinn",
            "taxId": "000121234",
            "dateOfBirth": "01/02/1980",
            "residentStateYN": "Y",
        },
    }


def test_prefill_of_a_firm_termination_is_a_valid_order_once_completed():
    info = full_info(
        "FIRM", FirmName="Sample Risk Partners LLC", Fein="000000001", DomicileState="CA"
    )
    prefill = order_from_record(info, "T")
    assert prefill["tlq"] == {"pType": "A", "fType": "T", "juris": "CA"}
    assert prefill["data"]["firmName"] == "Sample Risk Partners LLC"
    completed = {
        "tlq": {
            **prefill["tlq"],
            "lType": "M",
            "clientOrderNum": "T1",
            "userId": "me",
            "filingMode": "E",
        },
        "data": {**prefill["data"], "firstName": "Pat", "lastName": "Officer"},
    }
    assert Order.model_validate(completed).data.taxId == "000000001"


def test_a_folder_where_the_book_should_be_is_said_so(tmp_path):
    """QA: a folder named orders.db gave "Is a directory; check that its folder exists and
    is writable", advice that cannot help."""
    from tui_app.locked_sqlite import UnusableDatabase

    (tmp_path / "orders.db").mkdir()
    with pytest.raises(UnusableDatabase) as err:
        OrderBook(tmp_path / "orders.db")
    assert str(err.value).endswith(
        "orders.db: Is a directory; move the folder aside and run again to start a new one"
    )
