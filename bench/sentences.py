"""Compare sentence segmenters on tricky cases in en, es, fr, de, pt and on hostile texts.

    python -m bench.sentences

Cases and hostile pieces: tests/text/test_sentences.py. Prints, for each segmenter, how many
cases it splits right, and milliseconds on each hostile piece repeated to 4,000 and 32,000
characters (time that grows 8x is linear; 64x, quadratic). pysbd and syntok are measured when
they are installed (pip install pysbd==0.3.4 syntok); sentencex (what threadwise uses, behind
threadwise.text.sentences) always is.
"""

from __future__ import annotations

import importlib
import re
import time
from collections.abc import Callable

from tests.text.test_sentences import CASES, HOSTILE
from threadwise.text import sentences

Segmenter = Callable[[str, str], list[str]]


def naive(text: str, language: str) -> list[str]:
    """The regex threadwise split summaries with before."""
    return re.split(r"(?<=[.!?])\s+|\n+", text)


def optional() -> dict[str, Segmenter]:
    found: dict[str, Segmenter] = {}
    try:
        pysbd = importlib.import_module("pysbd")
        codes = pysbd.languages.LANGUAGE_CODES

        def by_pysbd(text: str, language: str) -> list[str]:
            code = language.split("-")[0] if language.split("-")[0] in codes else "en"
            return list(pysbd.Segmenter(language=code, clean=False).segment(text))

        found["pysbd"] = by_pysbd
    except ImportError:
        pass
    try:
        syntok = importlib.import_module("syntok.segmenter")

        def by_syntok(text: str, language: str) -> list[str]:
            return [
                "".join(t.spacing + t.value for t in sentence)
                for paragraph in syntok.process(text)
                for sentence in paragraph
            ]

        found["syntok"] = by_syntok
    except ImportError:
        pass
    return found


def main() -> None:
    sentencex = importlib.import_module("sentencex")
    segmenters: dict[str, Segmenter] = {
        "naive regex": naive,
        "sentencex": lambda text, language: list(sentencex.segment(language, text)),
        "threadwise": sentences.split_sentences,
        **optional(),
    }
    print(f"{'segmenter':12} {'cases':>6}  " + "  ".join(f"{n:>20}" for n in HOSTILE))
    for name, segment in segmenters.items():
        right = sum(
            [" ".join(s.split()) for s in segment(" ".join(want), language) if s.strip()] == want
            for language, want in CASES
        )
        times = []
        for piece in HOSTILE.values():
            small, large = (piece * (size // len(piece)) for size in (4_000, 32_000))
            times.append(f"{_ms(segment, small):8.1f} {_ms(segment, large):9.1f} ms")
        print(f"{name:12} {right:>3}/{len(CASES)}  " + "  ".join(times), flush=True)


def _ms(segment: Segmenter, text: str) -> float:
    start = time.perf_counter()
    segment(text, "en")
    return (time.perf_counter() - start) * 1000


if __name__ == "__main__":
    main()
