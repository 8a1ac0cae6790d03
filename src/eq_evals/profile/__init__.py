"""``eq-evals profile``: one model's (or several models') emotional-intelligence profile across the benchmarks in
one Inspect eval set, with a plan before any call (docs/profile.md).

Each benchmark package says what it contributes in its ``profile`` module (``PROFILE``: a list of
:class:`eq_evals.profile.spec.ProfileTask`), found like leaderboard sections are; this package names none.
"""
