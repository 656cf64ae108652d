"""Translate: every message into each target language, Markdown and protected text kept.

Per message: detect its language (on its words alone; a message the identifier is unsure of
falls back to its conversation's language, the request's, the one dictionary's that knows its
words, or the channel's), segment its
Markdown, and group messages by source language. Per group, the router picks the tier's
engine (the fast tier never waits for the model); all the group's segments go to it at once
(one prompt for the model). A segment whose tags did not survive, or whose Markdown came out
different, is translated again split at its markup; a message whose structure still differs
is returned as written rather than broken. A quality engine that cannot answer within the
deadline (the model is busy) gives way to the direction's fast engine, and the result says so.
An organization's glossary terms become their given translations in every engine
(``_with_terms``), and a requested formality is kept by the model and by rewriting the
machine engines' lines (``superpowers.registers``).
"""

from __future__ import annotations

import functools
import logging
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from itertools import accumulate, pairwise
from typing import TypeVar

from threadwise.deadlines import Deadline, DeadlinePolicy
from threadwise.engines.profiles import Choice, Profiles
from threadwise.engines.translation import Dictionaries, MachineTranslator, TranslationEngineError
from threadwise.errors import ServiceError
from threadwise.protocol import ErrorCode, Formality, MessageBody, ResponseItem
from threadwise.superpowers.llm_translation import LlmTranslator, StandIn
from threadwise.superpowers.routing import (
    LLM,
    NO_ENGINE,
    Tier,
    TranslationRouter,
    draft_engine,
    uses_llm,
)
from threadwise.text.formality import applies
from threadwise.text.languages import (
    SUMMARY_LANGUAGES,
    LanguageIdentifier,
    LanguageTag,
    translation_language,
)
from threadwise.text.markdown_segments import (
    MarkdownSegmenter,
    Segment,
    SegmentedMessage,
    escape_markdown,
    is_plain,
)
from threadwise.text.markdown_structure import inline_problems, structure_problems
from threadwise.text.sentences import split_sentences
from threadwise.text.tagged import Parts, Tag, text_of
from threadwise.text.terms import Glossary, MaskedTerms, Term, mask_terms, near_spans
from threadwise.work_queue import Priority, Scheduler

log = logging.getLogger(__name__)

T = TypeVar("T")

# Time kept back from the model for the fast engine, should the model not make it.
FALLBACK_RESERVE_SECONDS = 1.0
UNCHANGED = NO_ENGINE
# Fast work (characters, once per target) above this takes turns with other such work on
# one lane.
LARGE_WORK_CHARACTERS = 20_000
LARGE = "large"
# What the fast queue's estimates count as one unit of work (about 20 ms).
COST_CHARACTERS = 1_000
# Terms whose machine translation is remembered (each a few milliseconds to ask again).
_TERM_TRANSLATIONS = 10_000
# An engine's note on a translation the request asked in a register it cannot write.
FORMALITY_NOT_APPLIED = " (formality not applied)"
# A message the fast engine translated because the model's answer was no translation of it
# (a message that told it to do something else, obeyed: ``llm_translation``).
STOOD_IN = " (fast fallback: the model's answer was not a translation)"
# Why the model's refusal (OVERLOADED, by its reason) sent a group to the fast engine.
_FALLBACK_REASONS = {"engine_down": "the model server is down"}


@dataclass(frozen=True)
class SourceMessage:
    conversation_id: str | None
    participant_id: str | None
    timestamp: str | None
    content: str
    conversation: int  # index of its conversation in the request


@dataclass(frozen=True)
class Wording:
    """What a group's translation must say, and how: each term's given translation
    (``text.terms``), and the register it addresses the reader in (``text.formality``)."""

    terms: tuple[Term, ...] = ()
    formality: Formality = "default"
    # Terms the model is told in its prompt (and checked for after), rather than replaced.
    told: tuple[Term, ...] = ()


@dataclass(frozen=True)
class _Sentence:
    """A sentence of a translation, or, to translate again, its source with placeholders."""

    text: str
    masked: MaskedTerms | None = None


@dataclass(frozen=True)
class TranslationJob:
    messages: tuple[SourceMessage, ...]
    targets: tuple[LanguageTag, ...]
    tier: Tier
    # The channel's language, when it is not the target: what a message is likely written in.
    hint: str | None = None
    # The glossary the request names, and the organization's default glossaries (one per
    # language pair at most); its terms that are never translated.
    glossary: Glossary | None = None
    defaults: tuple[Glossary, ...] = ()
    keep: tuple[Term, ...] = ()
    formality: Formality = "default"

    def wording(self, source: str, target: str) -> Wording:
        """The terms and the register of a translation from ``source`` into ``target``."""
        return Wording(self.terms(source, target), self.formality)

    def terms(self, source: str, target: str) -> tuple[Term, ...]:
        """What a message of ``source`` translated into ``target`` must say for its terms:
        the glossary of that pair (the one asked for, else the default), then the terms kept
        as written."""
        pair = (source, target)
        glossaries = [self.glossary] if self.glossary else []
        chosen = next(
            (
                g
                for g in (*glossaries, *self.defaults)
                if (g.source_language, g.target_language) == pair
            ),
            None,
        )
        return (*(chosen.entries if chosen else ()), *self.keep)


@dataclass(frozen=True)
class Translated:
    text: str
    engine: str


@dataclass
class _Prepared:
    segmented: list[SegmentedMessage]
    languages: list[str | None]  # per message; None: nothing to translate
    groups: list[dict[str, list[int]]]  # per target: message indices by source language
    done: dict[tuple[int, str], list[Translated]]  # (target number, source): translated


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
        # The model's check and rewriter of registers; machine engines' lines use them too.
        self.registers = llm.registers
        # (engine, source, target, term) → the engine's translation of the term alone.
        self._term_translations: dict[tuple[str, str, str, str], str] = {}

    def plan(
        self,
        body: MessageBody,
        glossaries: Sequence[Glossary] = (),
        keep: Sequence[Term] = (),
    ) -> TranslationJob:
        """Validate what the request asks for; cheap, so it runs before any engine.
        ``glossaries`` and ``keep``: the organization's (``text.terms``)."""
        settings = body.request.settings
        channel = body.session.channel.language
        hint = _language_of(channel) if channel else None
        if settings.targetLanguages:
            targets = tuple(
                translation_language(tag, f"request.settings.targetLanguages[{i}]")
                for i, tag in enumerate(settings.targetLanguages)
            )
            _check_distinct(targets)
        elif settings.overrideOutputLanguage:
            field = "request.settings.overrideOutputLanguage"
            targets = (translation_language(settings.overrideOutputLanguage, field),)
        elif channel:
            targets = (translation_language(channel, "session.channel.language"),)
            hint = None
        else:
            raise ServiceError(
                ErrorCode.MISSING_TARGET_LANGUAGE,
                "No target language: set session.channel.language (e.g. 'es-ES'), "
                "request.settings.overrideOutputLanguage, or request.settings.targetLanguages.",
            )
        messages = tuple(
            SourceMessage(
                conversation.conversationId,
                message.participantId,
                message.timestamp_text,
                message.content,
                ci,
            )
            for ci, conversation in enumerate(body.request.scope.conversations)
            for message in conversation.messages
        )
        return TranslationJob(
            messages,
            targets,
            settings.translationMode or "quality",
            hint,
            _chosen_glossary(settings.glossaryId, glossaries, targets),
            tuple(g for g in glossaries if g.default),
            tuple(keep),
            settings.formality or "default",
        )

    def prepare(self, job: TranslationJob) -> tuple[list[SegmentedMessage], list[str | None]]:
        """Each message segmented, and its source language (None: nothing to translate)."""
        segmented = [self.segmenter.segment(m.content) for m in job.messages]
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
        for language in self.dictionaries.analyzed_languages():
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

    def translate_group(
        self,
        engine: str,
        messages: Sequence[SegmentedMessage],
        source: str,
        target: LanguageTag,
        deadline: Deadline | None = None,
        wording: Wording = Wording(),
    ) -> list[Translated]:
        """Translate messages of one source language with ``engine`` (a routing-table name);
        each of the ``wording``'s terms becomes its given translation, whatever the engine
        (``text.terms``); the model writes in its register (``text.formality``)."""
        if wording.terms:
            return self._with_terms(engine, messages, source, target, deadline, wording)
        translate = self._segment_translator(engine, source, target, deadline, wording)
        name = self.engine_name(engine, source, target)
        # A machine engine cannot be told the register: its lines are rewritten into it, and
        # a message still in the other one says so.
        keeper = None if uses_llm(engine) else self.registers.keeper(
            source, target.language, target.region, wording.formality
        )  # fmt: skip
        segments = [s for m in messages for s in m.segments]
        first = translate([s.parts for s in segments])
        bounds = pairwise(accumulate((len(m.segments) for m in messages), initial=0))
        fast_lines = [any(isinstance(p, StandIn) for p in first[a:b]) for a, b in bounds]
        rendered = iter(
            self._checked(segment, parts, translate)
            for segment, parts in zip(segments, first, strict=True)
        )
        results = []
        for message, stood_in_for_the_model in zip(messages, fast_lines, strict=True):
            text = message.render([next(rendered) for _ in message.segments])
            plain = is_plain(message.text) and is_plain(text)  # one paragraph of words each
            problems = [] if plain else structure_problems(message.text, text)
            if problems:
                # The segments were fine alone but not together: split every one of them.
                log.info("translation changed the structure (%s); splitting", problems[0])
                text = message.render([self._split(s, translate) for s in message.segments])
                if structure_problems(message.text, text):
                    log.warning("structure not kept even split; message returned as written")
                    results.append(Translated(message.text, UNCHANGED))
                    continue
            if keeper is not None and keeper.misaddressed(message.text, text):
                results.append(Translated(text, name + FORMALITY_NOT_APPLIED))
                continue
            if stood_in_for_the_model:
                # The model's answer was no translation of a line: the engine that checked
                # it (the draft's, or the direction's fast one) stands in.
                route = self.router.route(source, target.language)
                fast = draft_engine(engine) or (route.fast if route is not None else "")
                results.append(Translated(text, self.engine_name(fast, source, target) + STOOD_IN))
                continue
            results.append(Translated(text, name))
        return results

    def _with_terms(
        self,
        engine: str,
        messages: Sequence[SegmentedMessage],
        source: str,
        target: LanguageTag,
        deadline: Deadline | None,
        wording: Wording,
    ) -> list[Translated]:
        """``translate_group`` with terms. A machine engine translates each message as it
        is, and its own translation of each term (the term translated alone) is replaced by
        the glossary's: the sentence reads as the engine writes it. The model is told the
        terms' translations and its lines checked for them. Where a term is missing, the
        terms are placeholders (``text.terms``), which every engine keeps, then their
        translations."""
        masked = [mask_terms(m.text, wording.terms) for m in messages]
        register_only = Wording(formality=wording.formality)
        termed = [i for i, m in enumerate(masked) if m.targets]
        machine = not uses_llm(engine)
        keys = {
            (engine, source, target.tag, term.source.casefold()): term.source
            for i in termed
            for term, _ in masked[i].counts
        }
        unknown = [k for k in keys if machine and k not in self._term_translations]
        # First each message as it is (and the terms not yet asked, alone), ...
        found = tuple(dict.fromkeys(term for i in termed for term, _ in masked[i].counts))
        told = Wording(formality=wording.formality, told=() if machine else found)
        batch = [*messages, *(self.segmenter.segment(keys[k]) for k in unknown)]
        done = iter(self.translate_group(engine, batch, source, target, deadline, told))
        plain_done = [next(done) for _ in messages]
        for key in unknown:
            if len(self._term_translations) >= _TERM_TRANSLATIONS:
                self._term_translations.pop(next(iter(self._term_translations)))
            self._term_translations[key] = next(done).text
        results = {i: t for i, t in enumerate(plain_done) if not masked[i].targets}
        for i in termed:
            if plain_done[i].engine != UNCHANGED:
                replaced = (
                    self._own_terms_replaced(plain_done[i].text, masked[i], engine, source, target)
                    if machine
                    else _told_terms_kept(plain_done[i].text, masked[i])
                )
                if replaced is not None:
                    results[i] = Translated(replaced, plain_done[i].engine)
        # ... then, with placeholders, those whose terms were not all found: in a plain
        # message of a machine engine, only the sentences that miss one.
        missing = [i for i in termed if i not in results]
        split: dict[int, list[_Sentence]] = {}
        for i in missing if machine else ():
            pieces = self._sentences(
                messages[i].text, plain_done[i], wording, engine, source, target
            )
            if pieces is not None:
                split[i] = pieces
        whole = [i for i in missing if i not in split]
        asked = {
            (i, n): p.masked
            for i, pieces in split.items()
            for n, p in enumerate(pieces)
            if p.masked
        }
        batch = [
            *(self.segmenter.segment(m.text) for m in asked.values()),
            *(self.segmenter.segment(masked[i].text) for i in whole),
        ]
        done = iter(
            self.translate_group(engine, batch, source, target, deadline, register_only)
            if batch
            else []
        )
        fixed = {key: masked.unmask(next(done).text) for key, masked in asked.items()}
        for i, pieces in split.items():
            texts = [fixed.get((i, n), p.text) for n, p in enumerate(pieces)]
            results[i] = Translated(" ".join(texts), plain_done[i].engine)
        for i, result in zip(whole, done, strict=True):
            # Kept as written (its structure would not survive): the original text.
            results[i] = (
                Translated(messages[i].text, UNCHANGED)
                if result.engine == UNCHANGED
                else Translated(masked[i].unmask(result.text), result.engine)
            )
        return [results[i] for i in range(len(messages))]

    def _sentences(
        self,
        text: str,
        translated: Translated,
        wording: Wording,
        engine: str,
        source: str,
        target: LanguageTag,
    ) -> list[_Sentence] | None:
        """A plain message of several sentences and its translation, sentence by sentence
        when both have as many: each translated sentence with the engine's wording of its
        terms replaced, or, where that fails, its source sentence with placeholders (to
        translate again); None for any other message."""
        if translated.engine == UNCHANGED or not is_plain(text):
            return None
        sources = split_sentences(text, source)
        outputs = split_sentences(translated.text, target.tag)
        if len(sources) < 2 or len(sources) != len(outputs):
            return None
        pieces = []
        for sentence, output in zip(sources, outputs, strict=True):
            masked = mask_terms(sentence, wording.terms)
            if not masked.targets:
                pieces.append(_Sentence(output))
                continue
            replaced = self._own_terms_replaced(output, masked, engine, source, target)
            pieces.append(_Sentence(output, masked) if replaced is None else _Sentence(replaced))
        return pieces

    def _own_terms_replaced(
        self, translated: str, masked: MaskedTerms, engine: str, source: str, target: LanguageTag
    ) -> str | None:
        """``translated`` with the engine's own translation of each term replaced by the
        term's, or None when it does not hold each as often as the source holds the term."""
        for term, count in masked.counts:
            own = self._term_translations.get(
                (engine, source, target.tag, term.source.casefold()), ""
            ).strip()
            found = [
                m.span() for m in re.finditer(rf"(?<!\w){re.escape(own)}(?!\w)", translated, re.I)
            ]
            if own and len(found) != count:
                found = near_spans(own, translated, count)
            if not own or len(found) != count:
                if _occurrences(term.target, translated) == count:
                    continue  # the engine chose the glossary's word itself
                return None
            for start, end in reversed(found):
                replacement = term.target
                if translated[start : start + 1].isupper() and not term.target[:1].isupper():
                    replacement = replacement[:1].upper() + replacement[1:]
                translated = translated[:start] + replacement + translated[end:]
        return translated

    def only_the_model_can(self, formality: Formality, language: str) -> bool:
        """Whether a translation into ``language`` in ``formality``'s register needs the
        model: the register applies, and the machine engines' lines cannot be rewritten."""
        return applies(formality, language) and not self.registers.rewrites(language, formality)

    def engine_name(self, engine: str, source: str, target: LanguageTag) -> str:
        if engine == LLM:
            return self.llm.name_for(source, target.language)
        draft = draft_engine(engine)
        if draft is not None:
            drafted = self.engines[draft].name_for(source, target.language, target.region)
            return f"{self.llm.name_for(source, target.language)} post-editing {drafted}"
        return self.engines[engine].name_for(source, target.language, target.region)

    def _segment_translator(
        self,
        engine: str,
        source: str,
        target: LanguageTag,
        deadline: Deadline | None,
        wording: Wording,
    ) -> Callable[[Sequence[Parts]], list[Parts | None]]:
        language, region = target.language, target.region
        formality = wording.formality
        told = [(t.source, t.target) for t in wording.told]
        if engine == LLM:
            # The direction's fast engine, if any, checks that the model's lines translate
            # theirs (``llm_translation``): one told to do otherwise may do it.
            route = self.router.route(source, language)
            fast = route.fast if route is not None and route.fast in self.engines else None
            reference = None
            if fast is not None:
                reference = self._segment_translator(
                    fast, source, target, deadline, Wording(formality=formality)
                )
            return lambda parts: self.llm.translate(
                parts, source, language, region, deadline, formality, told, reference
            )
        draft = draft_engine(engine)
        if draft is not None:
            drafter = self.engines[draft]

            def post_edited(parts: Sequence[Parts]) -> list[Parts | None]:
                drafts = drafter.translate(parts, source, language, region, deadline)
                return self.llm.post_edit(
                    parts, drafts, source, language, region, deadline, formality, told
                )

            return post_edited
        machine = self.engines[engine]
        keeper = self.registers.keeper(source, language, region, wording.formality)
        if keeper is None:
            return lambda parts: machine.translate(parts, source, language, region, deadline)

        def readdressed(segments: Sequence[Parts]) -> list[Parts | None]:
            translated = machine.translate(segments, source, language, region, deadline)
            return [
                keeper.kept(segment, parts)[0] if parts is not None else None
                for segment, parts in zip(segments, translated, strict=True)
            ]

        return readdressed

    def _checked(
        self,
        segment: Segment,
        parts: Parts | None,
        translate: Callable[[Sequence[Parts]], list[Parts | None]],
    ) -> str:
        if parts is not None:
            text = segment.render(parts)
            # A segment of words alone, translated into words alone, has nothing to check.
            unmarked = not segment.markup and is_plain(text)
            if unmarked or not inline_problems(segment.source(), text):
                return text
        return self._split(segment, translate)

    def _split(
        self, segment: Segment, translate: Callable[[Sequence[Parts]], list[Parts | None]]
    ) -> str:
        """The safer segmentation: each run of text between tags translated on its own."""
        runs = segment.runs()
        translated = translate([(text.strip(),) for _, text in runs]) if runs else []
        pieces = [segment.markup[p] if isinstance(p, Tag) else p for p in segment.parts]
        for (index, original), result in zip(runs, translated, strict=True):
            words = text_of(result).strip() if result else ""
            if words:
                # Words out of context may read as Markdown ("1. …", "*"): escaped.
                lead = original[: len(original) - len(original.lstrip())]
                trail = original[len(original.rstrip()) :]
                pieces[index] = f"{lead}{escape_markdown(words)}{trail}"
        text = "".join(pieces)
        if inline_problems(segment.source(), text):
            return segment.source()
        return text


@dataclass(frozen=True)
class QueuedTranslator:
    """A translator (its model one engine's) and the work queue of that engine."""

    translator: Translator
    queue: Scheduler


class TranslateSuperpower:
    """The operation as transports call it: plan, route each group, fall back, answer."""

    def __init__(
        self,
        translators: Profiles[QueuedTranslator],
        fast_queue: Scheduler,
        deadlines: DeadlinePolicy,
    ) -> None:
        # The request's attributes.variant picks the model's (engine profiles); the rest of
        # the pipeline is the same for all.
        self.translators = translators
        self.translator = translators.default.translator
        # Language identification, segmentation and the fast engines: threads of their own,
        # bounded like the model's queue, never behind it.
        self.fast_queue = fast_queue
        self.deadlines = deadlines

    async def __call__(
        self, body: MessageBody, glossaries: Sequence[Glossary] = (), keep: Sequence[Term] = ()
    ) -> list[list[ResponseItem]]:
        """Each target's translations; ``glossaries`` and ``keep`` are the organization's
        (``text.terms``)."""
        job = self.translator.plan(body, glossaries, keep)  # bad input fails here
        model = self.translators.choose(body.request.attributes.variant)
        characters = sum(len(m.content) for m in job.messages)
        deadline = self.deadlines.start(characters)
        # One trip to the fast engines' threads: detection, segmentation and every group a
        # fast engine translates. Only the model's groups are left for its queue.
        work = characters * len(job.targets)
        prepared = await self._off_loop(lambda: self._prepare(job, deadline), deadline, work)
        results = []
        for number, target in enumerate(job.targets):
            outcome: list[Translated | None] = [None] * len(job.messages)
            for source, indices in prepared.groups[number].items():
                translated = prepared.done.get((number, source))
                if translated is None:
                    messages = [prepared.segmented[i] for i in indices]
                    translated = await self._group(
                        model,
                        job.tier,
                        messages,
                        source,
                        target,
                        deadline,
                        job.wording(source, target.language),
                    )
                for index, item in zip(indices, translated, strict=True):
                    outcome[index] = item
            for index, language in enumerate(prepared.languages):
                if language is None or language == target.language:
                    outcome[index] = Translated(job.messages[index].content, UNCHANGED)
            results.append(
                [
                    _item(message, source, target, done)
                    for message, source, done in zip(
                        job.messages, prepared.languages, outcome, strict=True
                    )
                    if done is not None
                ]
            )
        return results

    async def readings(
        self, texts: Sequence[str], conversations: Sequence[int], deadline: Deadline
    ) -> list[str | None]:
        """Each text as the fast engines read it in English, for checks rather than people
        (the summary's: ``Transcript.read``): None where it is English already, has nothing
        to translate, or no fast engine reads its language (German), or the engines failed.
        ``conversations``: each text's conversation, whose language helps identify its own."""
        if not texts:
            return []
        job = TranslationJob(
            tuple(
                SourceMessage(None, None, None, text, conversation)
                for text, conversation in zip(texts, conversations, strict=True)
            ),
            (LanguageTag("en", "en"),),
            "fast",
        )
        try:
            prepared = await self._off_loop(
                lambda: self._prepare(job, deadline), deadline, sum(map(len, texts))
            )
        except ServiceError as exc:
            log.warning("no English readings of the messages (%s): checked as written", exc)
            return [None] * len(texts)
        found: list[str | None] = [None] * len(texts)
        for source, indices in prepared.groups[0].items():
            for index, done in zip(indices, prepared.done.get((0, source), ()), strict=False):
                if done.engine != UNCHANGED:
                    found[index] = done.text
        return found

    def _prepare(self, job: TranslationJob, deadline: Deadline) -> _Prepared:
        """On a fast engine's thread: the messages prepared, grouped by source language per
        target, and the groups a fast engine (or no engine) takes, translated; the deadline
        (or the client going away) stops it between groups."""
        segmented, languages = self.translator.prepare(job)
        prepared = _Prepared(segmented, languages, [], {})
        for number, target in enumerate(job.targets):
            groups: dict[str, list[int]] = {}
            for index, source in enumerate(languages):
                if source is not None and source != target.language:
                    groups.setdefault(source, []).append(index)
            prepared.groups.append(groups)
            for source, indices in groups.items():
                messages = [segmented[i] for i in indices]
                route = self.translator.router.route(source, target.language)
                # No route: written in a language no engine translates from (Italian, say).
                registered = self.translator.only_the_model_can(job.formality, target.language)
                engine = route.engine(job.tier, registered) if route is not None else NO_ENGINE
                if engine == NO_ENGINE:
                    # Returned as written, its sourceLanguage saying why, rather than failing
                    # the others (in the fast tier, also where only the model translates).
                    done = [Translated(m.text, UNCHANGED) for m in messages]
                elif not uses_llm(engine):
                    deadline.check()
                    wording = job.wording(source, target.language)
                    done = self._fast_now(engine, messages, source, target, deadline, wording)
                else:
                    continue
                prepared.done[(number, source)] = done
        return prepared

    async def _group(
        self,
        model: Choice[QueuedTranslator],
        tier: Tier,
        messages: list[SegmentedMessage],
        source: str,
        target: LanguageTag,
        deadline: Deadline,
        wording: Wording,
    ) -> list[Translated]:
        """A group the tier gives to the model (the one ``model`` chose): on its queue, or
        on the fast engine when the model cannot answer in time."""
        translator, queue = model.value.translator, model.value.queue
        route = translator.router.route(source, target.language)
        assert route is not None, "routed in _prepare"
        registered = translator.only_the_model_can(wording.formality, target.language)
        engine = route.engine(tier, registered)
        fallback = route.fast if route.fast != NO_ENGINE else None
        reason = None
        expected_wait = queue.expected_wait(Priority.INTERACTIVE)
        if fallback is not None and expected_wait > deadline.remaining() - FALLBACK_RESERVE_SECONDS:
            reason = f"the model's queue needs ~{expected_wait:.0f} s"
        else:
            # With a fast engine to fall back on, keep time back for it.
            reserve = FALLBACK_RESERVE_SECONDS if fallback is not None else 0.0
            model_deadline = Deadline(max(0.1, deadline.remaining() - reserve))
            try:
                translated = await queue.run(
                    lambda: translator.translate_group(
                        engine, messages, source, target, model_deadline, wording
                    ),
                    model_deadline,
                    Priority.INTERACTIVE,
                )
            except ServiceError as exc:
                if fallback is None or exc.code not in (
                    ErrorCode.OVERLOADED,
                    ErrorCode.REQUEST_TIMEOUT,
                ):
                    raise
                if exc.code is ErrorCode.REQUEST_TIMEOUT:
                    reason = "timeout"
                else:
                    reason = _FALLBACK_REASONS.get(exc.reason or "", "the model is busy")
            except TranslationEngineError:
                if fallback is None:
                    raise
                reason = "the model failed"
            else:
                return [_noted(t, model.note) for t in translated]
        assert fallback is not None
        # No deadline here: the model may overrun its share (prompt processing cannot be
        # interrupted), and the fast engine answers in milliseconds; late beats failed.
        fast = await self._off_loop(
            lambda: self._fast_now(fallback, messages, source, target, None, wording),
            None,
            sum(len(m.text) for m in messages),
        )
        return [_fallback(t, f" (fast fallback: {reason})") for t in fast]

    def _fast_now(
        self,
        engine: str,
        messages: list[SegmentedMessage],
        source: str,
        target: LanguageTag,
        deadline: Deadline | None,
        wording: Wording = Wording(),
    ) -> list[Translated]:
        try:
            return self.translator.translate_group(
                engine, messages, source, target, deadline, wording
            )
        except TranslationEngineError as exc:
            raise ServiceError(
                ErrorCode.PROCESSING_FAILED,
                f"The {engine} engine failed ({exc}). Retry the request; a dead Apertium "
                "pipeline is restarted on the next use.",
            ) from exc

    async def _off_loop(
        self, work: Callable[[], T], deadline: Deadline | None, characters: int
    ) -> T:
        """``work`` on a fast engine's thread. Large work takes turns on one lane: large
        requests never hold every thread, and short ones keep answering in milliseconds."""
        lanes = (LARGE,) if characters > LARGE_WORK_CHARACTERS else ()
        cost = max(1.0, characters / COST_CHARACTERS)
        return await self.fast_queue.run(work, deadline, Priority.INTERACTIVE, cost, lanes)


def _occurrences(phrase: str, text: str) -> int:
    return len(re.findall(rf"(?<!\w){re.escape(phrase)}(?!\w)", text, re.IGNORECASE))


def _told_terms_kept(translated: str, masked: MaskedTerms) -> str | None:
    """``translated`` if it says each term's translation as often as the source has the
    term (the model was told them), else None."""
    for term, count in masked.counts:
        if _occurrences(term.target, translated) < count:
            return None
    return translated


def _fallback(translated: Translated, note: str) -> Translated:
    """``note`` on a fast engine's translation, before its note on the formality."""
    if translated.engine.endswith(FORMALITY_NOT_APPLIED):
        name = translated.engine.removesuffix(FORMALITY_NOT_APPLIED)
        return Translated(translated.text, name + note + FORMALITY_NOT_APPLIED)
    return _noted(translated, note)


def _noted(translated: Translated, note: str) -> Translated:
    """``note`` added to the engine of a message an engine translated."""
    if not note or translated.engine == UNCHANGED:
        return translated
    return Translated(translated.text, translated.engine + note)


def _language_of(tag: str) -> str | None:
    """The language of a BCP 47 tag, if it is one the identifier knows."""
    language = tag.strip().replace("_", "-").split("-")[0].lower()
    return language if language in SUMMARY_LANGUAGES else None


def _chosen_glossary(
    glossary_id: str | None, glossaries: Sequence[Glossary], targets: Sequence[LanguageTag]
) -> Glossary | None:
    """The glossary ``request.settings.glossaryId`` names: the organization's, for a target
    language of the request."""
    if glossary_id is None:
        return None
    chosen = next((g for g in glossaries if g.glossary_id == glossary_id), None)
    if chosen is None:
        raise ServiceError(
            ErrorCode.PAYLOAD_SCHEMA_MISMATCH,
            f"request.settings.glossaryId names {glossary_id[:80]!r}, which is no glossary of "
            "this organization: GET /glossaries?organizationId=… lists them.",
        )
    if chosen.target_language not in {t.language for t in targets}:
        raise ServiceError(
            ErrorCode.PAYLOAD_SCHEMA_MISMATCH,
            f"request.settings.glossaryId names the glossary {chosen.name!r} "
            f"({chosen.source_language}→{chosen.target_language}), but the request translates "
            f"into {', '.join(t.tag for t in targets)}: name a glossary of one of those "
            "languages, or none.",
        )
    return chosen


def _check_distinct(targets: Sequence[LanguageTag]) -> None:
    """Each target language once: a repeated one would be the same work, and answer, again."""
    seen: dict[tuple[str, str | None], int] = {}
    for index, target in enumerate(targets):
        first = seen.setdefault((target.language, target.region), index)
        if first != index:
            raise ServiceError(
                ErrorCode.PAYLOAD_SCHEMA_MISMATCH,
                f"request.settings.targetLanguages[{index}] is {target.tag!r}, the same language "
                f"as targetLanguages[{first}] ({targets[first].tag!r}); list each target "
                "language once.",
            )


def _item(
    message: SourceMessage, source: str | None, target: LanguageTag, done: Translated
) -> ResponseItem:
    return ResponseItem(
        content=done.text,
        type="translation",
        conversationId=message.conversation_id,
        participantId=message.participant_id,
        timestamp=message.timestamp,
        sourceLanguage=source,
        targetLanguage=target.tag,
        engine=done.engine,
    )
