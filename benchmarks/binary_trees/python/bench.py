"""binary_trees (Python) - allocate and walk many perfect binary trees; see ../README.md.

A node is a (left, right) tuple, a leaf is (None, None).  checksum() is the
sum of every check() (node count), as in the C version.
"""

_result = 0


def _make(d):
    if d == 0:
        return (None, None)
    d -= 1
    return (_make(d), _make(d))


def _check(t):
    left, right = t
    if left is None:
        return 1
    return 1 + _check(left) + _check(right)


def run_iter(param):
    global _result
    maxd = max(6, int(param))
    total = _check(_make(maxd + 1))
    longlived = _make(maxd)
    for d in range(4, maxd + 1, 2):
        for _ in range(1 << (maxd - d + 4)):
            total += _check(_make(d))
    total += _check(longlived)
    _result = total


def checksum():
    return _result
