"""An organization's glossary terms become their given translations, whatever the engine.

A machine engine translates each message as it is, and its own translation of each term
(the term translated alone) is replaced by the glossary's: the sentence reads as the engine
writes it. The model is told the terms' translations and its lines checked for them. Where
a term is missing, the terms are placeholders (``text.terms``), which every engine keeps,
then their translations.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from threadwise.deadlines import Deadline
from threadwise.protocol import TextFormat
from threadwise.superpowers.translate.backends import Backend
from threadwise.superpowers.translate.job import Wording
from threadwise.superpowers.translate.segments import UNCHANGED, Translated, translate_segmented
from threadwise.text.markdown_segments import MarkdownSegmenter, is_plain
from threadwise.text.segmented import SegmentedMessage, Segmenter
from threadwise.text.sentences import split_sentences
from threadwise.text.terms import MaskedTerms, mask_terms, near_spans, whole_words

# Terms whose machine translation is remembered (each a few milliseconds to ask again).
_TERM_TRANSLATIONS = 10_000


@dataclass(frozen=True)
class _Sentence:
    """A sentence of a translation, or, to translate again, its source with placeholders."""

    text: str
    masked: MaskedTerms | None = None


class TermTranslator:
    """Translates groups whose wording has terms; remembers the engines' words for them."""

    def __init__(
        self, segmenter: MarkdownSegmenter, segmenters: Mapping[TextFormat, Segmenter] | None = None
    ) -> None:
        # Terms alone are Markdown; a message masked is segmented as its format reads.
        self.segmenter = segmenter
        self.segmenters: Mapping[TextFormat, Segmenter] = segmenters or {"markdown": segmenter}
        # (engine, source, target, term) → the engine's translation of the term alone.
        self._term_translations: dict[tuple[str, str, str, str], str] = {}

    def translate(
        self,
        backend: Backend,
        messages: Sequence[SegmentedMessage],
        deadline: Deadline | None,
        wording: Wording,
    ) -> list[Translated]:
        """``translate_segmented`` with ``wording``'s terms kept."""
        source, target = backend.source, backend.target
        masked = [mask_terms(m.text, wording.terms) for m in messages]
        register_only = Wording(formality=wording.formality, context=wording.context)
        termed = [i for i, m in enumerate(masked) if m.targets]
        machine = not backend.uses_model
        keys = {
            (backend.kind, source, target.tag, term.source.casefold()): term.source
            for i in termed
            for term, _ in masked[i].counts
        }
        unknown = [k for k in keys if machine and k not in self._term_translations]
        # First each message as it is (and the terms not yet asked, alone), ...
        found = tuple(dict.fromkeys(term for i in termed for term, _ in masked[i].counts))
        told = Wording(
            formality=wording.formality, told=() if machine else found, context=wording.context
        )
        batch = [*messages, *(self.segmenter.segment(keys[k]) for k in unknown)]
        done = iter(translate_segmented(backend, batch, deadline, told))
        plain_done = [next(done) for _ in messages]
        for key in unknown:
            if len(self._term_translations) >= _TERM_TRANSLATIONS:
                self._term_translations.pop(next(iter(self._term_translations)))
            self._term_translations[key] = next(done).text
        results = {i: t for i, t in enumerate(plain_done) if not masked[i].targets}
        for i in termed:
            if plain_done[i].engine != UNCHANGED:
                replaced = (
                    self._own_terms_replaced(plain_done[i].text, masked[i], backend)
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
            pieces = self._sentences(messages[i].text, plain_done[i], wording, backend)
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
            *(self._segmented(masked[i].text, messages[i]) for i in whole),
        ]
        done = iter(translate_segmented(backend, batch, deadline, register_only) if batch else [])
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

    def _segmented(self, text: str, message: SegmentedMessage) -> SegmentedMessage:
        """``text`` (``message``'s, terms masked) segmented as ``message`` was."""
        return self.segmenters.get(message.text_format, self.segmenter).segment(text)

    def _sentences(
        self, text: str, translated: Translated, wording: Wording, backend: Backend
    ) -> list[_Sentence] | None:
        """A plain message of several sentences and its translation, sentence by sentence
        when both have as many: each translated sentence with the engine's wording of its
        terms replaced, or, where that fails, its source sentence with placeholders (to
        translate again); None for any other message."""
        if translated.engine == UNCHANGED or not is_plain(text):
            return None
        sources = split_sentences(text, backend.source)
        outputs = split_sentences(translated.text, backend.target.tag)
        if len(sources) < 2 or len(sources) != len(outputs):
            return None
        pieces = []
        for sentence, output in zip(sources, outputs, strict=True):
            masked = mask_terms(sentence, wording.terms)
            if not masked.targets:
                pieces.append(_Sentence(output))
                continue
            replaced = self._own_terms_replaced(output, masked, backend)
            pieces.append(_Sentence(output, masked) if replaced is None else _Sentence(replaced))
        return pieces

    def _own_terms_replaced(
        self, translated: str, masked: MaskedTerms, backend: Backend
    ) -> str | None:
        """``translated`` with the engine's own translation of each term replaced by the
        term's, or None when it does not hold each as often as the source holds the term."""
        direction = (backend.kind, backend.source, backend.target.tag)
        for term, count in masked.counts:
            own = self._term_translations.get((*direction, term.source.casefold()), "").strip()
            found = (
                [m.span() for m in re.finditer(whole_words(own), translated, re.I)] if own else []
            )
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


def _occurrences(phrase: str, text: str) -> int:
    return len(re.findall(whole_words(phrase), text, re.IGNORECASE))


def _told_terms_kept(translated: str, masked: MaskedTerms) -> str | None:
    """``translated`` if it says each term's translation as often as the source has the
    term (the model was told them), else None."""
    for term, count in masked.counts:
        if _occurrences(term.target, translated) < count:
            return None
    return translated
