#!/usr/bin/env python3
"""tally.py - bench/live.sh's arithmetic: read what one comparison said
(kiln compare --json, kiln bench's summary, kiln diff --json) into a line of
a table, and at the end turn the tables into rates with their exact
binomial (Clopper-Pearson) 95% intervals and the ROW lines of make bench.

  tally.py compare JSON TRUTH      one line: TRUTH VERDICT RATIO LO HI MDE ROUNDS CPU-PRESSURE
  tally.py bench TEXT SLOWER       one line from kiln bench's summary (SLOWER: the truly
                                   slower command's name, or "-" for A/A)
  tally.py diff JSON               one line: VERDICT SOURCE SD (kiln diff's, of the one key; SOURCE:
                                   where its session sd SD came from, measured/assumed/option)
  tally.py warm JSON TRUTH         one line: TRUTH WARM-VERDICT (kiln compare --json's warm-up
                                   verdict of its one benchmark: longer, shorter, costs-more,
                                   costs-less, class, same, or none when it gave none)
  tally.py rows DIR SCALE          the ROW lines from DIR's tables
"""
import json
import math
import os
import re
import sys


def verdict_of(d):
    b = d["benchmarks"][0]
    v = {"slower": "slower", "faster": "faster"}.get(b["verdict"], "none" if b["verdict"] == "no verdict" else "same")
    f = lambda x: "nan" if x is None or x == "inf" else "%.6g" % x
    return (v, f(b["ratio"]), f(b["ratio_lo"]), f(b["ratio_hi"]), f(b["mde"]), str(b["rounds"]),
            f(d.get("cpu_pressure")))


def binom_cdf(k, n, p):
    """P(X <= k), X ~ Binomial(n, p)"""
    if k < 0:
        return 0.0
    if k >= n:
        return 1.0
    return sum(math.comb(n, i) * p ** i * (1 - p) ** (n - i) for i in range(k + 1))


def clopper_pearson(k, n, conf=0.95):
    """the exact two-sided interval of a proportion k/n"""
    a = (1 - conf) / 2

    def solve(f):
        lo, hi = 0.0, 1.0
        for _ in range(60):
            mid = (lo + hi) / 2
            if f(mid):
                lo = mid
            else:
                hi = mid
        return (lo + hi) / 2

    low = 0.0 if k == 0 else solve(lambda p: 1 - binom_cdf(k - 1, n, p) < a)
    high = 1.0 if k == n else solve(lambda p: binom_cdf(k, n, p) > a)
    return low, high


def rate(k, n):
    lo, hi = clopper_pearson(k, n)
    return "%d/%d = %.2f%% (95%% CI %.2f%%-%.2f%%)" % (k, n, 100.0 * k / n if n else 0, 100 * lo, 100 * hi)


def table(path):
    if not os.path.exists(path):
        return []
    return [l.split() for l in open(path) if l.strip()]


def row(name, figure, base, basefig, ratio, target, ok):
    print("ROW\t%s\t%s\t%s\t%s\t%s\t%s\t%s" % (name, figure, base, basefig, ratio, target, "PASS" if ok else "MISS"))


def direction_rows(rows, what, scale, info=False):
    """rows: TRUTH VERDICT ...; the wrong-direction significant verdicts (target <= 1/440: its upper bound too)"""
    n = len(rows)
    if not n:
        return
    wrong = sum(1 for r in rows if r[1] in ("slower", "faster") and r[1] != r[0])
    right = sum(1 for r in rows if r[1] == r[0])
    lo, hi = clopper_pearson(wrong, n)
    print("%s: wrong-direction significant %s; right-direction significant %s; no verdict %d" % (
        what, rate(wrong, n), rate(right, n), sum(1 for r in rows if r[1] == "none")))
    if not info:
        row("%s: wrong-direction significant verdicts (%s, %d runs)" % (what, scale, n), "%.2f%%" % (100.0 * wrong / n),
        "95% upper bound", "%.2f%%" % (100 * hi), "-", "<= 0.25%", wrong / n <= 1 / 440)


def aa_rows(rows, what, scale, col=1, info=False):
    n = len(rows)
    if not n:
        return
    sig = sum(1 for r in rows if r[col - 1] in ("slower", "faster"))
    none = sum(1 for r in rows if r[col - 1] in ("none", "cannot"))
    lo, hi = clopper_pearson(sig, n)
    print("%s: significant %s; no verdict or cannot tell %d" % (what, rate(sig, n), none))
    if not info:
        row("%s: A/A significant (%s, %d pairs)" % (what, scale, n), "%.2f%%" % (100.0 * sig / n), "95% upper bound",
        "%.2f%%" % (100 * hi), "-", "<= 1%", sig / n <= 0.01)


def widths(rows):
    w = [float(r[4]) - float(r[3]) for r in rows if r[3] != "nan" and r[4] != "nan"]
    return sum(w) / len(w) if w else float("nan"), len(w)


def duet_rows(d, scale):
    rounds_aa, duet_aa = table(d + "/rounds-aa.txt"), table(d + "/duet-aa.txt")
    rounds_2, duet_2 = table(d + "/rounds-2.txt"), table(d + "/duet-2.txt")
    if not duet_aa and not duet_2:
        return
    wr, nr = widths(rounds_aa + rounds_2)
    wd, nd = widths(duet_aa + duet_2)
    rr = [int(r[6]) for r in rounds_aa + rounds_2]
    rd = [int(r[6]) for r in duet_aa + duet_2]
    print("duet vs rounds at the same wall time: mean ratio-CI width %.4g (duet, %d runs, %.0f rounds each) against "
          "%.4g (rounds, %d runs, %.0f rounds each)" % (wd, nd, sum(rd) / max(len(rd), 1), wr, nr,
                                                       sum(rr) / max(len(rr), 1)))
    for name, t in (("duet", duet_aa + duet_2), ("rounds", rounds_aa + rounds_2)):
        p = [float(r[7]) for r in t if len(r) > 7 and r[7] != "nan"]
        if p:
            p.sort()
            print("%s: CPU pressure (share of a run some task waited for a CPU): median %.1f%%, %.1f%%-%.1f%%, "
                  "%d runs" % (name, 100 * p[len(p) // 2], 100 * p[0], 100 * p[-1], len(p)))
    ratio = wr / wd if wd > 0 else float("nan")
    row("duet: ratio-CI width against rounds at the same wall time (%s)" % scale, "%.4g" % wd, "rounds", "%.4g" % wr,
        "%.2fx narrower" % ratio, ">= 2x narrower", ratio >= 2)
    aa_rows(duet_aa, "kiln compare --duet", scale, col=2)
    aa_rows(rounds_aa, "kiln compare (rounds, beside duet)", scale, col=2, info=True)
    for name, t in (("duet", duet_2), ("rounds", rounds_2)):
        if t:
            hit = sum(1 for r in t if r[1] == r[0])
            wrong = sum(1 for r in t if r[1] in ("slower", "faster") and r[1] != r[0])
            print("%s: true 2%% difference detected %s, wrong direction %d" % (name, rate(hit, len(t)), wrong))


def warm_verdict(d):
    """the one benchmark's warm-up verdict: its time to steady first, then its cost, then its class"""
    w = d["benchmarks"][0].get("warmup")
    if not w:
        return "none"
    tts, cost = w["time_to_steady_s"]["verdict"], w["warmup_cost_s"]["verdict"]
    if tts in ("longer", "shorter"):
        return tts
    if cost in ("costs more", "costs less"):
        return cost.replace(" ", "-")
    if w.get("class_changed"):
        return "class"
    return "same" if tts == "no change" and cost == "no change" else "none"


def warm_rows(d, scale):
    aa, two = table(d + "/warm-aa.txt"), table(d + "/warm-2x.txt")
    if aa:
        n = len(aa)
        told = [r for r in aa if r[1] not in ("same", "none", "error")]
        none = sum(1 for r in aa if r[1] in ("none", "error"))
        lo, hi = clopper_pearson(len(told), n)
        print("kiln compare's warm-up verdicts, A/A (in-process, 20 rounds): a verdict %s (%s); none given %d" % (
            rate(len(told), n), ", ".join(sorted(set(r[1] for r in told))) or "-", none))
        row("kiln compare: A/A warm-up verdicts (time to steady, cost or class; %s, %d pairs)" % (scale, n),
            "%.2f%%" % (100.0 * len(told) / n), "95% upper bound", "%.2f%%" % (100 * hi), "-", "<= 1%",
            len(told) / n <= 0.01)
    if two:
        n = len(two)
        hit = sum(1 for r in two if r[1] == "longer")
        wrong = sum(1 for r in two if r[1] == "shorter")
        print("kiln compare's warm-up verdicts, a warm-up twice as long (in-process, 20 rounds): told longer %s, "
              "shorter %d, costs more (time to steady not told) %d, none given %d" % (
                  rate(hit, n), wrong, sum(1 for r in two if r[1] == "costs-more"),
                  sum(1 for r in two if r[1] in ("none", "error"))))


def ten_rows(d, scale):
    t = table(d + "/ten.txt")
    for r in t:
        mde = float(r[5]) if r[5] != "nan" else float("inf")
        # live.sh appends TIME RATIO CONFIG to the compare line: read them from its end (the line grew a column)
        when, truth, cfg = r[-3], r[-2], r[-1]
        kind = "whole process, 50 ms" if cfg == "spinten" else "in-process, 100 ms pexecs"
        print("kiln compare --time %s, %s, true ratio %s, runs varying by 10%%: %s, B/A %s (%s-%s), %s rounds, "
              "smallest change it could show %.2f%%" % (when, kind, truth, r[1], r[2], r[3], r[4], r[6], 100 * mde))
        row("kiln compare --time %s tells a 2%% difference, runs varying by 10%%, %s (%s)" % (when, kind, scale),
            "%s, MDE %.2f%%" % (r[1], 100 * mde), "-", "-", "-", "slower and MDE <= 2%",
            r[1] == "slower" and mde <= 0.02)


def main():
    what = sys.argv[1]
    if what == "compare":
        try:
            d = json.load(open(sys.argv[2]))
            print(sys.argv[3], *verdict_of(d))
        except (OSError, ValueError, KeyError, IndexError):
            print(sys.argv[3], "error", "nan", "nan", "nan", "nan", "0", "nan")
    elif what == "warm":
        try:
            print(sys.argv[3], warm_verdict(json.load(open(sys.argv[2]))))
        except (OSError, ValueError, KeyError, IndexError, TypeError):
            print(sys.argv[3], "error")
    elif what == "bench":
        text, slower = open(sys.argv[2]).read(), sys.argv[3]
        m = re.search(r"^  '(.*)' ran\n(.*)$", text, re.M)
        if not m:
            print("error")
        elif "(*)" in m.group(2):
            print("same")
        elif slower == "-":
            print("slower")  # A/A: any significant verdict is a false alarm
        else:
            print("faster" if m.group(1) == slower else "slower")
    elif what == "diff":
        try:
            d = json.load(open(sys.argv[2]))
            v = d["keys"][0]["verdict"]
            ses = d["keys"][0].get("session") or {}
            src, sd = ses.get("source", "-"), ses.get("sd")
            # kiln diff's "drift?" (the machine's drift between the sessions could explain it) and "no verdict"
            # are kiln saying it cannot tell
            print({"faster": "faster", "slower": "slower", "drift?": "cannot", "no verdict": "cannot"}.get(v, "same"),
                  src, "nan" if sd is None else "%.4g" % sd)
        except (OSError, ValueError, KeyError, IndexError):
            print("error")
    elif what == "rows":
        d, scale = sys.argv[2], sys.argv[3]
        for kind, what in (("vary", "in-process"), ("spin", "whole process")):
            direction_rows(table(d + "/dir-%s.txt" % kind), "  kiln compare (rounds, %s)" % what, scale, info=True)
            aa_rows(table(d + "/aa-%s.txt" % kind), "  kiln compare (rounds, %s)" % what, scale, col=2, info=True)
        direction_rows(table(d + "/dir-vary.txt") + table(d + "/dir-spin.txt"), "kiln compare (rounds)", scale)
        aa_rows(table(d + "/aa-vary.txt") + table(d + "/aa-spin.txt"), "kiln compare (rounds)", scale, col=2)
        direction_rows([["slower", r[0]] for r in table(d + "/bench-dir.txt")], "kiln bench (rounds)", scale)
        diff = table(d + "/diff-aa.txt")
        for src in ("measured", "assumed"):
            aa_rows([r for r in diff if r[1:2] == [src]], "  kiln diff across two sessions, session sd %s" % src, scale,
                    info=True)
        sds = sorted(float(r[2]) for r in diff if r[1:2] == ["measured"] and len(r) > 2)
        if sds:
            print("  kiln diff's measured session sd: median %.2f%%, from %.2f%% to %.2f%%" % (
                100 * sds[len(sds) // 2], 100 * sds[0], 100 * sds[-1]))
        aa_rows(table(d + "/diff-aa-1pct.txt"), "  kiln diff across two sessions, the same pairs with --session-sd 1%",
                scale, info=True)
        aa_rows(diff, "kiln diff across two sessions", scale)
        duet_rows(d, scale)
        ten_rows(d, scale)
        warm_rows(d, scale)


main()
