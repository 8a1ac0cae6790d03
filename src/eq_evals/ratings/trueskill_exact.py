"""A fast 1-vs-1 TrueSkill update that gives bit-for-bit the ``trueskill`` package's result.

``trueskill.rate_1vs1`` (0.4.5) builds a general factor graph (prior, likelihood, team-sum,
team-difference and truncation factors) for every call and passes Gaussian messages in
(precision pi, precision-adjusted mean tau) form; profiling showed that this object machinery
is ~99% of the time of the FACET and EQ-Bench 3 TrueSkill modes (about 0.3 ms per update).

For two one-player teams the graph is a fixed chain, so the schedule unrolls into straight-line
arithmetic. ``make_rate_1vs1(env)`` performs the same floating-point operations in the same
order (including the truncation loop with its ``min_delta`` stopping test, the package's
zero-precision handling, its V/W functions on the env's own cdf/pdf, and the final
``Rating(mu, sigma)`` round trip), so it returns identical bits, not merely close numbers.
This matters: with draw_probability 0 the draw update is ill-conditioned (the draw margin is
the tiny residue of the package's approximate inverse erfc), so a mathematically equal closed
form differs by ~1e-6 relative on draws and the difference would propagate along a replay.
The tests compare it with the package on random inputs and on whole replays.

The update rule is TrueSkill's (Herbrich, Minka & Graepel 2007, the two-player case of the
factor graph; the V/W truncation functions for a win and for a draw).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import trueskill

__all__ = ["make_rate_1vs1", "rating_state", "state_mu_sigma"]

INF = float("inf")
_FPE = 'Cannot calculate correctly, set backend to "mpmath"'
Rate = Callable[..., tuple[float, float, float, float]]


def rating_state(mu: float, sigma: float) -> tuple[float, float]:
    """(pi, tau) of ``trueskill.Rating(mu, sigma)``: the state the package carries between updates."""
    pi = sigma**-2
    return pi, pi * mu


def state_mu_sigma(pi: float, tau: float) -> tuple[float, float]:
    """The package's ``Rating.mu`` and ``Rating.sigma`` properties of a (pi, tau) state."""
    return (pi and tau / pi), (math.sqrt(1 / pi) if pi else INF)


def _sum(terms) -> tuple[float, float]:
    """The package's SumFactor message for (coefficient, pi, tau) terms, including zero precisions."""
    pi_inv = 0
    mu = 0
    for c, p, t in terms:
        mu += c * (p and t / p)
        if pi_inv == INF:
            continue
        try:
            pi_inv += c**2 / p
        except ZeroDivisionError:
            pi_inv = INF
    pi = 1.0 / pi_inv
    return pi, pi * mu


def _package_rate(env: trueskill.TrueSkill) -> Rate:
    """The same interface over ``trueskill.rate_1vs1`` itself (for envs with a non-default backend)."""

    def rate(p1: float, t1: float, p2: float, t2: float, drawn: bool, repeats: int = 1):
        r1, r2 = trueskill.Rating(*state_mu_sigma(p1, t1)), trueskill.Rating(*state_mu_sigma(p2, t2))
        for _ in range(repeats):
            r1, r2 = trueskill.rate_1vs1(r1, r2, drawn=drawn, env=env)
        return r1.pi, r1.tau, r2.pi, r2.tau

    return rate


def make_rate_1vs1(env: trueskill.TrueSkill, min_delta: float = trueskill.DELTA) -> Rate:
    """rate(p1, t1, p2, t2, drawn, repeats=1) -> (p1', t1', p2', t2') for states from ``rating_state``.

    The first player is the winner (or a draw when ``drawn``), as in ``trueskill.rate_1vs1(r1, r2,
    drawn, env=env)``; ``repeats`` applies that update so many times in a row. Raises
    FloatingPointError where the package does. The package's default backend (its own erfc, cdf and
    pdf with mu=0, sigma=1) is inlined; an env with another backend gets the package itself.
    """
    if env.cdf is not trueskill.backends.cdf or env.pdf is not trueskill.backends.pdf:
        return _package_rate(env)
    # constants of the package's cdf(x) = 0.5 * erfc(-x / (1 * sqrt 2)) and pdf(x) = 1/sqrt(2 pi) * 1 * exp(-x**2/2)
    exp, sqrt2, k_pdf = math.exp, 1 * math.sqrt(2), 1 / math.sqrt(2 * math.pi) * 1
    beta2 = env.beta**2
    dyn2 = env.tau**2
    if callable(env.draw_probability):
        raise ValueError("a dynamic draw probability is not supported by the fast TrueSkill update")
    draw_margin = trueskill.calc_draw_margin(env.draw_probability, 2, env)
    sqrt = math.sqrt

    def cdf(x: float) -> float:  # only on the (rarer) draw path; the win path inlines it
        y = -x / sqrt2
        z = abs(y)
        t = 1.0 / (1.0 + z / 2.0)
        r = t * exp(
            -z * z
            - 1.26551223
            + t
            * (
                1.00002368
                + t
                * (
                    0.37409196
                    + t
                    * (
                        0.09678418
                        + t
                        * (
                            -0.18628806
                            + t
                            * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277))))
                        )
                    )
                )
            )
        )
        return 0.5 * (2.0 - r if y < 0 else r)

    def rate(
        p1: float, t1: float, p2: float, t2: float, drawn: bool, repeats: int = 1
    ) -> tuple[float, float, float, float]:
        for _ in range(repeats):
            # prior factors: Gaussian(mu, sqrt(sigma**2 + tau**2))
            mu = p1 and t1 / p1
            s = sqrt((sqrt(1 / p1) if p1 else INF) ** 2 + dyn2)
            r1p = s**-2
            r1t = r1p * mu
            mu = p2 and t2 / p2
            s = sqrt((sqrt(1 / p2) if p2 else INF) ** 2 + dyn2)
            r2p = s**-2
            r2t = r2p * mu
            # likelihood factors, down to the performances
            a = 1.0 / (1.0 + beta2 * r1p)
            l1p, l1t = a * r1p, a * r1t
            a = 1.0 / (1.0 + beta2 * r2p)
            l2p, l2t = a * r2p, a * r2t
            # one-term team sums, down to the team performances
            # (the inline expressions are _sum's operations when no precision is zero; else _sum itself)
            q1p, q1t = (pi := 1.0 / (1 / l1p), pi * (l1t / l1p)) if l1p else _sum(((1, l1p, l1t),))
            q2p, q2t = (pi := 1.0 / (1 / l2p), pi * (l2t / l2p)) if l2p else _sum(((1, l2p, l2t),))
            # team difference: its message from the sum factor never changes inside the loop
            if q1p and q2p:
                sp = 1.0 / (1 / q1p + 1 / q2p)
                st = sp * (q1t / q1p - q2t / q2p)
            else:
                sp, st = _sum(((1, q1p, q1t), (-1, q2p, q2t)))
            dp = dt = 0.0  # the difference variable
            fp = ft = 0.0  # its message from the sum factor
            gp = gt = 0.0  # its message from the truncation factor
            lxp = lxt = None  # the previous pass's message to the truncation factor
            for _ in range(10):
                dp, dt = (dp - fp) + sp, (dt - ft) + st
                fp, ft = sp, st
                xp, xt = dp - gp, dt - gt
                # the truncation factor's message (np_, nt) is a pure function of (xp, xt): when a pass
                # brings the same bits as the previous one (often so on the second pass) it is reused
                if xp != lxp or xt != lxt:
                    lxp, lxt = xp, xt
                    sq = sqrt(xp)
                    diff, margin = xt / sq, draw_margin * sq
                    # the package's V and W functions (TrueSkill's truncated-Gaussian corrections)
                    if drawn:
                        abs_diff = abs(diff)
                        a, b = margin - abs_diff, -margin - abs_diff
                        den = cdf(a) - cdf(b)
                        if not den:
                            raise FloatingPointError(_FPE)
                        pa, pb = k_pdf * exp(-(a**2 / 2)), k_pdf * exp(-(b**2 / 2))
                        v_abs = (pb - pa) / den
                        v = v_abs * (-1 if diff < 0 else +1)
                        w = (v_abs**2) + (a * pa - b * pb) / den
                    else:
                        x = diff - margin
                        # den = cdf(x), inlined: 0.5 * erfc(-x / sqrt2) with the package's erfc
                        y = -x / sqrt2
                        z = abs(y)
                        t = 1.0 / (1.0 + z / 2.0)
                        r = t * exp(
                            -z * z
                            - 1.26551223
                            + t
                            * (
                                1.00002368
                                + t
                                * (
                                    0.37409196
                                    + t
                                    * (
                                        0.09678418
                                        + t
                                        * (
                                            -0.18628806
                                            + t
                                            * (
                                                0.27886807
                                                + t
                                                * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))
                                            )
                                        )
                                    )
                                )
                            )
                        )
                        den = 0.5 * (2.0 - r if y < 0 else r)
                        v = (k_pdf * exp(-(x**2 / 2)) / den) if den else -x
                        w = v * (v + x)
                        if not 0 < w < 1:
                            raise FloatingPointError(_FPE)
                    denom = 1.0 - w
                    np_, nt = xp / denom, (xt + sq * v) / denom
                gp, gt = (np_ + gp) - dp, (nt + gt) - dt
                pi_delta = abs(dp - np_)
                if pi_delta == INF:
                    delta = 0.0
                else:  # max(|dt - nt|, sqrt(pi_delta)), as the builtin picks
                    delta, d2 = abs(dt - nt), sqrt(pi_delta)
                    if d2 > delta:
                        delta = d2
                dp, dt = np_, nt
                if delta <= min_delta:
                    break
            # back up the difference to both team performances
            xp, xt = dp - fp, dt - ft
            if xp:
                u1p = 1.0 / (1.0 / xp + 1.0 / q2p)
                u1t = u1p * (xt / xp + q2t / q2p)
            else:
                u1p, u1t = _sum(((1.0, xp, xt), (1.0, q2p, q2t)))
            T1p, T1t = q1p + u1p, q1t + u1t
            yp, yt = T1p - u1p, T1t - u1t
            if xp and yp:
                u2p = 1.0 / (1.0 / yp + 1.0 / xp)
                u2t = u2p * (yt / yp - xt / xp)
            else:
                u2p, u2t = _sum(((1.0, yp, yt), (-1.0, xp, xt)))
            T2p, T2t = q2p + u2p, q2t + u2t
            # team sums up to the performances, likelihoods up to the skills, then Rating(mu, sigma)
            yp, yt = T1p - q1p, T1t - q1t
            up, ut = (pi := 1.0 / (1.0 / yp), pi * (yt / yp)) if yp else _sum(((1.0, yp, yt),))
            mp, mt = (l1p + up) - l1p, (l1t + ut) - l1t
            a = 1.0 / (1.0 + beta2 * mp)
            Rp, Rt = r1p + a * mp, r1t + a * mt
            mu = Rp and Rt / Rp
            o1p = (sqrt(1 / Rp) if Rp else INF) ** -2
            yp, yt = T2p - q2p, T2t - q2t
            up, ut = (pi := 1.0 / (1.0 / yp), pi * (yt / yp)) if yp else _sum(((1.0, yp, yt),))
            mp, mt = (l2p + up) - l2p, (l2t + ut) - l2t
            a = 1.0 / (1.0 + beta2 * mp)
            Rp, Rt = r2p + a * mp, r2t + a * mt
            mu2 = Rp and Rt / Rp
            o2p = (sqrt(1 / Rp) if Rp else INF) ** -2
            p1, t1, p2, t2 = o1p, o1p * mu, o2p, o2p * mu2
        return p1, t1, p2, t2

    return rate
