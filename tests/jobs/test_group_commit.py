"""Group commit: a lone item is written at once; what comes while a write is under way goes
in the next write, together, at most ``max_items`` at a time; a failed write fails its own
callers only."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import pytest

from threadwise.jobs.group_commit import GroupCommit


class Writer:
    """Writes each item as its double; holds every write until ``release`` is set."""

    def __init__(self) -> None:
        self.groups: list[list[int]] = []
        self.writing = asyncio.Event()
        self.release = asyncio.Event()
        self.fail: set[int] = set()

    async def __call__(self, items: Sequence[int]) -> list[int]:
        self.groups.append(list(items))
        self.writing.set()
        await self.release.wait()
        if self.fail & set(items):
            raise ValueError(f"cannot write {sorted(self.fail & set(items))}")
        return [2 * item for item in items]


def test_items_that_come_during_a_write_go_together_in_the_next() -> None:
    async def scenario() -> tuple[list[list[int]], list[int]]:
        writer = Writer()
        commit = GroupCommit(writer, max_items=3)
        first = asyncio.create_task(commit.add(1))
        await writer.writing.wait()  # the lone first item is being written
        rest = [asyncio.create_task(commit.add(n)) for n in range(2, 7)]
        await asyncio.sleep(0)
        writer.release.set()
        return writer.groups, await asyncio.gather(first, *rest)

    groups, results = asyncio.run(scenario())
    assert groups == [[1], [2, 3, 4], [5, 6]]
    assert results == [2, 4, 6, 8, 10, 12]


def test_a_failed_write_fails_its_callers_and_the_next_group_is_written() -> None:
    async def scenario() -> tuple[list[BaseException | int], list[list[int]]]:
        writer = Writer()
        writer.fail = {2}
        commit = GroupCommit(writer, max_items=2)
        first = asyncio.create_task(commit.add(1))
        await writer.writing.wait()
        rest = [asyncio.create_task(commit.add(n)) for n in (2, 3, 4)]
        await asyncio.sleep(0)
        writer.release.set()
        results = await asyncio.gather(first, *rest, return_exceptions=True)
        return results, writer.groups

    results, groups = asyncio.run(scenario())
    assert groups == [[1], [2, 3], [4]]
    assert results[0] == 2 and results[3] == 8
    assert all(isinstance(r, ValueError) for r in results[1:3])


def test_a_caller_that_goes_away_leaves_its_item_written() -> None:
    async def scenario() -> list[list[int]]:
        writer = Writer()
        commit = GroupCommit(writer)
        caller = asyncio.create_task(commit.add(7))
        await writer.writing.wait()
        caller.cancel()
        writer.release.set()
        with pytest.raises(asyncio.CancelledError):
            await caller
        later = await commit.add(8)
        assert later == 16
        return writer.groups

    assert asyncio.run(scenario()) == [[7], [8]]


def test_max_items_must_be_positive() -> None:
    async def write(items: Sequence[int]) -> list[int]:
        return list(items)

    with pytest.raises(ValueError, match="max_items"):
        GroupCommit(write, max_items=0)
