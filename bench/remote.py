"""Remote engine overhead: the same summaries through the embedded model and through
llama-cpp-python's OpenAI-compatible server running the same model on this machine.

`.venv/bin/python -m bench.remote [--chats N] [--dialogues N]` starts the server on 127.0.0.1
(the default model, as many threads as the embedded engine) and, in one run, alternating which
goes first, sends each conversation through both engines, each starting with only the system
prompt in its cache:
- the summary call, the same chat through each engine (the same prompt tokens, greedy): the
  overhead of the server and the HTTP stream (target: at most 1.10x);
- the whole summarize pipeline: llama-cpp-python's server cannot continue an answer begun by
  the caller, so its "Summary:" is asked for in the instruction (one line more of prompt, and
  the model's answer may differ from there on).
It prints each conversation's seconds and tokens, and the ratios remote / embedded: the median
of the pairs and that of the totals. The engines take turns on the same cores: run it while
nothing else runs on the machine.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from bench.common import support_chat_bodies
from bench.dialogsum import dialogue_body, load_dialogsum
from bench.summarize import first_messages
from scripts.model_server import llama_server
from threadwise.config import RemoteEngine, Settings
from threadwise.deadlines import Deadline
from threadwise.engines.base import ChatEngine, ChatMessage, read_ahead
from threadwise.engines.llama import LlamaCppEngine
from threadwise.engines.model_files import DEFAULT_MODEL, prepare_model
from threadwise.engines.prefix_states import PrefixStates
from threadwise.engines.remote import RemoteChatEngine
from threadwise.engines.remote.breaker import CircuitBreaker
from threadwise.payload import PayloadLimits, parse_message_body
from threadwise.superpowers.summarize import Summarizer, SummaryJob, prompts
from threadwise.text.languages import LanguageIdentifier

TARGET = 1.10


@dataclass(frozen=True)
class Side:
    name: str
    engine: ChatEngine
    summarizer: Summarizer

    def fresh(self) -> None:
        """Only the system prompt in the engine's cache (and no saved state of a chat), as
        after start-up: both sides start alike."""
        if isinstance(self.engine, LlamaCppEngine) and self.engine.prefix_states is not None:
            self.engine.prefix_states = PrefixStates(self.engine.prefix_states.max_bytes)
        read_ahead(self.engine, self.summarizer.system_prompt)


# What one measured run does, and what it says of its work (tokens).
Work = Callable[[Side, SummaryJob], str]


def jobs(summarizer: Summarizer, chats: int, dialogues: int) -> list[tuple[str, SummaryJob]]:
    """Short support chats (their first 5 messages) and DialogSum dialogues, planned."""
    limits = PayloadLimits(max_conversations=50, max_messages=2000, max_message_chars=32_000)
    bodies = [
        (f"support[{n}][:5]", first_messages(b, 5))
        for n, b in enumerate(support_chat_bodies()[:chats])
    ]
    bodies += [(d["fname"], dialogue_body(d)) for d in load_dialogsum()[:dialogues]]
    return [(name, summarizer.plan(parse_message_body(b, limits))) for name, b in bodies]


def summary_call(side: Side, job: SummaryJob) -> str:
    """The pipeline's summary call for ``job``, as one plain chat."""
    ask = prompts.CONVERSATION.format(
        who_is_who=job.transcript.who_is_who(), transcript=job.transcript.text
    )
    chat: list[ChatMessage] = [
        {"role": "system", "content": side.summarizer.system_prompt},
        {"role": "user", "content": f"{ask}\n\n{prompts.format_instruction(job.form, None)}"},
    ]
    done = side.engine.chat(chat, max_tokens=90, deadline=Deadline(600))
    return f"{done.completion_tokens} tokens"


def whole_pipeline(side: Side, job: SummaryJob) -> str:
    summary = side.summarizer.run(job, Deadline(600))
    return f"{len(summary.steps)} steps, {summary.completion_tokens} tokens"


def compare(
    title: str, planned: list[tuple[str, SummaryJob]], sides: list[Side], work: Work
) -> None:
    """Each conversation through both sides, alternating which goes first."""
    print(title)
    seconds: dict[str, list[float]] = {side.name: [] for side in sides}
    for number, (name, job) in enumerate(planned):
        said = {}
        for side in sides if number % 2 == 0 else reversed(sides):
            side.fresh()
            started = time.perf_counter()
            said[side.name] = work(side, job)
            seconds[side.name].append(time.perf_counter() - started)
        embedded, remote = seconds["embedded"][-1], seconds["remote"][-1]
        print(
            f"  {name:<16} embedded {embedded:5.2f} s ({said['embedded']}), remote "
            f"{remote:5.2f} s ({said['remote']}): {remote / embedded:.2f}x"
        )
    ratios = [r / e for e, r in zip(seconds["embedded"], seconds["remote"], strict=True)]
    median = statistics.median(ratios)
    total = sum(seconds["remote"]) / sum(seconds["embedded"])
    print(
        f"  embedded p50 {statistics.median(seconds['embedded']):.2f} s, remote p50 "
        f"{statistics.median(seconds['remote']):.2f} s; remote / embedded: median {median:.2f}x, "
        f"totals {total:.2f}x (target <= {TARGET:.2f}x)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chats", type=int, default=3, help="support chats (first 5 messages)")
    parser.add_argument("--dialogues", type=int, default=6, help="DialogSum dialogues")
    args = parser.parse_args()

    settings = Settings(data_dir=Path(tempfile.mkdtemp(prefix="threadwise-bench-")))
    model = prepare_model(DEFAULT_MODEL, settings.model_dir, print)
    threads = settings.llm_threads
    embedded = LlamaCppEngine(
        model,
        context_size=settings.llm_context_size,
        threads=threads,
        batch_size=settings.llm_batch_size,
        prefix_cache_bytes=settings.llm_prefix_cache_mb * 2**20,
    )
    log = Path(tempfile.mkdtemp(prefix="threadwise-llama-server-")) / "server.log"
    context = settings.llm_context_size
    with llama_server(model, log, threads=threads, context_size=context, alias=model.stem) as url:
        remote = RemoteChatEngine(
            RemoteEngine(url=url, concurrency=1),
            context_size=context,
            breaker=CircuitBreaker(3, 10),
        )
        try:
            remote.load()
            embedded.load()
            identifier = LanguageIdentifier()
            sides = [
                Side(name, engine, Summarizer(engine, identifier))
                for name, engine in (("embedded", embedded), ("remote", remote))
            ]
            planned = jobs(sides[0].summarizer, args.chats, args.dialogues)
            print(
                f"{len(planned)} conversations; {embedded.name} in the process, {remote.name} "
                f"({remote.server_kind}'s server), {threads} threads each"
            )
            compare(
                "the summary call (the same prompt through each engine)",
                planned,
                sides,
                summary_call,
            )
            compare("the whole summarize pipeline", planned, sides, whole_pipeline)
        finally:
            remote.close()


if __name__ == "__main__":
    main()
