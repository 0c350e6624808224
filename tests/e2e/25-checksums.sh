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

# a checksum that is not a whole number, or is past 2^63, is written as the
# benchmark returned it: before 2026-12-06 LuaJIT's and PHP's runners wrote
# 0.75 as 0 and CRuby's as 0 too (each its own integer conversion), Lua
# 5.4's failed the pexec ("number has no integer representation"), and
# LuaJIT wrote 2^64 as -9223372036854775808 and PHP 1e20 as
# 7766279631452241920, where CPython and Node wrote 0.75 and the number
mkdir -p "$T/cks/benchmarks/q/lua" "$T/cks/benchmarks/q/php" "$T/cks/benchmarks/q/ruby" "$T/cks/benchmarks/big/lua" \
	"$T/cks/benchmarks/big/php"
cat >"$T/cks/benchmarks/q/lua/bench.lua" <<'LUA'
local r = 0
return { run_iter = function(p) r = r + p end, checksum = function() return r / 4 end }
LUA
cat >"$T/cks/benchmarks/q/php/bench.php" <<'PHP'
<?php
class Bench { private $r = 0; function run_iter(int $p) { $this->r += $p; } function checksum() { return $this->r / 4; } }
PHP
cat >"$T/cks/benchmarks/q/ruby/bench.rb" <<'RUBY'
class Bench
  def initialize; @r = 0; end
  def run_iter(p); @r += p; end
  def checksum; @r / 4.0; end
end
RUBY
cat >"$T/cks/benchmarks/big/lua/bench.lua" <<'LUA'
return { run_iter = function(p) end, checksum = function() return 2^64 end }
LUA
cat >"$T/cks/benchmarks/big/php/bench.php" <<'PHP'
<?php
class Bench { function run_iter(int $p) { } function checksum() { return 1e20; } }
PHP
# and Node's BigInt (JSON.stringify throws on one: the runner died after its
# last iteration and the pexec failed, before 2026-12-06)
mkdir -p "$T/cks/benchmarks/q/js"
cat >"$T/cks/benchmarks/q/js/bench.js" <<'JS'
let r = 0n;
module.exports = { run_iter: (p) => { r += BigInt(p); }, checksum: () => r * 3n / 4n };
JS
cks_vms=""
command -v node >/dev/null && cks_vms+="  node: {plugin: node}"$'\n'
command -v lua5.4 >/dev/null && [ -f "$KILN_ROOT/plugins/lua/kilnclock.so" ] && cks_vms+="  lua: {plugin: lua}"$'\n'
command -v luajit >/dev/null && cks_vms+="  luajit: {plugin: luajit}"$'\n'
command -v php >/dev/null && cks_vms+="  php: {plugin: php}"$'\n'
command -v ruby >/dev/null && cks_vms+="  ruby: {plugin: ruby}"$'\n'
cat >"$T/cks/exp.yaml" <<YAML
name: cks
pexecs: 1
iterations: 3
benchmarks_dir: $T/cks/benchmarks
vms:
$cks_vms
benchmarks:
  q: 1
  big: 1
skip: ["big:ruby:*", "big:node:*"]
YAML
( cd "$T/cks" && "$KILN" run -q exp.yaml ) || fail "checksums that are not 64-bit integers: $("$KILN" status --failures "$T/cks/exp.kiln.db" 2>&1 | head)"
got=$(sql "$T/cks/exp.kiln.db" "SELECT k.bench || ':' || k.vm || '=' || s.value FROM scalars s JOIN pexecs p ON p.id = s.pexec_id
	JOIN keys k ON k.id = p.key_id WHERE s.name = 'checksum' ORDER BY 1")
echo "$got"
bad=$(grep -v -e '^q:node=2.0$' -e '^q:[a-z]*=0.75$' -e '^big:[a-z]*=1.8446744073709[0-9]*e+19$' -e '^big:php=1.0e+20$' <<<"$got")
[ -z "$bad" ] || fail "checksums altered: $bad"
[ "$(wc -l <<<"$got")" -ge 4 ] || fail "checksums missing: $got"
! command -v node >/dev/null || grep -q '^q:node=2.0$' <<<"$got" || fail "node's BigInt checksum missing: $got"
