#!/usr/bin/env python3
"""check_runner.py - checks what one iteration runner wrote, for the e2e tests.

    check_runner.py --stream OUT.jsonl --n N --instr-dir DIR --plugin NAME
                    [--checksum X] [--instrumented] [--nonzero SERIES]...
                    [--variant V]

The result stream must be protocol v1: a header {"kiln":1,"clock":str,
"counters":[]}, exactly N lines {"i":0..N-1,"wall_ns":>0} in order, and
{"done":true} last.  Every line carries the iteration's window: start_ns and
end_ns with end_ns - start_ns == wall_ns, one window after the other, read
from the clock the header names (the last end is at most 10 minutes before
this script reads that clock, and not after it), and cpu_ns, the process's
CPU time, a non-negative integer no larger than the wall time on every CPU
plus 20 ms (node counts microseconds, HotSpot sums its threads).  DIR/runner.kiln.jsonl must hold the per-pexec checksum
record (equal to X when given).  With --instrumented, DIR/<plugin>.kiln.jsonl
must hold, for each series the plugin promises (SERIES below), exactly one
record per iteration with a plausible value: non-negative, integral for
counts, in the declared unit, and for GC/JIT times no more than that
iteration's wall time.  --nonzero names series whose sum over all iterations
must be positive (the test picks a benchmark that makes the VM do it).
--variant names the plugin's variant: its JIT series are then required
(ruby yjit, php tracing/function) or refused (ruby interp, php interp and
jit-off).  Without --instrumented the plugin file must not exist.  Exits 1 with the
reasons on stderr.
"""
import argparse
import json
import os
import sys
import time

CLOCKS = {"monotonic": time.CLOCK_MONOTONIC, "monotonic_raw": time.CLOCK_MONOTONIC_RAW}

# series: (unit or None, kind) - kind "time" is bounded by the wall time,
# "ctime" is time spent by threads running beside the benchmark (HotSpot's
# compilers), so only non-negative, "count" must be integral, "bytes"
# positive and integral
SERIES = {
    "python": {"gc.time": ("s", "time"), "gc.count": (None, "count"),
               "python.gc.collected": (None, "count"), "python.allocated_blocks": (None, "count"),
               "rss": ("bytes", "bytes")},
    "lua": {"heap": ("bytes", "bytes"), "gc.count": (None, "count")},
    "luajit": {"heap": ("bytes", "bytes"), "gc.count": (None, "count"),
               "jit.traces_started": (None, "count"), "jit.traces_completed": (None, "count"),
               "jit.traces_aborted": (None, "count"), "luajit.trace_time": ("s", "time")},
    "node": {"gc.time": ("s", "time"), "gc.count": (None, "count"), "heap": ("bytes", "bytes"),
             **{"gc.%s.%s" % (k, f): (("s", "time") if f == "time" else (None, "count"))
                for k in ("minor", "major", "incremental", "weakcb") for f in ("time", "count")}},
    "pypy": {},  # its records come from PYPYLOG through kiln's parser (tests/e2e/30-pypy.sh)
    "java": {"gc.time": ("s", "time"), "gc.count": (None, "count"), "jit.time": ("s", "ctime"),
             "heap": ("bytes", "bytes")},
    "ruby": {"gc.time": ("s", "time"), "gc.count": (None, "count"), "ruby.gc.minor_count": (None, "count"),
             "ruby.gc.major_count": (None, "count"), "ruby.allocated_objects": (None, "count"),
             "heap": ("bytes", "bytes"), "rss": ("bytes", "bytes")},
    "jruby": {"gc.time": ("s", "time"), "gc.count": (None, "count"), "jit.time": ("s", "ctime"),
              "heap": ("bytes", "bytes"), "jruby.jit.compiled": (None, "count"),
              "jruby.jit.failed": (None, "count"), "jruby.jit.bytecode_added": ("bytes", "count")},
    "php": {"gc.count": (None, "count"), "php.gc.collected": (None, "count"), "php.gc.roots": (None, "count"),
            "heap": ("bytes", "bytes")},
}
# series only a variant records (--variant): YJIT's code, opcache's JIT buffer
JIT_CODE = {"jit.code_size": ("bytes", "bytes"), "jit.code_added": ("bytes", "count")}
VARIANT_SERIES = {("ruby", "yjit"): JIT_CODE, ("php", "tracing"): JIT_CODE, ("php", "function"): JIT_CODE}
# series a variant must not record (the JIT is off)
VARIANT_ABSENT = {("ruby", "interp"): JIT_CODE, ("php", "interp"): JIT_CODE, ("php", "jit-off"): JIT_CODE}
# HotSpot's beans count whole milliseconds: a sub-millisecond pause can show as 1 ms
TIME_SLACK = {"java": 0.0015, "jruby": 0.0015}
JVM = ("java", "jruby")

errors = []


def err(msg):
    errors.append(msg)


def read_jsonl(path):
    out = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            try:
                out.append(json.loads(line))
            except ValueError as ex:
                err("%s:%d: not JSON (%s): %r" % (path, n, ex, line[:80]))
    return out


def check_stream(path, n):
    lines = read_jsonl(path)
    if not lines:
        err("%s: empty result stream" % path)
        return []
    h = lines[0]
    if not (isinstance(h, dict) and h.get("kiln") == 1 and isinstance(h.get("clock"), str)
            and isinstance(h.get("counters"), list)):
        err("%s: bad header %r" % (path, h))
    iters = lines[1:]
    if lines[-1] != {"done": True}:
        err("%s: last line is %r, not {\"done\":true}" % (path, lines[-1]))
    else:
        iters = lines[1:-1]
    if len(iters) != n:
        err("%s: %d iteration lines, expected %d" % (path, len(iters), n))
    walls = []
    for k, it in enumerate(iters):
        if not isinstance(it, dict) or it.get("i") != k:
            err("%s: iteration line %d has index %r" % (path, k, it.get("i") if isinstance(it, dict) else it))
            continue
        w = it.get("wall_ns")
        if not isinstance(w, int) or isinstance(w, bool) or w <= 0:
            err("%s: iteration %d: bad wall_ns %r" % (path, k, w))
        walls.append(w if isinstance(w, int) else 0)
    check_windows(path, h.get("clock") if isinstance(h, dict) else None,
                  [it for it in iters if isinstance(it, dict)])
    return walls


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def check_windows(path, clock, iters):
    """start_ns/end_ns/cpu_ns on every iteration line, in the header's clock"""
    if clock not in CLOCKS:
        err("%s: header clock %r: monotonic or monotonic_raw expected" % (path, clock))
        return
    now = time.clock_gettime_ns(CLOCKS[clock])
    prev_end = None
    for it in iters:
        k, s, e, w, c = it.get("i"), it.get("start_ns"), it.get("end_ns"), it.get("wall_ns"), it.get("cpu_ns")
        if not (is_int(s) and is_int(e) and 0 <= s <= e):
            err("%s: iteration %r: no window (start_ns %r, end_ns %r)" % (path, k, s, e))
            continue
        if is_int(w) and e - s != w:
            err("%s: iteration %r: end_ns - start_ns = %d, wall_ns = %d" % (path, k, e - s, w))
        if prev_end is not None and s < prev_end:
            err("%s: iteration %r starts at %d, before the previous one ended (%d)" % (path, k, s, prev_end))
        prev_end = e
        if not (is_int(c) and 0 <= c <= (w if is_int(w) else 0) * os.cpu_count() + 20000000):
            err("%s: iteration %r: cpu_ns %r is not the CPU time of a %r ns iteration" % (path, k, c, w))
    if prev_end is not None and not now - 600 * 10**9 <= prev_end <= now:
        err("%s: the last iteration ended at %d, which is not a recent time of clock %s (now %d)"
            % (path, prev_end, clock, now))


def check_instr(path, plugin, walls, nonzero, variant=None):
    recs = read_jsonl(path)
    spec = dict(SERIES[plugin], **VARIANT_SERIES.get((plugin, variant), {}))
    for name in VARIANT_ABSENT.get((plugin, variant), {}):
        if any(r.get("name") == name for r in recs):
            err("%s: series %s recorded although variant %s has no JIT" % (path, name, variant))
    seen = {}
    for r in recs:
        name = r.get("name")
        if name in spec or ("i" in r and plugin in JVM and name.startswith("gc.")):
            seen.setdefault(name, {})
            i = r.get("i")
            if not isinstance(i, int) or not 0 <= i < len(walls):
                err("%s: record %r has a bad iteration index" % (path, r))
                continue
            if i in seen[name]:
                err("%s: two %s records for iteration %d" % (path, name, i))
            seen[name][i] = r
    for name, (unit, kind) in spec.items():
        got = seen.get(name, {})
        if len(got) != len(walls):
            err("%s: series %s has %d of %d iterations" % (path, name, len(got), len(walls)))
        for i, r in got.items():
            v = r.get("value")
            if not isinstance(v, (int, float)) or isinstance(v, bool) or v < 0:
                err("%s: %s[%d] = %r is not a non-negative number" % (path, name, i, v))
                continue
            if r.get("unit") != unit:
                err("%s: %s has unit %r, expected %r" % (path, name, r.get("unit"), unit))
            if kind in ("count", "bytes") and v != int(v):
                err("%s: %s[%d] = %r is not integral" % (path, name, i, v))
            if kind == "bytes" and v <= 0:
                err("%s: %s[%d] = %r bytes" % (path, name, i, v))
            if kind == "time" and v > walls[i] / 1e9 + TIME_SLACK.get(plugin, 0):
                err("%s: %s[%d] = %.6f s exceeds the iteration's wall time %.6f s"
                    % (path, name, i, v, walls[i] / 1e9))
    # per-collector JVM series sum to the totals
    if plugin in JVM:
        per = [n for n in seen if n.startswith("gc.") and n.count(".") == 2]
        if not per:
            err("%s: no per-collector gc.<collector>.* series" % path)
        for i in range(len(walls)):
            tot = sum(seen[n][i]["value"] for n in per if n.endswith(".count") and i in seen[n])
            if "gc.count" in seen and i in seen["gc.count"] and tot != seen["gc.count"][i]["value"]:
                err("%s: per-collector counts of iteration %d sum to %r, gc.count is %r"
                    % (path, i, tot, seen["gc.count"][i]["value"]))
    for name in nonzero:
        total = sum(r.get("value", 0) for r in seen.get(name, {}).values())
        if not total > 0:
            err("%s: series %s is zero in every iteration" % (path, name))
    return seen


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--stream", required=True)
    ap.add_argument("--n", type=int, required=True)
    ap.add_argument("--instr-dir", required=True)
    ap.add_argument("--plugin", required=True, choices=sorted(SERIES))
    ap.add_argument("--checksum", type=int)
    ap.add_argument("--instrumented", action="store_true")
    ap.add_argument("--nonzero", action="append", default=[])
    ap.add_argument("--variant")
    a = ap.parse_args()

    walls = check_stream(a.stream, a.n)
    rpath = os.path.join(a.instr_dir, "runner.kiln.jsonl")
    if not os.path.exists(rpath):
        err("%s is missing" % rpath)
    else:
        ck = [r for r in read_jsonl(rpath) if r.get("name") == "checksum"]
        if len(ck) != 1 or not isinstance(ck[0].get("value"), int) or "i" in ck[0]:
            err("%s: expected one per-pexec integer checksum record, got %r" % (rpath, ck))
        elif a.checksum is not None and ck[0]["value"] != a.checksum:
            err("%s: checksum %r, expected %r" % (rpath, ck[0]["value"], a.checksum))
    ipath = os.path.join(a.instr_dir, a.plugin + ".kiln.jsonl")
    if a.instrumented:
        if not os.path.exists(ipath):
            err("%s is missing" % ipath)
        elif walls:
            check_instr(ipath, a.plugin, walls, a.nonzero, a.variant)
    elif os.path.exists(ipath):
        err("%s exists although KILN_INSTRUMENT was not set" % ipath)
    for e in errors:
        print("check_runner: " + e, file=sys.stderr)
    sys.exit(1 if errors else 0)


if __name__ == "__main__":
    main()
