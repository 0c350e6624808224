#!/usr/bin/env python3
"""subset.py - a copy of a kiln history holding only the commits of a file
of hashes (their track runs and everything of them), so that bench/history
can compare two ways of measuring the same commits (README "History": the
corpus measured one commit at a time against the same 100 commits measured
with `kiln track --interleave all`).

    bench/history/subset.py HISTORY HASHES OUT
"""
import shutil
import sqlite3
import sys

PEXEC_TABLES = ["figures", "scalars", "events", "series", "iterations"]
RUN_TABLES = ["audit", "programs", "run_keys", "run_meta"]


def main(src, hashes_file, out):
    with open(hashes_file) as f:
        keep = [l.strip() for l in f if l.strip() and not l.startswith("#")]
    shutil.copyfile(src, out)
    db = sqlite3.connect(out)
    db.execute("CREATE TEMP TABLE keep(hash TEXT PRIMARY KEY)")
    db.executemany("INSERT OR IGNORE INTO keep VALUES (?)", [(h,) for h in keep])
    db.execute("CREATE TEMP TABLE gone AS SELECT r.id FROM runs r JOIN commits c ON c.id = r.commit_id"
               " WHERE c.hash NOT IN (SELECT hash FROM keep) OR r.kind != 'track'")
    db.execute("CREATE TEMP TABLE gonepx AS SELECT id FROM pexecs WHERE run_id IN (SELECT id FROM gone)")
    for t in PEXEC_TABLES:
        db.execute(f"DELETE FROM {t} WHERE pexec_id IN (SELECT id FROM gonepx)")
    db.execute("DELETE FROM pexecs WHERE id IN (SELECT id FROM gonepx)")
    for t in RUN_TABLES:
        db.execute(f"DELETE FROM {t} WHERE run_id IN (SELECT id FROM gone)")
    db.execute("DELETE FROM runs WHERE id IN (SELECT id FROM gone)")
    db.execute("DELETE FROM commits WHERE hash NOT IN (SELECT hash FROM keep)")
    db.commit()
    n = db.execute("SELECT COUNT(*) FROM commits").fetchone()[0]
    db.execute("VACUUM")
    db.close()
    print(f"{out}: {n} of {len(keep)} commits")


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    main(*sys.argv[1:])
