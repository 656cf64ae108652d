"""The schemas of ``docs/asyncapi.yaml``, from the models the WebSocket endpoint uses.

    .venv/bin/python -m threadwise.api.asyncapi    # rewrite the document's components.schemas

A test checks that the document's schemas are exactly these, so the document cannot drift
from what the server reads and writes.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import JsonSchemaMode, models_json_schema

from threadwise.protocol import (
    SocketCancel,
    SocketJob,
    SocketJobReply,
    SocketMessage,
    SocketPlainMessage,
    SocketReply,
)

DOCUMENT = Path(__file__).resolve().parents[2] / "docs" / "asyncapi.yaml"

# What clients send is validated; what the server sends is serialized.
FRAMES: list[tuple[type[BaseModel], JsonSchemaMode]] = [
    (SocketMessage, "validation"),
    (SocketPlainMessage, "validation"),
    (SocketCancel, "validation"),
    (SocketJob, "validation"),
    (SocketReply, "serialization"),
    (SocketJobReply, "serialization"),
]


def component_schemas() -> dict[str, Any]:
    """Every frame's JSON schema and those of the models it uses, by model name."""
    _, top = models_json_schema(FRAMES, ref_template="#/components/schemas/{model}")
    schemas: dict[str, Any] = top["$defs"]
    return dict(sorted(schemas.items()))


def main() -> int:
    import yaml

    class Dumper(yaml.SafeDumper):  # type: ignore[misc]
        pass

    def text_block(dumper: Any, value: str) -> Any:
        # Several lines read best as a block: descriptions, docstrings.
        style = "|" if "\n" in value else None
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)

    Dumper.add_representer(str, text_block)
    document = yaml.safe_load(DOCUMENT.read_text(encoding="utf-8"))
    document["components"]["schemas"] = component_schemas()
    text = yaml.dump(document, Dumper=Dumper, sort_keys=False, allow_unicode=True, width=100)
    DOCUMENT.write_text(text, encoding="utf-8")
    print(f"wrote the schemas of {len(FRAMES)} frames into {DOCUMENT}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
