"""DialogSum dev dialogues as threadwise request bodies (read from shared/eval, never copied)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

EVAL_DIR = Path(__file__).resolve().parents[2] / "shared" / "eval"
DIALOGSUM = EVAL_DIR / "dialogsum-dev.jsonl"
_LINE = re.compile(r"^(#Person\d+#):\s*(.*)$")


def load_dialogsum(path: Path = DIALOGSUM) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def dialogue_body(row: dict[str, Any], language: str | None = "en-US") -> dict[str, Any]:
    """A request body for one DialogSum dialogue; speakers keep their #PersonN# labels."""
    messages: list[dict[str, str]] = []
    speakers: dict[str, str] = {}
    for line in row["dialogue"].splitlines():
        match = _LINE.match(line.strip())
        if not match:
            if messages:
                messages[-1]["content"] += " " + line.strip()
            continue
        label, text = match.groups()
        pid = speakers.setdefault(label, f"p{len(speakers) + 1}")
        messages.append({"participantId": pid, "content": text})
    participants = [{"participantId": pid, "displayName": label} for label, pid in speakers.items()]
    return {
        "session": {"channel": {"language": language or ""}},
        "request": {
            "requestId": row["fname"],
            "connections": {"threadId": row["fname"]},
            "context": {"organizationId": "bench"},
            "scope": {
                "conversations": [
                    {
                        "conversationId": row["fname"],
                        "participants": participants,
                        "messages": messages,
                    }
                ]
            },
        },
    }
