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
import logging
import os
import re
import select
import shlex
import subprocess
import threading
import time
from collections.abc import Sequence
from pathlib import Path

from threadwise.deadlines import Deadline
from threadwise.engines.translation import TranslationEngineError
from threadwise.text.tagged import Part, Parts, Tag, parse_tags, split_tags, tags_of, to_tagged

log = logging.getLogger(__name__)

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
}
_MODE_NAME = re.compile(r"^([a-z]{2,3})-([a-z]{2,3})(?:_([A-Za-z]+))?$")
# Characters with a meaning in Apertium's stream format, and ones its programs lose (NUL ends
# a message in null-flush mode, other controls are not text, lt-proc drops a soft hyphen).
# Each run of them goes through the pipeline as a superblank of its own.
_RESERVED_CHARACTERS = r"\\\[\]^$/@{}<>*#+~|\x00-\x08\x0b\x0c\x0e-\x1f\x7f\xad"
RESERVED = re.compile(f"[{_RESERVED_CHARACTERS}]+")
# Longer than the words of the pairs' languages ("anticonstitucionalmente": 23 letters), a run
# of what the programs read as one word is none to look up or translate: it goes through
# untouched. (Anchored at the run's start, so that the search stays linear.)
MAX_WORD_CHARACTERS = 48
_WORD_CHARACTER = rf"[^\s{_RESERVED_CHARACTERS}]"
_LONG_WORD = re.compile(f"(?<!{_WORD_CHARACTER})({_WORD_CHARACTER}{{{MAX_WORD_CHARACTERS + 1},}})")
_CARRIED = re.compile(f"{_LONG_WORD.pattern}|{RESERVED.pattern}")
# An unknown word (*), an untranslated one (@) and a generation gap (#) are marked by the
# engine; the marks are dropped, the words kept.
_ENGINE_MARKS = frozenset("*@#~")


# An exchange takes milliseconds (~200,000 characters a second on this machine): one that
# takes longer than this watchdog has hung, and the pipeline is restarted. The programs of a
# pipeline just started load their dictionaries first (0.1 s here).
WATCHDOG_SECONDS = 2.0
WATCHDOG_BYTES_PER_SECOND = 20_000
WATCHDOG_START_SECONDS = 5.0
# Larger requests go through in several exchanges, their deadline checked between them.
EXCHANGE_CHARACTERS = 32_768


class ApertiumPipeline:
    """One direction's programs, started once and kept running."""

    def __init__(
        self,
        mode_file: Path,
        timeout: float = WATCHDOG_SECONDS,
        commands: list[list[str]] | None = None,
    ) -> None:
        self.mode_file = mode_file
        self.name = mode_file.stem
        self.timeout = timeout
        # The mode's programs, or only some of them (its analyzer: see ``known_words``).
        self._commands = commands or parse_mode_file(mode_file)
        self._processes: list[subprocess.Popen[bytes]] = []
        self._lock = threading.Lock()
        self._markers = itertools.count()

    def start(self) -> None:
        with self._lock:
            if not self._alive():
                self._start()

    def _start(self) -> None:
        self._stop()
        previous: subprocess.Popen[bytes] | None = None
        for command in self._commands:
            process = subprocess.Popen(
                command,
                stdin=previous.stdout if previous else subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
            )
            if previous is not None and previous.stdout is not None:
                previous.stdout.close()  # the next program holds it now
            self._processes.append(process)
            previous = process
        log.info("apertium pipeline %s started (%d programs)", self.name, len(self._commands))

    def _alive(self) -> bool:
        return bool(self._processes) and all(p.poll() is None for p in self._processes)

    def translate(self, texts: Sequence[str]) -> list[str]:
        """Translate stream-format texts, in one pass through the pipeline.

        A pipeline found dead, or that dies during the pass, is restarted and the pass tried
        once more. One that does not answer within the watchdog's time is restarted for the
        next caller, and the pass fails: the same texts would hang it again."""
        payload = b"".join(t.encode("utf-8") + b"\0" for t in texts)
        timeout = self.timeout + len(payload) / WATCHDOG_BYTES_PER_SECOND
        with self._lock:
            for attempt in (1, 2):
                starting = 0.0
                if not self._alive():
                    if self._processes:
                        log.warning("apertium pipeline %s died; restarting it", self.name)
                    self._start()
                    starting = WATCHDOG_START_SECONDS
                try:
                    return self._exchange(payload, len(texts), timeout + starting)
                except TimeoutError as exc:
                    log.warning("apertium pipeline %s hung (%s); restarting it", self.name, exc)
                    self._stop()
                    raise TranslationEngineError(
                        f"Apertium pipeline {self.name} did not answer: {exc}"
                    ) from exc
                except OSError as exc:
                    log.warning("apertium pipeline %s failed (%s); restarting it", self.name, exc)
                    self._stop()
                    if attempt == 2:
                        raise TranslationEngineError(
                            f"Apertium pipeline {self.name} failed twice: {exc}"
                        ) from exc
        raise AssertionError("unreachable")

    def _exchange(self, texts: bytes, count: int, timeout: float) -> list[str]:
        marker = f"[/threadwise:{next(self._markers)}]".encode()
        payload = texts + marker + b"\0"
        stdin = self._processes[0].stdin
        stdout = self._processes[-1].stdout
        assert stdin is not None and stdout is not None
        # Write from another thread when the payload could fill the pipes before it is read.
        writer: threading.Thread | None = None
        if len(payload) > 16_384:
            writer = threading.Thread(target=_write_quietly, args=(stdin, payload), daemon=True)
            writer.start()
        else:
            _write(stdin, payload)
        ending = marker + b"\0"
        received = bytearray()
        deadline = time.monotonic() + timeout
        fd = stdout.fileno()
        while not received.endswith(ending):
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no answer within {timeout:.1f} s")
            ready, _, _ = select.select([fd], [], [], left)
            if ready:
                chunk = os.read(fd, 65_536)
                if not chunk:
                    raise OSError("the pipeline closed its output")
                received += chunk
        if writer is not None:
            writer.join()
        outputs = bytes(received[: -len(ending)]).split(b"\0")
        outputs = outputs[:count]
        if len(outputs) != count:
            raise OSError(f"{len(outputs)} answers for {count} texts")
        return [o.decode("utf-8", errors="replace") for o in outputs]

    def _stop(self) -> None:
        for process in self._processes:
            if process.poll() is None:
                process.kill()
            process.wait()
            for stream in (process.stdin, process.stdout):
                if stream is not None:
                    stream.close()
        self._processes = []

    def close(self) -> None:
        with self._lock:
            self._stop()


def _write(stream: object, payload: bytes) -> None:
    assert hasattr(stream, "write") and hasattr(stream, "flush")
    stream.write(payload)
    stream.flush()


def _write_quietly(stream: object, payload: bytes) -> None:
    """``_write`` on a thread of its own: a pipeline that dies meanwhile is for the reader to
    report (it sees the output close), not for an exception nobody catches."""
    try:
        _write(stream, payload)
    except OSError as exc:
        log.debug("apertium pipeline input closed while writing: %s", exc)


def parse_mode_file(mode_file: Path) -> list[list[str]]:
    """The programs of a mode file, each told to flush at ``\\0`` (as APy runs them)."""
    commands = []
    for program in mode_file.read_text(encoding="utf-8").strip().split("|"):
        # $1 is the generator's mode: -n leaves unknown words unmarked. $2 is for debugging.
        args = shlex.split(program.replace("$1", "-n").replace("$2", ""))
        commands.append([args[0], "-z", *args[1:]])
    return commands


def carry_reserved(parts: Parts) -> tuple[Parts, dict[int, str]]:
    """``parts`` with each run of ``RESERVED`` characters, and each word longer than
    ``MAX_WORD_CHARACTERS``, made an atom of its own (numbered after the segment's tags), and
    the text of those atoms."""
    number = itertools.count(max((t.id for t in tags_of(parts)), default=0) + 1)
    carried: dict[int, str] = {}
    out: list[Part] = []
    for part in parts:
        if isinstance(part, Tag):
            out.append(part)
            continue
        position = 0
        for match in _CARRIED.finditer(part):
            out.append(part[position : match.start()])
            atom = Tag(next(number), "atom")
            carried[atom.id] = match.group()
            out.append(atom)
            position = match.end()
        out.append(part[position:])
    return tuple(p for p in out if p != ""), carried


def put_back(parts: Parts, carried: dict[int, str]) -> Parts:
    """``carry_reserved`` undone: the carried atoms' text back in their place."""
    out: list[Part] = []
    for part in parts:
        if isinstance(part, Tag) and part.kind == "atom" and part.id in carried:
            part = carried[part.id]
        if isinstance(part, str) and out and isinstance(out[-1], str):
            out[-1] += part
        else:
            out.append(part)
    return tuple(out)


def to_stream(parts: Parts) -> str:
    """A segment in Apertium's stream format: its text (holding no ``RESERVED`` character:
    see ``carry_reserved``), tags as superblanks."""
    out = [f"[{p.markup()}]" if isinstance(p, Tag) else p for p in parts]
    out.append(" ")  # a final blank, or the last sentence loses its full stop
    return "".join(out)


def from_stream(stream: str) -> str:
    """Apertium's output as tagged text: superblanks unwrapped, escapes and marks removed."""
    out: list[str] = []
    i = 0
    in_blank = False
    while i < len(stream):
        char = stream[i]
        if char == "\\" and i + 1 < len(stream):
            out.append(stream[i + 1])
            i += 2
            continue
        if char == "[" and not in_blank:
            in_blank = True
        elif char == "]" and in_blank:
            in_blank = False
        elif in_blank or char not in _ENGINE_MARKS:
            out.append(char)
        i += 1
    return "".join(out)


class ApertiumEngine:
    """Every direction among ``languages`` the installed pairs reach, directly or via Spanish."""

    kind = "apertium"

    def __init__(
        self,
        languages: Sequence[str],
        modes_dir: Path = MODES_DIR,
        timeout: float = WATCHDOG_SECONDS,
    ) -> None:
        self._modes = _find_modes(modes_dir, set(languages))
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
        with self._lock:
            pipeline = self._pipelines.get(mode_file.stem)
            if pipeline is None:
                pipeline = ApertiumPipeline(mode_file, self._timeout)
                self._pipelines[mode_file.stem] = pipeline
        return pipeline

    def load(self) -> None:
        """Start every pipeline and send a word through it: its dictionaries are then in memory."""
        for mode_file in self._modes.values():
            self._pipeline(mode_file).translate([to_stream(("Hello.",))])
        for language in self._analyzer_modes():
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
        name = f"{language}-analyzer"
        with self._lock:
            pipeline = self._pipelines.get(name)
            if pipeline is None:
                # A mode's first program is its source language's morphological analyzer.
                analyzer = parse_mode_file(mode_file)[:1]
                pipeline = ApertiumPipeline(mode_file, self._timeout, commands=analyzer)
                self._pipelines[name] = pipeline
        # Long words are not asked; the runs of words between them go in one exchange, a text
        # each, with a final blank (in null-flush mode the analyzer drops a last word that
        # follows an unknown one: "x house" came back as "x" alone).
        pieces = _LONG_WORD.split(RESERVED.sub(" ", text))  # runs, and long words between
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
        name = f"{mode_file.stem}-generator"
        with self._lock:
            pipeline = self._pipelines.get(name)
            if pipeline is None:
                commands = parse_mode_file(mode_file)
                first = next(i for i, c in enumerate(commands) if c[-1].endswith(".autogen.bin"))
                # "-g", not the mode's "-n": a form it cannot write comes back marked ("#").
                generator = ["-g" if arg == "-n" else arg for arg in commands[first]]
                chain = [generator, *commands[first + 1 :]]
                pipeline = ApertiumPipeline(mode_file, self._timeout, commands=chain)
                self._pipelines[name] = pipeline
        return pipeline

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
