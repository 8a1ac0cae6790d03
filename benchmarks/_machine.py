"""What every benchmark records about the machine it ran on (so results on a busy machine are read as such)."""

from __future__ import annotations

import datetime as dt
import os
import platform


def machine() -> dict:
    """Cores, platform, Python and the load averages (1, 5, 15 min) when the run started."""
    try:
        load = [round(x, 2) for x in os.getloadavg()]
    except OSError:  # not available on this platform
        load = None
    return {
        "cpu_count": os.cpu_count(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "load_average_1_5_15": load,
    }


def now() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
