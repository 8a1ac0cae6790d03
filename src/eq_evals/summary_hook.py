"""The package's Inspect hook. After an ``inspect eval`` of an eq_evals task, say how many samples were left
unscored and why; at the end of each task, let active judging record its stops (``pairwise.stop_hook``) and tell
whoever listens where the finished log is (:func:`task_end_listener`; ``eq-evals profile`` reads finished logs
ahead, ``eq_evals.profile.prefetch``).

Inspect's summary shows only metrics, and unscored samples never reach a metric: a run where every SAGE
dialogue ended unscored showed ``mean nan`` and nothing else (issue 13). This hook prints, under the summary,
one line per eq_evals log with unscored scores: the count, the reasons (``eq_evals.logcheck``, the same
counting ``eq-evals doctor`` uses) and the command that lists them. Logs of other packages' tasks are left alone.

The hook takes part only in runs of eq_evals tasks: it is registered with Inspect (:func:`activate`) when the
command line names an eq_evals task (``inspect eval eq_evals/facet_hidden``, so Inspect's start-up list of hooks
shows it) or when one is built (a Python ``eval()``, ``inspect eval-retry``), and it is enabled (Inspect's
``Hooks.enabled``) only then. A run of other packages' tasks neither lists nor calls it.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from inspect_ai.hooks import Hooks, RunEnd, TaskEnd, hooks

from eq_evals import engine, logcheck


def eq_evals_run(argv: list[str] | None = None) -> bool:
    """Is this process running eq_evals tasks? True once one was built (``engine.BUILT``) or when the command
    line names one as a task (``eq_evals/NAME`` or ``eq_evals/NAME@...``; a model such as eq_evals/scripted-oracle
    does not count)."""
    if engine.BUILT:
        return True
    words = sys.argv[1:] if argv is None else argv
    return any(w.startswith("eq_evals/") and w.removeprefix("eq_evals/").split("@")[0] in engine.TASKS for w in words)


def has_unscored(log) -> bool:  # type: ignore[no-untyped-def]
    """A log of an eq_evals task whose results count unscored samples."""
    return str(log.eval.task or "").startswith("eq_evals/") and any(
        s.unscored_samples for s in (log.results.scores if log.results else [])
    )


def unscored_lines(log) -> list[str]:  # type: ignore[no-untyped-def]
    """The summary lines for one log (empty when every score is a number or the log is not ours)."""
    task = str(log.eval.task or "")
    if not has_unscored(log):
        return []
    if log.samples is None:  # the CLI hands hooks header-only logs: read the samples for their reasons
        if not log.location:
            return []
        log = logcheck.read(log.location)
    info = logcheck.check(log, log.location or None)
    if not info.n_unscored:
        return []
    lines = []
    for scorer in sorted({s for s, _ in info.unscored}):
        reasons = [
            (reason, n) for (s, reason), n in sorted(info.unscored.items(), key=lambda kv: -kv[1]) if s == scorer
        ]
        total = sum(n for _, n in reasons)
        lines.append(
            f"{task.removeprefix('eq_evals/')}: {scorer}: {total} unscored, {info.scored.get(scorer, 0)} scored "
            "(unscored samples are left out of every metric, never counted as 0)"
        )
        lines += [f"  unscored x{n}: {reason}" for reason, n in reasons[:5]]
        if len(reasons) > 5:
            lines.append(f"  ... {len(reasons) - 5} more reason(s)")
    lines.append(f"  list them: eq-evals doctor {log.location}" if log.location else "  list them: eq-evals doctor LOG")
    return lines


# told the location of every finished task's log, in the order the tasks end
_TASK_END_LISTENERS: list[Callable[[str], None]] = []


@contextmanager
def task_end_listener(listener: Callable[[str], None]) -> Iterator[None]:
    """Within the block, ``listener(location)`` is called, on Inspect's event loop, when an eq_evals task's log is
    finished (after the stop hook has written to it). It must return at once (hand the work to a thread)."""
    _TASK_END_LISTENERS.append(listener)
    try:
        yield
    finally:
        _TASK_END_LISTENERS.remove(listener)


def clear_task_end_listeners() -> None:
    """Forget every listener (a forked process: the parent's listeners are the parent's)."""
    _TASK_END_LISTENERS.clear()


class EqEvalsHooks(Hooks):
    """The package's one Inspect hook, registered by :func:`activate` (Inspect lists the registered hooks at the
    start of a run)."""

    def enabled(self) -> bool:
        return eq_evals_run()

    async def on_task_end(self, data: TaskEnd) -> None:
        from eq_evals.pairwise import stop_hook

        await stop_hook.on_task_end(data)
        if data.log.location:
            for listener in list(_TASK_END_LISTENERS):
                listener(data.log.location)

    async def on_run_end(self, data: RunEnd) -> None:
        for log in data.logs or []:
            if log.location and has_unscored(log):
                # read here, asynchronously: the hook runs on Inspect's loop, where the synchronous read behind a
                # header-only log's location, or behind the lazy samples of an in-process run's log (loaded on first
                # access), would re-enter it (eq_evals.logcheck.read)
                log = await logcheck.read_async(log.location)
            lines = unscored_lines(log)
            if lines:
                print("\n" + "\n".join(lines), file=sys.stderr)


_ACTIVE = False


def activate() -> None:
    """Register the hook with Inspect, once: when the command line names an eq_evals task (``eq_evals._registry``)
    or when an eq_evals task is built (``engine``). Registered any earlier, Inspect would announce it, and a
    "hooks enabled: 0" line, on runs of every other package's tasks too."""
    global _ACTIVE
    if not _ACTIVE:
        _ACTIVE = True
        hooks(
            name="eq_evals", description="eq_evals: record active judging's stops in its log; count unscored samples"
        )(EqEvalsHooks)
