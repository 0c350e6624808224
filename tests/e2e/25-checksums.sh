# 25-checksums: the suite's promise that every language computes the same
# thing.  Each benchmark runs at a param other than the runner tests' in
# every installed VM (CPython, PyPy, Lua 5.4, LuaJIT, Node, HotSpot, CRuby,
# PHP) through its runner, and each checksum must equal the C version's at
# that param.  (JRuby runs the same Ruby sources as CRuby; 28-runner-jruby
# checks its checksums, so that its slow start is paid once.)
source "$KILN_ROOT/tests/lib.sh"
source "$KILN_ROOT/tests/helpers/runner_lib.sh"
other_param() {
	case $1 in
	nbody) echo 2500 ;; fannkuch_redux) echo 8 ;; binary_trees) echo 8 ;;
	richards) echo 2500 ;; spectral_norm) echo 130 ;;
	esac
}
vms=()
command -v python3 >/dev/null && vms+=(python)
command -v pypy3 >/dev/null && vms+=(pypy)
command -v lua5.4 >/dev/null && [ -f "$KILN_ROOT/plugins/lua/kilnclock.so" ] && vms+=(lua)
command -v luajit >/dev/null && vms+=(luajit)
command -v node >/dev/null && vms+=(node)
command -v java >/dev/null && vms+=(java)
command -v ruby >/dev/null && vms+=(ruby)
command -v php >/dev/null && vms+=(php)
[ ${#vms[@]} -ge 2 ] || skip "fewer than two VMs installed"
for b in $BENCHES; do
	param=$(other_param "$b")
	want=$(ref_checksum "$b" "$param")
	line="$b param=$param c=$want"
	for vm in "${vms[@]}"; do
		p=$vm PY=python3
		[ "$vm" = pypy ] && p=python PY=pypy3   # the CPython runner also runs on PyPy
		d="$T/$vm-$b"
		PY=$PY run_runner "$p" "$b" "$param" 2 0 "$d" || fail "$vm on $b exited $?: $(cat "$d/stderr")"
		$CHECK --stream "$d/out.jsonl" --n 2 --instr-dir "$d/instr" --plugin "$p" \
			--checksum "$want" || fail "$vm $b: checksum differs from C's (above)"
		line+=" $vm=ok"
	done
	echo "$line"
done
