"""Pilot tests of the Bulk area against the embedded sandbox: pick, check, submit, watch,
page through the outcomes, retry, save the report, resume what an earlier session left.
Jobs run in detached worker processes, as they do for users: the tests wait for them
through the journal."""

from __future__ import annotations

import asyncio
import csv
import json
from pathlib import Path

import pytest
from bulk_support import named_pipe, validations_here
from textual import events
from textual.widgets import DataTable, Input, Static
from ui_support import SIZE, settle, shown, sql_on_the_loop, wait_for

from tui_app.bulk import pipeline
from tui_app.bulk.journal import DONE, STOPPED, VALIDATING, Journal
from tui_app.bulk.pipeline import DELAYS_VARIABLE, create_job
from tui_app.bulk.source import inspect_file
from tui_app.contract.bulk import BulkItem
from tui_app.contract.profile import AgentRecord
from tui_app.ui.screens import bulk as bulk_screen
from tui_app.ui.screens.bulk import BulkScreen
from tui_app.ui.screens.bulk_job import BulkJobScreen
from tui_app.ui.screens.dialogs import ConfirmScreen, PathScreen
from tui_app.ui.screens.help import HelpScreen
from tui_app.ui.widgets.bulk_path import PathSuggester
from tui_app.ui.widgets.jobs_table import JOB_COLUMNS
from tui_app.ui.widgets.paged_table import PagedTable


@pytest.fixture(autouse=True)
def quick_runs(monkeypatch):
    """Workers retry and poll with short delays, so a test can watch them finish."""
    monkeypatch.setenv(DELAYS_VARIABLE, "0.05")


def sandbox_failing(config_file: Path, rate: float) -> None:
    """The embedded sandbox (as the next worker starts it) fails this share of records."""
    config_file.parent.mkdir(parents=True, exist_ok=True)
    config_file.write_text(
        f'active = "sandbox"\n\n[environments.sandbox]\nembedded = true\nbulk_fail_rate = {rate}\n',
        encoding="utf-8",
    )


async def submit_and_wait(app, pilot, screen: BulkScreen, path: Path) -> None:
    """Type the file's path, press F5 and wait until its job has ended."""
    screen.query_one("#bulk-path", Input).value = str(path)
    await pilot.press("f5")
    await settle(app, pilot)
    await until_ended(pilot, screen)


async def until_ended(pilot, screen: BulkScreen, job_id: str | None = None, seconds=60.0):
    """Wait until the job (the only one if not named) has ended, as the screen sees it."""

    def ended() -> bool:
        jobs = [s for s in screen.seen.values() if job_id in (None, s.job.id)]
        return len(jobs) == 1 and not jobs[0].running and jobs[0].job.state in (DONE, STOPPED)

    await wait_for(pilot, ended, "the job to end", seconds)


def agent_line(n: int, *, business_address: bool = True) -> str:
    fields = {
        "ProfileKey": f"UIB-{n}",
        "Ssn": f"96{n:07d}",
        "Demographic": {"EmpStatus": "7040", "FirstName": "Ada", "LastName": "Lane"},
    }
    if business_address:
        fields["BusinessAddress"] = {
            "StreetAddress1": "1 Main St", "City": "Austin", "State": "TX", "Zip": "73301",
        }  # fmt: skip
    return json.dumps(BulkItem.wrap(AgentRecord(**fields)).to_line())


BAD_SSN = json.dumps({"profileKey": "UIB-BAD", "ssn": "960000000", "demographic": {}})


def write_lines(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def mixed_file(folder: Path) -> Path:
    """Six records: lines 2 and 4 are invalid; line 5 is valid here but refused by the
    service (a new agent needs a business address): FAILED, not retryable."""
    return write_lines(folder / "mixed.ndjson", [
        agent_line(1),                           # 1
        BAD_SSN,                                 # 2 invalid
        agent_line(3),                           # 3
        "{not json",                             # 4 invalid
        agent_line(5, business_address=False),   # 5 failed by the service
        agent_line(6),                           # 6
    ])  # fmt: skip


async def open_bulk(app, pilot) -> BulkScreen:
    await app.client()  # connected: the embedded sandbox runs
    await settle(app, pilot)
    await pilot.press("4")
    await settle(app, pilot)
    assert isinstance(app.screen, BulkScreen)
    return app.screen


def text_of(screen, selector: str) -> str:
    return str(screen.query_one(selector, Static).render())


def messages(app) -> str:
    return "\n".join(n.message for n in shown(app))


def job_row(screen: BulkScreen, job_id: str) -> dict[str, str]:
    table = screen.query_one("#bulk-jobs", DataTable)
    cells = table.get_row(job_id)
    return {key: str(cell) for (key, _), cell in zip(JOB_COLUMNS, cells, strict=True)}


def page_rows(screen: BulkJobScreen) -> list[tuple[str, str]]:
    """(line, outcome) of each row of the page shown."""
    table = screen.query_one("#bulk-lines", PagedTable).table
    return [(str(table.get_row_at(i)[0]), str(table.get_row_at(i)[1]))
            for i in range(table.row_count)]  # fmt: skip


async def answer_path(app, pilot, path: Path) -> None:
    await wait_for(pilot, lambda: isinstance(app.screen, PathScreen), "the path dialog")
    app.screen.query_one(Input).value = str(path)
    await pilot.press("enter")
    await settle(app, pilot)


# --- picking, checking, submitting ---------------------------------------------------------


async def test_a_large_files_pre_flight_validates_off_the_apps_interpreter(
    ui_app, tmp_path, monkeypatch
):
    # A pre-flight of 100,000 lines held the app's interpreter for 11 s, keys waiting up to
    # a second (issue 12). A large file now goes to a checking process, which must start
    # from inside the app too (multiprocessing could not: sys.stderr has no descriptor).
    import tui_app.bulk.checker as checker
    import tui_app.ui.screens.bulk as bulk_screen

    monkeypatch.setattr(checker, "IN_PROCESS_BELOW", 1)  # any file is large
    # On 3 cores the TUI asks for 2 checking processes: a core is left to draw on.
    monkeypatch.setattr(checker, "available_cores", lambda: 3)
    monkeypatch.setattr(bulk_screen, "available_cores", lambda: 3)
    started: list[tuple[int, int]] = []
    start = checker._start
    monkeypatch.setattr(checker, "_start", lambda *a: started.append(a[-2:]) or start(*a))
    validated_here = validations_here(monkeypatch)
    path = mixed_file(tmp_path)
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_bulk(app, pilot)
        screen.query_one("#bulk-path", Input).value = str(path)
        await pilot.press("f3")
        await wait_for(pilot, lambda: screen.checked is not None, "the pre-flight")
        summary = text_of(screen, "#bulk-preflight")
        assert "mixed.ndjson  checked: 6 records, 4 valid, 2 invalid" in summary
        assert validated_here == []
        assert started == [(0, 2), (1, 2)]


async def test_a_checks_bad_lines_can_be_read_on_a_small_terminal(ui_app, tmp_path):
    """Seen at 80x24: the panel showed two lines of a check with 8 bad lines, none of them,
    and nothing reached it to scroll."""
    path = write_lines(tmp_path / "bad.ndjson", ["{not json"] * 8 + [agent_line(9)])
    app = ui_app()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_bulk(app, pilot)
        screen.query_one("#bulk-path", Input).value = str(path)
        await pilot.press("f3")
        await wait_for(pilot, lambda: screen.checked is not None, "the pre-flight")
        await pilot.pause()
        box = screen.query_one("#bulk-preflight-box")
        assert box.max_scroll_y > 0  # more than it shows at once
        await pilot.press("f2", "tab")  # from the path, Tab reaches the panel
        assert app.focused is box
        await pilot.press("end")  # the scroll lands on a later refresh: wait for it
        await wait_for(pilot, lambda: box.scroll_y == box.max_scroll_y, "the panel's end")
        visible = box.region.intersection(app.screen.region)
        assert "line 8:" in text_of(screen, "#bulk-preflight") and visible.height > 3


async def test_a_small_terminal_still_shows_the_jobs(ui_app, tmp_path):
    """Seen: at 60x20, after a submit, the check's box and the job's panel took every row
    and the jobs table got none."""
    app = ui_app()
    async with app.run_test(size=(60, 20)) as pilot:
        screen = await open_bulk(app, pilot)
        await submit_and_wait(app, pilot, screen, mixed_file(tmp_path))
        table = screen.query_one("#bulk-jobs", DataTable)
        assert table.size.height >= 3  # the header and a job, at least


async def test_a_file_is_checked_submitted_and_followed_to_the_end(ui_app, tmp_path):
    path = mixed_file(tmp_path)
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_bulk(app, pilot)
        assert "No bulk jobs yet" in text_of(screen, "#bulk-selected-text")
        await pilot.press("f2")
        field = screen.query_one("#bulk-path", Input)
        assert app.focused is field
        field.value = str(tmp_path / "mi")
        await settle(app, pilot)
        await pilot.press("tab")  # completes the name, as a shell does
        assert field.value == str(path)
        await pilot.press("enter")
        await settle(app, pilot)
        summary = text_of(screen, "#bulk-preflight")
        assert "mixed.ndjson  checked: 6 records, 4 valid, 2 invalid" in summary
        assert "✗ line 2: demographic.empStatus: is required" in summary
        assert "✗ line 4: not valid JSON" in summary
        assert "F5 submits the 4 valid records" in summary

        await pilot.press("f5")
        await settle(app, pilot)
        await until_ended(pilot, screen)
        [job] = Journal().jobs()
        assert job.state == DONE
        assert "Submitted as job " + job.id in text_of(screen, "#bulk-preflight")
        assert field.value == "" and app.focused is screen.query_one("#bulk-jobs")
        row = job_row(screen, job.id)
        assert row["state"] == "done" and row["progress"].endswith("100%")
        counts = {k: row[k] for k in ("lines", "invalid", "sent", "completed", "failed",
                                      "superseded", "unknown")}  # fmt: skip
        assert counts == {"lines": "6", "invalid": "2", "sent": "4", "completed": "3",
                          "failed": "1", "superseded": "0", "unknown": "0"}  # fmt: skip
        # The file names the job for people: it comes before the counts (a narrow table
        # showed 7 of its letters, its state 25 columns of mostly nothing), after the
        # state and progress (which the file's name cut at 80 columns).
        table = screen.query_one("#bulk-jobs", DataTable)
        labels = [str(column.label) for column in table.columns.values()]
        assert labels[:5] == ["Job", "Env", "State", "Progress", "File"]
        assert row["file"] == "mixed.ndjson"
        selected = text_of(screen, "#bulk-selected-text")
        assert f"Job {job.id}  done" in selected
        assert "6 lines: 3 completed, 1 failed, 2 invalid; sent 4 of 4 valid" in selected
        assert "Done: 3 completed, 1 failed, 2 invalid of 6 lines." in messages(app)


async def test_the_details_filter_and_save_the_report_and_the_lines_to_fix(ui_app, tmp_path):
    path = mixed_file(tmp_path)
    original = path.read_bytes().splitlines(keepends=True)
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_bulk(app, pilot)
        await submit_and_wait(app, pilot, screen, path)
        await pilot.press("enter")  # on the job's row
        await settle(app, pilot)
        detail = app.screen
        assert isinstance(detail, BulkJobScreen)
        assert page_rows(detail) == [("1", "completed"), ("2", "invalid"), ("3", "completed"),
                                     ("4", "invalid"), ("5", "failed"), ("6", "completed")]  # fmt: skip
        assert "Lines: page 1 of 1  ·  rows 1–6 of 6" in text_of(detail, ".paged-info")

        await pilot.press("f")
        await settle(app, pilot)
        assert page_rows(detail) == [("5", "failed")]
        assert "Failed lines: page 1 of 1" in text_of(detail, ".paged-info")
        line_detail = text_of(detail, "#bulk-line-detail")
        assert line_detail.startswith("line 5: failed: ")
        assert "businessAddress: is required for a new agent profile" in line_detail
        await pilot.press("r")
        await settle(app, pilot)
        assert page_rows(detail) == [] and "No retryable failures." in text_of(
            detail, ".paged-info"
        )
        await pilot.press("i")
        await settle(app, pilot)
        assert page_rows(detail) == [("2", "invalid"), ("4", "invalid")]
        labels = [str(tab.label) for tab in detail.query("#bulk-filter Tab")]
        assert labels == ["All 6", "Failed 1", "Retryable 0", "Invalid 2", "Unknown 0",
                          "Superseded 0"]  # fmt: skip

        await pilot.press("f6")
        out = tmp_path / "out"
        out.mkdir()
        await answer_path(app, pilot, out / "report.csv")
        with open(out / "report.csv", newline="", encoding="utf-8") as file:
            rows = {int(r["line"]): r for r in csv.DictReader(file)}
        assert {n: r["outcome"] for n, r in rows.items()} == {
            1: "COMPLETED", 2: "INVALID", 3: "COMPLETED", 4: "INVALID", 5: "FAILED",
            6: "COMPLETED",
        }  # fmt: skip
        assert (out / "failed.ndjson").read_bytes() == b"".join(original[n - 1] for n in (2, 4, 5))
        assert "Report saved" in [n.title for n in shown(app)]

        await pilot.press("f7")
        await answer_path(app, pilot, tmp_path / "to-fix.ndjson")
        assert (tmp_path / "to-fix.ndjson").read_bytes() == (out / "failed.ndjson").read_bytes()
        assert "3 lines to fix and submit again" in messages(app)

        # Saving over an existing file asks first; "no" leaves it alone.
        (tmp_path / "to-fix.ndjson").write_text("keep me\n")
        await pilot.press("f7")
        await wait_for(pilot, lambda: isinstance(app.screen, PathScreen), "the path dialog")
        app.screen.query_one(Input).value = str(tmp_path / "to-fix.ndjson")
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the question")
        await pilot.press("n")
        await settle(app, pilot)
        assert (tmp_path / "to-fix.ndjson").read_text() == "keep me\n"

        # The input file itself is never written over.
        await pilot.press("f7")
        await wait_for(pilot, lambda: isinstance(app.screen, PathScreen), "the path dialog")
        app.screen.query_one(Input).value = str(path)
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the question")
        await pilot.press("y")
        await settle(app, pilot)
        assert path.read_bytes() == b"".join(original)
        assert "is the job's input file" in messages(app)

        await pilot.press("escape")
        await settle(app, pilot)
        assert app.screen is screen


async def lines_table_heights(ui_app, folder: Path, size, keys) -> list[int]:
    """The job details' lines table height after each of ``keys``, for a job of the mixed
    file in ``folder``."""
    app = ui_app()
    async with app.run_test(size=size) as pilot:
        screen = await open_bulk(app, pilot)
        await submit_and_wait(app, pilot, screen, mixed_file(folder))
        await pilot.press("enter")  # on the job's row
        await settle(app, pilot)
        table = app.screen.query_one("#bulk-lines", PagedTable).table
        heights = []
        for key in keys:
            await pilot.press(key)
            await settle(app, pilot)
            heights.append(table.size.height)
        return heights


async def test_the_lines_stay_put_as_the_cursor_moves_between_their_problems(ui_app, tmp_path):
    """A line whose problems wrap took more rows under the table than a completed one, so
    every key between them moved the table and laid the whole screen out again."""
    keys = ("down",) * 5 + ("up",) * 5  # lines 2 to 6 and back
    heights = await lines_table_heights(ui_app, tmp_path, SIZE, keys)
    assert len(set(heights[5:])) == 1, heights  # every line seen: it no longer moves


async def test_on_a_small_terminal_the_lines_table_keeps_its_rows_after_a_long_problem(
    ui_app, tmp_path
):
    """QA, 60x20: once the cursor had been on a line whose problems took 3 rows, the
    detail kept them and the lines table showed its header alone on every line after."""
    folder = tmp_path / ("quarterly-producer-registry-reconciliation-" * 2)
    folder.mkdir()
    heights = await lines_table_heights(ui_app, folder, (60, 20), ("down",) * 5)  # lines 2-6
    assert heights[-1] > 1, heights  # line 6, after lines 2 and 4: a row under the header


async def test_markup_like_text_from_a_file_or_a_path_is_shown_as_it_is(ui_app, tmp_path):
    """Seen: a ProfileKey ``QA-[/i]KEY`` in a submitted file, or a bad line's member
    named ``[/x]``, ended the app as the job's lines were shown (every time: the job could
    never be opened); a missing file or a report saved under a path holding ``[/x]``
    ended it on the message saying so."""
    line = json.loads(agent_line(1))
    line["data"]["agent"]["profileKey"] = "QA-[/i]KEY"
    bad = json.loads(agent_line(2))
    bad["data"]["agent"]["demographic"]["[/x]"] = "y"
    for folder in ("k[", "r["):
        (tmp_path / folder).mkdir()
    path = write_lines(tmp_path / "k[/x].ndjson", [json.dumps(line), json.dumps(bad)])
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_bulk(app, pilot)
        screen.query_one("#bulk-path", Input).value = str(tmp_path / "nope[/x].ndjson")
        await pilot.press("f5")
        await settle(app, pilot)
        assert "nope[/x].ndjson: no such file" in messages(app)
        await submit_and_wait(app, pilot, screen, path)
        await pilot.press("enter")
        await settle(app, pilot)
        detail = app.screen
        assert isinstance(detail, BulkJobScreen)
        table = detail.query_one("#bulk-lines", PagedTable).table
        cells = [str(cell) for row in range(table.row_count) for cell in table.get_row_at(row)]
        assert "QA-[/i]KEY" in cells
        assert any("demographic.[/x]: is not a field" in cell for cell in cells)
        await pilot.press("f6")
        await answer_path(app, pilot, tmp_path / "r[/x].csv")
        assert "Report saved" in [n.title for n in shown(app)]
        assert app.is_running


async def test_a_long_job_is_shown_a_page_at_a_time(ui_app, tmp_path):
    lines = [agent_line(1)] + [BAD_SSN] * 229 + [agent_line(231)]
    path = write_lines(tmp_path / "long.ndjson", lines)
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_bulk(app, pilot)
        await submit_and_wait(app, pilot, screen, path)
        await pilot.press("f8")
        await settle(app, pilot)
        detail = app.screen
        paged = detail.query_one("#bulk-lines", PagedTable)
        assert paged.table.row_count == 100 and paged.keys[0] == 1
        assert "page 1 of 3  ·  rows 1–100 of 231  ·  n next" in text_of(detail, ".paged-info")
        await pilot.press("n")
        await settle(app, pilot)
        assert paged.keys[0] == 101 and paged.keys[-1] == 200
        assert "page 2 of 3  ·  rows 101–200 of 231  ·  n next, p previous" in text_of(
            detail, ".paged-info"
        )
        await pilot.press("n")
        await settle(app, pilot)
        assert paged.keys == list(range(201, 232)) and page_rows(detail)[-1] == ("231", "completed")
        await pilot.press("n")  # no further page
        await settle(app, pilot)
        assert paged.keys[0] == 201 and "This is the last page." in messages(app)
        await pilot.press("p", "p")
        await settle(app, pilot)
        assert paged.keys[0] == 1
        # PageDown past the last row turns the page; PageUp above the first turns it back.
        paged.table.move_cursor(row=99)
        await pilot.press("pagedown")
        await settle(app, pilot)
        assert paged.page == 2 and paged.table.cursor_row == 0
        await pilot.press("pageup")
        await settle(app, pilot)
        assert paged.page == 1 and paged.table.cursor_row == 99
        # A filter starts again from its first page.
        await pilot.press("n", "i")
        await settle(app, pilot)
        assert paged.page == 1 and paged.keys[0] == 2
        assert "Invalid lines: page 1 of 3  ·  rows 1–100 of 229" in text_of(detail, ".paged-info")


async def test_a_bad_path_gives_a_clear_message(ui_app, tmp_path):
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_bulk(app, pilot)
        await pilot.press("f5")
        await pilot.pause()
        assert "Pick a file first" in messages(app)
        assert app.focused is screen.query_one("#bulk-path")

        screen.query_one("#bulk-path", Input).value = str(tmp_path / "nowhere.ndjson")
        await pilot.press("enter")
        await settle(app, pilot)
        panel = screen.query_one("#bulk-preflight", Static)
        assert f"✗ Cannot use this file: {tmp_path / 'nowhere.ndjson'}: no such file" in str(
            panel.render()
        )
        assert screen.query_one("#bulk-preflight-box").has_class("-error")
        await pilot.press("f5")
        await settle(app, pilot)
        assert "✗ Cannot submit:" in text_of(screen, "#bulk-preflight")
        assert f"{tmp_path}/nowhere.ndjson: no such file" in messages(app)

        screen.query_one("#bulk-path", Input).value = str(tmp_path)
        await pilot.press("enter")
        await settle(app, pilot)
        assert "is a folder, not an NDJSON file" in text_of(screen, "#bulk-preflight")
        with named_pipe(tmp_path / "pipe.ndjson") as fifo:
            screen.query_one("#bulk-path", Input).value = str(fifo)
            await pilot.press("enter")
            await settle(app, pilot)
            assert "is a named pipe, not an NDJSON file" in text_of(screen, "#bulk-preflight")
        assert Journal().jobs() == []

        # Nothing valid: the check says so, and submitting asks first.
        write_lines(tmp_path / "bad.ndjson", [BAD_SSN, "[1, 2]"])
        screen.query_one("#bulk-path", Input).value = str(tmp_path / "bad.ndjson")
        await pilot.press("enter")
        await settle(app, pilot)
        assert "No record is valid" in text_of(screen, "#bulk-preflight")
        await pilot.press("f5")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the question")
        await pilot.press("n")
        await settle(app, pilot)
        assert Journal().jobs() == []


async def test_a_file_not_checked_whose_first_records_are_all_invalid_asks_first(ui_app, tmp_path):
    # QA: 3,000 lines of {"agent": {...}} (no envelope), submitted with F5 and no check,
    # made a job that "completed" nothing. Its first records say so before a job is made.
    bad = tmp_path / "bad.ndjson"
    write_lines(bad, [BAD_SSN] * 150)
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_bulk(app, pilot)
        screen.query_one("#bulk-path", Input).value = str(bad)
        await pilot.press("f5")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the question")
        question = str(app.screen.query_one(".dialog-text").render())
        assert question.startswith("In bad.ndjson, its first 100 records are invalid (line 1: ")
        await pilot.press("n")
        await settle(app, pilot)
        assert Journal().jobs() == []


# --- jobs from elsewhere -------------------------------------------------------------------


async def test_unfinished_jobs_from_an_earlier_session_are_offered_and_resume(ui_app, tmp_path):
    path = mixed_file(tmp_path)
    with Journal() as journal:  # another session created these and never ran them
        left = create_job(journal, path, "sandbox")
        other_env = create_job(journal, path, "staging")
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("4")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the offer")
        question = str(app.screen.query_one(".dialog-text", Static).render())
        assert "1 bulk job did not finish" in question and left.id in question
        assert other_env.id not in question
        assert ("1 unfinished bulk job belongs to staging: e shows every environment's jobs, "
                "F6 resumes the one selected." in messages(app))  # fmt: skip
        await pilot.press("y")
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, BulkScreen)
        await until_ended(pilot, screen, left.id)
        with Journal() as journal:
            assert journal.job(left.id).state == DONE
            assert journal.job(other_env.id).state == VALIDATING  # not sent to this env
        row = job_row(screen, left.id)
        assert (row["env"], row["state"], row["completed"], row["failed"], row["invalid"]) == (
            "sandbox", "done", "3", "1", "2")  # fmt: skip
        assert other_env.id not in screen.jobs_table.row_ids  # this environment's jobs only
        await pilot.press("e")
        await settle(app, pilot)
        assert job_row(screen, other_env.id)["state"] == "not started"
        assert job_row(screen, other_env.id)["env"] == "staging"
        screen.query_one("#bulk-jobs", DataTable).move_cursor(
            row=screen.jobs_table.row_ids.index(other_env.id)
        )
        # Seen: F6 refused another environment's job ("switch to it in Settings") while
        # F7 stopped it and the CLI resumed it: its worker connects to the job's own
        # environment, here one this config lacks, which it says.
        await pilot.press("f6")
        await wait_for(pilot, lambda: "cannot start" in messages(app), "the refusal")
        assert "--env: no environment named staging" in messages(app)


async def test_declined_jobs_stay_and_resume_on_request(ui_app, tmp_path):
    path = mixed_file(tmp_path)
    with Journal() as journal:
        left = create_job(journal, path, "sandbox")
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("4")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the offer")
        await pilot.press("n")
        await settle(app, pilot)
        screen = app.screen
        assert job_row(screen, left.id)["state"] == "not started"
        assert "select it and press F6" in messages(app)
        await pilot.press("f6")
        await settle(app, pilot)
        await until_ended(pilot, screen, left.id)
        assert Journal().job(left.id).state == DONE
        assert job_row(screen, left.id)["state"] == "done"


async def test_a_job_another_process_runs_is_shown_but_not_taken(ui_app, tmp_path):
    path = mixed_file(tmp_path)
    journal = Journal()
    job = create_job(journal, path, "sandbox")
    app = ui_app()
    with journal.running(job.id):  # as the CLI holds it while it runs the job
        async with app.run_test(size=SIZE) as pilot:
            screen = await open_bulk(app, pilot)  # no offer: it is running
            assert job_row(screen, job.id)["state"] == "validating"
            await pilot.press("f6")
            await settle(app, pilot)
            assert f"Job {job.id} is running." in messages(app)
            screen.resume([screen.seen[job.id]])  # even if asked to, no second worker runs it
            await settle(app, pilot)
            assert "already running in another process" in messages(app)
            assert journal.job(job.id).state == VALIDATING
            await pilot.press("f7")  # the stop is asked of whoever runs it, through the journal
            await settle(app, pilot)
            assert f"Stopping job {job.id}" in messages(app)
            assert journal.job(job.id).stop_requested
    journal.close()


async def test_a_file_changed_since_its_job_began_is_not_resumed(ui_app, tmp_path):
    path = mixed_file(tmp_path)
    with Journal() as journal:
        job = create_job(journal, path, "sandbox")
    with open(path, "a", encoding="utf-8") as file:
        file.write(agent_line(7) + "\n")
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("4")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the offer")
        await pilot.press("y")
        await settle(app, pilot)
        assert "It cannot start: " in messages(app)
        assert "has changed since the job was started; submit it again as a new job" in messages(
            app
        )
        assert Journal().job(job.id).counts.lines == 0  # nothing was read or sent


async def test_an_unreachable_service_stops_the_job_with_a_plain_message(
    ui_app, config_file, tmp_path
):
    config_file.parent.mkdir(parents=True, exist_ok=True)
    config_file.write_text(
        'active = "down"\n\n[environments.down]\nbase_url = "http://127.0.0.1:9"\n',
        encoding="utf-8",
    )
    path = write_lines(tmp_path / "one.ndjson", [agent_line(1)])
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_bulk(app, pilot)
        await submit_and_wait(app, pilot, screen, path)
        [job] = Journal().jobs()
        assert job.state == STOPPED and job.env == "down"
        assert "the service keeps failing to accept bulk requests" in job.message
        assert f"Stopped: {job.message}. F6 resumes it." in messages(app)
        assert "Traceback" not in messages(app)
        assert job_row(screen, job.id)["state"] == "stopped"


# --- stopping, retrying, outliving the app ------------------------------------------------


async def test_a_running_job_stops_on_request_and_resumes(
    ui_app, config_file, tmp_path, monkeypatch
):
    # Every record fails, retryably, and waits 5 s before it is sent again (a stop cuts
    # that wait short; a resume honours it): the job is still running when F7 comes,
    # however loaded the machine (with the users' delays it had 0.5 s).
    monkeypatch.setenv(DELAYS_VARIABLE, "10")
    sandbox_failing(config_file, 1.0)
    path = write_lines(tmp_path / "flaky.ndjson", [agent_line(n) for n in range(1, 5)])
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_bulk(app, pilot)
        screen.query_one("#bulk-path", Input).value = str(path)
        await pilot.press("f5")
        await wait_for(pilot, lambda: any(s.job.counts.retrying for s in screen.seen.values()),
                       "a first retryable failure")  # fmt: skip
        [job_id] = screen.seen
        assert screen.seen[job_id].running
        assert job_row(screen, job_id)["state"] == screen.seen[job_id].words()
        await pilot.press("f7")
        await until_ended(pilot, screen)
        job = Journal().job(job_id)
        assert (job.state, job.message) == (STOPPED, "stopped on request")
        assert job_row(screen, job_id)["state"] == "stopped"
        assert "Stopped: stopped on request. F6 resumes it." in text_of(
            screen, "#bulk-selected-text"
        )
        # Its lines to retry are no failures yet: F5 in its details says what sends them
        # (QA: "no retryable failures" beside the lines "to retry").
        await pilot.press("f8")
        await settle(app, pilot)
        await pilot.press("f5")
        await settle(app, pilot)
        assert "Its 4 lines still to send go when it resumes (F6 in Bulk)." in messages(app)
        await pilot.press("escape")
        await settle(app, pilot)
        sandbox_failing(config_file, 0.0)  # the next worker's sandbox does not fail
        monkeypatch.setenv(DELAYS_VARIABLE, "0.05")  # nor waits long
        await pilot.press("f6")
        await settle(app, pilot)
        await wait_for(pilot, lambda: Journal().job(job_id).state == DONE, "the resumed job")
        assert Journal().job(job_id).counts.completed == 4


async def test_at_80_columns_the_jobs_table_shows_each_jobs_progress_whole(ui_app, tmp_path):
    """QA: at 80 columns the Progress column was cut ("100" of "100%")."""
    env = ui_app().config.active_env()[0]
    with Journal() as journal:
        path = write_lines(tmp_path / f"{'agents-2026-11-' * 2}.ndjson", [agent_line(1)])
        journal.set_state(create_job(journal, path, env).id, DONE)
    app = ui_app()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_bulk(app, pilot)
        table = screen.query_one("#bulk-jobs", DataTable)
        await wait_for(pilot, lambda: table.row_count == 1, "the job in the table")
        keys = [key for key, _ in JOB_COLUMNS]
        widths = [c.get_render_width(table) for c in table.columns.values()]
        through_progress = sum(widths[: keys.index("progress") + 1])
        assert through_progress <= table.scrollable_content_region.width, widths


async def test_the_jobs_table_stays_put_as_the_cursor_moves_between_jobs(ui_app, tmp_path):
    """Seen (issue 12, keys while a job ran): the panel under the table took one more row
    for a job whose words wrap, so every key between two such jobs moved the table and
    laid the whole screen out again, twice. The panel keeps the taller job's height."""
    env = ui_app().config.active_env()[0]
    with Journal() as journal:
        for path in (tmp_path / "a.ndjson", tmp_path / f"{'long-name-' * 9}b.ndjson"):
            write_lines(path, [agent_line(1)])
            journal.set_state(create_job(journal, path, env).id, DONE)
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_bulk(app, pilot)
        table = screen.query_one("#bulk-jobs", DataTable)
        await wait_for(pilot, lambda: table.row_count == 2, "both jobs in the table")
        table.focus()
        heights, panel = [], screen.query_one("#bulk-selected-text", Static)
        for key in ("down", "up", "down", "up", "down"):
            await pilot.press(key)
            await settle(app, pilot)
            assert screen.seen[table.cursor_key].job.path.name in str(panel.render())
            heights.append(table.size.height)
        assert len(set(heights[1:])) == 1, heights  # both jobs seen: it no longer moves
        assert panel.size.height >= panel.get_content_height(
            panel.size, panel.size, panel.size.width
        )


async def test_a_job_outlives_the_app_and_a_second_app_attaches_to_it(
    ui_app, config_file, tmp_path, monkeypatch
):
    """Quitting the app (as a dropped SSH connection ends it) leaves the job running in
    its worker; another app shows the same live progress; every record is accounted for."""
    monkeypatch.setenv(DELAYS_VARIABLE, "4")  # retries 2 s then 4 s later: time to attach
    sandbox_failing(config_file, 0.5)
    count = 1500
    path = write_lines(tmp_path / "big.ndjson", [agent_line(n) for n in range(1, count + 1)])
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_bulk(app, pilot)
        screen.query_one("#bulk-path", Input).value = str(path)
        await pilot.press("f5")
        await settle(app, pilot)
        [job_id] = screen.seen
        await pilot.press("ctrl+q")
    with Journal() as journal:
        assert journal.is_running(job_id)  # the app is gone; its job is not
        left_at = journal.job(job_id).counts.settled
    assert left_at < count

    second = ui_app()
    async with second.run_test(size=SIZE) as pilot:
        screen = await open_bulk(second, pilot)
        assert not isinstance(second.screen, ConfirmScreen)  # running: nothing to offer
        await wait_for(pilot, lambda: job_id in screen.seen, "the job in the table")
        assert screen.seen[job_id].running
        assert job_row(screen, job_id)["state"] == screen.seen[job_id].words()
        progress = [screen.seen[job_id].job.counts.settled]
        await wait_for(pilot, lambda: progress.append(screen.seen[job_id].job.counts.settled)
                       or progress[-1] > progress[0], "progress seen from the second app")  # fmt: skip
        await until_ended(pilot, screen, job_id, seconds=120)
        assert job_row(screen, job_id)["state"] == "done"
    job = Journal().job(job_id)
    c = job.counts
    assert job.state == DONE and c.lines == count
    assert c.completed + c.failed == count and c.unknown == c.invalid == 0


async def test_quitting_says_which_jobs_keep_running(config_file, tmp_path, monkeypatch):
    """The message the command prints after the app, seen from a job that still runs."""
    import subprocess
    import sys

    from tui_app.bulk.worker import spawn

    monkeypatch.setenv(DELAYS_VARIABLE, "4")
    sandbox_failing(config_file, 1.0)
    path = write_lines(tmp_path / "slow.ndjson", [agent_line(n) for n in range(1, 200)])
    with Journal() as journal:
        job = create_job(journal, path, "sandbox")
        spawn(journal, job.id)
        code = "from tui_app.cli import _say_running_jobs; _say_running_jobs()"
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        assert out.stdout == "1 bulk job keeps running; `producer-tui bulk status` shows it.\n"
        journal.request_stop(job.id)
        for _ in range(200):
            if not journal.is_running(job.id):
                break
            await asyncio.sleep(0.05)
        assert journal.job(job.id).state == STOPPED


async def test_a_file_submitted_before_is_submitted_again_only_when_confirmed(
    ui_app, tmp_path, monkeypatch
):
    path = write_lines(tmp_path / "again.ndjson", [agent_line(1)])
    with Journal() as journal:
        earlier = create_job(journal, path, "sandbox")
        journal.set_state(earlier.id, DONE)
    reads = []  # the file is hashed once a question, not again once the user says yes
    monkeypatch.setattr(pipeline, "inspect_file", lambda p: reads.append(p) or inspect_file(p))
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_bulk(app, pilot)
        screen.query_one("#bulk-path", Input).value = str(path)
        for answer in ("n", "y"):
            await pilot.press("f5")
            await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the question")
            question = str(app.screen.query_one(".dialog-text", Static).render())
            assert f"{path} was already submitted as job {earlier.id} (done, on " in question
            await pilot.press(answer)
            await settle(app, pilot)
            if answer == "n":
                assert [j.id for j in Journal().jobs()] == [earlier.id]
        # the job is made on the journal's thread after the dialog: wait for it, not for time
        await wait_for(pilot, lambda: len(Journal().jobs()) > 1, "the job submitted again")
        [again, _] = Journal().jobs()
        assert again.id != earlier.id
        assert reads == [path.resolve(), path.resolve()]
        await until_ended(pilot, screen, again.id)


async def test_retryable_failures_are_sent_again_from_the_details(ui_app, config_file, tmp_path):
    sandbox_failing(config_file, 1.0)
    path = write_lines(tmp_path / "flaky.ndjson", [agent_line(n) for n in range(1, 4)])
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_bulk(app, pilot)
        await submit_and_wait(app, pilot, screen, path)
        [job] = Journal().jobs()
        assert job.state == DONE and job.counts.failed == 3
        await pilot.press("f8")
        await settle(app, pilot)
        detail = app.screen
        await pilot.press("r")
        await settle(app, pilot)
        assert page_rows(detail) == [("1", "failed"), ("2", "failed"), ("3", "failed")]
        assert "transient failure" in text_of(detail, "#bulk-line-detail")

        sandbox_failing(config_file, 0.0)
        await pilot.press("f5")
        await settle(app, pilot)
        assert "Sending 3 records again." in messages(app)
        await wait_for(pilot, lambda: Journal().job(job.id).counts.completed == 3, "the retry")
        await wait_for(pilot, lambda: page_rows(detail) == [], "the page to empty")
        assert "No retryable failures." in text_of(detail, ".paged-info")
        # Seen: the last failure's problem stayed under the emptied list.
        await settle(app, pilot)
        assert text_of(detail, "#bulk-line-detail") == ""
        await wait_for(pilot, lambda: not Journal().is_running(job.id), "the worker to end")
        await pilot.press("f5")
        await settle(app, pilot)
        assert "It has no retryable failures to send again." in messages(app)


# --- keys and completion ---------------------------------------------------------------------


async def test_every_bulk_key_has_an_id_in_the_help(ui_app, tmp_path):
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        await open_bulk(app, pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        ids = {row[2] for row in app.screen.rows}
        assert {"bulk.pick", "bulk.check", "bulk.jobs", "bulk.submit", "bulk.resume",
                "bulk.stop", "bulk.open", "bulk.envs"} <= ids  # fmt: skip


def test_paths_complete_from_the_folder(tmp_path, monkeypatch):
    (tmp_path / "mine").mkdir()
    for name in ("mixed.ndjson", "mixed.txt", "notes.txt", ".hidden.ndjson"):
        (tmp_path / name).write_text("{}\n")
    complete = PathSuggester().complete
    base = f"{tmp_path}/"
    assert complete(base + "mix") == base + "mixed."  # the common start of two names
    assert complete(base + "mixed.") == base + "mixed.ndjson"  # bulk files first
    assert complete(base + "mi") == base + "mine/"  # folders first
    assert complete(base + "no") == base + "notes.txt"
    assert complete(base + ".h") == base + ".hidden.ndjson"  # hidden only once a dot is typed
    assert complete(base) == base + "mine/"
    assert complete(base + "zzz") is None
    assert complete(base + "notes.txt") is None  # complete already
    assert complete(f"{tmp_path}/nowhere/x") is None
    monkeypatch.setenv("HOME", str(tmp_path))
    assert complete("~/no") == "~/notes.txt"  # the ~ stays as typed


async def test_no_journal_call_runs_on_the_event_loop(ui_app, tmp_path, monkeypatch):
    """Every read and write of the journal the Bulk area makes (listing, submitting,
    refreshing, a job's pages, line details) happens off the loop's thread."""
    on_loop = sql_on_the_loop(monkeypatch, "bulk-journal.db")  # not the embedded sandbox
    path = mixed_file(tmp_path)
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_bulk(app, pilot)
        await submit_and_wait(app, pilot, screen, path)
        await pilot.press("f8")
        await settle(app, pilot)
        await pilot.press("f", "down", "a", "n", "escape")
        await settle(app, pilot)
        await pilot.press("f7", "f6")
        await settle(app, pilot)
    assert on_loop == []


async def test_lines_of_unknown_outcome_are_verified_from_the_details(ui_app, tmp_path):
    path = write_lines(tmp_path / "v.ndjson", [agent_line(n) for n in range(1, 4)])
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_bulk(app, pilot)
        await submit_and_wait(app, pilot, screen, path)
        [job] = Journal().jobs()
        with Journal() as journal:  # as if the answers to their requests had been lost
            journal._db.conn.execute("UPDATE lines SET state = 'UNKNOWN' WHERE job_id = ?",
                                  (job.id,))  # fmt: skip
        # Seen: the jobs table showed such a job at 100 % with no trace of its unknown lines.
        table = screen.query_one("#bulk-jobs", DataTable)
        await wait_for(pilot, lambda: str(table.get_cell(job.id, "unknown")) == "3",
                       "the jobs table to count the unknown lines")  # fmt: skip
        await pilot.press("f8")
        await settle(app, pilot)
        detail = app.screen
        await pilot.press("u")
        await settle(app, pilot)
        assert page_rows(detail) == [("1", "unknown"), ("2", "unknown"), ("3", "unknown")]
        await pilot.press("f8")
        await settle(app, pilot)
        assert "3 lines verified: 3 completed, 0 failed, 0 superseded." in messages(app)
        await wait_for(pilot, lambda: page_rows(detail) == [], "the unknown lines to settle")
        assert Journal().job(job.id).counts.completed == 3


async def test_a_refresh_that_outlives_the_jobs_table_ends_quietly(ui_app, monkeypatch):
    """Closing the app removes the screen's widgets before the screen: a refresh whose
    journal read answers in between used to look for the table, raise NoMatches and end
    the app with a traceback. The screen now stops its work first."""
    monkeypatch.setattr(bulk_screen, "REFRESH_EVERY", 3600)  # no tick replaces this refresh
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_bulk(app, pilot)
        table = screen.query_one("#bulk-jobs", DataTable)
        jobs = screen.control.jobs

        async def late_jobs(env=None):
            found = await jobs(env)
            while table.is_attached:  # answers once the closing app removed the table
                await asyncio.sleep(0)
            return found

        monkeypatch.setattr(screen.control, "jobs", late_jobs)
        worker = screen.refresh_jobs()
        await pilot.pause()
    assert worker.is_cancelled  # and no NoMatches raised as the block closed the app


async def test_with_no_jobs_a_path_typed_at_once_goes_into_the_file_field(ui_app):
    """QA: Bulk opened with the focus on its empty jobs table, so a path typed straight
    away set off keys: the 1 of /tmp/qa1 opened Search (a record there), its a and t an
    order form. The table keeps the focus, so its keys (1-6, ?) still work at once."""
    app = ui_app()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_bulk(app, pilot)
        assert app.focused is screen.query_one("#bulk-jobs")  # 1-6 and ? work at once
        await pilot.press(*"/tmp/qa1/at")
        await pilot.pause()
        assert app.screen is screen
        assert screen.path_input.value == "/tmp/qa1/at"
        assert app.focused is screen.path_input


async def test_with_no_jobs_a_path_typed_in_one_burst_goes_whole_into_the_file_field(ui_app):
    """Seen in tmux: "/tmp/ux/recs.ndjson" typed at once (as a paste or a quick typist sends
    it) left "/" in the field. Every key after the first had been queued for the table
    before the first moved the focus, and the screen then let them go."""
    app = ui_app()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_bulk(app, pilot)
        for character in "/tmp/qa1/at":  # queued together, as a terminal's one read
            app.post_message(events.Key(character, character))
        await pilot.pause()
        assert screen.path_input.value == "/tmp/qa1/at"
        assert app.screen is screen and app.focused is screen.path_input


async def test_what_the_panel_says_of_one_file_goes_when_another_is_typed(ui_app, tmp_path):
    """QA: "✗ Cannot submit: …/empty.ndjson is empty" stayed under the path of another
    file typed since, as if it were about that one."""
    empty = tmp_path / "empty.ndjson"
    empty.write_text("")
    three = write_lines(tmp_path / "three.ndjson", [agent_line(n) for n in (1, 2, 3)])
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_bulk(app, pilot)
        screen.path_input.value = str(empty)
        await pilot.press("f5")
        await settle(app, pilot)
        assert "is empty" in text_of(screen, "#bulk-preflight")
        await pilot.press("f2", "ctrl+u", *str(three))
        await pilot.pause()
        assert "empty" not in text_of(screen, "#bulk-preflight")
        await pilot.press("enter")  # checked: what it says now is of this file
        await wait_for(pilot, lambda: screen.checked is not None, "the pre-flight")
        await pilot.pause()
        assert "three.ndjson  checked: 3 records, 3 valid" in text_of(screen, "#bulk-preflight")
        await pilot.press("end", "x")
        await pilot.pause()
        assert "three.ndjson" not in text_of(screen, "#bulk-preflight")
