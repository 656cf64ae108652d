"""Benchmark of the translate superpower; writes the routing table the service uses.

    python -m bench.translate [--quality] [--latency] [--throughput] [--markdown]
                              [--limit N] [--write-table]

- ``--quality``: chrF and BLEU (sacrebleu) per direction and engine on ``N`` sentences of
  ../shared/eval/ntrex-dev.tsv (the same sentences for every engine; pt is Brazilian), or
  with ``--languages more`` English to and from the 24 languages of ntrex-dev-more.tsv,
  through the service's own pipeline (segmentation, batching, checks); with seconds per
  sentence. Engines: apertium, bergamot, the model (``llm``, sentences batched as a
  conversation would be) and the model post-editing a fast engine's draft (``llm+apertium``,
  ``llm+bergamot``). Results are kept in bench/results/ so a run can be resumed (those of
  ``--languages more`` in bench/data/translate-quality-more.json, in the repository);
  ``--write-table`` then writes text/translation_routes.json (``bench.routing_table``): per
  direction, the quality engine (best chrF), the fast engine (best chrF among those
  answering in milliseconds) and the quality label; per language, its labels to and from
  English, which decide what is served.
- ``--latency``: p50/p95 per engine of a short message, end to end through the HTTP app
  (uvicorn on 127.0.0.1), and a 10-message conversation in the quality tier.
- ``--throughput``: messages/s on eng→spa through the HTTP app and through Debian's
  ``apertium-apy``, both started here on 127.0.0.1 and driven one request at a time by the
  same client, printed as a ratio.
- ``--markdown``: the share of the Markdown corpus (tests/data/markdown_corpus.json) whose
  structure and protected text survive, per engine and tier.
With no flag, everything.
"""

from __future__ import annotations

import argparse
import csv
import http.client
import json
import shutil
import socket
import statistics
import subprocess
import tempfile
import time
import urllib.parse
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import Any

from sacrebleu.metrics.bleu import BLEU
from sacrebleu.metrics.chrf import CHRF

from bench.common import percentile
from bench.routing_table import routing_table
from bench.summarize import bench_token, serving
from threadwise.config import Settings
from threadwise.engines.apertium.engine import ApertiumEngine
from threadwise.services import Services, build_services
from threadwise.superpowers.translate.routing import (
    LLM,
    NO_ENGINE,
    TIERS,
    direction_key,
    uses_llm,
)
from threadwise.text.languages import (
    LANGUAGE_NAMES,
    TRANSLATION_LANGUAGES,
    LanguageIdentifier,
    LanguageTag,
)
from threadwise.text.markdown_structure import structure_problems
from threadwise.text.measured_languages import TABLE_FILE

ROOT = Path(__file__).parent.parent
NTREX = ROOT.parent / "shared" / "eval" / "ntrex-dev.tsv"
# The same 200 English sentences, in 24 more languages.
NTREX_MORE = NTREX.with_name("ntrex-dev-more.tsv")
RESULTS = Path(__file__).parent / "results"
QUALITY_RESULTS = RESULTS / "translate-quality.json"
# The measurement of the languages not served yet: long (the model, 48 directions), so kept in
# the repository, for a run to go on where the last one stopped, on any checkout.
MORE_RESULTS = Path(__file__).parent / "data" / "translate-quality-more.json"
TABLE = ROOT / "threadwise" / "text" / TABLE_FILE
CORPUS = ROOT / "tests" / "data" / "markdown_corpus.json"
# Column of ntrex-dev.tsv and request tag per language; Portuguese is Brazilian, as Bergamot is.
COLUMNS = {"en": "en", "es": "es", "fr": "fr", "de": "de", "pt": "pt_br"}
TAGS = {"en": "en-US", "es": "es-ES", "fr": "fr-FR", "de": "de-DE", "pt": "pt-BR"}
# ntrex-dev-more.tsv's languages: column, and the tag a request would give.
MORE = {
    "it": ("ita", "it-IT"), "nl": ("nld", "nl-NL"), "ca": ("cat", "ca-ES"),
    "gl": ("glg", "gl-ES"), "ro": ("ron", "ro-RO"), "pl": ("pol", "pl-PL"),
    "ru": ("rus", "ru-RU"), "uk": ("ukr", "uk-UA"), "cs": ("ces", "cs-CZ"),
    "sv": ("swe", "sv-SE"), "da": ("dan", "da-DK"), "nb": ("nob", "nb-NO"),
    "tr": ("tur", "tr-TR"), "el": ("ell", "el-GR"), "hu": ("hun", "hu-HU"),
    "fi": ("fin", "fi-FI"), "id": ("ind", "id-ID"), "vi": ("vie", "vi-VN"),
    "zh": ("zho-CN", "zh-CN"), "ja": ("jpn", "ja-JP"), "ko": ("kor", "ko-KR"),
    "ar": ("arb", "ar-SA"), "hi": ("hin", "hi-IN"), "he": ("heb", "he-IL"),
}  # fmt: skip
COLUMNS |= {code: column for code, (column, _) in MORE.items()}
TAGS |= {code: tag for code, (_, tag) in MORE.items()}
SHORT_MESSAGE = "Hi! Could you tell me where my order is? It has not arrived yet."


def ntrex_rows() -> list[dict[str, str]]:
    """Every NTREX dev sentence, a row of its translations by column (both files)."""
    files = []
    for path in (NTREX, NTREX_MORE):
        with path.open(encoding="utf-8", newline="") as handle:
            files.append(list(csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)))
    first, more = files
    if [row["en"] for row in first] != [row["en"] for row in more]:
        raise SystemExit(f"{NTREX_MORE.name} is not aligned with {NTREX.name}")
    return [one | other for one, other in zip(first, more, strict=True)]


def load_ntrex(limit: int) -> list[dict[str, str]]:
    rows = ntrex_rows()
    # Spread over the file rather than its first lines (which share one news story).
    step = max(1, len(rows) // limit)
    return rows[::step][:limit]


def machine_engines(services: Services, source: str, target: str) -> list[str]:
    return [
        kind
        for kind, engine in services.machine_translators.items()
        if (source, target) in engine.directions()
    ]


def translate_sentences(
    services: Services, engine: str, source: str, target: str, sentences: list[str]
) -> tuple[list[str], float]:
    """Translations and seconds per sentence, through the service's pipeline."""
    translator = services.default_translator
    tag = LanguageTag.parse(TAGS[target], "bench")
    segmented = [translator.segmenter.segment(s) for s in sentences]
    backend = translator.backend(engine, source, tag)
    if uses_llm(engine):
        # As the service batches a conversation: all sentences in one group (chunked prompts).
        started = time.perf_counter()
        done = translator.translate_group(backend, segmented)
        per_sentence = (time.perf_counter() - started) / len(sentences)
        return [d.text for d in done], per_sentence
    texts, seconds = [], []
    for message in segmented:
        started = time.perf_counter()
        texts.append(translator.translate_group(backend, [message])[0].text)
        seconds.append(time.perf_counter() - started)
    return texts, statistics.median(seconds)


def run_quality(
    services: Services,
    limit: int,
    directions: list[tuple[str, str]],
    llm_directions: set[str] | None = None,
    post_edit_directions: set[str] | None = None,
    results: Path = QUALITY_RESULTS,
) -> None:
    """Where to measure the model, and the model post-editing (seconds a sentence each);
    None: everywhere. Each figure is kept in ``results`` as soon as it is measured."""
    rows = load_ntrex(limit)
    results.parent.mkdir(exist_ok=True)
    stored: dict[str, Any] = json.loads(results.read_text()) if results.exists() else {}
    if stored.get("sentences") != len(rows):
        stored = {"sentences": len(rows), "directions": {}}
    print(f"\n## Quality: chrF / BLEU on {len(rows)} NTREX sentences per direction")
    print(f"{'direction':<8} {'engine':<14} {'chrF':>6} {'BLEU':>6} {'s/sentence':>11}")
    for source, target in directions:
        key = direction_key(source, target)
        found = stored["directions"].setdefault(key, {})
        sources = [r[COLUMNS[source]] for r in rows]
        references = [r[COLUMNS[target]] for r in rows]
        engines = machine_engines(services, source, target)
        with_model = llm_directions is None or key in llm_directions
        for engine in [*engines, LLM, f"{LLM}+"] if with_model else engines:
            if engine == f"{LLM}+":
                # The model post-edits the best fast engine's draft (measured just above).
                if not engines or (
                    post_edit_directions is not None and key not in post_edit_directions
                ):
                    continue
                engine = f"{LLM}+" + max(engines, key=lambda e: found[e]["chrF"])
            if engine not in found:
                texts, seconds = translate_sentences(services, engine, source, target, sources)
                found[engine] = {
                    "chrF": round(CHRF().corpus_score(texts, [references]).score, 1),
                    "BLEU": round(BLEU().corpus_score(texts, [references]).score, 1),
                    "secondsPerSentence": round(seconds, 4),
                    "sample": texts[:2],
                }
                results.write_text(json.dumps(stored, ensure_ascii=False, indent=1) + "\n")
            f = found[engine]
            print(
                f"{key:<8} {engine:<14} {f['chrF']:>6.1f} {f['BLEU']:>6.1f} "
                f"{f['secondsPerSentence']:>11.3f}",
                flush=True,
            )


def write_table() -> None:
    """The routing table from every measurement kept, a later one's direction replacing an
    earlier one's: the table's own entries, the served languages' (bench/results/, if this
    checkout measured them) and the more languages' (bench/data/)."""
    old = json.loads(TABLE.read_text())
    measurements: list[dict[str, Any]] = [
        {
            "sentences": entry.get("sentences", old["measured"].get("sentences", 20)),
            "directions": {key: entry["candidates"]},
        }
        for key, entry in old["directions"].items()
    ]
    for kept in (QUALITY_RESULTS, MORE_RESULTS):
        if kept.exists():
            measurements.append(json.loads(kept.read_text()))
    table = routing_table(measurements, {"en": "English", **LANGUAGE_NAMES})
    TABLE.write_text(json.dumps(table, ensure_ascii=False, indent=1) + "\n")
    print(f"\nwrote {TABLE.relative_to(ROOT)}: {len(table['directions'])} directions\n")
    print(markdown_table(table))


def markdown_table(table: dict[str, Any]) -> str:
    """The routing table as Markdown: per direction, both tiers and every engine measured."""
    lines = [
        "| direction | label | quality | fast | chrF / BLEU of each engine (s per sentence) |",
        "|---|---|---|---|---|",
    ]
    for key, entry in table["directions"].items():
        figures = entry["candidates"]
        measured = ", ".join(
            f"{e} {f['chrF']:.1f} / {f['BLEU']:.1f} ({f['secondsPerSentence']:.3g})"
            for e, f in sorted(figures.items(), key=lambda i: -i[1]["chrF"])
        )
        label = entry.get("label") or "not served"
        lines.append(f"| {key} | {label} | {entry['quality']} | {entry['fast']} | {measured} |")
    return "\n".join(lines)


# --- through the HTTP app -------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def body(contents: list[str], target: str, mode: str) -> dict[str, Any]:
    return {
        "session": {"channel": {"language": target}},
        "request": {
            "connections": {"threadId": "bench"},
            "context": {"organizationId": "bench"},
            "settings": {"translationMode": mode},
            "scope": {
                "conversations": [
                    {
                        "conversationId": "c",
                        "messages": [{"participantId": "p", "content": c} for c in contents],
                    }
                ]
            },
        },
    }


class Client:
    """One keep-alive connection; the same client drives threadwise and APy."""

    def __init__(self, port: int, token: str = "") -> None:
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=300)
        self.headers = {"Content-Type": "application/json"}
        if token:
            self.headers["Authorization"] = f"Bearer {token}"

    def post_json(self, path: str, payload: dict[str, Any]) -> dict[str, Any]:
        data = json.dumps(payload).encode()
        self.connection.request("POST", path, data, self.headers)
        return self._read()

    def post_form(self, path: str, fields: dict[str, str]) -> dict[str, Any]:
        data = urllib.parse.urlencode(fields).encode()
        headers = {"Content-Type": "application/x-www-form-urlencoded"}
        self.connection.request("POST", path, data, headers)
        return self._read()

    def _read(self) -> dict[str, Any]:
        response = self.connection.getresponse()
        text = response.read()
        assert response.status == 200, text[:500]
        result: dict[str, Any] = json.loads(text)
        return result

    def close(self) -> None:
        self.connection.close()


def timed(call: Callable[[], Any], count: int) -> list[float]:
    seconds = []
    for _ in range(count):
        started = time.perf_counter()
        call()
        seconds.append(time.perf_counter() - started)
    return seconds


def run_latency(services: Services, count: int) -> None:
    print(f"\n## Latency through the HTTP app: a short message ({count} requests each)")
    print(f"{'direction':<8} {'tier':<8} {'engine':<45} {'p50 ms':>8} {'p95 ms':>8}")
    texts = {
        "en": SHORT_MESSAGE,
        "pt": "Oi! Você pode me dizer onde está meu pedido? Ainda não chegou.",
    }
    with serving(services) as port:
        client = Client(port, token(services))
        for source, target in (
            ("en", "pt"),
            ("en", "es"),
            ("en", "fr"),
            ("en", "de"),
            ("pt", "en"),
        ):
            for mode in ("fast", "quality"):
                payload = body([texts[source]], TAGS[target], mode)
                answer = client.post_json("/message/translate", payload)  # warm
                engine = answer["message"]["results"][0]["response"][0]["engine"]
                n = count if not uses_llm_name(engine) else max(3, count // 10)
                seconds = timed(partial(client.post_json, "/message/translate", payload), n)
                p50, p95 = (1000 * percentile(seconds, q) for q in (0.5, 0.95))
                print(
                    f"{source}-{target:<5} {mode:<8} {engine[:45]:<45} {p50:>8.1f} {p95:>8.1f}",
                    flush=True,
                )
        conversation = [
            "Hi, I ordered a blue jacket last week and it still has not arrived.",
            "Sorry to hear that! Could you send me your order number?",
            "Sure, it is 55821.",
            "Thanks. I can see the parcel is stuck at the depot.",
            "Can you send a new one?",
            "Yes, I have sent a replacement today by express delivery.",
            "Great, when will it arrive?",
            "It should be with you on Thursday.",
            "Perfect, thank you for your help!",
            "You're welcome. Have a nice day!",
        ]
        for target in ("es", "de"):
            payload = body(conversation, TAGS[target], "quality")
            seconds = timed(partial(client.post_json, "/message/translate", payload), 2)
            print(
                f"en-{target:<5} quality  10-message conversation: "
                f"{', '.join(f'{s:.1f} s' for s in seconds)}",
                flush=True,
            )
        client.close()


def token(services: Services) -> str:
    """A token for the bench's organization, without rate limits."""
    return bench_token(services, [("bench", body([""], "es", "fast"))])


def uses_llm_name(engine: str) -> bool:
    return engine.startswith("llama.cpp")


@contextmanager
def apertium_apy() -> Iterator[int]:
    """Debian's apertium-apy serving the installed pairs on 127.0.0.1."""
    executable = shutil.which("apertium-apy")
    if executable is None:
        raise SystemExit("apertium-apy is not installed; run scripts/setup.sh (as root)")
    port = free_port()
    with tempfile.TemporaryDirectory() as scratch:
        process = subprocess.Popen(
            [executable, "-p", str(port), "-j", "1", "/usr/share/apertium/modes"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            cwd=scratch,
        )
        try:
            deadline = time.monotonic() + 30
            while True:
                try:
                    with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                        break
                except OSError:
                    if time.monotonic() > deadline or process.poll() is not None:
                        raise SystemExit("apertium-apy did not start") from None
                    time.sleep(0.1)
            yield port
        finally:
            process.terminate()
            process.wait(timeout=10)


@contextmanager
def threadwise_serve() -> Iterator[tuple[int, str]]:
    """``threadwise serve`` in a process of its own, as APy runs in its own: a server in the
    benchmark's process would share its interpreter lock with the client. Yields the port and
    a token for the bench's organization."""
    from bench.websocket import served_with_token

    with served_with_token(["bench"], "threadwise-bench-serve-") as (_, url, access_token):
        yield int(url.rsplit(":", 1)[1]), access_token


def run_throughput(count: int) -> None:
    print(
        f"\n## Throughput on eng→spa, one request at a time, {count} messages each "
        "(alternating blocks of 50; both servers in processes of their own)"
    )
    messages = [f"{SHORT_MESSAGE} Ticket {i}." for i in range(count)]
    with threadwise_serve() as (port, access_token), apertium_apy() as apy_port:
        ours, apy = Client(port, access_token), Client(apy_port)
        fields = {"langpair": "eng|spa", "q": SHORT_MESSAGE}
        for _ in range(5):  # warm both
            ours.post_json("/message/translate", body([SHORT_MESSAGE], "es-ES", "fast"))
            apy.post_form("/translate", fields)
        # Alternating blocks, so that other load on the machine weighs on both alike.
        ours_seconds = apy_seconds = 0.0
        for block in range(0, count, 50):
            started = time.perf_counter()
            for text in messages[block : block + 50]:
                ours.post_json("/message/translate", body([text], "es-ES", "fast"))
            ours_seconds += time.perf_counter() - started
            started = time.perf_counter()
            for text in messages[block : block + 50]:
                apy.post_form("/translate", {"langpair": "eng|spa", "q": text})
            apy_seconds += time.perf_counter() - started
        threadwise_rate, apy_rate = count / ours_seconds, count / apy_seconds
        ours.close()
        apy.close()
    print(f"threadwise (HTTP, fast tier): {threadwise_rate:7.1f} messages/s")
    print(f"apertium-apy (HTTP):          {apy_rate:7.1f} messages/s")
    print(f"ratio threadwise / APy:       {threadwise_rate / apy_rate:7.2f}x")


def run_markdown(services: Services) -> None:
    corpus: list[str] = json.loads(CORPUS.read_text(encoding="utf-8"))
    print(f"\n## Markdown corpus ({len(corpus)} messages): structure and protected text kept")
    translator = services.default_translator
    segmented = [translator.segmenter.segment(m) for m in corpus]
    for source, target in (("en", "pt"), ("en", "es"), ("en", "fr"), ("en", "de")):
        tag = LanguageTag.parse(TAGS[target], "bench")
        route = translator.router.route(source, target)
        assert route is not None
        for tier in TIERS:
            engine = route.engine(tier)
            if engine == NO_ENGINE:
                continue
            backend = translator.backend(engine, source, tag)
            done = translator.translate_group(backend, segmented)
            kept = sum(not structure_problems(m, d.text) for m, d in zip(corpus, done, strict=True))
            changed = sum(d.text != m for m, d in zip(corpus, done, strict=True))
            print(
                f"{source}-{target} {tier:<8} {engine:<14} structure kept {kept}/{len(corpus)}"
                f" ({100 * kept / len(corpus):.0f}%), translated {changed}/{len(corpus)}",
                flush=True,
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    for flag in ("quality", "latency", "throughput", "markdown"):
        parser.add_argument(f"--{flag}", action="store_true")
    parser.add_argument("--write-table", action="store_true")
    parser.add_argument("--limit", type=int, default=24, help="NTREX sentences per direction")
    parser.add_argument("--directions", help="comma-separated, e.g. en-es,es-en (default: all)")
    parser.add_argument(
        "--languages",
        choices=["served", "more"],
        default="served",
        help="the directions served now, or English to and from ntrex-dev-more.tsv's languages",
    )
    parser.add_argument(
        "--model-directions",
        default="en-es,es-en,en-fr,fr-en,en-pt,pt-en,en-de,de-en",
        help="where to measure the model too ('all' for every direction); elsewhere only the "
        "machine engines are measured",
    )
    parser.add_argument(
        "--post-edit-directions",
        default="all",
        help="where to measure the model post-editing the best fast draft ('all': wherever "
        "the model is measured)",
    )
    parser.add_argument("--requests", type=int, default=50, help="requests per latency figure")
    args = parser.parse_args()
    everything = not (args.quality or args.latency or args.throughput or args.markdown)
    # Its own data directory: the bench's client must not stand in for the first-run client.
    # No result cache: the latency figures repeat one request, which it would answer.
    data_dir = Path(tempfile.mkdtemp(prefix="threadwise-bench-"))
    services = build_services(Settings(data_dir=data_dir, result_cache_ttl_seconds=0))
    services.start()
    while not services.ready:
        if services.load_error is not None:
            raise SystemExit(f"loading failed: {services.load_error}")
        time.sleep(0.2)
    try:
        if args.quality or everything:
            if args.directions:
                keys = args.directions.split(",")
            elif args.languages == "more":
                keys = [k for code in MORE for k in (f"en-{code}", f"{code}-en")]
            else:
                keys = services.default_translator.router.keys()
            if any(code not in TRANSLATION_LANGUAGES for key in keys for code in key.split("-")):
                # The model's output-language check must know the languages measured, and
                # Apertium offer every installed pair among them (directly or via Spanish).
                services.default_translator.llm.identifier = LanguageIdentifier(
                    tuple(LANGUAGE_NAMES)
                )
                services.default_translator.engines["apertium"] = ApertiumEngine(  # type: ignore[index]
                    tuple(LANGUAGE_NAMES)
                )
            if args.languages == "served":
                # English pairs first: the most common in chat, the first table entries ready.
                keys.sort(key=lambda k: ("en" not in k.split("-"), "de" in k.split("-"), k))
            directions = [(k.split("-")[0], k.split("-")[1]) for k in keys]
            model, post_edit = (
                None if value == "all" else set(value.split(","))
                for value in (args.model_directions, args.post_edit_directions)
            )
            kept = MORE_RESULTS if args.languages == "more" else QUALITY_RESULTS
            run_quality(services, args.limit, directions, model, post_edit, kept)
        if args.write_table or everything:
            write_table()
        if args.markdown or everything:
            run_markdown(services)
        if args.latency or everything:
            run_latency(services, args.requests)
        if args.throughput or everything:
            run_throughput(500)
    finally:
        services.close()


if __name__ == "__main__":
    main()
