#!/bin/bash
# storage.sh - bytes per stored iteration: kiln's results file against
# Krun's results format (.json.bz2, what Krun writes) for the same data, a
# real run of the bundled C nbody (10 pexecs x 2000 iterations).
#   O=build bench/storage.sh
set -eu
cd "$(dirname "$0")/.."
O=${O:-build}
K="$PWD/$O/kiln"
T=$(mktemp -d /tmp/kiln-bench-storage.XXXXXX)
trap 'rm -rf "$T"' EXIT
cat > "$T/s.yaml" <<Y
pexecs: 10
iterations: 2000
vms: {native: {plugin: c}}
benchmarks: {nbody: 300}
benchmarks_dir: $PWD/benchmarks
Y
"$K" run -q "$T/s.yaml"
n=$(sqlite3 "$T/s.kiln.db" "SELECT SUM(n) FROM iterations")
blob=$(sqlite3 "$T/s.kiln.db" "SELECT SUM(LENGTH(wall)) FROM iterations")
sqlite3 "$T/s.kiln.db" "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null
db=$(stat -c %s "$T/s.kiln.db")
"$K" export "$T/s.kiln.db" --format krun -o "$T/s.json.bz2" >/dev/null
# Krun's own file has no audit of kiln's; count the times alone too
python3 - "$T/s.json.bz2" "$T/plain.json.bz2" <<'P'
import bz2, json, sys
d = json.loads(bz2.decompress(open(sys.argv[1], "rb").read()))
keep = {k: d[k] for k in ("wallclock_times", "pexec_flags")}
open(sys.argv[2], "wb").write(bz2.compress(json.dumps(keep).encode()))
P
kr=$(stat -c %s "$T/s.json.bz2")
krp=$(stat -c %s "$T/plain.json.bz2")
awk -v n="$n" -v blob="$blob" -v db="$db" -v kr="$kr" -v krp="$krp" 'BEGIN {
	printf "  %d iterations stored\n", n
	printf "  kiln, iteration data alone: %.2f bytes/iteration\n", blob / n
	printf "  kiln, whole results file (audit, config, schema): %.2f bytes/iteration (%d bytes)\n", db / n, db
	printf "  Krun .json.bz2, times and flags only: %.2f bytes/iteration (%d bytes)\n", krp / n, krp
	printf "  Krun .json.bz2 as kiln exports it (with audit, config): %.2f bytes/iteration\n", kr / n
	printf "ROW\tbytes per stored iteration (data)\t%.3g B\tKrun .json.bz2 (times only)\t%.3g B\t%.3f\t-\t%s\n", blob / n, krp / n, (blob / n) / (krp / n), "info"
	printf "ROW\tbytes per iteration, whole results file\t%.3g B\tKrun .json.bz2 (times only)\t%.3g B\t%.3f\t-\tinfo\n", db / n, krp / n, (db / n) / (krp / n)
}'
