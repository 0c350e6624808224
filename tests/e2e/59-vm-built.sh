# A VM whose build step makes its executable (issue 14 item 2): its path,
# not there when the config is read, is checked once the build ran, at the
# config's line (FILE:LINE:COL) when the build did not make it, and its
# variant probed then; a VM without a build step is still checked when the
# config is read, before anything runs.
source "$KILN_ROOT/tests/lib.sh"
command -v python3 >/dev/null || skip "python3 is not installed"
cd "$T"
mkdir -p benchmarks/b/python
printf 'def run_iter(n):\n    pass\n\ndef checksum():\n    return 3\n' > benchmarks/b/python/bench.py
# mk.sh FILE [ARGS...]: the "build" of a VM: a wrapper starting python3 or ruby with ARGS
cat > mk.sh <<'SH'
#!/bin/sh
f=$1; shift
mkdir -p "$(dirname "$f")"
printf '#!/bin/sh\nexec %s "$@"\n' "$*" > "$f"
chmod 755 "$f"
SH
chmod 755 mk.sh
cat > v.yaml <<Y
pexecs: 2
iterations: 3
benchmarks_dir: $T/benchmarks
vms:
  built:
    plugin: python
    path: out/python
    build: [$T/mk.sh, $T/out/python, python3]
benchmarks: {b: 1}
platform: {kmsg: off}
Y
out=$("$KILN" run v.yaml 2>&1) || fail "a VM its build makes: $out"
assert_eq "$(sqlite3 v.kiln.db "SELECT COUNT(*) FROM iterations i JOIN pexecs p ON p.id=i.pexec_id WHERE p.status='ok' AND n=3")" 2 "both pexecs ran on it"
assert_contains "$(sqlite3 v.kiln.db "SELECT description FROM programs")" "$T/out/python"

# a build that does not make it: refused after the build, at the path's line, nothing run
sed -e 's|out/python$|out/nothing|' -e 's|^results:.*||' v.yaml > n.yaml
out=$("$KILN" run n.yaml 2>&1); assert_eq $? 1 "a build that makes no executable: its keys skipped"
assert_contains "$out" "n.yaml:7:11: vms.built.path: VM executable 'out/nothing' not found ($T/out/nothing: No such file or directory) after the VM's build step"
assert_eq "$(sqlite3 n.kiln.db "SELECT COUNT(*) FROM pexecs WHERE status!='pending'")" 0 "no pexec ran"
out=$("$KILN" run --strict -o s.kiln.db n.yaml 2>&1); assert_eq $? 3 "--strict: the run stops"
assert_contains "$out" "n.yaml:7:11: vms.built.path: VM executable 'out/nothing' not found"

# no build step: checked when the config is read, as before
grep -v 'build:' n.yaml > e.yaml
config_refused e.yaml "e.yaml:7:11: vms.built.path: VM executable 'out/nothing' not found"

# a variant is probed on what the build made
if command -v ruby >/dev/null && ruby --yjit -e 'exit(RubyVM::YJIT.enabled? ? 0 : 1)' 2>/dev/null; then
	mkdir -p benchmarks/b/ruby
	printf 'class Bench\n  def run_iter(n) end\n  def checksum; 3; end\nend\n' > benchmarks/b/ruby/bench.rb
	cat > y.yaml <<Y
iterations: 2
benchmarks_dir: $T/benchmarks
vms:
  yj:
    plugin: ruby
    variant: yjit
    path: ry/ruby
    build: [$T/mk.sh, $T/ry/ruby, ruby]
benchmarks: {b: 1}
platform: {kmsg: off}
Y
	"$KILN" run -q y.yaml || fail "a built ruby with YJIT"
	# a build whose ruby turns YJIT off: the variant's probe refuses it, at the variant's line
	cat > noyjit.sh <<'SH'
#!/bin/sh
mkdir -p "$(dirname "$1")"
printf '#!/bin/sh\nfor a; do shift; [ "$a" = --yjit ] || set -- "$@" "$a"; done\nexec ruby "$@"\n' > "$1"
chmod 755 "$1"
SH
	chmod 755 noyjit.sh
	sed -e 's|ry/ruby|rn/ruby|g' -e "s|$T/mk.sh, \(.*\), ruby\]|$T/noyjit.sh, \1]|" y.yaml > yn.yaml
	out=$("$KILN" run yn.yaml 2>&1); assert_eq $? 1 "a built ruby without YJIT: its keys skipped"
	assert_contains "$out" "yn.yaml:6:14: vms.yj.variant: variant 'yjit' (YJIT on (--yjit)) cannot run on $T/rn/ruby"
fi
echo ok
