from __future__ import annotations

from threadwise.engines.cores import CoreShare


def test_the_model_gets_every_thread_only_while_nothing_else_runs() -> None:
    cores = CoreShare(model_threads=2)
    assert cores.threads_for_model() == 2
    with cores.busy():
        assert cores.threads_for_model() == 1
        with cores.busy():
            assert cores.threads_for_model() == 1
    assert cores.threads_for_model() == 2 and cores.others == 0


def test_more_threads_give_one_per_busy_job() -> None:
    cores = CoreShare(model_threads=4)
    with cores.busy(), cores.busy():
        assert cores.threads_for_model() == 2
