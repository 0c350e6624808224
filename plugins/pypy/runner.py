"""runner.py - the iteration runner of kiln's pypy plugin (runner protocol v1).

    pypy3 [VM ARGS] runner.py BENCH.py

Loads BENCH.py (a module with run_iter(param) and, optionally, checksum()),
checks that run_iter is there (KILN_PROBE=1: only that, then one line saying
which PyPy runs it, docs/protocol.md), then runs
KILN_ITERATIONS iterations of run_iter(KILN_PARAM), each timed on its own with
CLOCK_MONOTONIC_RAW; the line for an iteration (its window, the two clock
reads, and the process CPU time read just outside them) is written to
KILN_RESULT_FD only after its clock has stopped.  With KILN_INSTRUMENT=1 (PYPYLOG set by the
plugin) each iteration is also wrapped in a "kiln-iter" debug section, inside
the timed region, so PyPy's log marks iteration boundaries in its own clock,
and the runner records a calibration (PyPy log ticks against the stream's
clock) in KILN_INSTR_DIR/calibration.json for the parser.  After the last
iteration the benchmark's checksum goes to KILN_INSTR_DIR/runner.kiln.jsonl
as a generic per-pexec record.  Hardware counters (KILN_COUNTERS) are read
through libkiln with plugins/python/kiln_counters.py, outside the two clock
reads.  Under kiln profile (KILN_PROFILE=1; the plugin has PyPy log its JIT
backend's addresses and code) the runner maps an empty jitdump named after
its pid, executable, so that perf records where it is, and writes the
calibration too: kiln turns the log into that jitdump afterwards.  Nothing but the benchmark (and, instrumented, the two debug calls)
runs between the two clock reads.
"""
import importlib.util
import json
import os
import sys
import time

# nothing is written beside the benchmark's sources (its __pycache__): they may be someone else's checkout
sys.dont_write_bytecode = True


def _param(s):
    """KILN_PARAM as the benchmark expects it: an int or float when it is one."""
    for conv in (int, float):
        try:
            return conv(s)
        except ValueError:
            pass
    return s


def _load(path):
    d = os.path.dirname(os.path.abspath(path))
    if d not in sys.path:
        sys.path.insert(0, d)
    spec = importlib.util.spec_from_file_location("kiln_bench", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _write_all(fd, data):
    while data:
        n = os.write(fd, data)
        data = data[n:]


def _line(i, t0, t1, cpu_ns, extra):
    """One iteration's line of the result stream: window, wall and CPU time, counters."""
    return b'{"i":%d,"wall_ns":%d,"start_ns":%d,"end_ns":%d,"cpu_ns":%d%s}\n' % (
        i, t1 - t0, t0, t1, cpu_ns, extra.encode())


def _calib_pair(ts, clock, clk):
    """One [tick, ns] pair: the tick is the midpoint of two reads around the clock read."""
    t0 = ts()
    ns = clock(clk)
    t1 = ts()
    return [(t0 + t1) // 2, ns]


class _NoCounters(object):
    """Stands in when the binding cannot be imported: every counter asked for is unavailable."""

    def __init__(self, why):
        self._unav = [n for n in os.environ.get("KILN_COUNTERS", "").replace(" ", ",").split(",") if n]
        if self._unav:
            sys.stderr.write("runner.py: counters unavailable: %s\n" % why)

    def read(self):
        return []

    def header_json(self):
        s = '"counters":[]'
        if self._unav:
            s += ',"unavailable":' + json.dumps(self._unav, separators=(",", ":"))
        return s

    def iter_json(self, a, b):
        return ""

    def close(self):
        pass


def _counters():
    """libkiln's counters (KILN_COUNTERS) through the python plugin's ctypes binding."""
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, os.path.join(os.path.dirname(here), "python"))
    try:
        import kiln_counters
    except ImportError as ex:
        return _NoCounters(ex)
    finally:
        del sys.path[0]
    return kiln_counters.open()


def _jitdump_marker():
    """kiln profile: jit-PID.dump in the working folder, a jitdump header only,
    mapped executable so that perf's recording names it (perf inject --jit
    reads the file kiln writes there afterwards)."""
    import mmap
    import struct
    pid = os.getpid()
    try:
        fd = os.open("jit-%d.dump" % pid, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o644)
        os.write(fd, struct.pack("=IIIIIIQQ", 0x4A695444, 1, 40, 62, 0, pid, 0, 0))
        return mmap.mmap(fd, 40, flags=mmap.MAP_PRIVATE, prot=mmap.PROT_READ | mmap.PROT_EXEC)
    except (OSError, ValueError, mmap.error) as ex:
        sys.stderr.write("runner.py: no jitdump marker for kiln profile: %s\n" % ex)
        return None


def _json_number(v):
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, int):
        return v if -(1 << 63) <= v < (1 << 63) else float(v)
    if isinstance(v, float):
        return v if v == v and abs(v) != float("inf") else None
    return None


def main():
    if len(sys.argv) != 2:
        sys.stderr.write("usage: runner.py BENCH.py (run by kiln with the KILN_* variables)\n")
        return 2
    try:
        iters = int(os.environ["KILN_ITERATIONS"])
        fd = int(os.environ["KILN_RESULT_FD"])
    except (KeyError, ValueError) as ex:
        sys.stderr.write("runner.py: KILN_ITERATIONS and KILN_RESULT_FD must be set: %s\n" % ex)
        return 2
    param = _param(os.environ.get("KILN_PARAM", "0"))
    instr_dir = os.environ.get("KILN_INSTR_DIR") or None
    instrument = os.environ.get("KILN_INSTRUMENT") == "1"
    profile = os.environ.get("KILN_PROFILE") == "1"
    marker = _jitdump_marker() if profile else None

    mod = _load(sys.argv[1])
    if not callable(getattr(mod, "run_iter", None)):
        sys.stderr.write("runner.py: %s defines no run_iter()\n" % sys.argv[1])
        return 1
    run_iter = mod.run_iter
    if os.environ.get("KILN_PROBE") == "1":
        # kiln's probe before the first pexec: checked, nothing run (docs/protocol.md)
        try:
            exe = os.readlink("/proc/self/exe")
        except OSError:
            exe = sys.executable
        _write_all(fd, (json.dumps({"kiln": 1, "probe": True, "version": sys.version,
                                    "executable": exe}) + "\n").encode())
        return 0
    clock = time.clock_gettime_ns
    clk = time.CLOCK_MONOTONIC_RAW
    cpu = time.process_time_ns

    if instrument or profile:
        import __pypy__
        dstart = __pypy__.debug_start
        dstop = __pypy__.debug_stop
        ts = __pypy__.debug_read_timestamp
        pairs = [_calib_pair(ts, clock, clk)]

    ctr = _counters()
    read = ctr.read
    _write_all(fd, ('{"kiln":1,"clock":"monotonic_raw",%s}\n' % ctr.header_json()).encode())
    if instrument:
        for i in range(iters):
            c0 = cpu()
            a = read()
            t0 = clock(clk)
            dstart("kiln-iter")
            run_iter(param)
            dstop("kiln-iter")
            t1 = clock(clk)
            b = read()
            c1 = cpu()
            _write_all(fd, _line(i, t0, t1, c1 - c0, ctr.iter_json(a, b)))
    else:
        for i in range(iters):
            c0 = cpu()
            a = read()
            t0 = clock(clk)
            run_iter(param)
            t1 = clock(clk)
            b = read()
            c1 = cpu()
            _write_all(fd, _line(i, t0, t1, c1 - c0, ctr.iter_json(a, b)))
    ctr.close()

    if instr_dir:
        if instrument or profile:
            # a span of at least 10 ms keeps the pairs' read skew below 1e-5
            while clock(clk) - pairs[0][1] < 10000000:
                time.sleep(0.002)
            pairs.append(_calib_pair(ts, clock, clk))
            with open(os.path.join(instr_dir, "calibration.json"), "w") as f:
                json.dump({"clock": "monotonic_raw", "tick_unit": __pypy__.debug_get_timestamp_unit(),
                           "pairs": pairs}, f)
                f.write("\n")
        cs = _json_number(mod.checksum()) if hasattr(mod, "checksum") else None
        if cs is not None:
            with open(os.path.join(instr_dir, "runner.kiln.jsonl"), "w") as f:
                f.write(json.dumps({"name": "checksum", "value": cs}) + "\n")
    _write_all(fd, b'{"done":true}\n')
    os.close(fd)
    del marker  # mapped until here, like the JIT's code
    return 0


if __name__ == "__main__":
    sys.exit(main())
