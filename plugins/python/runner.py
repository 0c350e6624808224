"""runner.py - kiln's iteration runner for CPython (the `python` plugin).

    python3 [VM args] runner.py BENCH.py

Loads BENCH.py (a module with run_iter(param) and checksum(), both checked
before the first iteration; with KILN_LAYOUT=krun, a benchmark written for
Krun, checksum() is optional: Krun's benchmarks check their own results and
define only a top-level run_iter(param), which Krun's runner calls), then runs
KILN_ITERATIONS iterations of run_iter(KILN_PARAM), timing each with
CLOCK_MONOTONIC_RAW, and writes the result stream (runner protocol v1) to the
file descriptor KILN_RESULT_FD: a header, one line per iteration written after
its clock stopped (its window, the two clock reads, and the process CPU time
read just outside them), then {"done": true}.  Nothing but the call and two
clock reads happens inside the timed region.

After the last iteration it writes the benchmark's checksum to
KILN_INSTR_DIR/runner.kiln.jsonl.  With KILN_INSTRUMENT=1 it also records,
per iteration, the time spent in the cyclic GC and the number of collections
(gc.callbacks; the callback itself is the only code added to the timed
region), objects collected, allocated blocks and RSS, kept in memory and
written to KILN_INSTR_DIR/python.kiln.jsonl at the end.

With KILN_PROBE=1 (kiln's probe before the first pexec, docs/protocol.md) it
loads and checks the benchmark, writes one line saying which Python runs it
and exits without running an iteration.
"""
import gc
import importlib.util
import json
import os
import sys
import time

# nothing is written beside the benchmark's sources (its __pycache__): they may be someone else's checkout
sys.dont_write_bytecode = True


def env(name):
    v = os.environ.get(name)
    if v is None:
        sys.exit("kiln python runner: %s is not set" % name)
    return v


if hasattr(time, "CLOCK_MONOTONIC_RAW"):
    CLOCK_NAME = "monotonic_raw"
    _clk = time.CLOCK_MONOTONIC_RAW

    def now():
        return time.clock_gettime_ns(_clk)
else:
    CLOCK_NAME = "monotonic"
    now = time.monotonic_ns
cpu = time.process_time_ns  # CLOCK_PROCESS_CPUTIME_ID: all threads


class GCMeter:
    """Sums GC pauses reported by gc.callbacks into the current iteration."""

    def __init__(self):
        self.time_ns = 0
        self.count = 0
        self.collected = 0
        self._start = 0

    def callback(self, phase, info):
        if phase == "start":
            self._start = now()
        else:
            self.time_ns += now() - self._start
            self.count += 1
            self.collected += info.get("collected", 0)

    def take(self):
        r = (self.time_ns, self.count, self.collected)
        self.time_ns = self.count = self.collected = 0
        return r


def rss_bytes():
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


def load(path):
    spec = importlib.util.spec_from_file_location("kiln_bench", path)
    if spec is None:
        sys.exit("kiln python runner: cannot load %s" % path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def entry_points(bench, path):
    """run_iter and checksum (None: a Krun benchmark's, which has none)."""
    krun = os.environ.get("KILN_LAYOUT") == "krun"
    want = ("run_iter",) if krun else ("run_iter", "checksum")
    missing = [f for f in want if not callable(getattr(bench, f, None))]
    if missing:
        hint = "" if krun or "run_iter" in missing else \
            " (a benchmark written for Krun has none: give it layout: krun in the config)"
        sys.exit("kiln python runner: %s defines no %s()%s" % (path, " and no ".join(missing), hint))
    checksum = getattr(bench, "checksum", None)
    return bench.run_iter, checksum if callable(checksum) else None


def probe(fd):
    """KILN_PROBE=1: the benchmark loaded and checked; say what runs it, run nothing."""
    try:
        exe = os.readlink("/proc/self/exe")
    except OSError:
        exe = sys.executable
    os.write(fd, (json.dumps({"kiln": 1, "probe": True, "version": sys.version,
                              "executable": exe}) + "\n").encode())


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: runner.py BENCH.py")
    try:
        iters = int(env("KILN_ITERATIONS"))
        param = int(env("KILN_PARAM"))
        fd = int(env("KILN_RESULT_FD"))
    except ValueError as ex:
        sys.exit("kiln python runner: KILN_ITERATIONS, KILN_PARAM and KILN_RESULT_FD "
                 "must be integers (%s)" % ex)
    instr_dir = os.environ.get("KILN_INSTR_DIR")
    instrument = os.environ.get("KILN_INSTRUMENT") == "1"
    run_iter, checksum = entry_points(load(sys.argv[1]), sys.argv[1])
    if os.environ.get("KILN_PROBE") == "1":
        probe(fd)
        return

    meter = None
    samples = []
    if instrument and not hasattr(gc, "callbacks"):
        print("kiln python runner: this Python has no gc.callbacks (PyPy? use the pypy "
              "plugin): no GC records", file=sys.stderr)
    elif instrument:
        meter = GCMeter()
        gc.callbacks.append(meter.callback)

    # libkiln's counters (KILN_COUNTERS) through ctypes: read into fixed
    # buffers just outside the clock reads, so nothing is allocated there
    ctr = None
    if os.environ.get("KILN_COUNTERS"):
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import kiln_counters
        ctr = kiln_counters.open()
    head = ctr.header_json() if ctr is not None else '"counters":[]'
    os.write(fd, b'{"kiln":1,"clock":"%s",%s}\n' % (CLOCK_NAME.encode(), head.encode()))
    for i in range(iters):
        if meter is not None:
            meter.take()  # collections between iterations are not counted
        c0 = cpu()
        if ctr is not None:
            ctr.start()
        t0 = now()
        run_iter(param)
        t1 = now()
        if ctr is not None:
            ctr.stop()
        c1 = cpu()
        if meter is not None:
            gc_sample = meter.take()
        extra = ctr.iter_json().encode() if ctr is not None else b""
        os.write(fd, b'{"i":%d,"wall_ns":%d,"start_ns":%d,"end_ns":%d,"cpu_ns":%d%s}\n'
                 % (i, t1 - t0, t0, t1, c1 - c0, extra))
        if meter is not None:
            samples.append(gc_sample + (sys.getallocatedblocks(), rss_bytes()))
    if meter is not None:
        gc.callbacks.remove(meter.callback)

    if instr_dir:
        with open(os.path.join(instr_dir, "runner.kiln.jsonl"), "a") as f:
            if checksum is not None:
                f.write(json.dumps({"name": "checksum", "value": checksum()}) + "\n")
        if meter is not None:
            with open(os.path.join(instr_dir, "python.kiln.jsonl"), "a") as f:
                for i, (gc_ns, count, collected, blocks, rss) in enumerate(samples):
                    recs = [{"name": "gc.time", "value": gc_ns / 1e9, "unit": "s"},
                            {"name": "gc.count", "value": count},
                            {"name": "python.gc.collected", "value": collected},
                            {"name": "python.allocated_blocks", "value": blocks}]
                    if rss is not None:
                        recs.append({"name": "rss", "value": rss, "unit": "bytes"})
                    for r in recs:
                        f.write(json.dumps(dict(i=i, **r)) + "\n")
    os.write(fd, b'{"done":true}\n')


if __name__ == "__main__":
    main()
