"""Apertium (rule-based MT, Debian packages) through warm, long-lived pipelines.

Like Debian's ``apertium-apy``, each direction's mode file is run as its chain of programs
in null-flush mode (``-z``): a message ends with ``\\0``, and a marker message after it
pushes the last one through the programs that hold a token back. Unlike APy, formatting is
handled here rather than by a ``apertium-deshtml`` process per request: tags become Apertium
superblanks (``[<g1>]``), which every program passes through in place. So do the characters
the stream format reserves: escaping them is not enough (lrx-proc reads ``\\^`` as the start
of a word and swallows the end of the message, which hangs the pipeline; the generator writes
``\\*`` back unescaped, where it reads as its own mark), so they never reach the programs. Nor
do words longer than any in the dictionaries: the analyzers take quadratic time over one (a
4,000-character ``b.b.b.…`` holds a pipeline, and every request waiting for it, for seconds).
"""

from __future__ import annotations

import itertools
import re
import threading
from collections.abc import Callable, Sequence
from pathlib import Path

from threadwise.deadlines import Deadline
from threadwise.engines.apertium.pipeline import WATCHDOG_SECONDS, ApertiumPipeline, parse_mode_file
from threadwise.engines.apertium.stream import (
    LONG_WORD,
    RESERVED,
    carry_reserved,
    from_stream,
    put_back,
    to_stream,
)
from threadwise.engines.machine import TranslationEngineError
from threadwise.text.tagged import Parts, parse_tags, split_tags, tags_of, to_tagged

MODES_DIR = Path("/usr/share/apertium/modes")
PIVOT = "es"

_ISO_639_1 = {
    "eng": "en",
    "spa": "es",
    "fra": "fr",
    "fre": "fr",
    "por": "pt",
    "deu": "de",
    "ger": "de",
    "cat": "ca",
    "ita": "it",
    "glg": "gl",
    "ron": "ro",
    "rum": "ro",
    "rus": "ru",
    "ukr": "uk",
    "dan": "da",
    "nob": "nb",
    "nno": "nn",
    "swe": "sv",
    "ind": "id",
}
_MODE_NAME = re.compile(r"^([a-z]{2,3})-([a-z]{2,3})(?:_([A-Za-z]+))?$")
# Pipelines of pairs not warm that keep running once used (the others' processes are
# stopped, and start again at their next use): each is several processes, up to 200 MB.
MAX_COLD_PIPELINES = 8
# Larger requests go through in several exchanges, their deadline checked between them.
EXCHANGE_CHARACTERS = 32_768


class ApertiumEngine:
    """Every direction among ``languages`` the installed pairs reach, directly or via Spanish.

    ``load`` starts the pipelines (and dictionaries) of the pairs between ``warm`` languages
    (all, if not given), so that their first message waits for none; the others start at
    their first message (a cold pipeline takes about 0.1-0.5 s), and at most ``max_cold`` of
    them keep running: the one used longest ago is stopped. Each pipeline is several
    processes, some of 200 MB: all the pairs of 29 languages, started at once in every
    replica, filled a 24 GiB machine's memory in the tests.
    """

    kind = "apertium"

    def __init__(
        self,
        languages: Sequence[str],
        modes_dir: Path = MODES_DIR,
        timeout: float = WATCHDOG_SECONDS,
        warm: Sequence[str] | None = None,
        max_cold: int = MAX_COLD_PIPELINES,
    ) -> None:
        self._modes = _find_modes(modes_dir, set(languages))
        self._warm = set(languages if warm is None else warm)
        self._warm_modes = {
            mode.stem
            for (source, target, _), mode in self._modes.items()
            if {source, target} <= self._warm
        }
        self._max_cold = max_cold
        # The running pipelines of pairs not warm, the one used last, last.
        self._cold: dict[str, ApertiumPipeline] = {}
        self._pipelines: dict[str, ApertiumPipeline] = {}
        self._timeout = timeout
        self._lock = threading.Lock()
        plain = {(s, t) for (s, t, region) in self._modes if region is None}
        routes: dict[tuple[str, str], tuple[str, ...]] = {}
        for source in languages:
            for target in languages:
                if source == target:
                    continue
                if (source, target) in plain:
                    routes[(source, target)] = (source, target)
                elif (source, PIVOT) in plain and (PIVOT, target) in plain:
                    routes[(source, target)] = (source, PIVOT, target)
        self._routes = routes

    def directions(self) -> frozenset[tuple[str, str]]:
        return frozenset(self._routes)

    def _mode_chain(self, source: str, target: str, region: str | None) -> list[Path]:
        route = self._routes.get((source, target))
        if route is None:
            raise TranslationEngineError(f"Apertium has no pair for {source}→{target}")
        chain = []
        for s, t in itertools.pairwise(route):
            regional = self._modes.get((s, t, region)) if t == target and region else None
            chain.append(regional or self._modes[(s, t, None)])
        return chain

    def name_for(self, source: str, target: str, region: str | None = None) -> str:
        return "apertium:" + "+".join(m.stem for m in self._mode_chain(source, target, region))

    def _pipeline(self, mode_file: Path) -> ApertiumPipeline:
        return self._kept(
            mode_file.stem,
            lambda: ApertiumPipeline(mode_file, self._timeout),
            self._warm_mode(mode_file),
        )

    def _warm_mode(self, mode_file: Path) -> bool:
        return mode_file.stem in self._warm_modes

    def _kept(
        self, name: str, make: Callable[[], ApertiumPipeline], warm: bool
    ) -> ApertiumPipeline:
        """The pipeline called ``name`` (made by ``make`` the first time). Of the others'
        (pairs of languages not warm), the ``max_cold`` used last keep running; the
        processes of one used before them are stopped, and start again at its next use."""
        with self._lock:
            pipeline = self._pipelines.get(name)
            if pipeline is None:
                pipeline = make()
                self._pipelines[name] = pipeline
            parked = []
            if not warm:
                self._cold.pop(name, None)
                self._cold[name] = pipeline  # the last used, last
                while len(self._cold) > self._max_cold:
                    parked.append(self._cold.pop(next(iter(self._cold))))
        for idle in parked:
            idle.close()  # after an exchange in flight, if any
        return pipeline

    def load(self) -> None:
        """Start the warm pairs' pipelines and send a word through each: their dictionaries
        are then in memory."""
        for mode_file in self._modes.values():
            if self._warm_mode(mode_file):
                self._pipeline(mode_file).translate([to_stream(("Hello.",))])
        for language in self._analyzer_modes():
            if language in self._warm:
                self.known_words("Hello.", language)

    def analyzed_languages(self) -> frozenset[str]:
        """The languages whose dictionaries ``known_words`` can look words up in."""
        return frozenset(self._analyzer_modes())

    def known_words(self, text: str, language: str) -> tuple[int, int]:
        """How many of the words of ``text`` the ``language`` dictionary knows, of how many:
        "Hello" is English, "Merci" French, where a short text's letters say little."""
        words = [unit for unit in self.analyze(text, language) if _has_letter(unit[0])]
        return sum(not analyses.startswith("*") for _, analyses in words), len(words)

    def analyze(self, text: str, language: str) -> list[tuple[str, str]]:
        """Each word of ``text`` and the ``language`` dictionary's readings of it, as its
        morphological analyzer writes them (``Daniel<np><ant><m><sg>``; ``*Okafor``:
        unknown; a word longer than ``MAX_WORD_CHARACTERS`` is unknown unasked)."""
        mode_file = self._analyzer_modes()[language]
        # A mode's first program is its source language's morphological analyzer.
        pipeline = self._kept(
            f"{language}-analyzer",
            lambda: ApertiumPipeline(
                mode_file, self._timeout, commands=parse_mode_file(mode_file)[:1]
            ),
            language in self._warm,
        )
        # Long words are not asked; the runs of words between them go in one exchange, a text
        # each, with a final blank (in null-flush mode the analyzer drops a last word that
        # follows an unknown one: "x house" came back as "x" alone).
        pieces = LONG_WORD.split(RESERVED.sub(" ", text))  # runs, and long words between
        asked = [" ".join(run.split()) + " " for run in pieces[::2] if run.strip()]
        analyses = iter(pipeline.translate(asked) if asked else [])
        units: list[tuple[str, str]] = []
        for index, piece in enumerate(pieces):
            if index % 2:
                units.append((piece, f"*{piece}"))
            elif piece.strip():
                units += _LEXICAL_UNIT.findall(next(analyses))
        return units

    def generated_languages(self) -> frozenset[str]:
        """The languages ``generate`` writes words of."""
        return frozenset(t for (_, t, region) in self._modes if region is None)

    def generate(
        self, forms: Sequence[str], language: str, region: str | None = None
    ) -> list[str | None]:
        """Each lexical form (``envoyer<vblex><imp><p2><sg>``) written as a word of
        ``language`` (``envoie``); None where no generator has it. The generators of every
        pair into the language are asked in turn (each knows the words of its pair), the
        region's first (pt_BR writes Brazilian forms)."""
        modes = sorted(
            (
                mode
                for (_, t, r), mode in self._modes.items()
                if t == language and r in (region, None)
            ),
            key=lambda mode: ("_" not in mode.stem, mode.stem),
        )
        if not modes:
            raise TranslationEngineError(f"Apertium has no generator for {language}")
        words: list[str | None] = [None] * len(forms)
        for mode_file in modes:
            missing = [i for i, w in enumerate(words) if w is None]
            if not missing:
                break
            stream = [f"^{_FORM_RESERVED.sub('', forms[i])}$" for i in missing]
            for index, word in zip(
                missing, self._generator(mode_file).translate(stream), strict=True
            ):
                word = word.strip()
                words[index] = None if not word or word[:1] in "#*@" else word
        return words

    def _generator(self, mode_file: Path) -> ApertiumPipeline:
        """A pipeline of the mode's last programs, from its morphological generator on."""

        def make() -> ApertiumPipeline:
            commands = parse_mode_file(mode_file)
            first = next(i for i, c in enumerate(commands) if c[-1].endswith(".autogen.bin"))
            # "-g", not the mode's "-n": a form it cannot write comes back marked ("#").
            generator = ["-g" if arg == "-n" else arg for arg in commands[first]]
            chain = [generator, *commands[first + 1 :]]
            return ApertiumPipeline(mode_file, self._timeout, commands=chain)

        return self._kept(f"{mode_file.stem}-generator", make, self._warm_mode(mode_file))

    def _analyzer_modes(self) -> dict[str, Path]:
        """A mode file per source language (its analyzer is the same in each)."""
        modes: dict[str, Path] = {}
        for (source, _, region), mode_file in sorted(self._modes.items(), key=lambda m: m[1]):
            if region is None:
                modes.setdefault(source, mode_file)
        return modes

    def translate(
        self,
        segments: Sequence[Parts],
        source: str,
        target: str,
        region: str | None = None,
        deadline: Deadline | None = None,
    ) -> list[Parts | None]:
        chain = self._mode_chain(source, target, region)
        results: list[Parts | None] = []
        for batch in _batches(segments):
            if deadline is not None:
                deadline.check()
            results += self._translate(batch, chain)
        return results

    def _translate(self, segments: Sequence[Parts], chain: list[Path]) -> list[Parts | None]:
        carried = [carry_reserved(s) for s in segments]
        texts = [to_tagged(parts) for parts, _ in carried]
        for mode_file in chain:
            streams = [to_stream(split_tags(t)) for t in texts]
            texts = [from_stream(o) for o in self._pipeline(mode_file).translate(streams)]
        results: list[Parts | None] = []
        for (parts, reserved), text in zip(carried, texts, strict=True):
            translated = parse_tags(text.strip(), tags_of(parts))
            results.append(None if translated is None else put_back(translated, reserved))
        return results

    def close(self) -> None:
        with self._lock:
            for pipeline in self._pipelines.values():
                pipeline.close()
            self._pipelines.clear()
            self._cold.clear()


# What a lexical form may not hold (its tags' "<>" and a compound's "+" it may).
_FORM_RESERVED = re.compile(r"[\\\[\]^$/@{}*#~|\x00-\x1f\x7f]+")
# "^Hello/hello<ij>$": a word and its analyses; an unknown word's is "*Hello".
_LEXICAL_UNIT = re.compile(r"\^((?:[^/$\\]|\\.)*)/((?:[^$\\]|\\.)*)\$")


def _has_letter(text: str) -> bool:
    return any(c.isalpha() for c in text)


def _batches(segments: Sequence[Parts]) -> list[Sequence[Parts]]:
    """Consecutive segments of about ``EXCHANGE_CHARACTERS`` (a longer segment alone)."""
    batches: list[Sequence[Parts]] = []
    start = size = 0
    for index, segment in enumerate(segments):
        length = sum(len(p) for p in segment if isinstance(p, str))
        if index > start and size + length > EXCHANGE_CHARACTERS:
            batches.append(segments[start:index])
            start, size = index, 0
        size += length
    if start < len(segments):
        batches.append(segments[start:])
    return batches


def _find_modes(modes_dir: Path, languages: set[str]) -> dict[tuple[str, str, str | None], Path]:
    modes: dict[tuple[str, str, str | None], Path] = {}
    if not modes_dir.is_dir():
        return modes
    for mode_file in sorted(modes_dir.glob("*.mode")):
        match = _MODE_NAME.match(mode_file.stem)
        if not match:
            continue
        source = _ISO_639_1.get(match.group(1), match.group(1))
        target = _ISO_639_1.get(match.group(2), match.group(2))
        region = match.group(3).upper() if match.group(3) else None
        if source in languages and target in languages:
            modes[(source, target, region)] = mode_file
    return modes
