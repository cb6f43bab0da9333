"""Many probes at once with numpy: the same positions as the one-at-a-time
code in bloom.py (and as the server's), computed for a chunk of hashes
per numpy operation.

numpy's uint64 arithmetic wraps modulo 2**64 as C's does; every operand
is kept uint64 (a Python int or an int64 array mixed in would turn the
result into float64).  Like the server's std_contains_many, each round
keeps only the candidates whose bits so far were all set, so a
non-member costs about as many bit reads as it does on the server.
"""
import numpy as np

_U = np.uint64
_M1 = _U(0xff51afd7ed558ccd)
_M2 = _U(0xc4ceb9fe1a85ec53)
_STEP = _U(0x9E3779B97F4A7C15)
_S33 = _U(33)
_S32 = _U(32)
_S6 = _U(6)
_LOW32 = _U(0xFFFFFFFF)
_7 = _U(7)
_63 = _U(63)
_1 = _U(1)
_3 = _U(3)

# hashes probed per pass: a chunk's arrays stay in the caches
CHUNK = 1 << 15

_POP8 = np.array([bin(i).count("1") for i in range(256)], dtype=np.uint8)


def popcount(buf, start, length):
    total = 0
    view = np.frombuffer(buf, dtype=np.uint8, count=length, offset=start)
    for i in range(0, length, 1 << 22):
        total += int(_POP8[view[i:i + (1 << 22)]].sum(dtype=np.uint64))
    return total


def block_count_histogram(buf, start, nblocks):
    """{popcount: blocks} over nblocks 64-byte blocks at buf[start:]."""
    hist = np.zeros(513, dtype=np.int64)
    view = np.frombuffer(buf, dtype=np.uint8, count=nblocks * 64, offset=start)
    step = 1 << 16
    for b in range(0, nblocks, step):
        part = view[b * 64:(b + step) * 64]
        counts = _POP8[part].reshape(-1, 64).sum(axis=1, dtype=np.int64)
        hist += np.bincount(counts, minlength=513)
    return {c: int(m) for c, m in enumerate(hist) if m}


def remix(h):
    """bf_remix on a uint64 array, in a new array."""
    h = h ^ (h >> _S33)
    h *= _M1
    h ^= h >> _S33
    h *= _M2
    h ^= h >> _S33
    return h


def range64(x, n):
    """bf_range64(x, n) for a uint64 array x and a constant n < 2**64."""
    nl = _U(n & 0xFFFFFFFF)
    nh = n >> 32
    xl = x & _LOW32
    xh = x >> _S32
    if nh == 0:
        # xh * nl + ((xl * nl) >> 32) < 2**64: no carry to lose
        return (xh * nl + ((xl * nl) >> _S32)) >> _S32
    nh = _U(nh)
    ll = xl * nl
    lh = xl * nh
    hl = xh * nl
    hh = xh * nh
    mid = (ll >> _S32) + (lh & _LOW32) + (hl & _LOW32)
    return hh + (lh >> _S32) + (hl >> _S32) + (mid >> _S32)


def _bit(words, pos):
    """bit pos of a stage's bits (words: its uint64 array)."""
    return (words[pos >> _S6] >> (pos & _63)) & _1


def _blocked_stage(words, s, h):
    """Indexes into h of the hashes whose k bits are all set in stage s."""
    k = s.nhashes
    nblocks = _U(s.nblocks)
    idx = np.arange(h.shape[0], dtype=np.intp)
    base = (((h >> _S32) * nblocks) >> _S32) << _3
    g = remix(h)
    t = 0
    for j in range(k):
        if j > 0 and t == 7:
            g = remix(g + _STEP)
            t = 0
        sl = g >> _U(9 * t)
        word = base + ((sl >> _S6) & _7)
        keep = ((words[word] >> (sl & _63)) & _1).astype(bool)
        t += 1
        if j + 1 < k:
            idx = idx[keep]
            if idx.shape[0] == 0:
                return idx
            base = base[keep]
            g = g[keep]
        else:
            idx = idx[keep]
    return idx


def _standard_stage(words, s, h, chain):
    """Indexes into h of the hashes whose k bits are all set in stage s."""
    k = s.nhashes
    nbits = s.nbits
    idx = np.arange(h.shape[0], dtype=np.intp)
    # x_0 = h; v is the state of the next position: format 2's counter
    # h + j * STEP, format 1's last x
    x = h
    v = h
    for j in range(k):
        if j > 0:
            if chain:
                x = remix(v + _STEP)
                v = x
            else:
                v = v + _STEP
                x = remix(v)
        keep = _bit(words, range64(x, nbits)).astype(bool)
        idx = idx[keep]
        if idx.shape[0] == 0:
            return idx
        if j + 1 < k:
            v = v[keep]
    return idx


def _contains_chunk(f, words_list, h, out):
    pending = np.arange(h.shape[0], dtype=np.intp)
    hp = h
    for s, words in zip(f.stages, words_list):
        if f._blocked:
            found = _blocked_stage(words, s, hp)
        else:
            found = _standard_stage(words, s, hp, f._chain)
        out[pending[found]] = True
        if len(f.stages) > 1:
            left = np.ones(hp.shape[0], dtype=bool)
            left[found] = False
            pending = pending[left]
            if pending.shape[0] == 0:
                break
            hp = hp[left]


def contains(f, h):
    """bool array: contains_hash(f, h[i]) for every i."""
    n = h.shape[0]
    out = np.zeros(n, dtype=bool)
    words_list = f._stage_words()
    for a in range(0, n, CHUNK):
        _contains_chunk(f, words_list, h[a:a + CHUNK], out[a:a + CHUNK])
    return out
