"""HEART (Iyer et al., 2026): one next supporter turn per emotional-support history, judged pairwise by an LLM
ensemble on five dimensions (H, E, A, R, T) plus overall, rated with Bradley-Terry Elo. See docs/heart.md."""
