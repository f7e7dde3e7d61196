"""The headless core never imports Textual or Rich, and stays cheap to import."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

CORE = [
    "tui_app",
    "tui_app.config",
    "tui_app.contract.search",
    "tui_app.contract.record",
    "tui_app.contract.order",
    "tui_app.contract.profile",
    "tui_app.contract.bulk",
    "tui_app.contract.export",
    "tui_app.wire.json",
    "tui_app.wire.xml",
    "tui_app.wire.ndjson",
    "tui_app.client.registry",
    "tui_app.client.factory",
    "tui_app.sandbox.app",
    "tui_app.bulk.pipeline",
    "tui_app.bulk.cli",
    "tui_app.tracking",
    "tui_app.prefill",
    "tui_app.standing",
    "tui_app.pii",
    "tui_app.export_files",
    "tui_app.bulk.preflight",
    "tui_app.bulk.checker_process",
    "tui_app.bulk.worker",
    "tui_app.bulk.control",
    "tui_app.bulk.verify",
    "tui_app.bulk.commands",
    "tui_app.private_files",
    "tui_app.shell.parsers",
    "tui_app.watch.check",
    "tui_app.watch.cli",
    "tui_app.watch.commands",
    "tui_app.environment_form",
    "tui_app.field_docs",
]


def _modules_after_import(module: str) -> set[str]:
    code = f"import json, sys, {module}; print(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return set(json.loads(out.stdout))


@pytest.mark.parametrize("module", CORE)
def test_core_module_imports_without_textual_or_rich(module):
    loaded = _modules_after_import(module)
    assert module in loaded
    ui = sorted(m for m in loaded if m.split(".")[0] in ("textual", "rich"))
    assert ui == [], f"{module} pulled in {ui[:5]}"


def test_package_init_imports_nothing_heavy():
    loaded = _modules_after_import("tui_app")
    heavy = {"pydantic", "httpx", "fastapi", "defusedxml", "sqlite3"}
    assert not heavy & {m.split(".")[0] for m in loaded}


def test_the_app_module_loads_no_client_before_the_first_frame():
    loaded = _modules_after_import("tui_app.ui.app")
    assert not {"httpx", "tui_app.client.registry", "tui_app.contract.profile"} & loaded


def test_the_search_screen_builds_no_model_of_the_full_record():
    """The first frame is the Search screen: the record's dozen response models (some
    15 ms to build) wait until a record is opened or the client is loaded."""
    code = (
        "import sys, tui_app.ui.screens.search; from pydantic import BaseModel; "
        "print(sorted({n for m in list(sys.modules.values()) for n, v in getattr(m, '__dict__', {}).items() "
        "if n in ('FullInfo', 'FullRecordResponse', 'StateLicense') "
        "and isinstance(v, type) and issubclass(v, BaseModel)}))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_client_does_not_load_the_sandbox_or_fastapi():
    loaded = _modules_after_import("tui_app.client.factory")
    assert not {"fastapi", "uvicorn", "tui_app.sandbox.app"} & loaded
