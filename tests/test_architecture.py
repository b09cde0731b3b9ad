"""The layers of DESIGN.md: bot/core is pure (standard library and itself only), SQL lives in bot/store."""

import ast
import re
import sys

from tests.paths import ROOT


def _imports(path):
    tree = ast.parse(path.read_text(), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.module


def test_core_imports_only_stdlib_and_itself():
    allowed = set(sys.stdlib_module_names) | {"__future__"}
    offenders = []
    for path in sorted((ROOT / "bot" / "core").rglob("*.py")):
        for name in _imports(path):
            top = name.split(".")[0]
            if name.startswith("bot.core") or (top in allowed and top != "bot"):
                continue
            offenders.append(f"{path.relative_to(ROOT)} imports {name}")
    assert offenders == []


def test_no_sql_outside_store():
    sql = re.compile(r"\b(SELECT|INSERT INTO|UPDATE [a-z_]+ SET|DELETE FROM)\b")
    offenders = [
        str(path.relative_to(ROOT))
        for folder in ("bot", "cogs")
        for path in sorted((ROOT / folder).rglob("*.py"))
        if "store" not in path.relative_to(ROOT).parts and sql.search(path.read_text())
    ]
    assert offenders == []


def test_cogs_do_not_import_each_other():
    offenders = [
        f"{path.name} imports {name}"
        for path in sorted((ROOT / "cogs").rglob("*.py"))
        for name in _imports(path)
        if name.startswith("cogs")
    ]
    assert offenders == []
