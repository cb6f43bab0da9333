"""The server's false-positive model of one stage (bf_model_fpr_cells in
src/model.c), for the check that a value's stage really meets the rate
it claims: the server refuses a value whose model rate at its capacity
is over its fpr, and so does this reader.

The same double operations in the same order as the C; Python's math
module calls the C library for pow, exp, log, log1p and expm1, but has
its own lgamma, so a rate may differ from the server's in its last
bits: only a value crafted to sit exactly on the limit could be judged
differently.  Blocked tables are kept per (k, t) as the server keeps
them per process.
"""
import math

import numpy as np

BLOCK_BITS = 512

_tables = {}


def _block_rates(B, k, tneed):
    """r1[t] = E[(c/B)^k] after t cell-sets in a block of B cells, t up to
    tneed (at most 16 B), by the server's dynamic programme: numpy's
    element-wise operations round as C's, and add.accumulate sums left
    to right as the C loop does."""
    tmax = 16 * B
    tneed = min(tneed, tmax)
    st = _tables.get((B, k))
    if st is None:
        pw = np.array([math.pow(float(c) / B, float(k)) for c in range(B + 1)])
        occ = np.zeros(B + 1)
        occ[0] = 1.0
        st = {"pw": pw, "occ": occ, "r1": [], "tmax": tmax}
        _tables[(B, k)] = st
    r1, pw = st["r1"], st["pw"]
    occ = st["occ"]
    cs = np.arange(B + 1, dtype=np.float64)
    fB = float(B)
    t = len(r1)
    while t <= tneed:
        top = t if t < B else B
        r1.append(float(np.add.accumulate(occ[1:top + 1] * pw[1:top + 1])[-1]) if top else 0.0)
        hi = top + 1 if top + 1 < B else B
        c = cs[1:hi + 1]
        new = occ[1:hi + 1] * c / fB + occ[0:hi] * (fB - c + 1.0) / fB
        occ[1:hi + 1] = new
        occ[0] = 0.0
        t += 1
    return st


def model_fpr(n, ncells, k, block_cells):
    """Expected false-positive rate of ncells cells holding n elements with
    k hashes, in blocks of block_cells cells (0: the standard layout)."""
    if n == 0:
        return 0.0
    if block_cells == 0:
        fill = -math.expm1(float(k) * float(n) * math.log1p(-1.0 / float(ncells)))
        return math.pow(fill, float(k))
    nblocks = ncells // block_cells
    lam = float(n) / float(nblocks)
    if float(k) * lam > 64.0 * float(block_cells):
        return 1.0
    lsd = math.sqrt(lam)
    lo = int(lam - 12 * lsd - 12) if lam - 12 * lsd - 12 > 0 else 0
    hi = int(lam + 12 * lsd + 24)
    st = _block_rates(block_cells, k, k * hi)
    r1, tmax = st["r1"], st["tmax"]
    loglam = math.log(lam)
    total = 0.0
    for j in range(lo, hi + 1):
        p = math.exp(-lam + float(j) * loglam - math.lgamma(float(j) + 1.0))
        t = k * j
        total += p * (r1[t] if t <= tmax else 1.0)
    return total
