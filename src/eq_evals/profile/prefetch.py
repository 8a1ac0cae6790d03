"""Work of the report card done while a profile's models are working (docs/profile.md, "Running and resuming").

The first eval set spends most of its time waiting on the models (a SAGE dialogue is a chain of calls, one after
another), and the process has little to do meanwhile. A worker thread uses that time for what needs no more than
the logs already finished: when the first task's log is finished it loads the card's modules (the leaderboard
sections, matplotlib and its fonts, by drawing a chart in memory), then reads each finished log, in full, into the
gate's cache (``eq_evals.logcheck.reading_cache``), from which the calls-and-tokens count and the card read it
again at the end. It changes no number: the card still reads every log through the gate, and a log changed
after it was read ahead (a different size or modification time) is read again.

Started on the first finished log, not at once: at the start every task's samples begin together and keep the
event loop busy, and a thread taking its share of the interpreter then would slow every task's first calls.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from eq_evals import logcheck, summary_hook

logger = logging.getLogger(__name__)

_DONE = ""


def _warm() -> None:
    import scipy.stats  # noqa: F401  (the sections' intervals and tests import it when first used)

    from eq_evals import card, charts, sections  # noqa: F401  (their imports: the card's modules)

    sections.discover()  # each benchmark's leaderboard section and what it imports (the rating fits)
    charts.warm()


class Prefetch:
    def __init__(self) -> None:
        self._queue: queue.SimpleQueue[str] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._work, name="eq-evals-prefetch", daemon=True)
        self._started = self._closed = False
        self.read: list[str] = []

    def add(self, location: str) -> None:
        """A finished log (called on Inspect's event loop: returns at once)."""
        if self._closed:
            return
        if not self._started:
            self._started = True
            self._thread.start()
        self._queue.put(location)

    def _work(self) -> None:
        try:
            _warm()
        except Exception:  # noqa: BLE001 - only a head start: the card does the same work itself and reports it
            logger.debug("prefetch: warming the card's modules failed", exc_info=True)
        while (location := self._queue.get()) != _DONE:
            try:
                logcheck.read(location)
                self.read.append(location)
            except Exception:  # noqa: BLE001 - the gate reads it again and names the error
                logger.debug("prefetch: %s not read ahead", location, exc_info=True)

    def close(self) -> None:
        """Wait for the logs being read; later ones are not read ahead."""
        self._closed = True
        if self._started:
            self._queue.put(_DONE)
            self._thread.join()


@contextmanager
def prefetching() -> Iterator[Prefetch]:
    """Within the block, finished logs of eq_evals tasks are read ahead into the gate's cache (which lives as
    long as the block) and the card's modules are loaded on a worker thread; the block waits for it at its end."""
    worker = Prefetch()
    with logcheck.reading_cache(), summary_hook.task_end_listener(worker.add):
        try:
            yield worker
        finally:
            worker.close()
