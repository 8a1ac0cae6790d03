"""The judges' section of ``eq-evals ratings``: each judge the results rest on, with its judge card or "judge not
checked" (docs/judges.md, "Judge cards in leaderboards"); found by ``eq_evals.sections`` like every section."""

from eq_evals.judges.section import SECTIONS  # noqa: F401
