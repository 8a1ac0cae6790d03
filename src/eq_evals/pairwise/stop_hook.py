"""Write why active judging stopped into the judging log (issue 14: the stop is "reported in the log").

``ActiveSource`` decides between batches when each dimension's ranking is settled (or its budget spent).
Inspect keeps no logging done between batches and does not accept an early-stopping manager on a sample
source, so at the end of the task (the package's Inspect hook, ``summary_hook``) this module adds the source's stop records to the log's own metadata
with Inspect's log-edit API (``edit_eval_log``: the change is listed in ``log.log_updates`` with its
provenance) and writes the log back. The records are then in ``log.metadata["active_pairing"]``:
per dimension the reason (settled, budget, no matchup left, or the run ended first), matchups spent, the
budget and round robin's count, and for a settled stop the expected mis-ordered pairs and the order.
"""

from __future__ import annotations

import logging

from inspect_ai.hooks import TaskEnd
from inspect_ai.log import MetadataEdit, ProvenanceData, edit_eval_log, read_eval_log_async, write_eval_log_async

from eq_evals.pairwise.matchups import RUNNING

logger = logging.getLogger(__name__)
KEY = "active_pairing"


async def record_stops(location: str, report: dict) -> None:
    """Add ``report`` to the log at ``location`` as ``metadata[KEY]``, through Inspect's log edits. Read and
    written asynchronously: the hook runs on Inspect's event loop, where the synchronous calls would re-enter it
    (eq_evals.logcheck.read)."""
    log = await read_eval_log_async(location)
    log = edit_eval_log(
        log,
        [MetadataEdit(metadata_set={KEY: report})],
        ProvenanceData(author="eq_evals", reason="active pairing: why each dimension stopped"),
    )
    await write_eval_log_async(log, location)


async def on_task_end(data: TaskEnd) -> None:
    """Called by the package's hook (``eq_evals.summary_hook``) when a task ends."""
    key = (data.log.eval.metadata or {}).get("source_run")
    source = RUNNING.pop(key, None) if key else None
    if source is None:
        return
    if not data.log.location:
        logger.warning("active pairing stopped, but the log has no location to record it in: %s", source.stop_report())
        return
    await record_stops(data.log.location, source.stop_report())
