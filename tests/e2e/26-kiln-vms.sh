# 26-kiln-vms: the five VM plugins through `kiln run` itself (their build()
# and prepare(), kiln's spawning and storing): every installed VM runs two
# benchmarks instrumented, every pexec ends ok with all its iterations, the
# checksum scalar equals the C version's, and each VM's promised series are
# stored (names from the plugin docs).
source "$KILN_ROOT/tests/lib.sh"
source "$KILN_ROOT/tests/helpers/runner_lib.sh"
command -v sqlite3 >/dev/null || skip "sqlite3 is not installed"
[ -x "$KILN" ] || fail "build kiln first ($KILN)"
cd "$T"
vms=""
expect=()   # "vm series..." lines
add() { vms+="  $1: {plugin: $2, instrument: true${3:+, args: [$3]}}"$'\n'; expect+=("$1 ${*:4}"); }
command -v python3 >/dev/null && add cpython python "" gc.time gc.count
command -v lua5.4 >/dev/null && add lua54 lua "" heap gc.count
command -v luajit >/dev/null && add lj luajit "" heap gc.count jit.traces_completed
command -v node >/dev/null && add v8 node "" gc.time gc.count heap
command -v java >/dev/null && add hotspot java '"-Xmn2m"' gc.time gc.count jit.time heap
[ -n "$vms" ] || skip "no VM installed"
cat > exp.yaml <<Y
name: vms
pexecs: 2
iterations: 4
seed: 7
benchmarks_dir: $KILN_ROOT/benchmarks
vms:
$vms
# other tests on a shared machine write to the kernel log (test_platform's
# deliberate lines, perf's notes), which would taint pexecs: this test is
# about the plugins
platform: {kmsg: off}
benchmarks:
  richards: 1000
  binary_trees: 10
Y
"$KILN" run -q exp.yaml >run.log 2>&1 || fail "kiln run failed: $(tail -20 run.log)"
db=exp.kiln.db
nkeys=$(sql $db "SELECT COUNT(*) FROM keys")
assert_eq "$(sql $db "SELECT COUNT(*) FROM pexecs WHERE status='ok' AND n_iter=4")" $((nkeys * 2)) "ok pexecs with 4 iterations"
assert_eq "$(sql $db "SELECT COUNT(*) FROM pexecs WHERE instr_error IS NOT NULL AND instr_error != ''")" 0 "instrumentation errors"
check_db_checksums $db richards=1000 binary_trees=10
assert_eq "$(sql $db "SELECT COUNT(*) FROM scalars WHERE name='checksum'")" $((${#expect[@]} * 2 * 2)) "checksum records"
for line in "${expect[@]}"; do
	set -- $line
	vm=$1; shift
	for s in "$@"; do
		n=$(sql $db "SELECT COUNT(*) FROM series x JOIN pexecs p ON p.id=x.pexec_id JOIN keys k ON k.id=p.key_id
			WHERE k.vm='$vm' AND x.name='$s'")
		assert_eq "$n" 4 "$vm: pexecs with series $s"
	done
	echo "ok $vm: $*"
done
