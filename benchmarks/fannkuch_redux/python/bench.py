"""fannkuch_redux (Python) - pancake flips over all permutations; see ../README.md.

Same permutation order as the C version (count-vector generator), so the
alternating-sign checksum agrees; checksum() is sum * 100 + max_flips.
"""

_result = 0


def run_iter(param):
    global _result
    n = int(param)
    perm1 = list(range(n))
    count = [0] * n
    total = 0
    nperm = 0
    maxflips = 0
    r = n
    while True:
        while r != 1:
            count[r - 1] = r
            r -= 1
        perm = perm1[:]
        flips = 0
        k = perm[0]
        while k != 0:
            perm[:k + 1] = perm[k::-1]
            flips += 1
            k = perm[0]
        if flips > maxflips:
            maxflips = flips
        total += flips if nperm % 2 == 0 else -flips
        # next permutation
        while True:
            if r == n:
                _result = total * 100 + maxflips
                return
            p0 = perm1[0]
            for i in range(r):
                perm1[i] = perm1[i + 1]
            perm1[r] = p0
            count[r] -= 1
            if count[r] > 0:
                break
            r += 1
        nperm += 1


def checksum():
    return _result
