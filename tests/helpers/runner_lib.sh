# runner_lib.sh - sourced by the tests/e2e/2x-*.sh runner tests (after
# tests/lib.sh): runs one iteration runner directly, the way its plugin's
# build() spawns it (same argv order, clean environment, result stream on
# fd 3 through a pipe), and checks what it wrote with check_runner.py.
BENCHES="nbody fannkuch_redux binary_trees richards spectral_norm"
# small params: a few ms per iteration in the slower VMs
small_param() {
	case $1 in
	nbody) echo 1000 ;; fannkuch_redux) echo 7 ;; binary_trees) echo 10 ;;
	richards) echo 1000 ;; spectral_norm) echo 100 ;; *) fail "no small param for $1" ;;
	esac
}
CHECK="python3 $KILN_ROOT/tests/helpers/check_runner.py"
REFSUM="$KILN_ROOT/${O:-build}/tests/helpers/bench_checksum"

need() { command -v "$1" >/dev/null || skip "$1 is not installed"; }

# the C version's checksum: what every other language must print
ref_checksum() {
	local so="$KILN_ROOT/benchmarks/$1/c/bench.so"
	[ -x "$REFSUM" ] && [ -f "$so" ] || fail "build first: $REFSUM or $so is missing"
	"$REFSUM" "$so" "$2" || fail "reference checksum of $1 failed"
}

# a results file of VM plugins (26-kiln-vms, 26b-kiln-ruby-php): every
# BENCH=PARAM's checksum scalars equal the C version's, one per pexec of
# that benchmark.  usage: check_db_checksums DB BENCH=PARAM...
check_db_checksums() {
	local db=$1 bp b param want bad
	shift
	for bp in "$@"; do
		b=${bp%%=*} param=${bp#*=}
		want=$(ref_checksum "$b" "$param")
		bad=$(sql "$db" "SELECT k.vm || '=' || CAST(s.value AS INTEGER) FROM scalars s JOIN pexecs p ON p.id=s.pexec_id
			JOIN keys k ON k.id=p.key_id WHERE k.bench='$b' AND s.name='checksum' AND CAST(s.value AS INTEGER) != $want")
		[ -z "$bad" ] || fail "$b checksums differ from C's $want: $bad"
		assert_eq "$(sql "$db" "SELECT COUNT(*) FROM scalars s JOIN pexecs p ON p.id=s.pexec_id JOIN keys k ON k.id=p.key_id
			WHERE k.bench='$b' AND s.name='checksum'")" \
			"$(sql "$db" "SELECT COUNT(*) FROM pexecs p JOIN keys k ON k.id=p.key_id WHERE k.bench='$b'")" \
			"$b checksum records (one per pexec)"
	done
}

# argv of a plugin's runner for benchmark $2, as plugins/$1/plugin.c builds it;
# ${VM_ARGS:-} (words) go where a config's VM args go
runner_argv() {
	local p=$1 b=$2 R=$KILN_ROOT
	case $p in
	python) echo "${PY:-python3} ${VM_ARGS:-} $R/plugins/python/runner.py $R/benchmarks/$b/python/bench.py" ;;
	lua) echo "lua5.4 ${VM_ARGS:-} $R/plugins/lua/runner.lua $R/benchmarks/$b/lua/bench.lua" ;;
	luajit) echo "luajit ${VM_ARGS:-} $R/plugins/luajit/runner.lua $R/benchmarks/$b/lua/bench.lua" ;;
	node) echo "node ${VM_ARGS:-} $R/plugins/node/runner.js $R/benchmarks/$b/js/bench.js" ;;
	java) echo "java ${VM_ARGS:-} KilnRunner $R/benchmarks/$b/java" ;;
	ruby) echo "ruby ${VM_ARGS:-} $R/plugins/ruby/runner.rb $R/benchmarks/$b/ruby/bench.rb" ;;
	jruby) echo "jruby ${VM_ARGS:-} $R/plugins/jruby/runner.rb $R/benchmarks/$b/ruby/bench.rb" ;;
	php) echo "php ${VM_ARGS:-} $R/plugins/php/runner.php $R/benchmarks/$b/php/bench.php" ;;
	esac
}

# run_runner PLUGIN BENCH PARAM N INSTRUMENT(0|1) DIR: runs it with a clean
# environment, the result stream through a pipe into DIR/out.jsonl and the
# records into DIR/instr/; returns the runner's exit status
run_runner() {
	local p=$1 b=$2 param=$3 n=$4 instr=$5 dir=$6
	mkdir -p "$dir/instr"
	local extra=()
	[ "$instr" = 1 ] && extra+=(KILN_INSTRUMENT=1)
	[ "$p" = java ] && extra+=(CLASSPATH="$KILN_ROOT/plugins/java:$KILN_ROOT/benchmarks/$b/java")
	set -o pipefail
	( env -i PATH="$PATH" KILN_ITERATIONS="$n" KILN_PARAM="$param" KILN_RESULT_FD=3 \
	      KILN_INSTR_DIR="$dir/instr" KILN_BENCHMARK="$b" "${extra[@]}" \
	      $(runner_argv "$p" "$b") 3>&1 1>"$dir/stdout" 2>"$dir/stderr" ) | cat >"$dir/out.jsonl"
	local rc=$?
	set +o pipefail
	return $rc
}

# the whole check of one VM: every benchmark instrumented (series and
# checksums), one run without instrumentation, and a broken environment
# $1 plugin; "$@" after it: --nonzero options for the binary_trees run;
# ${VARIANT:-}: the plugin variant that VM_ARGS select (its JIT series)
check_vm() {
	local p=$1; shift
	local n=5 b tag
	tag=$p${VARIANT:+-$VARIANT}
	for b in $BENCHES; do
		local param=$(small_param "$b")
		local want=$(ref_checksum "$b" "$param")
		local d="$T/$tag-$b"
		local nz=()
		[ "$b" = binary_trees ] && nz=("$@")
		run_runner "$p" "$b" "$param" $n 1 "$d" ||
			fail "$p runner on $b exited $?: $(cat "$d/stderr")"
		$CHECK --stream "$d/out.jsonl" --n $n --instr-dir "$d/instr" --plugin "$p" \
			--checksum "$want" --instrumented ${VARIANT:+--variant "$VARIANT"} "${nz[@]}" ||
			fail "$p $b: bad output (above)"
		echo "ok $p${VARIANT:+ ($VARIANT)} $b param=$param checksum=$want"
	done
	# no instrumentation: only the stream and the checksum
	local d="$T/$tag-plain"
	run_runner "$p" nbody 1000 3 0 "$d" || fail "$p plain run exited $?: $(cat "$d/stderr")"
	$CHECK --stream "$d/out.jsonl" --n 3 --instr-dir "$d/instr" --plugin "$p" \
		--checksum "$(ref_checksum nbody 1000)" || fail "$p plain run: bad output"
	# zero iterations is a valid (empty) run
	d="$T/$tag-zero"
	run_runner "$p" richards 1000 0 0 "$d" || fail "$p with 0 iterations exited $?: $(cat "$d/stderr")"
	$CHECK --stream "$d/out.jsonl" --n 0 --instr-dir "$d/instr" --plugin "$p" || fail "$p zero run"
	# a missing protocol variable is a clear error, not a traceback-free success
	d="$T/$tag-broken"
	mkdir -p "$d"
	if ( env -i PATH="$PATH" KILN_PARAM=1000 KILN_RESULT_FD=3 \
	     CLASSPATH="$KILN_ROOT/plugins/java:$KILN_ROOT/benchmarks/richards/java" \
	     $(runner_argv "$p" richards) 3>"$d/out" 2>"$d/stderr" >/dev/null ); then
		fail "$p runner succeeded without KILN_ITERATIONS"
	fi
	grep -q KILN_ITERATIONS "$d/stderr" || fail "$p runner's error does not name KILN_ITERATIONS: $(cat "$d/stderr")"
	echo "ok $p plain, zero and broken runs"
}
