#!/usr/bin/env python3
"""check_pyperf.py FILE [FILE2] - does FILE load as pyperf loads a results
file (pyperf is not packaged in Debian 12, so its rules are checked here as
its documentation and loader state them), and, given FILE2, what would
`pyperf compare_to FILE FILE2` compare: prints "NAME MEAN1 MEAN2" per
benchmark both have.  Exits 1 naming the first rule broken.

The rules (pyperf 2.x, file format "1.0"): the top level has version "1.0"
and a non-empty list "benchmarks"; metadata (suite, benchmark, run, a run's
overriding its benchmark's overriding the suite's) maps names to int, float
or str values, strings non-empty once stripped and without newlines, and
the known names have their types (loops, inner_loops: int >= 1;
mem_max_rss: int >= 0; duration, uptime: number >= 0; unit: second, byte
or integer; date, boot_time: str); a benchmark has a non-empty list of
runs, and a name in its first run's metadata, unique in the file; a run
has values (numbers > 0) or warmups ([loops int >= 1, value number >= 0])
or both; every run of a benchmark agrees on name, unit and inner_loops.
"""
import gzip
import json
import math
import statistics
import sys

KNOWN = {
    "loops": ("int", 1), "inner_loops": ("int", 1), "mem_max_rss": ("int", 0),
    "command_max_rss": ("int", 0), "duration": ("num", 0), "uptime": ("num", 0),
    "date": ("str", None), "boot_time": ("str", None), "unit": ("unit", None),
}
CHECKED = ("name", "unit", "inner_loops")


def fail(msg):
    print("check_pyperf: " + msg, file=sys.stderr)
    sys.exit(1)


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def is_num(v):
    return (is_int(v) or isinstance(v, float)) and math.isfinite(v)


def check_meta(where, md):
    if not isinstance(md, dict):
        fail(where + ": metadata is not an object")
    for k, v in md.items():
        if not (is_int(v) or isinstance(v, (float, str))):
            fail("%s: metadata %r: type %s" % (where, k, type(v).__name__))
        if isinstance(v, str) and (not v.strip() or "\n" in v or "\r" in v):
            fail("%s: metadata %r: empty or multi-line string" % (where, k))
        kind, low = KNOWN.get(k, (None, None))
        if kind == "int" and not (is_int(v) and v >= low):
            fail("%s: metadata %r must be an int >= %d" % (where, k, low))
        if kind == "num" and not (is_num(v) and v >= low):
            fail("%s: metadata %r must be a number >= 0" % (where, k))
        if kind == "str" and not isinstance(v, str):
            fail("%s: metadata %r must be a string" % (where, k))
        if kind == "unit" and v not in ("second", "byte", "integer"):
            fail("%s: unit %r" % (where, v))


def load(path):
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rt", encoding="utf-8") as f:
        d = json.load(f)
    if d.get("version") != "1.0":
        fail("%s: version %r, not \"1.0\"" % (path, d.get("version")))
    suite = d.get("metadata", {})
    check_meta(path + ": suite", suite)
    benchs = d.get("benchmarks")
    if not isinstance(benchs, list) or not benchs:
        fail(path + ": benchmarks: not a non-empty list")
    means = {}
    for bi, b in enumerate(benchs):
        where = "%s: benchmarks[%d]" % (path, bi)
        bmd = b.get("metadata", {})
        check_meta(where, bmd)
        runs = b.get("runs")
        if not isinstance(runs, list) or not runs:
            fail(where + ": runs: not a non-empty list")
        first = None
        values = []
        for ri, r in enumerate(runs):
            rw = "%s.runs[%d]" % (where, ri)
            rmd = r.get("metadata", {})
            check_meta(rw, rmd)
            md = dict(suite, **bmd)
            md.update(rmd)
            vals = r.get("values", [])
            warm = r.get("warmups", [])
            if not vals and not warm:
                fail(rw + ": neither values nor warmups")
            for v in vals:
                if not (is_num(v) and v > 0):
                    fail(rw + ": a value is not a number > 0: %r" % (v,))
            for w in warm:
                if not (isinstance(w, list) and len(w) == 2 and is_int(w[0]) and w[0] >= 1
                        and is_num(w[1]) and w[1] >= 0):
                    fail(rw + ": a warmup is not [loops, value]: %r" % (w,))
            sig = tuple(md.get(k) for k in CHECKED)
            if first is None:
                if not md.get("name"):
                    fail(rw + ": the first run has no name")
                first = sig
            elif sig != first:
                fail(rw + ": metadata %r differs from the first run's" % (CHECKED,))
            values.extend(vals)
        name = first[0]
        if name in means:
            fail("%s: benchmark %r twice" % (path, name))
        means[name] = (statistics.mean(values) if values else None, len(values))
    return means


def main():
    a = load(sys.argv[1])
    if len(sys.argv) > 2:
        b = load(sys.argv[2])
        for name in a:
            if name in b and a[name][0] and b[name][0]:
                print("%s %.17g %.17g" % (name, a[name][0], b[name][0]))
    else:
        for name, (mean, n) in a.items():
            print("%s %s %d" % (name, "%.17g" % mean if mean else "-", n))


main()
