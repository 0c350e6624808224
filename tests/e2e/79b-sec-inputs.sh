#!/bin/bash
# Issue 27: bounds on every input-driven output (security-r3 breaks 2-4, and
# what the red team did not reach).
#   - a hyperfine time above 292 years is refused, naming the file and its
#     JSON path, never stored as a negative time (break 3);
#   - values near DBL_MAX in a crafted results file reach no output as inf,
#     and the HTML report (gnuplot) is made (break 4);
#   - kiln flame refuses a profile whose stacks are deeper than 1024 or
#     whose prefix is not an earlier stack (a cycle), and refuses an output
#     past 50M frames before writing it, in little memory (break 2: 4.4 GB);
#   - kiln annotate of a crafted jitdump ends at once with a clear error
#     (a quadratic count, 10 s on 3.7 MB before);
#   - kiln merge never folds a pexec log through a shard that is a symbolic
#     link to another results file (someone with write access to the
#     cluster's shared folder wrote into a results file they cannot write).
source "$KILN_ROOT/tests/lib.sh"
command -v python3 >/dev/null || skip "no python3"
cd "$T"

# break 3
python3 -c 'import json; json.dump({"results":[{"command":"sleep 1","times":[1.0,1.1,0.9]},{"command":"sleep 2","times":[9.3e9,9.3e9,9.3e9]}]}, open("hf3.json","w"))'
out=$("$KILN" import hf3.json -o h3.kiln.db 2>&1); rc=$?
assert_eq $rc 3 "import of a time over 292 years ($out)"
assert_contains "$out" "hf3.json: results\\[1\\].times\\[0\\]: not a time in seconds (0 to 9.2e+09)" "its message"
[ -e h3.kiln.db ] && fail "a results file was made"

# break 4: DBL_MAX-sized values in a crafted results file, through every format
# (the smallest: 0, what 1e-300 and 5e-324 were stored as before whole nanoseconds refused them as lost)
python3 -c 'import json; json.dump({"results":[{"command":"a","times":[9.2e9,9.1e9,9.0e9]},{"command":"b","times":[0,0.5,0]}]}, open("hf.json","w"))'
"$KILN" import hf.json -o c.kiln.db >/dev/null 2>&1 || fail "import of the largest times"
python3 -c 'import json; json.dump({"results":[{"command":"b","times":[0.5,5e-324]}]}, open("hf0.json","w"))'
out=$("$KILN" import hf0.json -o c0.kiln.db 2>&1); assert_eq $? 3 "a time that would be stored as 0 ns"
assert_contains "$out" "hf0.json: results\\[0\\].times\\[1\\]: 4.94066e-324 is below 0.5 ns" "its message"
sqlite3 c.kiln.db "INSERT INTO scalars SELECT id, 'big', 'u', 1.7e308 FROM pexecs; INSERT INTO scalars SELECT id, 'neg', 'u', -1.7e308 FROM pexecs WHERE id % 2 = 1;"
for f in text json csv markdown latex html; do
	"$KILN" report c.kiln.db --format $f -o c.$f 2>err.txt || fail "report --format $f: $(cat err.txt)"
	grep -qiw 'inf\|nan\|infinity' c.$f && fail "report --format $f holds a non-finite value: $(grep -oiw 'inf\|nan\|infinity' c.$f | head -3)"
done
"$KILN" export c.kiln.db --format hyperfine -o e.json 2>err.txt || fail "export: $(cat err.txt)"
grep -qiw 'inf\|nan\|infinity' e.json && fail "the export holds a non-finite value"

# break 2: kiln flame's input and output bounds
flame_dir() { # DIR DEPTH SAMPLES NAMELEN [CYCLE]
	mkdir -p "$1"
	python3 - "$@" <<'P'
import json, sys
d, depth, n, nl = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
stacks = [[i - 1, 0] for i in range(depth)]
if len(sys.argv) > 5:
    stacks[0] = [depth - 1, 0]  # the root's prefix is a later stack: a cycle
fl = {"categories": ["jit"], "frames": [["A" * nl, "d", 0]], "stacks": stacks,
      "samples": {"stack": [depth - 1] * n, "phase": [1] * n, "iter": [0] * n, "pexec": [0] * n, "t_ms": [0] * n},
      "pexecs": [{"pid": 1}]}
json.dump({"flame": fl}, open(d + "/profile.json", "w"))
P
}
flame_dir deep 1500 10 100
out=$("$KILN" flame deep --format folded -o deep.folded 2>&1); rc=$?
assert_eq $rc 3 "flame of a 1500-deep stack ($out)"
assert_contains "$out" "flame.stacks\\[1024\\]: more than 1024 frames deep" "its message"
flame_dir cycle 10 10 10 cycle
out=$("$KILN" flame cycle --format folded -o cycle.folded 2>&1)
assert_contains "$out" "flame.stacks\\[0\\]: its prefix 9 is not an earlier stack" "a cycle"
flame_dir wide 1024 100000 50
peak_rss rss.txt "$KILN" flame wide --format speedscope -o wide.json 2>err.txt; rc=$?
assert_eq $rc 3 "speedscope of 100,000 samples 1024 deep ($(cat err.txt))"
assert_contains "$(cat err.txt)" "102400000 frames, more than 50000000: select fewer samples" "its message"
[ "$(cat rss.txt)" -lt 200000 ] || fail "kiln flame used $(cat rss.txt) KiB"
ls wide.json* 2>/dev/null && fail "a partial speedscope file was left"
"$KILN" flame wide --format folded -o wide.folded || fail "the folded stacks of the same (one line)"
assert_eq "$(wc -l < wide.folded)" 1 "folded lines"

# kiln annotate of a crafted jitdump: 50,000 loads over one address
mkdir -p ann/jit
python3 - <<'P'
import struct
hdr = struct.pack("<IIIIIIQQ", 0x4A695444, 1, 40, 62, 0, 1234, 0, 0)
recs = []
for i in range(50000):
    name = b"F\0" if i == 0 else b"G%d\0" % i
    code = b"\x90" * 15 + b"\xc3"
    body = struct.pack("<IIQQQQ", 1234, 1234, 0x1000, 0x1000, len(code), i) + name + code
    recs.append(struct.pack("<IIQ", 0, 16 + len(body), 1000 if i == 0 else 5 * 10**9 + i) + body)
open("ann/jit/jit-1234.dump", "wb").write(hdr + b"".join(recs))
open("ann/perf-script-leaf.txt", "w").write("".join("node 1234/1234 1.%09d: cycles: %x\n" % (100000 + i, 0x1000 + i % 16)
                                                    for i in range(20000)))
P
start=$EPOCHREALTIME
out=$(timeout 60 "$KILN" annotate ann F 2>&1); rc=$?
[ $rc = 124 ] && fail "kiln annotate hung on a crafted jitdump"
assert_eq $rc 3 "annotate ($out)"
assert_contains "$out" "later code loads overlap 'F': more than kiln annotate compares (ANN_MAX_WORK)" "its message"
python3 - <<'P'
import struct
hdr = struct.pack("<IIIIIIQQ", 0x4A695444, 1, 40, 62, 0, 1234, 0, 0)
recs = []
for i in range(5000):
    body = struct.pack("<IIQQQQ", 1234, 1234, 0x1000, 0x1000, 1, i) + b"F\0\xc3"
    recs.append(struct.pack("<IIQ", 0, 16 + len(body), 1000 + i) + body)
open("ann/jit/jit-1234.dump", "wb").write(hdr + b"".join(recs))
P
out=$(timeout 60 "$KILN" annotate ann F 2>&1); rc=$?
assert_eq $rc 2 "annotate of 5000 loads of one name ($out)"
assert_contains "$out" "'F' has more than 4096 code loads (ANN_MAX_LOADS): pick one with --index" "its message"
timeout 60 "$KILN" annotate ann F --index 7 >/dev/null || fail "annotate --index 7"

# kiln merge: a shard that is a link to another results file, with a pexec log planted beside it
mkdir -p bin benchmarks/spin/c benchmarks/spin2/c && touch benchmarks/spin/c/bench.c benchmarks/spin2/c/bench.c
printf '#!/bin/sh\necho 4242\n' > bin/sbatch
chmod 755 bin/sbatch
exp() { # NAME PEXECS BENCHMARKS NS
	printf 'name: %s\npexecs: %s\niterations: 2\nvms:\n  fake: {plugin: external, runner: [%s, ok, "{iterations}", "%s"], language: c, entry: bench.c}\nbenchmarks: {%s}\nplatform: {kmsg: off}\n' \
		"$1" "$2" "$FAKE" "$4" "$3"
}
exp m 2 "spin: 1, spin2: 2" 1000 > m.yaml
PATH=$T/bin:$PATH "$KILN" run -q m.yaml --slurm --nodes 2 || fail "submission"
for t in 0 1; do
	SLURM_ARRAY_TASK_ID=$t SLURM_JOB_ID=4242 SLURM_ARRAY_JOB_ID=4242 "$KILN" task m.shards/r1.job 2>/dev/null ||
		fail "task $t"
done
mkdir victim && cp -r benchmarks victim/
exp v 6 "spin: 1" 200000000 > victim/v.yaml
"$KILN" run -q victim/v.yaml --max-pexecs 1 || fail "the victim's first pexec"
# the attacker's copy of the victim, killed with records in its pexec log
cp victim/v.kiln.db att.kiln.db
KILN_LOG_FOLD_MS=100000 "$KILN" run -q victim/v.yaml --results "$T/att.kiln.db" --force 2>/dev/null &
att=$!
wait_until 20 test -s att.kiln.db-log || fail "no pexec log"
sleep 1
kill -9 $att
wait $att 2>/dev/null
victim_before=$(sqlite3 victim/v.kiln.db "SELECT COUNT(*) FROM pexecs WHERE status='ok'")
rm -f m.shards/r1-t0.kiln.db*
ln -s "$T/victim/v.kiln.db" m.shards/r1-t0.kiln.db
cp att.kiln.db-log m.shards/r1-t0.kiln.db-log
out=$("$KILN" merge m.kiln.db 2>&1); rc=$?
assert_eq "$(sqlite3 victim/v.kiln.db "SELECT COUNT(*) FROM pexecs WHERE status='ok'")" "$victim_before" \
	"the victim's finished pexecs after the merge (a log folded into it through the link)"
assert_eq $rc 5 "merge of a linked shard ($out)"
assert_contains "$out" "r1-t0.kiln.db: not merged: a symbolic link: refused" "its message"
assert_contains "$out" "r1-t1 (vm): 2 merged" "the other shard"
echo ok
