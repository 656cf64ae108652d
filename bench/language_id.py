"""Compare the packaged language identifiers on short chat messages in en, es, fr, de, pt.

    python -m bench.language_id

Sets: bench/data/chat_messages.tsv (100 short support-chat messages, 20 a language, written
for this benchmark) and the first 3 words of 200 NTREX sentences in each language (1,000
snippets). Every detector is restricted to the five languages where it can be; accuracy and
mean time per message (one thread, after a warm-up) are printed. gcld3 is included when it
is installed (it needs the protobuf compiler to build).
"""

from __future__ import annotations

import csv
import time
from collections.abc import Callable
from pathlib import Path

from bench.translate import COLUMNS, NTREX

LANGUAGES = ("en", "es", "fr", "de", "pt")
CHAT = Path(__file__).parent / "data" / "chat_messages.tsv"

Detector = Callable[[str], str | None]


def chat_set() -> list[tuple[str, str]]:
    with CHAT.open(encoding="utf-8", newline="") as handle:
        return [(r["language"], r["message"]) for r in csv.DictReader(handle, delimiter="\t")]


def snippet_set(words: int = 3) -> list[tuple[str, str]]:
    with NTREX.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))
    return [(lang, " ".join(r[COLUMNS[lang]].split()[:words])) for r in rows for lang in LANGUAGES]


def lingua_detector(low_accuracy: bool) -> Detector:
    from lingua import IsoCode639_1, Language, LanguageDetectorBuilder

    languages = [Language.from_iso_code_639_1(getattr(IsoCode639_1, c.upper())) for c in LANGUAGES]
    builder = LanguageDetectorBuilder.from_languages(*languages).with_preloaded_language_models()
    detector = (builder.with_low_accuracy_mode() if low_accuracy else builder).build()

    def detect(text: str) -> str | None:
        language = detector.detect_language_of(text)
        return language.iso_code_639_1.name.lower() if language else None

    return detect


def py3langid_detector() -> Detector:
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    identifier = LanguageIdentifier.from_model_file(MODEL_FILE)
    identifier.set_languages(list(LANGUAGES))
    return lambda text: str(identifier.classify(text)[0])


def pycld2_detector() -> Detector:
    import pycld2

    def detect(text: str) -> str | None:
        try:
            _, _, details = pycld2.detect(text, bestEffort=True)
        except pycld2.error:
            return None
        # CLD2 cannot be restricted: take its best guess among the five.
        for _, code, _, _ in details:
            if code[:2] in LANGUAGES:
                return str(code[:2])
        return None

    return detect


def gcld3_detector() -> Detector | None:
    try:
        import gcld3
    except ImportError:
        return None
    identifier = gcld3.NNetLanguageIdentifier(0, 1000)

    def detect(text: str) -> str | None:
        for result in identifier.FindTopNMostFreqLangs(text, 5):
            if result.language[:2] in LANGUAGES:
                return str(result.language[:2])
        return None

    return detect


def main() -> None:
    detectors: dict[str, Detector | None] = {
        "lingua (high accuracy)": lingua_detector(low_accuracy=False),
        "lingua (low accuracy)": lingua_detector(low_accuracy=True),
        "py3langid": py3langid_detector(),
        "pycld2": pycld2_detector(),
        "gcld3": gcld3_detector(),
    }
    sets = {"chat messages": chat_set(), "NTREX first 3 words": snippet_set()}
    header = "".join(f"{name + ' (' + str(len(s)) + ')':>28}" for name, s in sets.items())
    print(f"{'detector':<24}{header}{'µs/message':>12}")
    for name, detect in detectors.items():
        if detect is None:
            print(f"{name:<24}  not installed")
            continue
        cells = []
        elapsed = count = 0.0
        for items in sets.values():
            for _, text in items[:20]:
                detect(text)  # warm-up
            started = time.perf_counter()
            right = sum(detect(text) == language for language, text in items)
            elapsed += time.perf_counter() - started
            count += len(items)
            cells.append(f"{100 * right / len(items):>27.1f}%")
        print(f"{name:<24}{''.join(cells)}{1e6 * elapsed / count:>12.0f}")


if __name__ == "__main__":
    main()
