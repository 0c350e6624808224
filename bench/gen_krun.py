#!/usr/bin/env python3
"""gen_krun.py KEYS PEXECS ITERATIONS CORES - a Krun results file as Krun's
writer lays it out (json.dumps(indent=1, sort_keys=True), times rounded to
six decimals as Krun's format_raw_exec_results does), on standard output,
for bench/import.sh.  Seeded: the same arguments give the same file."""
import json
import random
import sys

keys, pexecs, iters, cores = map(int, sys.argv[1:5])
rnd = random.Random(1)
wt, fl, eta, cc = {}, {}, {}, {}
for k in range(keys):
    key = "bench%d:vm%d:default-x" % (k % 1000, k // 1000)
    wt[key] = [[round(0.05 + rnd.random() * 1e-3, 6) for _ in range(iters)] for _ in range(pexecs)]
    fl[key] = ["C"] * pexecs
    eta[key] = [round(sum(p), 6) for p in wt[key]]
    cc[key] = [[[rnd.randrange(10 ** 9) for _ in range(iters)] for _ in range(cores)] for _ in range(pexecs)]
d = {"wallclock_times": wt, "pexec_flags": fl, "eta_estimates": eta, "core_cycle_counts": cc,
     "aperf_counts": cc, "mperf_counts": cc, "audit": {"uname": "Linux bencher 6.1.0 #1 SMP x86_64 GNU/Linux"},
     "config": "", "error_flag": False}
json.dump(d, sys.stdout, indent=1, sort_keys=True)
