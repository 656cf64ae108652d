"""Personal data kept from the engines, the caches, the idempotency store and the logs
(``request.settings.redactPersonalData``).

Before anything else sees a request, each message's personal data (``text.personal_data``,
and people's names from Apertium's dictionaries, ``text.person_names``; the participants'
own names are kept) is replaced by a typed placeholder, ``[EMAIL_1]``, the same for the same
value across the request. The detectors read each message's normal form (full-width
characters as ASCII, no zero-width ones, one kind of space and dash), and a placeholder
replaces the message's own characters, the invisible ones inside a value too. Everything
after works on that body: the engines read placeholders, the caches and stores keep them.
The answer keeps them (``"mask"``) or has the values put back (``"restore"``, or ``true``),
drafts streamed on the way too. It fails closed: if the personal data cannot be looked for,
the request is refused and nothing reaches an engine.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from threadwise.deadlines import Deadline
from threadwise.errors import ServiceError
from threadwise.protocol import Entity, ErrorCode, Evidence, MessageBody, NextStep, ResponseItem
from threadwise.text.found import Found
from threadwise.text.person_names import Analyzer, capitalized_words, find_people, word_tags
from threadwise.text.personal_data import REGIONS, Placeholders, find
from threadwise.text.spans import DisjointSpans

log = logging.getLogger(__name__)

Mode = Literal["restore", "mask"]
Results = list[list[ResponseItem]]


@dataclass
class Redaction:
    """One request's redaction: its masked ``body``, and how to render the answer."""

    mode: Mode
    placeholders: Placeholders
    body: MessageBody

    @property
    def count(self) -> int:
        return len(self.placeholders.values)

    def text(self, text: str) -> str:
        """A text of the answer as the caller gets it."""
        return self.placeholders.restore(text) if self.mode == "restore" else text

    def results(self, results: Results) -> Results:
        if self.mode == "mask" or not self.placeholders.values:
            return results
        return [[self._item(item) for item in items] for items in results]

    def _item(self, item: ResponseItem) -> ResponseItem:
        update: dict[str, object] = {"content": self.text(item.content)}
        if item.evidence:
            update["evidence"] = [
                Evidence(sentence=self.text(e.sentence), messages=e.messages) for e in item.evidence
            ]
        if item.steps:
            update["steps"] = [NextStep(owner=s.owner, text=self.text(s.text)) for s in item.steps]
        if item.entities:
            update["entities"] = [
                Entity(kind=e.kind, text=self.text(e.text)) for e in item.entities
            ]
        return item.model_copy(update=update)

    def partial(self, on_partial: Callable[[str], None] | None) -> Callable[[str], None] | None:
        """``on_partial`` given drafts as the caller gets them."""
        if on_partial is None or self.mode == "mask":
            return on_partial
        target = on_partial
        return lambda draft: target(self.text(draft))


def _carry_on() -> None:
    """No deadline: nothing stops the work."""


class Redactor:
    def __init__(self, analyzer: Analyzer | None, regions: Sequence[str] = REGIONS) -> None:
        self.analyzer = analyzer
        self.regions = regions

    @staticmethod
    def mode(body: MessageBody) -> Mode | None:
        asked = body.request.settings.redactPersonalData
        if asked is None or asked is False:
            return None
        return "restore" if asked is True else asked

    def redact(self, body: MessageBody, deadline: Deadline | None = None) -> Redaction | None:
        """The request with its personal data replaced, or None when it did not ask.
        ``deadline`` (its passing, or the caller leaving) stops the work between messages,
        and within one between its kinds of personal data."""
        mode = self.mode(body)
        if mode is None:
            return None
        check = deadline.check if deadline is not None else _carry_on
        try:
            return Redaction(mode, *self._masked(body, check))
        except ServiceError:
            raise  # the deadline's: the request timed out or was cancelled
        except Exception as exc:
            log.exception("redaction failed; the request is refused")
            raise ServiceError(
                ErrorCode.PROCESSING_FAILED,
                "The personal data of this request could not be looked for, so nothing of it "
                "was sent to an engine. Retry it; if it keeps failing, send it without "
                "redactPersonalData only if its content may be processed as it is.",
            ) from exc

    def _masked(
        self, body: MessageBody, check: Callable[[], None]
    ) -> tuple[Placeholders, MessageBody]:
        conversations = body.request.scope.conversations
        texts = [m.content for c in conversations for m in c.messages]
        tags = {}
        if self.analyzer is not None:
            words = set().union(*(capitalized_words(t) for t in texts)) if texts else set()
            check()
            tags = word_tags(self.analyzer, words)
        placeholders = Placeholders()
        masked_conversations = []
        for conversation in conversations:
            names = [p.displayName for p in conversation.participants if p.displayName]
            messages = []
            for message in conversation.messages:
                check()
                finds = self._find(message.content, tags, names, check)
                masked = placeholders.mask(message.content, finds)
                messages.append(message.model_copy(update={"content": masked}))
            masked_conversations.append(conversation.model_copy(update={"messages": messages}))
        scope = body.request.scope.model_copy(update={"conversations": masked_conversations})
        request = body.request.model_copy(update={"scope": scope})
        return placeholders, body.model_copy(update={"request": request})

    def find(self, text: str, participants: Sequence[str] = ()) -> list[Found]:
        """The personal data of one text (a request's texts are analyzed together)."""
        tags = {}
        if self.analyzer is not None:
            tags = word_tags(self.analyzer, capitalized_words(text))
        return self._find(text, tags, participants)

    def _find(
        self,
        text: str,
        tags: dict[str, frozenset[str]],
        participants: Sequence[str],
        check: Callable[[], None] = _carry_on,
    ) -> list[Found]:
        finds = find(text, self.regions, check)
        if self.analyzer is None:
            return finds
        check()
        spans = DisjointSpans()
        for found in finds:
            spans.take(found.start, found.end)
        people = find_people(text, tags, participants)
        return finds + [p for p in people if spans.free(p.start, p.end)]
