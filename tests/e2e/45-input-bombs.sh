# Decompression bombs (issue 11, item 7): an 849-byte .json.bz2 (1 GiB of
# spaces inside a Krun file) once made `kiln import` and `kiln report` use
# 1 GB of memory, and a .csv.bz2 the same.  Decompression is bounded by a
# ratio of the compressed size with a floor (KILN_INFLATE_RATIO,
# KILN_INFLATE_FLOOR_MB) and an absolute cap (KILN_INPUT_MAX_MB): the bomb
# is refused at once, with exit 3 and an error that names the knobs; a
# real file within the bound still reads, several bzip2 streams in a row
# (pbzip2) are one input, and data after a stream is refused.
source "$KILN_ROOT/tests/lib.sh"
command -v python3 >/dev/null || skip "python3 not found"
cd "$T"
D=$KILN_ROOT/tests/data

for bomb in bomb-1g.json.bz2 bomb-1g.csv.bz2; do
	for cmd in "report $D/$bomb" "import $D/$bomb -o x.kiln.db"; do
		# shellcheck disable=SC2086
		peak_rss rss.txt "$KILN" $cmd >out.txt 2>err.txt
		rc=$?
		[ $rc -eq 3 ] || fail "kiln $cmd: exit $rc, expected 3: $(cat err.txt)"
		# (under valgrind the peak is valgrind's)
		[ -n "${KILN_VALGRIND:-}" ] || [ "$(cat rss.txt)" -lt 102400 ] || fail "kiln $cmd: peak RSS $(cat rss.txt) KiB"
		assert_contains "$(cat err.txt)" "$bomb: more than 4 MiB once decompressed (8[0-9]* bytes compressed): refused as a decompression bomb"
		assert_contains "$(cat err.txt)" "KILN_INFLATE_RATIO"
		[ -e x.kiln.db ] && fail "kiln $cmd: wrote a results file"
	done
done

python3 - <<'PY'
import bz2, json, random
r = random.Random(1)
d = json.dumps({"wallclock_times": {"a:b:c": [[0.1 + r.random() / 100 for _ in range(300)] for _ in range(3)]},
                "pexec_flags": {"a:b:c": ["C"] * 3}}).encode()
h = len(d) // 2
open("multi.json.bz2", "wb").write(bz2.compress(d[:h]) + bz2.compress(d[h:]))
open("trail.json.bz2", "wb").write(bz2.compress(d) + b"more")
open("one.json.bz2", "wb").write(bz2.compress(d))
# highly repetitive but real: 30 pexecs of 30000 equal times, 5.4 MB (ratio ~ 12000)
t = json.dumps({"wallclock_times": {"x:y:z": [[0.25] * 30000] * 30}}).encode()
open("ties.json.bz2", "wb").write(bz2.compress(t))
PY
out=$("$KILN" report multi.json.bz2 2>&1) || fail "two bzip2 streams in a row: $out"
assert_contains "$out" "a:b:c"
[ "$("$KILN" report one.json.bz2 | tail -n +2)" = "$(tail -n +2 <<<"$out")" ] || fail "two streams read differently from one"
"$KILN" report trail.json.bz2 >/dev/null 2>err.txt && fail "data after the bzip2 stream was accepted"
assert_contains "$(cat err.txt)" "trail.json.bz2: data after the end of the bzip2 stream"
# a ratio above the default: refused, and read once the bound is raised
"$KILN" import ties.json.bz2 -o t0.kiln.db >/dev/null 2>err.txt && fail "ratio ~12000 accepted by default"
assert_contains "$(cat err.txt)" "refused as a decompression bomb"
KILN_INFLATE_RATIO=20000 "$KILN" import ties.json.bz2 -o t1.kiln.db >out.txt 2>&1 || fail "KILN_INFLATE_RATIO: $(cat out.txt)"
assert_contains "$(cat out.txt)" "1 keys, 30 pexecs, 900000 iterations"
KILN_INFLATE_FLOOR_MB=64 "$KILN" import ties.json.bz2 -o t2.kiln.db >/dev/null 2>&1 || fail "KILN_INFLATE_FLOOR_MB"
KILN_INFLATE_FLOOR_MB=64 KILN_INPUT_MAX_MB=1 "$KILN" import ties.json.bz2 -o t3.kiln.db >/dev/null 2>err.txt &&
	fail "KILN_INPUT_MAX_MB did not cap"
assert_contains "$(cat err.txt)" "more than 1 MiB once decompressed"
KILN_INFLATE_RATIO=nope "$KILN" report one.json.bz2 >/dev/null 2>err.txt
[ $? -eq 2 ] || fail "a bad KILN_INFLATE_RATIO: not a usage error"
assert_contains "$(cat err.txt)" "KILN_INFLATE_RATIO: 'nope' is not a positive whole number"
# the cap bounds a plain file too
head -c 2097152 /dev/zero | tr '\0' ' ' >big.json
KILN_INPUT_MAX_MB=1 "$KILN" report big.json >/dev/null 2>err.txt && fail "a plain file above KILN_INPUT_MAX_MB"
assert_contains "$(cat err.txt)" "big.json: 2 MiB is more than an input may be (KILN_INPUT_MAX_MB=1)"
echo ok
