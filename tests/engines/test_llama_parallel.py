"""Rounds of prompts decoded side by side: no more than the context holds (their shared
prefix once, each one's suffix and answer), at most the sequences a context is made for."""

from __future__ import annotations

from threadwise.engines.llama_parallel import SLACK, rounds

SYSTEM = list(range(1000, 1400))  # a 400-token prefix every prompt shares


def prompt(number: int, length: int) -> list[int]:
    return SYSTEM + [number] * length


def test_prompts_sharing_a_prefix_count_it_once() -> None:
    prompts = [prompt(n, 200) for n in range(4)]
    # Four whole prompts and answers would need 4 x 700 cells; sharing the prefix, 2,000.
    context = 400 + 4 * (200 + 100) + SLACK
    assert rounds(prompts, [100] * 4, context) == [[0, 1, 2, 3]]
    assert rounds(prompts, [100] * 4, context - 1) == [[0, 1, 2], [3]]


def test_a_round_never_passes_the_most_sequences() -> None:
    prompts = [prompt(n, 10) for n in range(10)]
    assert rounds(prompts, [10] * 10, 100_000, most=4) == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]


def test_a_prompt_sharing_less_makes_the_others_hold_their_own_copy() -> None:
    other = list(range(5000, 5400)) + [7] * 200  # shares nothing with the first
    prompts = [prompt(0, 200), prompt(1, 200), other]
    # Together: the two share 400; the third shares nothing, so each holds all its tokens.
    assert rounds(prompts, [50] * 3, 3 * 650 + SLACK) == [[0, 1, 2]]
    assert rounds(prompts, [50] * 3, 3 * 650 + SLACK - 1) == [[0, 1], [2]]


def test_a_prompt_too_long_to_share_the_context_goes_alone() -> None:
    prompts = [prompt(0, 10), prompt(1, 4000), prompt(2, 10), prompt(3, 10)]
    assert rounds(prompts, [20] * 4, 4096) == [[0], [1], [2, 3]]
