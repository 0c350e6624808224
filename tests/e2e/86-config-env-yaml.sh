# Issue 14 item 2, for ReBench users: pass_env (kiln's own variables a
# runner gets, said at the start and kept in the audit; the rest is left
# out, visibly) and YAML anchors, aliases and merge keys (<<), with an alias
# bomb refused before it is expanded.
source "$KILN_ROOT/tests/lib.sh"
cd "$T"
unset BENCH_KEEP BENCH_DROP

# printenv NAME fails when NAME is not in its environment: the pexec tells what the runner got
cat > e.yaml <<'Y'
x-vm: &vm {plugin: command, path: /usr/bin/printenv}
pass_env: ["BENCH_K*", NOT_SET_HERE_X]
vms:
  keep:
    <<: *vm
    args: [BENCH_KEEP]
  drop:
    <<: *vm
    args: [BENCH_DROP]
    variant: dropped
benchmarks: {spin: 1}
skip: ["spin:drop:*"]
pexecs: 2
platform: {kmsg: off}
Y
out=$(BENCH_KEEP=1 BENCH_DROP=1 "$KILN" run e.yaml --max-pexecs 1 2>&1) || fail "run: $out"
assert_contains "$out" "the runners get PATH, the config's env and the KILN_\* variables; from kiln's environment (pass_env): BENCH_KEEP; not set here: NOT_SET_HERE_X; [0-9]* of kiln's variables are not passed"
assert_eq "$(sql e.kiln.db "SELECT status FROM pexecs WHERE status!='pending'")" ok "the passed variable reached the runner"
audit=$(sql e.kiln.db "SELECT value FROM audit WHERE name='start'")
python3 - "$audit" <<'P' || fail "audit: runner_env"
import json, sys
a = json.loads(sys.argv[1])["runner_env"]
assert a["vms"]["keep"]["passed"] == ["BENCH_KEEP"], a
assert a["vms"]["keep"]["not_set"] == ["NOT_SET_HERE_X"], a
assert "BENCH_DROP" in a["not_passed"] and "HOME" in a["not_passed"], a
assert "PATH" not in a["not_passed"], a
P
assert_contains "$("$KILN" audit e.kiln.db)" "keep: passed from kiln's (pass_env): BENCH_KEEP"
# a passed variable is part of the key's program: another value is another program
out=$(BENCH_KEEP=2 "$KILN" run e.yaml 2>&1); assert_eq $? 3 "a changed passed value: $out"
assert_contains "$out" "the program of 1 key(s) changed"
assert_contains "$out" "env BENCH_KEEP"
out=$(BENCH_KEEP=1 "$KILN" run -q e.yaml 2>&1) || fail "same value resumes: $out"

# without pass_env nothing of kiln's environment reaches the runner, and the start says so
sed -e '/^pass_env/d' -e 's/^skip.*/skip: ["spin:keep:*"]/' e.yaml > d.yaml
out=$(BENCH_DROP=1 "$KILN" run d.yaml 2>&1); assert_eq $? 1 "BENCH_DROP not passed: $out"
assert_contains "$out" "of kiln's variables are not passed (pass_env in the config passes them)"
assert_eq "$(sql d.kiln.db "SELECT DISTINCT status FROM pexecs")" failed "printenv found no BENCH_DROP"

# a VM's own pass_env adds to the experiment's; the note is then per VM
cat > v.yaml <<'Y'
x-vm: &vm {plugin: command, path: /usr/bin/printenv}
vms:
  a: {<<: *vm, args: [BENCH_KEEP], pass_env: BENCH_KEEP}
  b: {<<: *vm, args: [HOME], variant: home}
benchmarks: {spin: 1}
platform: {kmsg: off}
Y
out=$(BENCH_KEEP=1 "$KILN" run v.yaml 2>&1); assert_eq $? 1 "b gets no HOME: $out"
assert_contains "$out" "VM 'a' gets PATH, its env and the KILN_\* variables; from kiln's environment (pass_env): BENCH_KEEP"
assert_contains "$out" "VM 'b' gets PATH, its env"
assert_eq "$(sql v.kiln.db "SELECT k.vm||'='||p.status FROM pexecs p JOIN keys k ON k.id=p.key_id ORDER BY k.vm" | tr '\n' ' ')" \
	"a=ok b=failed " "per VM"

# aliases: a whole mapping, a list, a scalar; merge keys with a list of maps, local keys win
cat > a.yaml <<'Y'
x-common: &c {plugin: command, path: /usr/bin/printenv}
x-args: &args [KILN_KEY]
x-p: &p 3
x-q: &q {pass_env: [BENCH_KEEP]}
vms:
  one: *c
  two:
    <<: [*q, *c]
    args: *args
    path: /usr/bin/printenv
    variant: two
benchmarks: {spin: *p}
platform: {kmsg: off}
Y
out=$("$KILN" run --dry-run a.yaml 2>&1) || fail "aliases: $out"
assert_contains "$out" "spin:one:default-command"
assert_contains "$out" "spin:two:two"
BENCH_KEEP=1 "$KILN" run -q a.yaml || fail "aliases run"
assert_eq "$(sql a.kiln.db "SELECT COUNT(*) FROM pexecs WHERE status='ok'")" 2 "both ran"

# ---- errors: file:line:col, exit 3, no results file ----
printf 'vms: {t: *nope}\nbenchmarks: {spin: 1}\n' > undef.yaml
config_refused undef.yaml "undef.yaml:1:11: YAML: invalid alias"
printf 'a: &x [*x]\nvms: {t: {plugin: command, path: /bin/true}}\nbenchmarks: {spin: 1}\n' > cyc.yaml
config_refused cyc.yaml "cyc.yaml:1:[0-9]*: YAML: "
# a billion laughs: 10 levels of 10 aliases stand for 10^10 nodes
{
	echo 'x-0: &l0 [a, a, a, a, a, a, a, a, a, a]'
	for i in 1 2 3 4 5 6 7 8 9; do
		p=$((i - 1)); echo "x-$i: &l$i [*l$p, *l$p, *l$p, *l$p, *l$p, *l$p, *l$p, *l$p, *l$p, *l$p]"
	done
	echo 'vms: {t: {plugin: command, path: /bin/true, args: *l9}}'
	echo 'benchmarks: {spin: 1}'
} > bomb.yaml
config_refused bomb.yaml "bomb.yaml:[0-9]*:[0-9]*: YAML: the aliases expand to more than 200000 nodes"
# an unknown key from a merged map is named where the anchor wrote it
printf 'x-c: &c {plugin: command, colour: red}\nvms: {t: {<<: *c, path: /bin/true}}\nbenchmarks: {spin: 1}\n' > mkey.yaml
config_refused mkey.yaml "mkey.yaml:1:27: vms.t: unknown key 'colour'"
printf 'vms: {t: {plugin: command, path: /bin/true}}\nbenchmarks: {spin: 1}\npass_env: [A=B]\n' > pe.yaml
config_refused pe.yaml "pe.yaml:3:12: pass_env: 'A=B' is not a variable name"
printf 'vms: {t: {plugin: command, path: /bin/true}}\nbenchmarks: {spin: 1}\ny-x: 1\n' > xk.yaml
config_refused xk.yaml "xk.yaml:3:1: (document): unknown key 'y-x' (known: .*pass_env.*, x-\*)"
echo ok
