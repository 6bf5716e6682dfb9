"""One kernel called from several Python threads: the calls take turns, nothing races."""

from __future__ import annotations

import allocore
from allocore import DecisionType
from conftest import CONFIG, run_threads

THREADS = 4
ROUNDS = 300


def test_threads_share_one_kernel():
    with allocore.Kernel(CONFIG) as k:
        k.add_node("node-1", {"memory": 10**6, "vcore": 10**4})
        for t in range(THREADS):
            k.add_app(f"app-{t}", queue="root.a", user="u")
        k.take_decisions()
        seen = [[] for _ in range(THREADS)]

        def churn(t: int) -> None:
            for r in range(ROUNDS):
                k.add_ask(f"app-{t}", f"ask-{r}", {"memory": 1, "vcore": 1})
                k.schedule()  # with the GIL released, while the others call
                k.release(f"app-{t}", f"ask-{r}")
                k.list_queues()
                seen[t].extend(k.take_decisions())

        run_threads(THREADS, churn)
        decisions = [d for s in seen for d in s] + k.take_decisions()
        allocs = [d for d in decisions if d.type == DecisionType.ALLOCATION]
        releases = [d for d in decisions if d.type == DecisionType.RELEASE]
        # Every ask was allocated once and released once; no decision was lost or doubled.
        assert len(allocs) == THREADS * ROUNDS
        assert sorted((d.app, d.ask) for d in allocs) == sorted(
            (f"app-{t}", f"ask-{r}") for t in range(THREADS) for r in range(ROUNDS))
        assert len({d.seq for d in allocs}) == len(allocs)
        assert sorted(d.seq for d in releases) == sorted(d.seq for d in allocs)
        assert k.usage()[2] == 0
        k.check_consistency()


def test_close_while_others_call():
    # Closing from one thread while others call: they get ClosedError, nothing else.
    for _ in range(5):
        k = allocore.Kernel(CONFIG)
        k.add_node("node-1", {"memory": 10**6, "vcore": 10**4})
        k.add_app("app", queue="root.a", user="u")

        def call(t: int) -> None:
            if t == 3:  # the closer
                k.close()
                return
            try:
                for r in range(2000):
                    k.add_ask("app", f"ask-{t}-{r}", {"memory": 1})
                    k.schedule(1)
            except allocore.ClosedError:
                pass

        run_threads(4, call)
        assert k.closed
