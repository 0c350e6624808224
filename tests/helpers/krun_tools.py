#!/usr/bin/env python3
"""krun_tools.py - what Krun and warmup_stats check in a Krun results file,
reproduced here because neither is installable on the test machines (Krun is
Python 2 with a patched kernel module; warmup_stats needs R packages built
from source).  The rules are theirs, restated from their code (Krun a0c8e5bf,
warmup_stats 41212e0), not copied:

  integrity   Krun's Results.integrity_check(), which Krun runs before every
              write and whose failure stops a session: every key has as many
              eta_estimates, core_cycle_counts, aperf_counts, mperf_counts and
              pexec_flags entries as wallclock_times pexecs; each pexec of each
              count field has exactly num_per_core_measurements core lists (one
              number for the whole file: the machine's cores), and each core
              list is as long as that pexec's wallclock_times.
  plot        warmup_stats' plotter names the machine audit["uname"].split(" ")[1]:
              uname must be a string of at least two words.
  r           warmup_stats hands each completed pexec's times to R's
              changepoint::cpt.meanvar (PELT, minimum segment length 2),
              which stops on a series shorter than 2 x 2 values or holding
              something that is not a finite number; a pexec that did not
              complete must be shaped as Krun writes one (flag E or T, no
              times, an empty list per core) so that it is left out.

Usage: krun_tools.py CHECK FILE...   (CHECK: integrity, plot, r, all)
Exit 0 when every file passes, 1 with the reasons otherwise.
"""
import bz2
import json
import math
import sys

COUNTS = ("core_cycle_counts", "aperf_counts", "mperf_counts")


def load(path):
    raw = open(path, "rb").read()
    if raw[:3] == b"BZh":
        raw = bz2.decompress(raw)
    return json.loads(raw)


def integrity(d):
    errs = []
    wct = d["wallclock_times"]
    cores = None
    for key in wct:
        n = len(wct[key])
        for f in ("eta_estimates",) + COUNTS + ("pexec_flags",):
            if f not in d or key not in d[f]:
                errs.append("%s: no %s entry" % (key, f))
            elif len(d[f][key]) != n:
                errs.append("inconsistent %s length: %s: %d vs %d" % (f, key, len(d[f][key]), n))
        for i in range(n):
            iters = len(wct[key][i])
            for f in COUNTS:
                if f not in d or key not in d[f] or i >= len(d[f][key]):
                    continue
                per = d[f][key][i]
                if cores is None:
                    cores = len(per)
                if len(per) != cores:
                    errs.append("wrong #cores in %s: %s[%d]: %d vs %d" % (f, key, i, cores, len(per)))
                for c, core in enumerate(per):
                    if len(core) != iters:
                        errs.append("inconsistent #iters in %s: %s[%d][%d]. %d vs %d"
                                    % (f, key, i, c, len(core), iters))
    return errs


def plot(d):
    u = d.get("audit", {}).get("uname")
    if not isinstance(u, str):
        return ["audit.uname is %s, not a string: the plotter's .split(' ') fails" % type(u).__name__]
    if len(u.split(" ")) < 2:
        return ["audit.uname '%s' has no second word for the machine's name" % u]
    return []


def r(d):
    errs = []
    for key, pexecs in d["wallclock_times"].items():
        flags = d.get("pexec_flags", {}).get(key, ["C"] * len(pexecs))
        for i, p in enumerate(pexecs):
            f = flags[i] if i < len(flags) else None
            if f == "C":
                if len(p) < 4:
                    errs.append("%s[%d]: %d values: cpt.meanvar stops (minimum segment length 2)" % (key, i, len(p)))
                elif not all(isinstance(v, (int, float)) and math.isfinite(v) for v in p):
                    errs.append("%s[%d]: a value that is not a finite number" % (key, i))
            elif f in ("E", "T"):
                if p:
                    errs.append("%s[%d]: flag %s with times: Krun keeps none" % (key, i, f))
                for c in COUNTS:
                    per = d.get(c, {}).get(key, [])
                    if i < len(per) and any(len(core) for core in per[i]):
                        errs.append("%s[%d]: flag %s with %s" % (key, i, f, c))
            else:
                errs.append("%s[%d]: flag %r is not C, E or T" % (key, i, f))
    return errs


def main():
    check, files = sys.argv[1], sys.argv[2:]
    which = {"integrity": [integrity], "plot": [plot], "r": [r], "all": [integrity, plot, r]}[check]
    bad = 0
    for path in files:
        d = load(path)
        for fn in which:
            for e in fn(d):
                print("%s: %s: %s" % (path, fn.__name__, e))
                bad = 1
    sys.exit(bad)


if __name__ == "__main__":
    main()
