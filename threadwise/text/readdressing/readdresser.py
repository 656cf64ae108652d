"""The ``Readdresser``: a line analyzed, the replacements its language's rules plan, and the
words written back by the generator."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from threadwise.protocol import Formality
from threadwise.text.readdressing.french import plan_french
from threadwise.text.readdressing.german import german_informal
from threadwise.text.readdressing.iberian import plan_iberian
from threadwise.text.readdressing.units import Form, Plan, Unit, Word, vowel_after

Analyze = Callable[[str, str], Sequence[tuple[str, str]]]
# Lexical forms ("envoyer<vblex><imp><p2><sg>") → words, None where there is none.
Generate = Callable[[Sequence[str], str, str | None], list[str | None]]


class Readdresser:
    """Rewrites lines into the register asked for, in the languages it has both an analyzer
    and a generator for."""

    def __init__(self, analyze: Analyze, generate: Generate, languages: frozenset[str]) -> None:
        self.analyze = analyze
        self.generate = generate
        self.languages = languages & {"es", "fr", "pt"}

    def rewrites(self, language: str, formality: Formality) -> bool:
        """Whether lines into ``language`` can be rewritten into ``formality``'s register."""
        if language == "de":
            return formality == "informal"
        return language in self.languages

    def rewrite(self, text: str, language: str, region: str | None, formality: Formality) -> str:
        """``text`` in ``formality``'s register (as it is, where nothing is to change)."""
        if language == "de" and formality == "informal":
            return german_informal(text)
        if language not in self.languages or formality not in ("formal", "informal"):
            return text
        units = self._units(text, language)
        informal = formality == "informal"
        if language == "fr":
            plan = plan_french(units, informal)
        else:
            plan = plan_iberian(units, language, region == "BR", informal)
        return self._apply(text, units, plan, language, region)

    def _units(self, text: str, language: str) -> list[Unit]:
        units: list[Unit] = []
        cursor = 0
        for surface, readings in self.analyze(text, language):
            start = text.find(surface, cursor)
            if start >= 0:
                cursor = start + len(surface)
            hyphened = start > 0 and text[start - 1] == "-"
            units.append(Unit(surface, readings.lstrip("*").split("/"), start, hyphened))
        return units

    def _generate(self, forms: list[str], language: str, region: str | None) -> list[str | None]:
        if not forms:
            return []
        written = self.generate(forms, language, region)
        # Spanish dictionaries write attached pronouns two ways ("+nos", "+prpers").
        retry = [
            i for i, w in enumerate(written) if w is None and _other_spelling(forms[i], language)
        ]
        if retry:
            again = self.generate(
                [_other_spelling(forms[i], language) for i in retry], language, region
            )
            for index, word in zip(retry, again, strict=True):
                written[index] = word
        return written

    def _apply(
        self, text: str, units: list[Unit], plan: Plan, language: str, region: str | None
    ) -> str:
        forms = [(i, r) for i, r in plan.items() if isinstance(r, Form)]
        written = self._generate([f.form for _, f in forms], language, region)
        words = {i: r.text for i, r in plan.items() if isinstance(r, Word)}
        words.update(
            {
                i: w + form.suffix
                for (i, form), w in zip(forms, written, strict=True)
                if w is not None and isinstance(form, Form)
            }
        )
        for index in sorted(words, reverse=True):
            unit = units[index]
            if unit.start < 0:
                continue
            word = words[index]
            end = unit.start + len(unit.surface)
            if word and unit.surface[:1].isupper():
                word = word[:1].upper() + word[1:]
            if not word:  # a word taken out, with the space after it
                while end < len(text) and text[end] == " ":
                    end += 1
                following = text[end : end + 1]
                if unit.surface[:1].isupper() and following.islower():
                    text = text[:end] + following.upper() + text[end + 1 :]
            elif language == "fr" and word.casefold() == "te" and vowel_after(text, end):
                word, end = word[0] + "'", end + 1  # "te aider" → "t'aider"
            text = text[: unit.start] + word + text[end:]
        return text


def _other_spelling(form: str, language: str) -> str:
    """A Spanish form with attached pronouns as other dictionaries spell them ("+prpers");
    "" if there is none."""
    if language != "es" or "<enc>" not in form:
        return ""
    form = re.sub(r"\+[^<+]+<prn><enc>", "+prpers<prn><enc>", form)
    return form.replace("<enc><p3><nt>", "<enc><p3><m><sg>")
