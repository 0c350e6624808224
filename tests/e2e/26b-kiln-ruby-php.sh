# 26b-kiln-ruby-php: the ruby, jruby and php plugins through `kiln run`
# itself, every variant this machine can run: CRuby interp and yjit, JRuby,
# PHP interp, jit-off, tracing and function.  Every pexec ends ok with
# exactly its iterations, the keys carry the variants, checksums equal C's,
# each VM's series are stored with plausible values (JIT code only where a
# JIT is on, and growing; GC counts integral; a cyclic PHP benchmark makes
# gc_status() count collections).  Then the variant checks: an unknown
# variant, a ruby without YJIT (a wrapper that behaves like one) and a php
# without opcache (`-n`) are config errors naming file, line and field (an
# optional such VM is skipped with a note), and `kiln plugins` says which
# variants run with the VMs on PATH.
source "$KILN_ROOT/tests/lib.sh"
source "$KILN_ROOT/tests/helpers/runner_lib.sh"
command -v sqlite3 >/dev/null || skip "sqlite3 is not installed"
command -v ruby >/dev/null || command -v php >/dev/null || command -v jruby >/dev/null || skip "no Ruby or PHP"
cd "$T"
have_yjit=0
command -v ruby >/dev/null && ruby --yjit -e 'exit(defined?(RubyVM::YJIT) && RubyVM::YJIT.enabled? ? 0 : 1)' 2>/dev/null && have_yjit=1

# the suite's richards and binary_trees, and a benchmark of cycles only
# the cycle collector frees
mkdir -p bm
for b in richards binary_trees; do
	for l in ruby php; do mkdir -p bm/$b/$l; cp "$KILN_ROOT/benchmarks/$b/$l/"bench.* bm/$b/$l/; done
done
mkdir -p bm/cycles/php bm/cycles/ruby
cat > bm/cycles/php/bench.php <<'P'
<?php
final class Cyc { public $self; }
final class Bench {
	private $n = 0;
	public function run_iter(int $param): void {
		for ($i = 0; $i < $param; $i++) { $c = new Cyc(); $c->self = $c; }
		$this->n = $param;
	}
	public function checksum(): int { return $this->n; }
}
P
cat > bm/cycles/ruby/bench.rb <<'R'
class Bench
  def run_iter(param) = (@n = param; param.times { a = []; a << a })
  def checksum = @n
end
R

vms="" expect=()
add() { vms+="  $1: {plugin: $2, instrument: true${3:+, variant: $3}${4:+, args: [$4]}}"$'\n'; expect+=("$1 ${3:-default-ruby}"); }
if command -v ruby >/dev/null; then
	add cruby ruby interp
	[ $have_yjit = 1 ] && add yjit ruby yjit
fi
command -v jruby >/dev/null && add jr jruby "" '"-J-XX:TieredStopAtLevel=1"'
if command -v php >/dev/null; then
	add php php interp
	add opc php jit-off
	add tr php tracing
	add fn php function
fi
cat > exp.yaml <<Y
name: rp
pexecs: 2
iterations: 4
seed: 3
benchmarks_dir: bm
vms:
$vms
skip: ["binary_trees:jr:*", "cycles:jr:*"]
# other tests on a shared machine write to the kernel log (test_platform's
# deliberate lines, perf's notes), which would taint pexecs: this test is
# about the plugins
platform: {kmsg: off}
benchmarks:
  richards: 1000
  binary_trees: 10
  cycles: 30000
Y
"$KILN" run -q exp.yaml >run.log 2>&1 || fail "kiln run failed: $(tail -20 run.log)"
db=exp.kiln.db
nkeys=$(sql $db "SELECT COUNT(*) FROM keys")
assert_eq "$(sql $db "SELECT COUNT(*) FROM pexecs WHERE status='ok' AND n_iter=4")" $((nkeys * 2)) "ok pexecs with 4 iterations"
assert_eq "$(count_iterations $db)" $((nkeys * 2 * 4)) "iterations stored"
assert_eq "$(sql $db "SELECT COUNT(*) FROM pexecs WHERE COALESCE(instr_error, '') != ''")" 0 "instrumentation errors"
for line in "${expect[@]}"; do
	set -- $line
	assert_eq "$(sql $db "SELECT DISTINCT variant FROM keys WHERE vm='$1'")" "$2" "variant of $1"
done
check_db_checksums $db richards=1000 binary_trees=10
assert_eq "$(sql $db "SELECT COUNT(*) FROM scalars WHERE name='checksum'")" $((nkeys * 2)) "a checksum per pexec"

# the series and their values, per VM
python3 - $db $have_yjit <<'PY' || fail "series (above)"
import sqlite3, struct, sys
db = sqlite3.connect(sys.argv[1])
have_yjit = sys.argv[2] == "1"
rows = db.execute("SELECT k.vm, k.bench, p.num, x.name, x.unit, x.vals FROM series x JOIN pexecs p ON p.id=x.pexec_id "
                  "JOIN keys k ON k.id=p.key_id").fetchall()
got = {}
for vm, bench, num, name, unit, vals in rows:
    got[(vm, bench, num, name)] = (unit, struct.unpack("<%dd" % (len(vals) // 8), vals))
vms = {r[0] for r in db.execute("SELECT vm FROM keys")}
RUBY = {"gc.count": None, "gc.time": "s", "ruby.gc.minor_count": None, "ruby.gc.major_count": None,
        "ruby.allocated_objects": None, "heap": "bytes", "rss": "bytes"}
JVM = {"gc.count": None, "gc.time": "s", "jit.time": "s", "heap": "bytes", "jruby.jit.compiled": None,
       "jruby.jit.bytecode_added": "bytes"}
PHP = {"gc.count": None, "php.gc.collected": None, "php.gc.roots": None, "heap": "bytes"}
JIT = {"jit.code_size": "bytes", "jit.code_added": "bytes"}
want = {"cruby": RUBY, "yjit": dict(RUBY, **JIT), "jr": JVM, "php": PHP, "opc": PHP,
        "tr": dict(PHP, **JIT), "fn": dict(PHP, **JIT)}
bad = []
keys = db.execute("SELECT k.vm, k.bench, p.num FROM pexecs p JOIN keys k ON k.id=p.key_id").fetchall()
for vm, bench, num in keys:
    for name, unit in want[vm].items():
        s = got.get((vm, bench, num, name))
        if s is None or len(s[1]) != 4:
            bad.append("%s %s #%d: series %s missing or not 4 long" % (vm, bench, num, name)); continue
        if (s[0] or None) != unit:
            bad.append("%s: %s has unit %r" % (vm, name, s[0]))
        v = s[1]
        if any(x < 0 for x in v) or (unit != "s" and any(x != int(x) for x in v)):
            bad.append("%s %s: %s = %r" % (vm, bench, name, v))
        if name in ("heap", "rss", "jit.code_size") and not all(x > 0 for x in v):
            bad.append("%s %s: %s = %r, not positive" % (vm, bench, name, v))
    if "jit.code_size" not in want[vm] and (vm, bench, num, "jit.code_size") in got:
        bad.append("%s has jit.code_size with its JIT off" % vm)
    if "jit.code_size" in want[vm] and (vm, bench, num, "jit.code_size") in got:
        size = got[(vm, bench, num, "jit.code_size")][1]
        if any(b < a for a, b in zip(size, size[1:])):
            bad.append("%s %s: the JIT's code shrank: %r" % (vm, bench, size))
def total(vm, bench, name):
    return sum(sum(got[k][1]) for k in got if k[0] == vm and k[1] == bench and k[3] == name)
for vm in vms & {"php", "opc", "tr", "fn"}:
    if not (total(vm, "cycles", "gc.count") > 0 and total(vm, "cycles", "php.gc.collected") >= 30000):
        bad.append("%s: cycles made no collections that freed them" % vm)
for vm in vms & {"cruby", "yjit"}:
    if not total(vm, "binary_trees", "ruby.gc.minor_count") > 0:
        bad.append("%s: binary_trees made no minor GC" % vm)
for vm in vms & {"yjit", "tr", "fn"}:
    if not total(vm, "richards", "jit.code_size") > 0:
        bad.append("%s: no JIT'd code" % vm)
if "jr" in vms and not total("jr", "richards", "jruby.jit.compiled") > 0:
    bad.append("jruby compiled no Ruby method")
print("\n".join(bad) or "series ok: %d pexecs of %s" % (len(keys), ", ".join(sorted(vms))))
sys.exit(1 if bad else 0)
PY

# an unknown variant: a config error at the variant's line and column
printf 'vms:\n  r:\n    plugin: ruby\n    variant: mjit\nbenchmarks: {richards: 10}\nbenchmarks_dir: bm\n' > unk.yaml
if command -v ruby >/dev/null; then
	out=$("$KILN" run -q unk.yaml 2>&1); assert_eq $? 3 "unknown variant"
	assert_contains "$out" "unk.yaml:4:14: vms.r.variant: the ruby plugin has no variant 'mjit' (it has: interp, yjit)"
fi

# a ruby built without YJIT (what it does on --yjit: a warning, no YJIT)
mkdir -p fake
real=$(command -v ruby || true)
if [ -n "$real" ]; then
	cat > fake/ruby <<SH
#!/bin/sh
# a ruby without YJIT: --yjit is only warned about
for a in "\$@"; do shift; if [ "\$a" = --yjit ]; then echo "ruby: warning: Ruby was built without YJIT support." >&2; set -- "\$@" --disable=yjit; else set -- "\$@" "\$a"; fi; done
exec $real "\$@"
SH
	chmod +x fake/ruby
	printf 'vms:\n  r: {plugin: ruby, path: fake/ruby, variant: yjit}\nbenchmarks: {richards: 10}\nbenchmarks_dir: bm\n' > noyjit.yaml
	out=$("$KILN" run -q noyjit.yaml 2>&1); assert_eq $? 3 "yjit on a ruby without it"
	assert_contains "$out" "noyjit.yaml:2:47: vms.r.variant: variant 'yjit' (YJIT on (--yjit)) cannot run on $T/fake/ruby: ruby: warning: Ruby was built without YJIT support."
	assert_eq "$(sql noyjit.kiln.db "SELECT COUNT(*) FROM pexecs" 2>/dev/null || echo 0)" 0 "nothing ran"
	# optional: such a VM is skipped with a note, like one not installed
	printf 'vms:\n  r: {plugin: ruby, path: fake/ruby, variant: yjit, optional: true}\n  i: {plugin: ruby, path: fake/ruby}\nbenchmarks: {richards: 10}\nbenchmarks_dir: bm\niterations: 2\n' > opt.yaml
	out=$("$KILN" run opt.yaml 2>&1) || fail "an optional VM that cannot run its variant stopped the run: $out"
	assert_contains "$out" "VM 'r' is optional and its variant 'yjit' cannot run on $T/fake/ruby: ruby: warning: Ruby was built without YJIT support.: its keys are skipped"
	assert_eq "$(sql opt.kiln.db "SELECT vm || ':' || variant FROM keys")" "i:interp" "keys of opt.yaml"
	assert_eq "$(sql opt.kiln.db "SELECT COUNT(*) FROM pexecs WHERE status='ok'")" 1 "the other VM ran"
	# the interpreter variant of the same ruby is fine
	sed 's/variant: yjit/variant: interp/' noyjit.yaml > interp.yaml
	"$KILN" run -q interp.yaml >/dev/null 2>&1 || fail "the interp variant of a YJIT-less ruby"
	# kiln plugins, with that ruby first on PATH, and with the real one
	out=$(PATH="$T/fake:$PATH" "$KILN" plugins)
	assert_contains "$out" "yjit: YJIT on (--yjit) - CANNOT RUN with $T/fake/ruby: ruby: warning: Ruby was built without YJIT support."
	assert_contains "$out" "interp (default): the interpreter, YJIT and MJIT off - runs here"
	avail=$(PATH="$T/fake:$PATH" "$KILN" plugins --json | jq -r '.[] | select(.name=="ruby") | .variants[] | "\(.name)=\(.available)"' | tr '\n' ' ')
	assert_eq "$avail" "interp=true yjit=false " "kiln plugins --json with a YJIT-less ruby"
	if [ $have_yjit = 1 ]; then
		assert_contains "$("$KILN" plugins)" "yjit: YJIT on (--yjit) - runs here"
	fi
fi

# a php without opcache: `-n` loads no extension
if command -v php >/dev/null; then
	printf 'vms:\n  p:\n    plugin: php\n    args: ["-n"]\n    variant: tracing\nbenchmarks: {richards: 10}\nbenchmarks_dir: bm\n' > noopc.yaml
	out=$("$KILN" run -q noopc.yaml 2>&1); assert_eq $? 3 "tracing without opcache"
	assert_contains "$out" "noopc.yaml:5:14: vms.p.variant: variant 'tracing' (opcache's tracing JIT (opcache.jit=tracing)) cannot run on $(readlink -f "$(command -v php)" 2>/dev/null | sed 's/php8.2$//')"
	assert_contains "$out" "the Zend OPcache extension is not loaded"
	sed 's/tracing/interp/' noopc.yaml > noopc-interp.yaml
	"$KILN" run -q noopc-interp.yaml >/dev/null 2>&1 || fail "php -n runs the interp variant"
fi
echo ok
