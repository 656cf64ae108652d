from __future__ import annotations

import numpy as np

from threadwise.engines.prefix_states import PrefixStates, SavedState, common_prefix


def state(tokens: list[int], size: int = 100) -> SavedState:
    return SavedState(np.array(tokens, dtype=np.intc), bytearray(size))


def test_common_prefix() -> None:
    a = np.array([1, 2, 3, 4], dtype=np.intc)
    assert common_prefix(a, np.array([1, 2, 9], dtype=np.intc)) == 2
    assert common_prefix(a, a[:2]) == 2
    assert common_prefix(a, np.array([7], dtype=np.intc)) == 0


def test_best_is_the_longest_shared_prefix_beyond_the_live_one() -> None:
    states = PrefixStates(max_bytes=10_000)
    states.save(state([1, 2, 3, 4, 5]))
    states.save(state([1, 2, 8, 9]))
    prompt = np.array([1, 2, 3, 4, 6, 7], dtype=np.intc)
    found = states.best(prompt, better_than=0)
    assert found is not None and found[1] == 4
    assert states.best(prompt, better_than=4) is None


def test_a_state_replaces_those_it_extends_and_the_total_is_bounded() -> None:
    states = PrefixStates(max_bytes=1000)
    states.save(state([1, 2, 3], size=300))
    states.save(state([1, 2, 3, 4, 5], size=300))
    assert len(states) == 1  # the longer one holds all the shorter one did
    states.save(state([7, 8], size=300))
    states.save(state([9, 9], size=300))
    assert len(states) == 3 and states.size <= 1000
    states.save(state([5, 5], size=300))
    assert len(states) == 3 and states.size <= 1000  # the least recently used went
    states.save(state([6], size=5000))  # larger than the bound: not kept
    assert len(states) == 3
