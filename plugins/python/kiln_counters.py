"""kiln_counters.py - libkiln's per-iteration counters for Python runners.

Used by the CPython and PyPy iteration runners (plugins/python/runner.py,
plugins/pypy/runner.py) through ctypes, so they record the same counters as
the C runner (cycles, instructions, task-clock, aperf/mperf, ...; see
docs/counters.md).  The shared library is found through $KILN_LIBKILN (the
absolute path of libkiln.so, set by kiln for every pexec).

    import kiln_counters
    ctr = kiln_counters.open()          # spec: None -> $KILN_COUNTERS
    ctr.names()                         # available counters, in order
    ctr.unavailable()                   # [(name, reason)], never zeros
    a = ctr.read(); run_iter(p); b = ctr.read()
    ctr.deltas(a, b)                    # [b[k] - a[k]] in counter order

and, to write the result stream (runner protocol v1) by hand, the header's
fields ctr.header_json() ('"counters":[...]' plus '"unavailable":[...]' when
some are missing) and an iteration's field ctr.iter_json(a, b)
(',"counters":[...]', or '' when no counter is available).

A runner that wants no Python object made per iteration (a new list is a
GC-tracked container, and enough of them start a collection, maybe inside a
later timed region) uses ctr.start() and ctr.stop() around the iteration,
which read into two buffers kept by ctr, then ctr.iter_json() with no
arguments.

When libkiln cannot be loaded every requested counter is reported
unavailable with the reason, exactly like a counter the machine lacks; a
spec that asks for nothing never loads the library.  read() calls into C
once and allocates only the list it returns: call it outside the timed
region, around the two clock reads.
"""
import ctypes
import json
import os

__all__ = ["open", "Counters"]

_MAX = 32          # libkiln never reports more available counters than this
_lib = None
_lib_error = None


def _load():
    """libkiln via ctypes, once; (lib, None) or (None, reason)."""
    global _lib, _lib_error
    if _lib is not None or _lib_error is not None:
        return _lib, _lib_error
    path = os.environ.get("KILN_LIBKILN")
    if not path:
        _lib_error = "libkiln not found (KILN_LIBKILN is not set)"
        return None, _lib_error
    try:
        lib = ctypes.CDLL(path)
    except OSError as e:
        _lib_error = "libkiln not loadable: %s" % e
        return None, _lib_error
    vp, cp, i = ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int
    lib.kiln_counters_open.argtypes = [cp]
    lib.kiln_counters_open.restype = vp
    for f in ("kiln_counters_count", "kiln_counters_unavailable_count"):
        getattr(lib, f).argtypes = [vp]
        getattr(lib, f).restype = i
    for f in ("kiln_counters_name", "kiln_counters_unavailable_name",
              "kiln_counters_unavailable_reason"):
        getattr(lib, f).argtypes = [vp, i]
        getattr(lib, f).restype = cp
    lib.kiln_counters_read.argtypes = [vp, ctypes.POINTER(ctypes.c_uint64)]
    lib.kiln_counters_read.restype = None
    lib.kiln_counters_close.argtypes = [vp]
    lib.kiln_counters_close.restype = None
    _lib = lib
    return lib, None


def _split(spec):
    return [t for t in spec.replace(" ", ",").replace("\t", ",").split(",") if t]


class Counters(object):
    """Counters opened from one spec; see the module's docstring."""

    def __init__(self, spec=None):
        if spec is None:
            spec = os.environ.get("KILN_COUNTERS", "")
        self._h = None
        self._names = []
        self._unav = []
        if not _split(spec):
            return
        lib, err = _load()
        if lib is None:
            self._unav = [(n, err) for n in _split(spec)]
            return
        h = lib.kiln_counters_open(spec.encode())
        if not h:
            self._unav = [(n, "libkiln: out of memory") for n in _split(spec)]
            return
        self._lib, self._h = lib, h
        n = lib.kiln_counters_count(h)
        self._names = [lib.kiln_counters_name(h, k).decode() for k in range(n)]
        self._unav = [(lib.kiln_counters_unavailable_name(h, k).decode(),
                       lib.kiln_counters_unavailable_reason(h, k).decode())
                      for k in range(lib.kiln_counters_unavailable_count(h))]
        self._buf = (ctypes.c_uint64 * max(n, 1))()
        self._a = (ctypes.c_uint64 * max(n, 1))()
        self._b = (ctypes.c_uint64 * max(n, 1))()
        self._read = lib.kiln_counters_read
        self._n = n

    def names(self):
        """The available counters' names, in the order read() returns them."""
        return list(self._names)

    def unavailable(self):
        """[(name, reason)] for every requested counter that is not counted."""
        return list(self._unav)

    def read(self):
        """The current raw values of the available counters (a list)."""
        if not self._names:
            return []
        self._read(self._h, self._buf)
        return self._buf[:self._n]

    def start(self):
        """Read the counters into the 'before' buffer (allocates nothing)."""
        if self._names:
            self._read(self._h, self._a)

    def stop(self):
        """Read the counters into the 'after' buffer (allocates nothing)."""
        if self._names:
            self._read(self._h, self._b)

    @staticmethod
    def deltas(before, after):
        """Per-counter differences of two read()s (counters only grow)."""
        return [b - a for a, b in zip(before, after)]

    def header_json(self):
        """The result-stream header's counter fields, without braces."""
        s = '"counters":' + json.dumps(self._names, separators=(",", ":"))
        if self._unav:
            s += ',"unavailable":' + json.dumps([n for n, _ in self._unav],
                                                separators=(",", ":"))
        return s

    def iter_json(self, before=None, after=None):
        """',"counters":[...]' for an iteration line, '' with no counters.

        Without arguments, the values of the last start() and stop()."""
        if not self._names:
            return ""
        if before is None:
            before, after = self._a[:self._n], self._b[:self._n]
        return ',"counters":[%s]' % ",".join(
            "%d" % (b - a) for a, b in zip(before, after))

    def close(self):
        if self._h is not None:
            self._lib.kiln_counters_close(self._h)
            self._h = None
            self._names = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def open(spec=None):  # noqa: A001 - the binding's documented name
    """Open the counters named in spec (None: $KILN_COUNTERS)."""
    return Counters(spec)
