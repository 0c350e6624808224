#!/usr/bin/env python3
# fill_idcache.py - fill kiln's identity cache (<state>/cache/ids.db, see
# src/idcache.c) the way a busy machine does: DB N [KIND...] adds rows to
# each KIND (default: every kind the file holds) until it has N.  A filler
# row copies the value of a row of its kind already there (so rows are as
# large as real ones), else it is a made-up sha256 entry of a file that does
# not exist; its key is "fill-KIND-I", its checksum right (as kiln writes
# it), and its last use I seconds after the epoch: older than any row kiln
# wrote, the oldest first.  Prints the number of rows per kind.
import hashlib
import sqlite3
import sys


def row_sum(kind, key, value):
    return hashlib.sha256(b"\0".join(s.encode() for s in (kind, key, value))).hexdigest()


def main():
    db, n, kinds = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    con = sqlite3.connect(db, timeout=10)
    if not kinds:
        kinds = [k for (k,) in con.execute("SELECT DISTINCT kind FROM ids ORDER BY kind")]
    with con:
        for kind in kinds:
            have = con.execute("SELECT COUNT(*) FROM ids WHERE kind=?", (kind,)).fetchone()[0]
            row = con.execute("SELECT value FROM ids WHERE kind=? LIMIT 1", (kind,)).fetchone()
            for i in range(1, n - have + 1):
                key = "fill-%s-%d" % (kind, i)
                value = row[0] if row else '{"ids":{"/nonexistent/%d":"0:0:0:0.0:0.0"},"sha256":"%064x"}' % (i, i)
                con.execute("INSERT INTO ids(kind, key, value, sum, used) VALUES (?, ?, ?, ?, ?)",
                            (kind, key, value, row_sum(kind, key, value), i))
    for kind, count in con.execute("SELECT kind, COUNT(*) FROM ids GROUP BY kind ORDER BY kind"):
        print(kind, count)


main()
