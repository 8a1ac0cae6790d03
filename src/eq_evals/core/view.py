"""What a person reads in Inspect View's transcript: one labelled INFO block per judge call.

Inspect View (0.3.285) draws the events of a scorer as one flat list under "scoring": the spans a scorer opens
are dropped (its timeline flattens everything under the ``scorers`` span), and every model call a scorer makes
is titled only ``Model Call (<role>): <model>``, so a judge's two orders, the four PACE agents or the HEART
judges' opponents all look alike. What the view does draw is an info event: ``transcript().info(text,
source=title)`` is titled ``Info: <title>`` and a string body is rendered as Markdown (a dict is shown as raw
JSON). So each judge call is followed by :func:`note`: the title names who judged, what (criterion, the
contestants in the order shown) and the verdict; the body holds the details as a short Markdown table.
"""

from __future__ import annotations

from inspect_ai.log import transcript

__all__ = ["note", "short"]


def note(title: str, body: str = "") -> None:
    """An INFO block in the sample's transcript titled ``Info: <title>`` with a Markdown ``body``."""
    transcript().info(body or title, source=title)


def short(model: str) -> str:
    """A model name without its provider prefix for a title (``eq_evals/scripted-judge`` -> ``scripted-judge``);
    the body keeps the full name."""
    return model.split("/", 1)[1] if "/" in model else model
