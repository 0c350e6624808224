#!/usr/bin/python3
# baselines.py - the anchors' detectors on the series kiln's history bench
# made (build/bench/history writes OUTDIR/series.csv and kiln's own
# detections, OUTDIR/kiln.csv), and one table scoring all four the same way.
#
#   bench/history/baselines.py OUTDIR ASV_SRC OTAVA_SRC
#
# ASV_SRC and OTAVA_SRC are source trees of airspeed-velocity/asv and
# apache/otava (bench/history.sh extracts them from their git repositories):
#  - asv: asv/step_detect.py itself, detect_steps(y, w) with w = 2 / (CI
#    width) as asv publish weighs points; a step's first point is a change
#    when its size is at least the threshold (asv's default reporting
#    threshold 5%, and 0: every step its fit keeps);
#  - Otava: otava/analysis.py itself, compute_change_points(series) with
#    its defaults (window 50, p <= 0.001, min_magnitude 0);
#  - Perfherder: treeherder's perfalert method written again here (its
#    module needs Django): per commit a Welch t between a back window of
#    at least 12 values (up to 24, linearly weighted, reaching back past an
#    earlier change only to the min) and a fore window of 12, t > 7, a local
#    maximum of t, and a change of at least 2% (PERFHERDER_REGRESSION_THRESHOLD).
# A detection within 2 commits of an injected change is a hit (each
# injection hit once); any other is a false alarm.  Needs Debian's
# python3-numpy and python3-scipy (Otava's imports).
import csv
import importlib.util
import math
import sys
from collections import defaultdict


def load_series(path):
    series = defaultdict(list)
    with open(path) as f:
        for r in csv.DictReader(f):
            series[(r["kind"], int(r["trial"]), int(r["key"]))].append(
                (int(r["idx"]), float(r["value"]), float(r["lo"]), float(r["hi"]), int(r["truth"])))
    for k in series:
        series[k].sort()
    return series


def load_kiln(path):
    det = defaultdict(list)
    with open(path) as f:
        for r in csv.DictReader(f):
            det[(r["kind"], int(r["trial"]), int(r["key"]))].append(int(r["at"]))
    return det


def asv_detector(src, threshold):
    spec = importlib.util.spec_from_file_location("asv_step_detect", src + "/asv/step_detect.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)  # its C++ range median is optional: the pure-Python path runs

    def detect(points):
        y = [p[1] for p in points]
        w = [2.0 / (p[3] - p[2]) if p[3] > p[2] else None for p in points]
        if any(v is None for v in w):
            good = [v for v in w if v is not None]
            med = sorted(good)[len(good) // 2] if good else 1.0
            w = [med if v is None else v for v in w]
        # asv's regression list ignores steps shorter than 2 (detect_regressions' min_size)
        steps = [st for st in mod.detect_steps(y, w) if st[1] - st[0] >= 2]
        out = []
        for a, b in zip(steps, steps[1:]):
            # (left, right, mu, mu_mean, err): the first index of the next step is the change
            before, after = a[2], b[2]
            if before and abs(after - before) / abs(before) >= threshold:
                out.append(b[0])
        return out
    return detect


def otava_detector(src):
    sys.path.insert(0, src)
    from otava.analysis import compute_change_points

    def detect(points):
        y = [p[1] for p in points]
        cps, _ = compute_change_points(y)
        return [c.index for c in cps]
    return detect


def perfherder_detect(points, min_back=12, max_back=24, fore=12, t_threshold=7.0, min_change=0.02):
    """Perfherder's perfalert t-test, one value per commit (a push with one summary value)."""
    y = [p[1] for p in points]
    n = len(y)
    t = [0.0] * n
    back_n = [0] * n
    fore_n = [0] * n

    def wstats(vals, weights):
        sw = sum(weights)
        avg = sum(v * w for v, w in zip(vals, weights)) / sw
        var = sum((v - avg) ** 2 for v in vals) / (len(vals) - 1) if len(vals) > 1 else 0.0
        return avg, var, len(vals)

    since = 0
    for i in range(1, n):
        reach = min(max(since, min_back), max_back)
        back = [y[j] for j in range(i - 1, -1, -1) if i - j <= reach][:max_back]
        ahead = y[i:i + fore]
        back_n[i], fore_n[i] = len(back), len(ahead)
        # linear weights: the value nearest the split counts most
        wb = [(len(back) - k) / len(back) for k in range(len(back))]
        wf = [(len(ahead) - k) / len(ahead) for k in range(len(ahead))]
        if back and ahead:
            a1, v1, n1 = wstats(back, wb)
            a2, v2, n2 = wstats(ahead, wf)
            d = a2 - a1
            if d == 0:
                t[i] = 0.0
            elif v1 == 0 and v2 == 0:
                t[i] = math.inf
            else:
                t[i] = abs(d / math.sqrt(v1 / n1 + v2 / n2))
        since = 0 if t[i] > t_threshold else since + 1
    out = []
    for i in range(1, n):
        if back_n[i] < min_back or fore_n[i] < fore or t[i] <= t_threshold:
            continue
        if t[i - 1] > t[i] or (i + 1 < n and t[i + 1] > t[i]):
            continue
        before = sum(y[max(0, i - min_back):i]) / min(min_back, i)
        after = sum(y[i:i + fore]) / len(y[i:i + fore])
        if abs(after - before) / before >= min_change:
            out.append(i)
    return out


def score(series, detections_of):
    """per kind: injections, hits, exact, false alarms, points"""
    res = defaultdict(lambda: [0, 0, 0, 0, 0])
    for key, pts in series.items():
        kind = key[0]
        idx = [p[0] for p in pts]
        truth = [p[0] for p in pts if p[4]]
        det = detections_of(key, pts)
        s = res[kind]
        s[4] += len(pts)
        s[0] += len(truth)
        left = set(truth)
        for d in det:
            hit = None
            for t in sorted(left, key=lambda t: abs(t - d)):
                if abs(t - d) <= 2:
                    hit = t
                    break
            if hit is None:
                s[3] += 1
            else:
                left.discard(hit)
                s[1] += 1
                s[2] += hit == d
    return res


def main():
    out, asv_src, otava_src = sys.argv[1], sys.argv[2], sys.argv[3]
    series = load_series(out + "/series.csv")
    kiln = load_kiln(out + "/kiln.csv")
    # the series' positions: detectors see 0..n-1, the CSV holds the history's point index
    def positional(det):
        def f(key, pts):
            idx = [p[0] for p in pts]
            return [idx[i] for i in det(pts) if 0 <= i < len(idx)]
        return f
    methods = [("kiln", lambda key, pts: kiln.get(key, []))]
    try:
        methods.append(("asv (5%)", positional(asv_detector(asv_src, 0.05))))
        methods.append(("asv (all steps)", positional(asv_detector(asv_src, 0.0))))
    except Exception as e:  # noqa: BLE001 - say it and go on with the others
        print("asv: cannot run: %s" % e, file=sys.stderr)
    try:
        methods.append(("Otava", positional(otava_detector(otava_src))))
    except Exception as e:  # noqa: BLE001
        print("Otava: cannot run: %s" % e, file=sys.stderr)
    methods.append(("Perfherder t-test", positional(perfherder_detect)))
    steps = sorted((k for k in {k[0] for k in series} if k.startswith("step")), key=lambda k: int(k[4:]))
    print("| method | " + " | ".join("recall %s%%" % k[4:] for k in steps) +
          " | exact | false alarms / 1000 points (steps; null series) | precision | F1 |")
    print("|---|" + "---|" * (len(steps) + 4))
    rows = {}
    for name, det in methods:
        r = score(series, det)
        inj = sum(r[k][0] for k in steps)
        hits = sum(r[k][1] for k in steps)
        exact = sum(r[k][2] for k in steps)
        fa = sum(r[k][3] for k in steps)
        pts = sum(r[k][4] for k in steps)
        null = r.get("null", [0, 0, 0, 0, 1])
        prec = hits / (hits + fa) if hits + fa else float("nan")
        rec = hits / inj if inj else float("nan")
        f1 = 2 * prec * rec / (prec + rec) if prec + rec else 0.0
        rows[name] = f1
        cells = ["%.3f" % (r[k][1] / r[k][0]) if r[k][0] else "-" for k in steps]
        print("| %s | %s | %.3f | %.2f; %.2f | %.3f | %.3f |" % (
            name, " | ".join(cells), exact / hits if hits else float("nan"), 1000.0 * fa / pts if pts else float("nan"),
            1000.0 * null[3] / null[4] if null[4] else float("nan"), prec, f1))
    k = rows.get("kiln", 0)
    for name, f1 in rows.items():
        if name != "kiln":
            print("ROW\tdetection F1: kiln against %s\t%.3f vs %.3f\tkiln higher\t%s" % (
                name, k, f1, "PASS" if k > f1 else "MISS"))


if __name__ == "__main__":
    main()
