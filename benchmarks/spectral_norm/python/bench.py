"""spectral_norm (Python) - power method on A(i,j) = 1/((i+j)(i+j+1)/2+i+1); see ../README.md.

Sums are plain loops in the same order as the other languages (not sum(),
whose float algorithm changed in CPython 3.12); checksum() is
floor(result * 1e9 + 0.5).
"""
import math

_result = 0.0


def _mul_av(n, v, out):
    for i in range(n):
        s = 0.0
        for j in range(n):
            s += 1.0 / ((i + j) * (i + j + 1) // 2 + i + 1) * v[j]
        out[i] = s


def _mul_atv(n, v, out):
    for i in range(n):
        s = 0.0
        for j in range(n):
            s += 1.0 / ((j + i) * (j + i + 1) // 2 + j + 1) * v[j]
        out[i] = s


def _mul_atav(n, v, out, tmp):
    _mul_av(n, v, tmp)
    _mul_atv(n, tmp, out)


def run_iter(param):
    global _result
    n = max(1, int(param))
    u = [1.0] * n
    v = [0.0] * n
    tmp = [0.0] * n
    for _ in range(10):
        _mul_atav(n, u, v, tmp)
        _mul_atav(n, v, u, tmp)
    vbv = 0.0
    vv = 0.0
    for i in range(n):
        vbv += u[i] * v[i]
        vv += v[i] * v[i]
    _result = math.sqrt(vbv / vv)


def checksum():
    return math.floor(_result * 1e9 + 0.5)
