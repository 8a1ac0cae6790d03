"""SAGE (Sentient Agent as a Judge; Zhang, Ma, Jiang, Wang et al., Tencent 2025).

A simulated user (model role ``simulated_user``) with a persona, a background scene, a hidden intention and
a numeric emotion (start 40) talks with the tested model for at most 10 tested replies; after every tested
reply it updates its emotion (paper eq. 1) and then replies (eq. 2). The sample score is the final emotion;
the Sentient score is its mean. See docs/sage.md.
"""
