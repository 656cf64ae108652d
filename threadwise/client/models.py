"""The typed requests and results of the client: plain dataclasses, read from and written to
the wire's camelCase JSON."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Message:
    content: str
    participant_id: str | None = None
    timestamp: str | None = None  # ISO 8601, echoed as written

    def to_wire(self) -> dict[str, Any]:
        wire: dict[str, Any] = {"content": self.content}
        if self.participant_id is not None:
            wire["participantId"] = self.participant_id
        if self.timestamp is not None:
            wire["timestamp"] = self.timestamp
        return wire


@dataclass(frozen=True)
class Participant:
    participant_id: str
    role: str | None = None  # "user" (the customer) or "operator"
    display_name: str | None = None

    def to_wire(self) -> dict[str, Any]:
        wire: dict[str, Any] = {"participantId": self.participant_id}
        if self.role is not None:
            wire["role"] = self.role
        if self.display_name is not None:
            wire["displayName"] = self.display_name
        return wire


@dataclass(frozen=True)
class Conversation:
    messages: list[Message | str]
    conversation_id: str | None = None
    participants: list[Participant] = field(default_factory=list)

    def to_wire(self) -> dict[str, Any]:
        wire: dict[str, Any] = {
            "messages": [
                Message(m).to_wire() if isinstance(m, str) else m.to_wire() for m in self.messages
            ]
        }
        if self.conversation_id is not None:
            wire["conversationId"] = self.conversation_id
        if self.participants:
            wire["participants"] = [p.to_wire() for p in self.participants]
        return wire


@dataclass(frozen=True)
class SummaryItem:
    """One item of a summary: the summary itself, or one aspect (``aspect`` names it)."""

    content: str
    type: str | None
    language: str | None
    aspect: str | None
    raw: dict[str, Any] = field(repr=False)

    @classmethod
    def from_wire(cls, item: dict[str, Any]) -> SummaryItem:
        return cls(
            content=str(item.get("content", "")),
            type=item.get("type"),
            language=item.get("language"),
            aspect=item.get("aspect"),
            raw=item,
        )


@dataclass(frozen=True)
class Summary:
    """A summary: ``text`` is the summary, or the aspects' contents one per paragraph;
    ``items`` holds every item with its extras (evidence, steps, sentiment…)."""

    items: list[SummaryItem]
    request_id: str | None = None

    @property
    def text(self) -> str:
        return "\n\n".join(item.content for item in self.items)

    @property
    def language(self) -> str | None:
        return self.items[0].language if self.items else None

    def aspect(self, name: str) -> SummaryItem | None:
        return next((item for item in self.items if item.aspect == name), None)

    @classmethod
    def from_envelope(cls, envelope: dict[str, Any]) -> Summary:
        results = envelope.get("message", {}).get("results", [])
        items = [SummaryItem.from_wire(i) for result in results for i in result["response"]]
        return cls(items, envelope.get("requestId"))


@dataclass(frozen=True)
class SummaryDraft:
    """What a streamed summary has written so far (each draft holds the whole text so far);
    the last one has ``done`` and the finished ``summary``."""

    text: str
    done: bool = False
    summary: Summary | None = None


@dataclass(frozen=True)
class Translation:
    """One message in one target language."""

    text: str
    target_language: str | None
    source_language: str | None
    engine: str | None
    conversation_id: str | None
    participant_id: str | None
    raw: dict[str, Any] = field(repr=False)

    @classmethod
    def from_wire(cls, item: dict[str, Any]) -> Translation:
        return cls(
            text=str(item.get("content", "")),
            target_language=item.get("targetLanguage") or item.get("language"),
            source_language=item.get("sourceLanguage"),
            engine=item.get("engine"),
            conversation_id=item.get("conversationId"),
            participant_id=item.get("participantId"),
            raw=item,
        )

    @classmethod
    def list_from_envelope(cls, envelope: dict[str, Any]) -> list[Translation]:
        """Target by target (in the order asked), each message in request order."""
        results = envelope.get("message", {}).get("results", [])
        return [cls.from_wire(item) for result in results for item in result["response"]]


@dataclass(frozen=True)
class GlossaryEntry:
    source: str
    target: str
    case_sensitive: bool = False

    def to_wire(self) -> dict[str, Any]:
        return {"source": self.source, "target": self.target, "caseSensitive": self.case_sensitive}


@dataclass(frozen=True)
class Glossary:
    """A glossary of one language pair; ``entries`` only when it was read whole."""

    glossary_id: str
    organization_id: str
    name: str
    source_language: str
    target_language: str
    default: bool
    entry_count: int
    entries: list[GlossaryEntry] | None = None

    @classmethod
    def from_wire(cls, data: dict[str, Any]) -> Glossary:
        entries = data.get("entries")
        return cls(
            glossary_id=data["glossaryId"],
            organization_id=data["organizationId"],
            name=data["name"],
            source_language=data["sourceLanguage"],
            target_language=data["targetLanguage"],
            default=bool(data.get("default")),
            entry_count=int(data.get("entryCount", 0)),
            entries=None
            if entries is None
            else [
                GlossaryEntry(e["source"], e["target"], bool(e.get("caseSensitive")))
                for e in entries
            ],
        )


@dataclass(frozen=True)
class UsageQuota:
    monthly_characters: int
    used_this_month: int
    resets_on: str  # YYYY-MM-DD (UTC)


@dataclass(frozen=True)
class Usage:
    """An organization's usage over ``first``..``last`` (UTC days, included); ``raw`` has
    the days and the split by operation."""

    organization_id: str
    first: str
    last: str
    requests: int
    characters_translated: int
    characters_summarized: int
    quota: UsageQuota | None
    raw: dict[str, Any] = field(repr=False)

    @classmethod
    def from_wire(cls, data: dict[str, Any]) -> Usage:
        totals = data["totals"]
        quota = data.get("quota")
        return cls(
            organization_id=data["organizationId"],
            first=data["from"],
            last=data["to"],
            requests=int(totals["requests"]),
            characters_translated=int(totals["charactersTranslated"]),
            characters_summarized=int(totals["charactersSummarized"]),
            quota=None
            if quota is None
            else UsageQuota(
                int(quota["monthlyCharacters"]), int(quota["usedThisMonth"]), quota["resetsOn"]
            ),
            raw=data,
        )


@dataclass(frozen=True)
class LanguagePair:
    """A translation direction, the engine each tier uses for it, and the quality tier's
    label (``good``, ``usable``, ``experimental``; None: below them all)."""

    source: str
    target: str
    fast_engine: str | None
    quality_engine: str | None
    quality_label: str | None = None


@dataclass(frozen=True)
class Languages:
    translation: list[LanguagePair]
    summary: list[str]
    raw: dict[str, Any] = field(repr=False)

    @classmethod
    def from_wire(cls, data: dict[str, Any]) -> Languages:
        pairs = [
            LanguagePair(
                d["source"],
                d["target"],
                (d.get("fast") or {}).get("engine"),
                (d.get("quality") or {}).get("engine"),
                (d.get("quality") or {}).get("label"),
            )
            for d in data.get("translation", [])
        ]
        return cls(pairs, list(data.get("summary", [])), data)
