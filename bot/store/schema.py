"""Write data/sheet.schema.json from the SheetDocument model: ``python -m bot.store.schema [path]``."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from bot.store.models import SheetDocument

SCHEMA_PATH = Path(__file__).resolve().parents[2] / "data" / "sheet.schema.json"
SCHEMA_ID = "https://github.com/tabletop-dice-bot/schemas/sheet.schema.json"


def sheet_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of an exported character sheet."""
    schema = SheetDocument.model_json_schema(mode="validation")
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": SCHEMA_ID, **schema}


def schema_text() -> str:
    """The schema as the file holds it."""
    return json.dumps(sheet_schema(), indent=2, ensure_ascii=False, sort_keys=True) + "\n"


def main(argv: list[str]) -> int:
    """Write the schema file (default data/sheet.schema.json) and say where."""
    target = Path(argv[0]) if argv else SCHEMA_PATH
    target.write_text(schema_text(), encoding="utf-8")
    print(f"wrote {target}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
