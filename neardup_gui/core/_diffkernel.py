"""A character diff compiled with numba that releases the GIL (``diffspans`` uses it when it loads).

It computes the same alignment as ``fast_diff_match_patch.diff(a, b, checklines=False,
cleanup="No")`` - the diff-match-patch algorithm: common prefix and suffix stripped, the shorter
text found inside the longer, a "half match" (a common substring at least half as long as the
longer text splits the problem in two), otherwise Myers' O(ND) middle-snake bisection, each level
tidied by the merge clean-up (runs of edits merged into one deletion and one insertion, common
affixes of a deletion and an insertion moved into the equalities around them, single edits slid
over an equality when that joins two equalities). The tests compare both on real and random pairs.

Two differences, both deliberate: texts are arrays of code points (the C++ library works on
``wchar_t``, 16 bits on Windows), and the time limit is a budget of search steps instead of a
clock, so a result never depends on how busy the machine is. When the budget runs out (texts of
~100,000 characters with almost nothing in common), the unfinished part is given as one deletion
and one insertion, as diff-match-patch does when its clock runs out.

Ops are returned as two arrays: kinds (``EQUAL``, ``DELETE``, ``INSERT``) and lengths; an op of
kind ``EQUAL`` or ``DELETE`` consumes the left text, ``EQUAL`` or ``INSERT`` the right text.
On top of ``diff``: ``aligned`` anchors long texts first (``core.anchors``: seeds found here, the
chain and the anchors by the same functions the library path runs as Python) and diffs between
the anchors, all the diffs sharing one budget; ``pair_alignment`` is ``diffspans.pair_diff`` in
one call (shared passages, regions, raw hunks, unmatched text; the normalized texts aligned by
``aligned``), and ``verify_batch`` runs it for a batch of pairs together
with their normalization (``normalize._fast`` through the lookup table; texts needing the exact
path come normalized) and their shared-shingle sample (``shingles.first_shared``), so that a thread
can verify a batch while holding no lock. All arrays are writable and C-contiguous
(``diffspans`` makes them so): one type per argument, so numba compiles each function once.

Imports numpy, numba and ``core.anchors`` (``diffspans`` imports this module only if numba is installed).
"""

from __future__ import annotations

import numpy as np
from numba import njit

# numba's cache does not notice a change in another module's function: clear __pycache__ if the
# window hash (``shingles.window_hashes``) or ``core.anchors`` is ever edited.
from neardup_gui.core import anchors
from neardup_gui.core._prepkernel import _window, _windows_into
from neardup_gui.core.shingles import window_base

__all__ = ["DELETE", "EQUAL", "INSERT", "aligned", "diff", "pair_alignment", "verify_batch"]

EQUAL, DELETE, INSERT = 0, 1, 2

_ANCHOR_FROM, _ANCHOR_K, _ANCHOR_SAMPLE = anchors.ANCHOR_FROM, anchors.ANCHOR_K, anchors.ANCHOR_SAMPLE
_ANCHOR_BASE = np.uint64(window_base(anchors.ANCHOR_K))
_chain = njit(cache=True, nogil=True)(anchors.chain)
_anchor_runs = njit(cache=True, nogil=True)(anchors.anchor_runs)


@njit(cache=True, nogil=True)
def _common_prefix(a, a0, a1, b, b0, b1):  # pragma: no cover - compiled
    n = min(a1 - a0, b1 - b0)
    i = 0
    while i < n and a[a0 + i] == b[b0 + i]:
        i += 1
    return i


@njit(cache=True, nogil=True)
def _common_suffix(a, a0, a1, b, b0, b1):  # pragma: no cover - compiled
    n = min(a1 - a0, b1 - b0)
    i = 0
    while i < n and a[a1 - 1 - i] == b[b1 - 1 - i]:
        i += 1
    return i


@njit(cache=True, nogil=True)
def _find(hay, h0, h1, needle, n0, n1, start):  # pragma: no cover - compiled
    """First offset (from ``h0``) >= ``start`` where ``needle[n0:n1]`` occurs in ``hay[h0:h1]``, or -1."""
    m = n1 - n0
    last = h1 - h0 - m
    i = start
    while i <= last:
        j = 0
        while j < m and hay[h0 + i + j] == needle[n0 + j]:
            j += 1
        if j == m:
            return i
        i += 1
    return -1


@njit(cache=True, nogil=True)
def _half_match_at(lt, l0, l1, st, s0, s1, i):  # pragma: no cover - compiled
    """Longest common substring of the long and the short text that holds the long text's quarter
    starting at ``i``, if it is at least half the long text: (long start, short start, length), or
    length 0."""
    n_long = l1 - l0
    seed0, seed1 = l0 + i, l0 + i + n_long // 4
    best = 0
    best_l = best_s = 0
    j = -1
    while True:
        j = _find(st, s0, s1, lt, seed0, seed1, j + 1)
        if j == -1:
            break
        pre = _common_prefix(lt, l0 + i, l1, st, s0 + j, s1)
        suf = _common_suffix(lt, l0, l0 + i, st, s0, s0 + j)
        if best < suf + pre:
            best = suf + pre
            best_l, best_s = l0 + i - suf, s0 + j - suf
    if best * 2 >= n_long:
        return best_l, best_s, best
    return 0, 0, 0


@njit(cache=True, nogil=True)
def _half_match(a, a0, a1, b, b0, b1):  # pragma: no cover - compiled
    """(start in a, start in b, length) of a common substring at least half as long as the longer
    text, or length 0."""
    la, lb = a1 - a0, b1 - b0
    if la > lb:
        lt, l0, l1, st, s0, s1 = a, a0, a1, b, b0, b1
    else:
        lt, l0, l1, st, s0, s1 = b, b0, b1, a, a0, a1
    n_long, n_short = l1 - l0, s1 - s0
    if n_long < 4 or n_short * 2 < n_long:
        return 0, 0, 0
    p1, q1, c1 = _half_match_at(lt, l0, l1, st, s0, s1, (n_long + 3) // 4)
    p2, q2, c2 = _half_match_at(lt, l0, l1, st, s0, s1, (n_long + 1) // 2)
    if c1 == 0 and c2 == 0:
        return 0, 0, 0
    if c2 == 0 or (c1 != 0 and c1 > c2):
        p, q, c = p1, q1, c1
    else:
        p, q, c = p2, q2, c2
    if la > lb:
        return p, q, c
    return q, p, c


@njit(cache=True, nogil=True)
def _bisect(a, a0, a1, b, b0, b1, budget):  # pragma: no cover - compiled
    """The middle snake of Myers' algorithm: where to split both texts (absolute x, y), or (-1, -1)
    when ``budget[0]`` (search steps) runs out first."""
    n1, n2 = a1 - a0, b1 - b0
    max_d = (n1 + n2 + 1) // 2
    v_offset = max_d
    v_length = 2 * max_d
    v1 = np.full(v_length, -1, dtype=np.int64)
    v2 = np.full(v_length, -1, dtype=np.int64)
    v1[v_offset + 1] = 0
    v2[v_offset + 1] = 0
    delta = n1 - n2
    front = delta % 2 != 0
    k1start = k1end = k2start = k2end = 0
    for d in range(max_d):
        if budget[0] <= 0:
            break
        # A step per diagonal searched: those off the grid are skipped (a short text beside a
        # long one searches few of them however large d grows).
        budget[0] -= max(0, d + 1 - (k1start + k1end) // 2) + max(0, d + 1 - (k2start + k2end) // 2)
        for k1 in range(-d + k1start, d + 1 - k1end, 2):
            k1_offset = v_offset + k1
            if k1 == -d or (k1 != d and v1[k1_offset - 1] < v1[k1_offset + 1]):
                x1 = v1[k1_offset + 1]
            else:
                x1 = v1[k1_offset - 1] + 1
            y1 = x1 - k1
            while x1 < n1 and y1 < n2 and a[a0 + x1] == b[b0 + y1]:
                x1 += 1
                y1 += 1
            v1[k1_offset] = x1
            if x1 > n1:
                k1end += 2
            elif y1 > n2:
                k1start += 2
            elif front:
                k2_offset = v_offset + delta - k1
                if 0 <= k2_offset < v_length and v2[k2_offset] != -1:
                    if x1 >= n1 - v2[k2_offset]:
                        return a0 + x1, b0 + y1
        for k2 in range(-d + k2start, d + 1 - k2end, 2):
            k2_offset = v_offset + k2
            if k2 == -d or (k2 != d and v2[k2_offset - 1] < v2[k2_offset + 1]):
                x2 = v2[k2_offset + 1]
            else:
                x2 = v2[k2_offset - 1] + 1
            y2 = x2 - k2
            while x2 < n1 and y2 < n2 and a[a1 - 1 - x2] == b[b1 - 1 - y2]:
                x2 += 1
                y2 += 1
            v2[k2_offset] = x2
            if x2 > n1:
                k2end += 2
            elif y2 > n2:
                k2start += 2
            elif not front:
                k1_offset = v_offset + delta - k2
                if 0 <= k1_offset < v_length and v1[k1_offset] != -1:
                    x1 = v1[k1_offset]
                    y1 = v_offset + x1 - k1_offset
                    if x1 >= n1 - x2:
                        return a0 + x1, b0 + y1
    return -1, -1


@njit(cache=True, nogil=True)
def _merge_runs(a, a0, b, b0, kinds, lens, s, n):  # pragma: no cover - compiled
    """First pass of the merge clean-up over ops ``[s, n)`` (covering ``a[a0:]`` and ``b[b0:]``):
    each run of edits becomes one deletion and one insertion, their common prefix joins the
    equality before and their common suffix the one after; adjacent equalities join. Returns the
    new end."""
    m_cap = n - s + 3
    ok = np.empty(m_cap, dtype=np.int8)
    ol = np.empty(m_cap, dtype=np.int64)
    m = 0
    pa, pb = a0, b0
    run_a = run_b = 0
    cd = ci = 0
    ld = li = 0
    last_kind = EQUAL
    i = s
    while i <= n:
        if i < n:
            k, length = kinds[i], lens[i]
        else:  # a closing empty equality, dropped again below if nothing joined it
            k, length = EQUAL, 0
        if k == INSERT:
            if cd + ci == 0:
                run_a, run_b = pa, pb
            ci += 1
            li += length
            pb += length
            last_kind = INSERT
        elif k == DELETE:
            if cd + ci == 0:
                run_a, run_b = pa, pb
            cd += 1
            ld += length
            pa += length
            last_kind = DELETE
        else:
            eq = length
            if cd + ci > 1:
                da, db = run_a, run_b
                if cd != 0 and ci != 0:
                    c = _common_prefix(b, db, db + li, a, da, da + ld)
                    if c != 0:
                        if m > 0 and ok[m - 1] == EQUAL:
                            ol[m - 1] += c
                        else:
                            ok[m] = EQUAL
                            ol[m] = c
                            m += 1
                        da += c
                        db += c
                        ld -= c
                        li -= c
                    c = _common_suffix(b, db, db + li, a, da, da + ld)
                    if c != 0:
                        eq += c
                        ld -= c
                        li -= c
                if ld != 0:
                    ok[m] = DELETE
                    ol[m] = ld
                    m += 1
                if li != 0:
                    ok[m] = INSERT
                    ol[m] = li
                    m += 1
                ok[m] = EQUAL
                ol[m] = eq
                m += 1
            elif cd + ci == 1:
                ok[m] = last_kind
                ol[m] = ld + li
                m += 1
                ok[m] = EQUAL
                ol[m] = eq
                m += 1
            elif m > 0 and ok[m - 1] == EQUAL:
                ol[m - 1] += eq
            else:
                ok[m] = EQUAL
                ol[m] = eq
                m += 1
            cd = ci = 0
            ld = li = 0
            pa += length
            pb += length
        i += 1
    if m > 0 and ok[m - 1] == EQUAL and ol[m - 1] == 0:
        m -= 1
    kinds[s : s + m] = ok[:m]
    lens[s : s + m] = ol[:m]
    return s + m


@njit(cache=True, nogil=True)
def _same(x, x0, y, y0, length):  # pragma: no cover - compiled
    for i in range(length):
        if x[x0 + i] != y[y0 + i]:
            return False
    return True


@njit(cache=True, nogil=True)
def _shift_edits(a, a0, b, b0, kinds, lens, s, n):  # pragma: no cover - compiled
    """Second pass of the merge clean-up: a single edit between two equalities slides left over
    the first (when it ends with it) or right over the second (when it starts with it), joining
    the equalities. Returns (new end, whether anything moved)."""
    changed = False
    ra, rb = a0, b0  # where op p - 1 starts
    p = s + 1
    while p < n - 1:
        if kinds[p - 1] == EQUAL and kinds[p + 1] == EQUAL:
            lp, le, ln = lens[p - 1], lens[p], lens[p + 1]
            deleting = kinds[p] == DELETE
            et, e0 = (a, ra + lp) if deleting else (b, rb + lp)  # the edit's text
            n_at = ra + lp + le if deleting else ra + lp  # the second equality, in a
            if le >= lp and _same(et, e0 + le - lp, a, ra, lp):
                # P E N -> E' PN: the edit now starts where P did.
                lens[p + 1] = lp + ln
                kinds[p - 1 : n - 1] = kinds[p:n].copy()
                lens[p - 1 : n - 1] = lens[p:n].copy()
                n -= 1
                changed = True
                if deleting:
                    ra += le
                else:
                    rb += le
                p += 1
                continue
            if le >= ln and _same(et, e0, a, n_at, ln):
                # P E N -> PN E'': the edit now starts after both.
                lens[p - 1] = lp + ln
                kinds[p + 1 : n - 1] = kinds[p + 2 : n].copy()
                lens[p + 1 : n - 1] = lens[p + 2 : n].copy()
                n -= 1
                changed = True
                ra += lp + ln
                rb += lp + ln
                p += 1
                continue
        k = kinds[p - 1]
        if k != INSERT:
            ra += lens[p - 1]
        if k != DELETE:
            rb += lens[p - 1]
        p += 1
    return n, changed


@njit(cache=True, nogil=True)
def _cleanup_merge(a, a0, b, b0, kinds, lens, s, n):  # pragma: no cover - compiled
    while True:
        n = _merge_runs(a, a0, b, b0, kinds, lens, s, n)
        n, changed = _shift_edits(a, a0, b, b0, kinds, lens, s, n)
        if not changed:
            return n


# Fields of a frame of ``diff``'s explicit stack (numba cannot cache recursive functions).
_A0, _A1, _B0, _B1, _S, _SA, _SB, _Q, _STAGE, _MODE, _MX, _MY, _MC = range(13)
_FIELDS = 13
_START, _SECOND, _FINISH = 0, 1, 2  # stages: not begun, first half aligned, both halves aligned
_HALF, _SPLIT = 0, 1  # how a frame was divided: around a common middle, or at the middle snake


@njit(cache=True, nogil=True)
def _push(stack, sp, a0, a1, b0, b1):  # pragma: no cover - compiled
    if sp == stack.shape[0]:
        bigger = np.empty((2 * sp, _FIELDS), dtype=np.int64)
        bigger[:sp] = stack
        stack = bigger
    stack[sp, _A0], stack[sp, _A1], stack[sp, _B0], stack[sp, _B1] = a0, a1, b0, b1
    stack[sp, _STAGE] = _START
    return stack, sp + 1


@njit(cache=True, nogil=True)
def diff(a, b, budget):  # pragma: no cover - compiled
    """Ops aligning the code-point arrays ``a`` and ``b``: (kinds int8, lengths int64).

    ``budget``: search steps the bisection may take in all (its time limit, made deterministic).
    """
    return _diff(a, b, np.full(1, budget, dtype=np.int64))


@njit(cache=True, nogil=True)
def _diff(a, b, left):  # pragma: no cover - compiled
    """``diff`` with the budget in ``left[0]`` (counted down).

    Each frame aligns ``a[a0:a1]`` with ``b[b0:b1]``: common prefix and suffix, then the easy
    cases, a half match or the middle snake (two sub-frames), then the merge clean-up of the
    frame's ops, exactly as diff-match-patch's recursive ``diff_main``.
    """
    cap = 2 * (a.size + b.size) + 16
    kinds = np.empty(cap, dtype=np.int8)
    lens = np.empty(cap, dtype=np.int64)
    stack = np.empty((64, _FIELDS), dtype=np.int64)
    stack, sp = _push(stack, 0, 0, a.size, 0, b.size)
    n = 0
    while sp > 0:
        f = sp - 1
        stage = stack[f, _STAGE]
        if stage == _SECOND:  # the first half is aligned: the common middle, then the second half
            stack[f, _STAGE] = _FINISH
            if stack[f, _MODE] == _HALF:
                kinds[n] = EQUAL
                lens[n] = stack[f, _MC]
                n += 1
                x, y = stack[f, _MX] + stack[f, _MC], stack[f, _MY] + stack[f, _MC]
            else:
                x, y = stack[f, _MX], stack[f, _MY]
            stack, sp = _push(stack, sp, x, stack[f, _A1], y, stack[f, _B1])
            continue
        if stage == _FINISH:
            q = stack[f, _Q]
            if q:
                kinds[n] = EQUAL
                lens[n] = q
                n += 1
            n = _cleanup_merge(a, stack[f, _SA], b, stack[f, _SB], kinds, lens, stack[f, _S], n)
            sp -= 1
            continue
        a0, a1, b0, b1 = stack[f, _A0], stack[f, _A1], stack[f, _B0], stack[f, _B1]
        p = _common_prefix(a, a0, a1, b, b0, b1)
        if p == a1 - a0 and p == b1 - b0:  # equal texts
            if p:
                kinds[n] = EQUAL
                lens[n] = p
                n += 1
            sp -= 1
            continue
        stack[f, _S], stack[f, _SA], stack[f, _SB] = n, a0, b0
        if p:
            kinds[n] = EQUAL
            lens[n] = p
            n += 1
            a0 += p
            b0 += p
        q = _common_suffix(a, a0, a1, b, b0, b1)
        a1 -= q
        b1 -= q
        stack[f, _A0], stack[f, _A1], stack[f, _B0], stack[f, _B1], stack[f, _Q] = a0, a1, b0, b1, q
        stack[f, _STAGE] = _FINISH
        la, lb = a1 - a0, b1 - b0
        if la == 0:
            kinds[n] = INSERT
            lens[n] = lb
            n += 1
            continue
        if lb == 0:
            kinds[n] = DELETE
            lens[n] = la
            n += 1
            continue
        if la > lb:
            at = _find(a, a0, a1, b, b0, b1, 0)
            outer, inner, short = DELETE, la, lb
        else:
            at = _find(b, b0, b1, a, a0, a1, 0)
            outer, inner, short = INSERT, lb, la
        if at != -1:  # the shorter text inside the longer
            kinds[n] = outer
            lens[n] = at
            kinds[n + 1] = EQUAL
            lens[n + 1] = short
            kinds[n + 2] = outer
            lens[n + 2] = inner - at - short
            n += 3
            continue
        if short == 1:
            kinds[n] = DELETE
            lens[n] = la
            kinds[n + 1] = INSERT
            lens[n + 1] = lb
            n += 2
            continue
        ha, hb, hc = _half_match(a, a0, a1, b, b0, b1)
        if hc > 0:
            stack[f, _MODE], stack[f, _MX], stack[f, _MY], stack[f, _MC] = _HALF, ha, hb, hc
            stack[f, _STAGE] = _SECOND
            stack, sp = _push(stack, sp, a0, ha, b0, hb)
            continue
        x, y = _bisect(a, a0, a1, b, b0, b1, left)
        if x < 0:  # out of budget
            kinds[n] = DELETE
            lens[n] = la
            kinds[n + 1] = INSERT
            lens[n + 1] = lb
            n += 2
            continue
        stack[f, _MODE], stack[f, _MX], stack[f, _MY] = _SPLIT, x, y
        stack[f, _STAGE] = _SECOND
        stack, sp = _push(stack, sp, a0, x, b0, y)
    return kinds[:n].copy(), lens[:n].copy()


@njit(cache=True, nogil=True)
def aligned(a, b, budget):  # pragma: no cover - compiled
    """``diff``, anchored when the texts are long (``core.anchors``): the ops ``diffspans`` uses."""
    return _aligned(a, b, np.full(1, budget, dtype=np.int64))


@njit(cache=True, nogil=True)
def _sampled(cps):  # pragma: no cover - compiled
    """(positions, hashes) of the sampled windows (``anchors._sampled_once`` before dropping the
    repeated ones), in text order."""
    n = cps.size - _ANCHOR_K + 1
    if n <= 0:
        return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.uint64)
    h = np.empty(n, dtype=np.uint64)
    _windows_into(cps, 0, cps.size, _ANCHOR_K, _ANCHOR_BASE, h, 0)
    sample = np.uint64(_ANCHOR_SAMPLE)
    m = 0
    for i in range(n):
        if h[i] % sample == 0:
            m += 1
    pos = np.empty(m, dtype=np.int64)
    m = 0
    for i in range(n):
        if h[i] % sample == 0:
            pos[m] = i
            m += 1
    return pos, h[pos]


@njit(cache=True, nogil=True)
def _once_table(pos, vals):  # pragma: no cover - compiled
    """An open-addressed table of the hashes ``vals``: (keys, where each occurs: its position
    from ``pos`` when once, -2 when more than once, -1 for an empty slot)."""
    size = 2
    while size < 2 * vals.size:
        size *= 2
    keys = np.zeros(size, dtype=np.uint64)
    where = np.full(size, -1, dtype=np.int64)
    mask = np.uint64(size - 1)
    sample = np.uint64(_ANCHOR_SAMPLE)
    for j in range(vals.size):
        v = vals[j]
        s = (v // sample) & mask  # sampled hashes are multiples of the sample
        while where[s] != -1 and keys[s] != v:
            s = (s + np.uint64(1)) & mask
        if where[s] == -1:
            keys[s] = v
            where[s] = pos[j]
        else:
            where[s] = -2
    return keys, where


@njit(cache=True, nogil=True)
def _where_once(keys, where, v):  # pragma: no cover - compiled
    """Where the hash ``v`` occurs in a ``_once_table``: a position, -2 (repeated) or -1 (absent)."""
    mask = np.uint64(keys.size - 1)
    s = (v // np.uint64(_ANCHOR_SAMPLE)) & mask
    while where[s] != -1:
        if keys[s] == v:
            return where[s]
        s = (s + np.uint64(1)) & mask
    return -1


@njit(cache=True, nogil=True)
def _once(pos, vals, keys, where):  # pragma: no cover - compiled
    """The sampled windows (``pos``, ``vals``) whose hash occurs once, by their ``_once_table``."""
    keep = np.empty(pos.size, dtype=np.int64)
    m = 0
    for j in range(pos.size):
        if _where_once(keys, where, vals[j]) == pos[j]:
            keep[m] = j
            m += 1
    return pos[keep[:m]], vals[keep[:m]]


@njit(cache=True, nogil=True)
def _seeds(a, b):  # pragma: no cover - compiled
    """``anchors.seeds``: starts of the sampled windows once in each text and equal in both.

    By hash tables, in ``a``'s order: sorting the sampled hashes (``anchors.seeds``' way) was
    three quarters of aligning two 27,000-character drafts (0.76 of 0.86 ms).
    """
    pa, ha = _sampled(a)
    pb, hb = _sampled(b)
    ka, wa = _once_table(pa, ha)
    kb, wb = _once_table(pb, hb)
    pa, ha = _once(pa, ha, ka, wa)
    return _seeds_tabled(a, pa, ha, b, kb, wb)


@njit(cache=True, nogil=True)
def _seeds_tabled(a, pa, ha, b, kb, wb):  # pragma: no cover - compiled
    """``_seeds`` from ``a``'s sampled windows that occur once in it (``_once``, in text order)
    and ``b``'s ``_once_table``."""
    sa = np.empty(pa.size, dtype=np.int64)
    sb = np.empty(sa.size, dtype=np.int64)
    m = 0
    for j in range(pa.size):
        y = _where_once(kb, wb, ha[j])
        if y >= 0 and _same(a, pa[j], b, y, _ANCHOR_K):
            sa[m], sb[m] = pa[j], y
            m += 1
    return sa[:m].copy(), sb[:m].copy()


@njit(cache=True, nogil=True)
def _append(kinds, lens, n, k, length):  # pragma: no cover - compiled
    """One op appended, joined to the last one when of the same kind; returns the new count."""
    if n and kinds[n - 1] == k:
        lens[n - 1] += length
        return n
    kinds[n] = k
    lens[n] = length
    return n + 1


@njit(cache=True, nogil=True)
def _aligned(a, b, left):  # pragma: no cover - compiled
    """``aligned`` with the budget in ``left[0]``, shared by the diffs between anchors."""
    if a.size + b.size < _ANCHOR_FROM:
        return _diff(a, b, left)
    sa, sb = _seeds(a, b)
    return _anchored(a, b, left, sa, sb)


@njit(cache=True, nogil=True)
def _anchored(a, b, left, sa, sb):  # pragma: no cover - compiled
    """``_aligned`` past the seeds: the chain of them, its anchors and the diffs between."""
    if sa.size == 0:
        return _diff(a, b, left)
    runs = _anchor_runs(sa, sb, _chain(sa, sb), _ANCHOR_K)
    cap = 2 * (a.size + b.size + runs.shape[0]) + 16
    kinds = np.empty(cap, dtype=np.int8)
    lens = np.empty(cap, dtype=np.int64)
    n = 0
    pa = pb = 0
    for r in range(runs.shape[0] + 1):
        if r < runs.shape[0]:
            x, y, length = runs[r, 0], runs[r, 1], runs[r, 2]
        else:
            x, y, length = a.size, b.size, 0
        if x > pa or y > pb:
            gk, gl = _diff(a[pa:x], b[pb:y], left)
            for o in range(gk.size):
                n = _append(kinds, lens, n, gk[o], gl[o])
        if length:
            n = _append(kinds, lens, n, EQUAL, length)
        pa, pb = x + length, y + length
    return kinds[:n].copy(), lens[:n].copy()


@njit(cache=True, nogil=True)
def _mid(starts, i, n):  # pragma: no cover - compiled
    """Normalized index ``i`` falls inside a raw character cluster (a base and its marks)."""
    return 0 < i < n and starts[i] == starts[i - 1]


@njit(cache=True, nogil=True)
def _outside(starts, ends, n, cover_start, cover_end, m):  # pragma: no cover - compiled
    """Raw spans (m x 2) of the normalized characters not covered by the sorted spans given."""
    out = np.empty((m + 1, 2), dtype=np.int64)
    k = 0
    if n == 0:
        return out[:0]
    pos = 0
    for i in range(m):
        if cover_start[i] > pos:
            out[k, 0] = starts[pos]
            out[k, 1] = ends[cover_start[i] - 1]
            k += 1
        pos = max(pos, cover_end[i])
    if pos < n:
        out[k, 0] = starts[pos]
        out[k, 1] = ends[n - 1]
        k += 1
    return out[:k]


@njit(cache=True, nogil=True)
def _own(starts, ends, i, n):  # pragma: no cover - compiled
    """Normalized character ``i`` has its raw text to itself: no neighbour shares any of it (an
    expansion such as ㎏ -> kg gives several normalized characters one raw span).

    Inside a matched region, a character the alignment pairs with one whose raw text is its own
    too and the same is an anchor: the raw texts are compared piece by piece between anchors. A
    diff of a whole region's raw text costs time by its length times its differences: a
    120,000-character copy with every digit made full-width and a line break every 40 characters
    took 14 s and ran out of its budget (one 60,000-character hunk).
    """
    return (i == 0 or starts[i] >= ends[i - 1]) and (i == n - 1 or ends[i] <= starts[i + 1])


@njit(cache=True, nogil=True)
def _add_hunk(hunks, n, a0, a1, b0, b1):  # pragma: no cover - compiled
    if n == hunks.shape[0]:
        bigger = np.empty((2 * n, 4), dtype=np.int64)
        bigger[:n] = hunks[:n]
        hunks = bigger
    hunks[n, 0], hunks[n, 1], hunks[n, 2], hunks[n, 3] = a0, a1, b0, b1
    return hunks, n + 1


@njit(cache=True, nogil=True)
def _gap_hunks(lraw, a0, a1, rraw, b0, b1, left, budget, hunks, n):  # pragma: no cover - compiled
    """The runs of differences between ``lraw[a0:a1]`` and ``rraw[b0:b1]`` (raw text between two
    anchors) added to ``hunks`` (rows from ``n``); returns (hunks, new n)."""
    if a1 - a0 == b1 - b0 and _same(lraw, a0, rraw, b0, a1 - a0):
        return hunks, n
    if a0 == a1 or b0 == b1:  # only inserted or only deleted text: one hunk
        return _add_hunk(hunks, n, a0, a1, b0, b1)
    left[0] = budget
    hk, hl = _diff(lraw[a0:a1], rraw[b0:b1], left)
    pa, pb = a0, b0
    open_a = -1
    open_b = 0
    for o in range(hk.size + 1):
        k = hk[o] if o < hk.size else EQUAL
        if k == EQUAL:
            if open_a >= 0:
                hunks, n = _add_hunk(hunks, n, open_a, pa, open_b, pb)
                open_a = -1
            if o < hk.size:
                pa += hl[o]
                pb += hl[o]
            continue
        if open_a < 0:
            open_a, open_b = pa, pb
        if k == DELETE:
            pa += hl[o]
        else:
            pb += hl[o]
    return hunks, n


@njit(cache=True, nogil=True)
def pair_alignment(lc, rc, lraw, rraw, lst, lend, rst, rend, min_len, gap, budget):  # pragma: no cover - compiled
    """Everything ``diffspans.pair_diff`` computes, in one call that holds no lock.

    Args:
        lc, rc: Normalized code points of each side; ``lst``/``lend`` (``rst``/``rend``) the raw
            span of each normalized character (``Normalized.starts``/``ends``).
        lraw, rraw: Raw code points of each side.
        min_len, gap, budget: As ``pair_diff``'s (the budget in search steps, per diff).

    Returns:
        (shared passages, matched regions, hunks: n x 4 raw spans left start, left end, right
        start, right end; left-only and right-only text: n x 2 raw spans).
    """
    left = np.full(1, budget, dtype=np.int64)
    if lc.size and rc.size:
        kinds, lens = _aligned(lc, rc, left)
    else:
        kinds, lens = np.empty(0, dtype=np.int8), np.empty(0, dtype=np.int64)
    return _alignment_of(kinds, lens, lc, rc, lraw, rraw, lst, lend, rst, rend, min_len, gap, budget, left)


@njit(cache=True, nogil=True)
def _alignment_of(kinds, lens, lc, rc, lraw, rraw, lst, lend, rst, rend, min_len, gap, budget,
                  left):  # pragma: no cover - compiled
    """``pair_alignment`` from the normalized texts' ops (``_aligned``); ``left`` holds the budget."""
    nl, nr = lc.size, rc.size
    # Equal runs of at least min_len (normalized offsets) and the regions they join into.
    n_ops = kinds.size
    runs = np.empty((n_ops, 4), dtype=np.int64)
    regs = np.empty((n_ops, 4), dtype=np.int64)
    n_runs = n_regs = 0
    li = ri = 0
    for o in range(n_ops):
        k, length = kinds[o], lens[o]
        if k == EQUAL:
            if length >= min_len:
                runs[n_runs, 0], runs[n_runs, 1] = li, li + length
                runs[n_runs, 2], runs[n_runs, 3] = ri, ri + length
                n_runs += 1
                if n_regs and li - regs[n_regs - 1, 1] <= gap and ri - regs[n_regs - 1, 3] <= gap:
                    regs[n_regs - 1, 1], regs[n_regs - 1, 3] = li + length, ri + length
                else:
                    regs[n_regs, 0], regs[n_regs, 1] = li, li + length
                    regs[n_regs, 2], regs[n_regs, 3] = ri, ri + length
                    n_regs += 1
            li += length
            ri += length
        elif k == DELETE:
            li += length
        else:
            ri += length
    # Shared passages: runs trimmed to whole raw clusters on both sides, as raw spans.
    segs = np.empty((n_runs, 4), dtype=np.int64)
    n_segs = 0
    for i in range(n_runs):
        a, b, c, d = runs[i, 0], runs[i, 1], runs[i, 2], runs[i, 3]
        while b > a and (_mid(lst, b, nl) or _mid(rst, d, nr)):
            b -= 1
            d -= 1
        while a < b and (_mid(lst, a, nl) or _mid(rst, c, nr)):
            a += 1
            c += 1
        if b - a >= min_len:
            segs[n_segs, 0], segs[n_segs, 1] = lst[a], lend[b - 1]
            segs[n_segs, 2], segs[n_segs, 3] = rst[c], rend[d - 1]
            n_segs += 1
    raw_regs = np.empty((n_regs, 4), dtype=np.int64)
    for i in range(n_regs):
        raw_regs[i, 0], raw_regs[i, 1] = lst[regs[i, 0]], lend[regs[i, 1] - 1]
        raw_regs[i, 2], raw_regs[i, 3] = rst[regs[i, 2]], rend[regs[i, 3] - 1]
    # Hunks: inside each region, the raw text between anchors, diffed (see ``_own``).
    hunks = np.empty((16, 4), dtype=np.int64)
    n_hunks = 0
    o = 0
    li = ri = 0
    for i in range(n_regs):
        ls, le, rs, re = raw_regs[i, 0], raw_regs[i, 1], raw_regs[i, 2], raw_regs[i, 3]
        while li < regs[i, 0]:  # to the region's first op (a region starts where an op does)
            if kinds[o] != INSERT:
                li += lens[o]
            if kinds[o] != DELETE:
                ri += lens[o]
            o += 1
        # The common raw prefix and suffix are the same text: the anchors are looked for between.
        head = _common_prefix(lraw, ls, le, rraw, rs, re)
        if head == le - ls and head == re - rs:
            continue
        tail = _common_suffix(lraw, ls + head, le, rraw, rs + head, re)
        pa, pb = ls + head, rs + head  # raw text before these is done
        end_a, end_b = le - tail, re - tail
        while o < n_ops and li < regs[i, 1]:
            k, length = kinds[o], lens[o]
            if k == EQUAL and lend[li + length - 1] > pa and lst[li] < end_a:  # else no anchor can lie in it
                for t in range(length):
                    x, y = li + t, ri + t
                    a0, a1, b0, b1 = lst[x], lend[x], rst[y], rend[y]
                    if (
                        a0 >= pa and b0 >= pb and a1 <= end_a and b1 <= end_b and a1 - a0 == b1 - b0
                        and _own(lst, lend, x, nl) and _own(rst, rend, y, nr) and _same(lraw, a0, rraw, b0, a1 - a0)
                    ):  # fmt: skip
                        if a0 > pa or b0 > pb:  # (a call per anchor costs more than the loop)
                            hunks, n_hunks = _gap_hunks(lraw, pa, a0, rraw, pb, b0, left, budget, hunks, n_hunks)
                        pa, pb = a1, b1
            if k != INSERT:
                li += length
            if k != DELETE:
                ri += length
            o += 1
        hunks, n_hunks = _gap_hunks(lraw, pa, end_a, rraw, pb, end_b, left, budget, hunks, n_hunks)
    lu = _outside(lst, lend, nl, regs[:n_regs, 0], regs[:n_regs, 1], n_regs)
    ru = _outside(rst, rend, nr, regs[:n_regs, 2], regs[:n_regs, 3], n_regs)
    return segs[:n_segs].copy(), raw_regs, hunks[:n_hunks].copy(), lu, ru


@njit(cache=True, nogil=True)
def _put(dst, n, rows):  # pragma: no cover - compiled
    """``rows`` appended to ``dst`` at row ``n`` (doubling it when full); returns (dst, new n)."""
    need = n + rows.shape[0]
    if need > dst.shape[0]:
        bigger = np.empty((max(need, 2 * dst.shape[0]), dst.shape[1]), dtype=np.int64)
        bigger[:n] = dst[:n]
        dst = bigger
    dst[n:need] = rows
    return dst, need


@njit(cache=True, nogil=True)
def _first_shared(cps, other, k, base, limit, out):  # pragma: no cover - compiled
    """``shingles.first_shared`` as positions: the first ``limit`` windows of ``cps`` (in text
    order, distinct as strings) whose hash is in the sorted ``other``; returns how many."""
    found = 0
    if other.size == 0:
        return 0
    for i in range(cps.size - k + 1):
        h = _window(cps, i, k, base)
        at = np.searchsorted(other, h)
        if at >= other.size or other[at] != h:
            continue
        repeat = False
        for f in range(found):
            if _same(cps, out[f], cps, i, k):
                repeat = True
                break
        if repeat:
            continue
        out[found] = i
        found += 1
        if found >= limit:
            break
    return found


@njit(cache=True, nogil=True)
def _room(a, need, used):  # pragma: no cover - compiled
    """``a``, or a copy of its first ``used`` values with room for ``need`` (at least doubled)."""
    if need <= a.size:
        return a
    grown = np.empty(max(need, 2 * a.size), dtype=a.dtype)
    grown[:used] = a[:used]
    return grown


@njit(cache=True, nogil=True)
def _seed_tables(ncp, noff, needed):  # pragma: no cover - compiled
    """For each text ``t`` (normalized code points ``ncp[noff[t]:noff[t + 1]]``) where
    ``needed[t]``: its sampled windows that occur once in it (``_once``, in text order) and their
    ``_once_table``, concatenated.

    Returns (positions, hashes, their offsets per text; table keys, positions, their offsets)."""
    t = noff.size - 1
    soff = np.zeros(t + 1, dtype=np.int64)
    koff = np.zeros(t + 1, dtype=np.int64)
    spos = np.empty(0, dtype=np.int64)
    svals = np.empty(0, dtype=np.uint64)
    keys = np.empty(0, dtype=np.uint64)
    where = np.empty(0, dtype=np.int64)
    for i in range(t):
        if needed[i]:
            pos, vals = _sampled(ncp[noff[i] : noff[i + 1]])
            kk, ww = _once_table(pos, vals)
            pos, vals = _once(pos, vals, kk, ww)
        else:
            pos, vals = np.empty(0, dtype=np.int64), np.empty(0, dtype=np.uint64)
            kk, ww = np.empty(0, dtype=np.uint64), np.empty(0, dtype=np.int64)
        soff[i + 1] = soff[i] + pos.size
        koff[i + 1] = koff[i] + kk.size
        spos, svals = _room(spos, soff[i + 1], soff[i]), _room(svals, soff[i + 1], soff[i])
        keys, where = _room(keys, koff[i + 1], koff[i]), _room(where, koff[i + 1], koff[i])
        spos[soff[i] : soff[i + 1]] = pos
        svals[soff[i] : soff[i + 1]] = vals
        keys[koff[i] : koff[i + 1]] = kk
        where[koff[i] : koff[i + 1]] = ww
    return spos, svals, soff, keys, where, koff


@njit(cache=True, nogil=True)
def verify_batch(raw, toff, table, given, gc, gs, ge, gstart, gend, pairs, rhash, hoff, k, base, limit, min_len,
                 gap, budget):  # pragma: no cover - compiled
    """Normalize, align and sample the shared shingles of a batch of pairs, holding no lock.

    Each text of the batch is given, normalized and sampled for seeds (``_seeds``) once, however
    many of its pairs it is in: a folder of drafts pairs each with every other.

    Args:
        raw, toff: Raw code points of the batch's texts, concatenated; text ``t``'s are
            ``raw[toff[t]:toff[t + 1]]``.
        table: ``normalize.lookup_table(options).values`` (every raw code point filled in).
        given: ``given[t]`` is 1 where text ``t`` is given normalized (it needs the exact path):
            its code points, raw starts and ends are ``gc``/``gs``/``ge`` from ``gstart[t]`` to
            ``gend[t]``.
        pairs: n x 3: each pair's left text, right text and the right text's hashes.
        rhash, hoff: Sorted shingle hashes of the right texts, concatenated (array ``h``'s from
            ``hoff[h]`` to ``hoff[h + 1]``); ``k``, ``base`` as ``shingles.window_hashes``.
        limit: Most shared shingles sampled per pair (``verify.SHARED_SAMPLE_SIZE``).
        min_len, gap, budget: As ``pair_alignment``.

    Returns:
        (counts: per pair, the rows of the five alignment outputs that are its own; the five
        outputs concatenated; normalized lengths (n x 2); sample positions in the left normalized
        text (n x limit) and how many (n); the texts' normalized code points concatenated and
        their offsets (texts + 1)).
    """
    t = toff.size - 1
    n = pairs.shape[0]
    # Every text normalized once: code points, raw starts and ends, concatenated.
    noff = np.zeros(t + 1, dtype=np.int64)
    for i in range(t):
        if given[i]:
            size = gend[i] - gstart[i]
        else:
            size = 0
            for q in range(toff[i], toff[i + 1]):
                if table[raw[q]] >= 0:
                    size += 1
        noff[i + 1] = noff[i] + size
    ncp = np.empty(noff[t], dtype=np.uint32)
    nst = np.empty(noff[t], dtype=np.int64)
    nen = np.empty(noff[t], dtype=np.int64)
    for i in range(t):
        o = noff[i]
        if given[i]:
            g0, g1 = gstart[i], gend[i]
            ncp[o : noff[i + 1]] = gc[g0:g1]
            nst[o : noff[i + 1]] = gs[g0:g1]
            nen[o : noff[i + 1]] = ge[g0:g1]
            continue
        base_at = toff[i]
        for q in range(toff[i], toff[i + 1]):
            v = table[raw[q]]
            if v >= 0:
                ncp[o] = v
                nst[o] = q - base_at
                nen[o] = q - base_at + 1
                o += 1
    # Seeds' tables for the texts of pairs long enough to be anchored.
    needed = np.zeros(t, dtype=np.bool_)
    for p in range(n):
        a, b = pairs[p, 0], pairs[p, 1]
        na, nb = noff[a + 1] - noff[a], noff[b + 1] - noff[b]
        if na and nb and na + nb >= _ANCHOR_FROM:
            needed[a] = needed[b] = True
    spos, svals, soff, keys, where, koff = _seed_tables(ncp, noff, needed)
    counts = np.zeros((n, 5), dtype=np.int64)
    segs = np.empty((64, 4), dtype=np.int64)
    regs = np.empty((64, 4), dtype=np.int64)
    hunks = np.empty((64, 4), dtype=np.int64)
    lus = np.empty((64, 2), dtype=np.int64)
    rus = np.empty((64, 2), dtype=np.int64)
    lengths = np.zeros((n, 2), dtype=np.int64)
    samples = np.zeros((n, max(limit, 1)), dtype=np.int64)
    sampled = np.zeros(n, dtype=np.int64)
    ns = nr = nh = nl = nu = 0
    for p in range(n):
        a, b, h = pairs[p, 0], pairs[p, 1], pairs[p, 2]
        la = raw[toff[a] : toff[a + 1]]
        ra = raw[toff[b] : toff[b + 1]]
        lc, ls, le = ncp[noff[a] : noff[a + 1]], nst[noff[a] : noff[a + 1]], nen[noff[a] : noff[a + 1]]
        rc, rs, re = ncp[noff[b] : noff[b + 1]], nst[noff[b] : noff[b + 1]], nen[noff[b] : noff[b + 1]]
        left = np.full(1, budget, dtype=np.int64)
        if lc.size == 0 or rc.size == 0:
            kinds, lens = np.empty(0, dtype=np.int8), np.empty(0, dtype=np.int64)
        elif lc.size + rc.size < _ANCHOR_FROM:
            kinds, lens = _diff(lc, rc, left)
        else:
            sa, sb = _seeds_tabled(
                lc, spos[soff[a] : soff[a + 1]], svals[soff[a] : soff[a + 1]],
                rc, keys[koff[b] : koff[b + 1]], where[koff[b] : koff[b + 1]],
            )  # fmt: skip
            kinds, lens = _anchored(lc, rc, left, sa, sb)
        s, g, hk, lu, ru = _alignment_of(kinds, lens, lc, rc, la, ra, ls, le, rs, re, min_len, gap, budget, left)
        counts[p, 0], counts[p, 1], counts[p, 2] = s.shape[0], g.shape[0], hk.shape[0]
        counts[p, 3], counts[p, 4] = lu.shape[0], ru.shape[0]
        segs, ns = _put(segs, ns, s)
        regs, nr = _put(regs, nr, g)
        hunks, nh = _put(hunks, nh, hk)
        lus, nl = _put(lus, nl, lu)
        rus, nu = _put(rus, nu, ru)
        lengths[p, 0], lengths[p, 1] = lc.size, rc.size
        sampled[p] = _first_shared(lc, rhash[hoff[h] : hoff[h + 1]], k, base, limit, samples[p])
    return (counts, segs[:ns].copy(), regs[:nr].copy(), hunks[:nh].copy(), lus[:nl].copy(), rus[:nu].copy(),
            lengths, samples, sampled, ncp, noff)  # fmt: skip
