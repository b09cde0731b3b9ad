"""The layers of DESIGN.md: bot/core is pure (standard library and itself only), SQL lives in bot/store."""

import ast
import functools
import re
import sys
from pathlib import Path

import pytest

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
    """A cog may be a package whose files import each other; nothing in cogs/ imports another cog."""
    offenders = []
    for path in sorted((ROOT / "cogs").rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        own = ".".join(parts[:2])  # cogs.cards for cogs/cards/buttons.py, cogs.dn for cogs/dn.py
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if isinstance(node, ast.ImportFrom) and node.level:
                package = parts[: len(parts) - node.level]  # what the dots name, from this file
                names = [".".join([*package, *([node.module] if node.module else [])])]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                continue
            inside = path.parent.name != "cogs"  # a file of a cog package may import its own package
            for name in names:
                mine = inside and (name == own or name.startswith(own + "."))
                if name.split(".")[0] == "cogs" and not mine:
                    offenders.append(f"{path.relative_to(ROOT)} imports {name}")
    assert offenders == []


# -- discord.py's public API only ---------------------------------------------------------------------------
# The modules of discord.py the bot may import or reach through: the ones its documentation presents.
PUBLIC_DISCORD_MODULES = {
    "discord",
    "discord.abc",
    "discord.app_commands",
    "discord.ext",
    "discord.ext.commands",
    "discord.ext.tasks",
    "discord.ui",
    "discord.utils",
}
# The one exception (DESIGN.md): pointing REST and the gateway at a fake Discord, in this one function.
POINT_AT = ("bot/client.py", "point_at")
POINT_AT_MAY_SET = {"discord.http.Route.BASE", "discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY"}
# internals of discord.py without an underscore
INTERNAL_ATTRIBUTES = {"parsers"}


def _private(name):
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


@functools.cache
def _discord_private_names():
    """Every underscored name discord.py's own source defines or reads (attributes, methods, slots)."""
    import discord

    names = set()
    for path in Path(discord.__file__).parent.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute):
                name = node.attr
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                name = node.name
            elif isinstance(node, ast.Name):
                name = node.id
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                name = node.value
            else:
                continue
            if _private(name) and name.isidentifier():
                names.add(name)
    return names


def _dotted(node):
    """``discord.http.Route.BASE`` for that chain of attributes on a name; None for anything else."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return ".".join([node.id, *reversed(parts)])


def _names_discord(node, aliases):
    """Whether a class base names something of discord.py (``discord.ui.View``, ``commands.Cog``)."""
    dotted = _dotted(node.value if isinstance(node, ast.Subscript) else node)
    return dotted is not None and dotted.split(".")[0] in aliases


def _beyond_public(dotted):
    """Whether ``discord.a.b`` goes through a module of discord.py that is not public, or a private name."""
    import discord.ext.commands  # noqa: F401  # loads every module of discord.py a bot can reach

    parts = dotted.split(".")
    prefixes = (".".join(parts[: i + 1]) for i in range(1, len(parts)))
    return any(_private(part) for part in parts) or any(
        prefix in sys.modules and prefix not in PUBLIC_DISCORD_MODULES for prefix in prefixes
    )


def _import_findings(tree, filename):
    """Imports of discord.py beyond its public modules and names, and the local names bound to discord.py."""
    found, aliases = [], {"discord"}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "discord":
                    aliases.add((alias.asname or alias.name).split(".")[0])
                    if alias.name not in PUBLIC_DISCORD_MODULES:
                        found.append(f"{filename}:{node.lineno} imports {alias.name}")
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "discord":
            if node.module not in PUBLIC_DISCORD_MODULES:
                found.append(f"{filename}:{node.lineno} imports from {node.module}")
            for alias in node.names:
                aliases.add(alias.asname or alias.name)
                if _private(alias.name):
                    found.append(f"{filename}:{node.lineno} imports {node.module}.{alias.name}")
    return found, aliases


def discord_private_uses(source, filename, private_names):
    """Every use in ``source`` of discord.py beyond its public API, as ``file:line what``.

    - an import of a module of discord.py outside `PUBLIC_DISCORD_MODULES`, or of an underscored name;
    - a chain from the ``discord`` module through another of its modules or an underscored name
      (``discord.http.Route``, ``discord.utils._from_json``), except `POINT_AT_MAY_SET` inside `POINT_AT`;
    - ``anything._name`` or ``getattr(anything, "_name")`` where ``_name`` is one of discord.py's private
      names (``self._name`` and ``cls._name`` are the bot's own, outside subclasses of discord.py's classes);
    - in a subclass of a discord.py class, ``self._name`` or a method ``_name`` that is one of discord.py's
      private names (reading or overriding its internals).
    """
    tree = ast.parse(source, filename=filename)
    found, aliases = _import_findings(tree, filename)
    point_at = {
        node
        for top in tree.body
        if (filename, getattr(top, "name", None)) == POINT_AT
        for node in ast.walk(top)
    }
    inside_discord_class = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and any(_names_discord(base, aliases) for base in node.bases):
            inside_discord_class.update(ast.walk(node))
            for inner in ast.walk(node):
                if isinstance(inner, ast.FunctionDef | ast.AsyncFunctionDef) and inner.name in private_names:
                    found.append(f"{filename}:{inner.lineno} overrides discord.py's {inner.name}")
    inner_links = {node.value for node in ast.walk(tree) if isinstance(node, ast.Attribute)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            dotted = _dotted(node)
            if (
                node not in inner_links
                and dotted is not None
                and dotted.startswith("discord.")
                and _beyond_public(dotted)
                and not (node in point_at and dotted in POINT_AT_MAY_SET)
            ):
                found.append(f"{filename}:{node.lineno} reaches {dotted}")
            own = isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")
            if node.attr in INTERNAL_ATTRIBUTES or (
                node.attr in private_names and (not own or node in inside_discord_class)
            ):
                found.append(f"{filename}:{node.lineno} uses {ast.unparse(node)}")
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("getattr", "setattr", "delattr", "hasattr")
            and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant)
            and node.args[1].value in private_names
        ):
            found.append(f"{filename}:{node.lineno} {node.func.id}(..., {node.args[1].value!r})")
    return sorted(set(found))


def test_no_private_name_of_discord_py_in_bot_and_cogs():
    private_names = _discord_private_names()
    found = []
    for folder in ("bot", "cogs"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            if "core" in path.relative_to(ROOT).parts:
                continue  # pure: no discord.py at all (test_core_imports_only_stdlib_and_itself)
            name = path.relative_to(ROOT).as_posix()
            found += discord_private_uses(path.read_text(encoding="utf-8"), name, private_names)
    assert found == []


@pytest.mark.parametrize(
    ("source", "filename"),
    [
        ("from discord.webhook.async_ import async_context\n", "bot/ui/reply.py"),
        ("import discord.webhook.async_\n", "bot/ui/reply.py"),
        ("from discord.http import Route, handle_message_parameters\n", "bot/ui/reply.py"),
        ("from discord.ui.view import _component_to_item\n", "bot/ui/buttons.py"),
        ("from discord.enums import ButtonStyle\n", "cogs/x.py"),
        ("import discord\ndef f(interaction):\n    return interaction._state\n", "bot/ui/reply.py"),
        ("import discord\ndef f(interaction):\n    del interaction._cs_response\n", "bot/ui/reply.py"),
        ("import discord\ndef f(client):\n    client._connection._view_store\n", "bot/ui/x.py"),
        ("import discord\ndef f(state):\n    return state.parsers\n", "bot/ui/x.py"),
        ("import discord\ndef f(state):\n    return getattr(state, '_view_store')\n", "bot/ui/x.py"),
        ("import discord\nclass V(discord.ui.View):\n    def f(self):\n        return self._children\n", ""),
        (
            "from discord import app_commands\nclass T(app_commands.CommandTree):\n"
            "    async def _call(self, interaction):\n        await super()._call(interaction)\n",
            "bot/ui/options.py",
        ),
        ("import discord\ndef elsewhere(base):\n    discord.http.Route.BASE = base\n", "bot/client.py"),
        ("import discord\ndef point_at(base):\n    discord.http.Route.BASE = base\n", "bot/ui/x.py"),
    ],
)
def test_the_check_finds_each_kind_of_private_use(source, filename):
    assert discord_private_uses(source, filename, _discord_private_names()) != []


def test_the_check_allows_point_at_and_the_bots_own_underscored_names():
    source = (
        "import discord\nimport yarl\n"
        "def point_at(base):\n"
        "    discord.http.Route.BASE = base\n"
        "    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(base)\n"
        "class Cache:\n    def __init__(self):\n        self._state = {}\n"
    )
    assert discord_private_uses(source, "bot/client.py", _discord_private_names()) == []
