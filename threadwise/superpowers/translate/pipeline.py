"""The synchronous pipeline: language identification, segmentation, routing, engines.

Per message: segment it as the request's text format reads (Markdown unless it says HTML,
XML or plain text) and detect its language (on its words alone; a message the identifier is
unsure of falls back to its conversation's language, the request's, the one dictionary's
that knows its words, or the channel's), unless the request names the language. Per group
of one source language, the router picks the tier's engine once (``route``: a backend,
``backends``), which translates its segments (``segments``), its terms as the glossary
gives them (``terms``).
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from threadwise.deadlines import Deadline
from threadwise.engines.machine import Dictionaries, MachineTranslator, TranslationEngineError
from threadwise.protocol import Formality, MessageBody, TextFormat
from threadwise.superpowers.translate.backends import Backend, MachineBackend, ModelBackend
from threadwise.superpowers.translate.job import PLAIN, TranslationJob, Wording, plan
from threadwise.superpowers.translate.llm import LlmTranslator
from threadwise.superpowers.translate.routing import (
    LLM,
    NO_ENGINE,
    Tier,
    TranslationRouter,
    draft_engine,
)
from threadwise.superpowers.translate.segments import Translated, translate_segmented
from threadwise.superpowers.translate.terms import TermTranslator
from threadwise.text.formality import applies
from threadwise.text.html_segments import HtmlSegmenter
from threadwise.text.languages import LanguageIdentifier, LanguageTag
from threadwise.text.markdown_segments import MarkdownSegmenter
from threadwise.text.plain_segments import PlainSegmenter
from threadwise.text.segmented import SegmentedMessage, Segmenter
from threadwise.text.tagged import text_of
from threadwise.text.terms import Glossary, Term

log = logging.getLogger(__name__)

# The dictionaries an unsure short message is looked up in: those of the languages whose chat
# messages the look-up was measured on (bench/data/chat_messages.tsv). Each added dictionary
# knows some of the others' short words ("Danke" is in the Norwegian one, "ok" in the
# Swedish, "vale" in five), so more would decide wrongly, or nothing, and cost a look-up each.
DICTIONARY_LANGUAGES = frozenset({"en", "es", "fr", "de", "pt"})


@dataclass(frozen=True)
class Routed:
    """A group's engine, and the direction's fast engine to fall back on should the model
    not answer in time (None: there is none)."""

    backend: Backend
    fallback: MachineBackend | None


class Translator:
    """The synchronous pipeline: language identification, segmentation, engines, checks."""

    def __init__(
        self,
        identifier: LanguageIdentifier,
        router: TranslationRouter,
        engines: Mapping[str, MachineTranslator],
        llm: LlmTranslator,
        dictionaries: Dictionaries | None = None,
    ) -> None:
        self.identifier = identifier
        self.router = router
        self.engines = engines
        self.llm = llm
        self.dictionaries = dictionaries
        self.segmenter = MarkdownSegmenter()
        self.segmenters: dict[TextFormat, Segmenter] = {
            "markdown": self.segmenter,
            "html": HtmlSegmenter(),
            "xml": HtmlSegmenter(xml=True),
            "plain": PlainSegmenter(),
        }
        # The model's check and rewriter of registers; machine engines' lines use them too.
        self.registers = llm.registers
        self.terms = TermTranslator(self.segmenter, self.segmenters)

    def plan(
        self,
        body: MessageBody,
        glossaries: Sequence[Glossary] = (),
        keep: Sequence[Term] = (),
        experimental: bool = False,
    ) -> TranslationJob:
        """Validate what the request asks for (``job.plan``)."""
        return plan(body, glossaries, keep, experimental)

    def prepare(self, job: TranslationJob) -> tuple[list[SegmentedMessage], list[str | None]]:
        """Each message segmented, and its source language (None: nothing to translate)."""
        segmenter = self.segmenters[job.text_format]
        segmented = [segmenter.segment(m.content) for m in job.messages]
        if job.source is not None:  # the request says: nothing to detect
            return segmented, [job.source if m.segments else None for m in segmented]
        words = [" ".join(text_of(s.parts) for s in sm.segments) for sm in segmented]
        conversation_words: dict[int, list[str]] = {}
        for message, text in zip(job.messages, words, strict=True):
            conversation_words.setdefault(message.conversation, []).append(text)
        # A one-message conversation's text is its message's: identified once.
        detect = functools.cache(self.identifier.detect_with_probability)
        conversation_language = {
            ci: detect(" ".join(texts)[:2000]) for ci, texts in conversation_words.items()
        }
        request_language = detect(" ".join(words)[:2000])
        languages: list[str | None] = []
        for message, text in zip(job.messages, words, strict=True):
            own, probability = detect(text)
            if own is not None and probability < self.identifier.SURE:
                # A short message ("ok", "Hello 0.") is often a guess: its conversation knows
                # better, else the rest of the request, else the one dictionary that knows its
                # words ("Merci": French), else the channel's language.
                around = (conversation_language[message.conversation], request_language)
                sure = (c for c, p in around if c and p >= self.identifier.SURE)
                own = next(sure, None) or self._by_dictionary(text) or job.hint or own
            languages.append(own)
        return segmented, languages

    def _by_dictionary(self, text: str) -> str | None:
        """The language whose dictionary knows more of ``text``'s words than any other's."""
        if self.dictionaries is None:
            return None
        shares: dict[str, float] = {}
        for language in self.dictionaries.analyzed_languages() & DICTIONARY_LANGUAGES:
            try:
                known, words = self.dictionaries.known_words(text, language)
            except TranslationEngineError as exc:
                log.warning("no dictionary lookup in %s: %s", language, exc)
                return None
            if known:
                shares[language] = known / words
        best = sorted(shares.values(), reverse=True)
        if not best or (len(best) > 1 and best[0] == best[1]):
            return None  # no dictionary knows the words, or two know them equally ("ok")
        return max(shares, key=shares.__getitem__)

    def route(
        self,
        source: str,
        target: LanguageTag,
        tier: Tier,
        formality: Formality,
        experimental: bool = False,
    ) -> Routed | None:
        """The engine of a group from ``source`` into ``target`` in ``tier``; None where
        there is none: the messages are returned as written, their sourceLanguage saying
        why, rather than failing the others (in the fast tier, also where only the model
        translates; and where the direction's label is not served: experimental, unless
        ``experimental``, or below every label)."""
        route = self.router.route(source, target.language)
        if route is None or not route.served(tier, experimental):
            return None  # written in a language no engine translates from well enough
        kind = route.engine(tier, self.only_the_model_can(formality, target.language))
        if kind == NO_ENGINE:
            return None
        fast = self._machine(route.fast, source, target)
        return Routed(self._backend(kind, source, target, fast), fast)

    def backend(self, kind: str, source: str, target: LanguageTag) -> Backend:
        """The engine the routing table calls ``kind`` (``llm+apertium``: the model
        post-editing Apertium's draft), for one direction."""
        route = self.router.route(source, target.language)
        fast = self._machine(route.fast, source, target) if route is not None else None
        return self._backend(kind, source, target, fast)

    def _backend(
        self, kind: str, source: str, target: LanguageTag, fast: MachineBackend | None
    ) -> Backend:
        if kind == LLM:
            return ModelBackend(self.llm, source, target, reference=fast)
        draft = draft_engine(kind)
        if draft is not None:
            drafter = MachineBackend(draft, self.engines[draft], source, target, self.registers)
            return ModelBackend(self.llm, source, target, draft=drafter)
        return MachineBackend(kind, self.engines[kind], source, target, self.registers)

    def _machine(self, kind: str, source: str, target: LanguageTag) -> MachineBackend | None:
        engine = self.engines.get(kind)
        if engine is None:
            return None
        return MachineBackend(kind, engine, source, target, self.registers)

    def only_the_model_can(self, formality: Formality, language: str) -> bool:
        """Whether a translation into ``language`` in ``formality``'s register needs the
        model: the register applies, and the machine engines' lines cannot be rewritten."""
        return applies(formality, language) and not self.registers.rewrites(language, formality)

    def translate_group(
        self,
        backend: Backend,
        messages: Sequence[SegmentedMessage],
        deadline: Deadline | None = None,
        wording: Wording = PLAIN,
    ) -> list[Translated]:
        """Translate messages of one source language with ``backend``; each of the
        ``wording``'s terms becomes its given translation, whatever the engine
        (``text.terms``); the model writes in its register (``text.formality``)."""
        if wording.terms:
            return self.terms.translate(backend, messages, deadline, wording)
        return translate_segmented(backend, messages, deadline, wording)
