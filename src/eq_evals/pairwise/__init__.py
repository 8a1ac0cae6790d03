"""Pairwise judging shared by every benchmark: generation logs in, anonymised two-order judge verdicts out.

- :mod:`logs`: read the generation logs of several models for one task, with checks.
- :mod:`matchups`: the judging dataset: model pairs per prompt instance and dimension, round-robin or in
  adaptive rounds chosen from the running ratings.
- :mod:`judge`: the ``pairwise_judge`` scorer: a rubric from ``scorers/``, both orders, chain of thought
  before a "+" to "+++++" verdict, retries, a judge panel.
"""
