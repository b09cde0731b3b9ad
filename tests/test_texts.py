"""The bot's texts read alike: one arrow style (→) in every string the bot can show or print.

Docstrings and comments are code, not texts: they are left out. HTML comments (``<!-- ... -->``) in the
generated pages are markup, not arrows.
"""

from __future__ import annotations

import ast
import re

from tests.paths import ROOT

ASCII_ARROW = re.compile(r"(?<!-)->|=>")


def _docstrings(tree: ast.AST) -> set[int]:
    ids: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                ids.add(id(body[0].value))
    return ids


def test_every_text_uses_one_arrow_style() -> None:  # issue 31, item 13
    found: list[str] = []
    for path in sorted([*(ROOT / "bot").rglob("*.py"), *(ROOT / "cogs").rglob("*.py")]):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        skip = _docstrings(tree)
        for node in ast.walk(tree):
            text = node.value if isinstance(node, ast.Constant) and id(node) not in skip else None
            if isinstance(text, str) and ASCII_ARROW.search(text):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {text[:60]!r}")
    assert found == [], "use → in texts:\n" + "\n".join(found)
