"""Structure rules of STYLE.md that can be checked mechanically."""

from __future__ import annotations

import ast
from pathlib import Path

import harness.hooks

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("harness", "bot", "commands")
DESIGN_SURFACE = {
    "OPERATIONS",
    "PHASES",
    "context_type",
    "HookManager",
    "HookAbort",
    "HookTransportError",
    "AbandonObserver",
    "Redactor",
    "JsonRpcExecutor",
    "McpExecutor",
}


def _modules(package: str) -> list[Path]:
    return sorted((ROOT / package).rglob("*.py"))


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def test_no_module_is_over_400_lines():
    too_big = {
        str(path.relative_to(ROOT)): n
        for package in PACKAGES
        for path in _modules(package)
        if (n := len(path.read_text().splitlines())) > 400
    }
    assert too_big == {}


def test_modules_are_small_on_the_whole():
    sizes = sorted(
        len(path.read_text().splitlines()) for package in PACKAGES for path in _modules(package)
    )
    assert sizes[len(sizes) // 2] <= 150  # the median module, as formatted


def test_the_formatter_decides_layout_everywhere():
    """STYLE.md: ``ruff format`` lays code out; no region is kept from it by hand."""
    marked = {
        str(path.relative_to(ROOT))
        for folder in (*PACKAGES, "tests", "bench", "examples")
        for path in (ROOT / folder).rglob("*.py")
        if any(f"fmt: {word}" in path.read_text() for word in ("skip", "off"))
    }
    assert marked == set()


def test_harness_never_imports_bot_or_commands():
    offenders = {
        str(path.relative_to(ROOT)): sorted(
            name for name in _imports(path) if name.split(".")[0] in ("bot", "commands")
        )
        for path in _modules("harness")
    }
    assert {k: v for k, v in offenders.items() if v} == {}


def test_code_outside_the_hooks_package_uses_its_public_modules_only():
    allowed = {"harness.hooks", "harness.hooks.contexts", "harness.hooks.remote"}
    # The hook-server side is the engine's other end of the wire: it serves the live
    # catalogue's points and runs the kit with the engine's own config rules.
    friends = (ROOT / "harness" / "hooks", ROOT / "harness" / "hook_server")
    offenders = {}
    for package in PACKAGES:
        for path in _modules(package):
            if any(path.is_relative_to(friend) for friend in friends):
                continue
            private = sorted(
                name
                for name in _imports(path)
                if name.startswith("harness.hooks.")
                and name not in allowed
                and not name.startswith("harness.hooks.contexts.")
                and not name.startswith("harness.hooks.remote.")
            )
            if private:
                offenders[str(path.relative_to(ROOT))] = private
    assert offenders == {}


def test_public_surface_contains_the_design_list_and_is_sorted():
    exported = harness.hooks.__all__
    assert DESIGN_SURFACE <= set(exported)
    assert exported == sorted(exported, key=lambda n: (not n.isupper(), n))
    for name in exported:
        assert getattr(harness.hooks, name) is not None


def _loaded_after(statement: str, libraries: tuple[str, ...]) -> list[str]:
    """Which of ``libraries`` a fresh interpreter has loaded after running ``statement``."""
    import subprocess
    import sys

    code = f"import sys; {statement}; print(sorted(m for m in {libraries!r} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return ast.literal_eval(out.stdout.strip())


TRANSPORTS = ("aiohttp", "httpx", "httpx2", "mcp", "mcp_types", "opentelemetry")


def test_importing_the_hooks_package_does_not_load_the_remote_stack():
    assert _loaded_after("import harness.hooks", TRANSPORTS) == []


def test_importing_an_executor_loads_no_transport_until_it_is_used():
    """Issue 25: ``from harness.hooks import JsonRpcExecutor`` took ~1 s, loading the MCP SDK.

    Each transport now loads with its first use: the JSON-RPC executor's aiohttp client
    when it makes one, the MCP SDK with an MCP executor, OpenTelemetry with tracing.
    """
    imported = (
        "from harness.hooks import JsonRpcExecutor, McpExecutor; JsonRpcExecutor, McpExecutor"
    )
    assert _loaded_after("from harness.hooks import JsonRpcExecutor", TRANSPORTS) == []
    assert _loaded_after("from harness.hooks.remote import JsonRpcExecutor", TRANSPORTS) == []
    assert "mcp" in _loaded_after(imported, TRANSPORTS)  # the lazy name still resolves
    made = (
        "from harness.hooks import JsonRpcExecutor; "
        "JsonRpcExecutor('http://127.0.0.1:9/hooks', point='tool.invoked.pre')"
    )
    assert _loaded_after(made, TRANSPORTS) == ["aiohttp"]


def test_a_jsonrpc_hook_server_loads_no_mcp_sdk():
    statement = "from harness.hook_server import jsonrpc_app; jsonrpc_app"
    assert _loaded_after(statement, ("mcp", "mcp_types")) == []


def test_the_settings_and_the_hooks_cli_load_no_database_tracing_or_conformance_kit():
    """Issue 27: each ``python -m harness.hooks`` run spent ~1 s importing before its command.

    The settings load SQLAlchemy, Alembic, the OpenTelemetry SDK and the Temporal SDK only
    where a database, a tracer or a Temporal profile is used; the hooks CLI loads the
    conformance kit (and the MCP SDK) only for ``conformance``, Alembic only with a database.
    """
    heavy = ("alembic", "sqlalchemy", "temporalio", "mcp", "mcp_types", "opentelemetry.sdk")
    settings = "import os; os.environ.pop('HARNESS_DATABASE_URL', None); import harness.config"
    assert _loaded_after(f"{settings}; harness.config.Settings()", heavy) == []
    cli = "import harness.hooks.__main__"
    assert _loaded_after(cli, ("alembic", "mcp", "mcp_types", "opentelemetry.sdk")) == []
    kit = "from harness.hooks.__main__ import main; main(['conformance', '--list'])"
    quiet = "import io; out, sys.stdout = sys.stdout, io.StringIO()"
    assert _loaded_after(f"{quiet}; {kit}; sys.stdout = out", ("mcp",)) == ["mcp"]


def _loaded_by_refusal(program: str, env: dict[str, str], libraries: tuple[str, ...]) -> list[str]:
    """Which of ``libraries`` ``python -m program`` has loaded when it refuses to start (exit 2)."""
    import os
    import subprocess
    import sys

    code = (
        "import runpy, sys\n"
        "try:\n"
        f"    runpy.run_module({program!r}, run_name='__main__', alter_sys=True)\n"
        "except SystemExit as refused:\n"
        "    assert refused.code == 2, refused.code\n"
        f"print(sorted(m for m in {libraries!r} if m in sys.modules))\n"
    )
    clean = {
        k: v for k, v in os.environ.items() if not k.startswith(("HARNESS_", "BOT_", "SLACK_"))
    }
    out = subprocess.run(
        [sys.executable, "-c", code], env={**clean, **env}, capture_output=True, text=True
    )
    assert out.returncode == 0 and "not starting: " in out.stderr, out.stderr
    return ast.literal_eval(out.stdout.strip())


def test_the_worker_and_the_bot_refuse_a_bad_setting_before_loading_the_sdks(tmp_path):
    """Issue 27: a worker that only refused a bad setting spent 1.4 s of CPU importing first.

    A setting either process cannot take and a missing payload key are said having loaded
    the settings only: no Temporal SDK, no database, no Slack or web framework.
    """
    heavy = ("aiohttp", "slack_bolt", "sqlalchemy", "temporalio")
    data = {"HARNESS_DATA_DIR": str(tmp_path)}  # no key file there either
    assert _loaded_by_refusal("harness.worker", data, heavy) == []
    assert _loaded_by_refusal("harness.worker", {**data, "HARNESS_HEALTH_PORT": "x"}, heavy) == []
    local = {**data, "BOT_LOCAL": "1"}
    assert _loaded_by_refusal("bot", local, heavy) == []
    assert _loaded_by_refusal("bot", {**data, "BOT_LOCAL": ""}, heavy) == []  # no credentials
