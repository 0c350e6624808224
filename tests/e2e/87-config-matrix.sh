# Issue 14 item 2, for ReBench users: parameter matrices (a benchmark's
# param as a list or a range; a VM's variable sets over its args and env),
# one key per combination named in the key, each key its own program;
# suites (named sets of benchmarks, on some VMs); the bounds.
source "$KILN_ROOT/tests/lib.sh"
make_suite
cd "$T"
for b in s1 s2; do mkdir -p benchmarks/$b/c; cp benchmarks/spin/c/bench.c benchmarks/$b/c/; done

# printenv N [KILN_PARAM] fails unless the combination's env and args reached the runner
cat > m.yaml <<'Y'
vms:
  c: {plugin: c}
  e:
    plugin: command
    path: /usr/bin/printenv
    args: [N]
    vary:
      args: {plain: [], p: [KILN_PARAM]}
      env: {N: [1, 4]}
benchmarks:
  spin: {param: [10, 20]}
  spin2: {param: {from: 1, to: 7, step: 3}}
suites:
  small:
    vms: [c]
    benchmarks: [s1, {s2: 5}]
platform: {kmsg: off}
Y
out=$("$KILN" run --dry-run m.yaml 2>/dev/null) || fail "dry run: $out"
keys=$(awk -F'\t' 'NR > 1 {print $2}' <<<"$out" | sort | tr '\n' ' ')
exp=""
for b in 'spin[10]' 'spin[20]' 'spin2[1]' 'spin2[4]' 'spin2[7]'; do
	exp+="$b:c:default-c "
	for v in 'plain,N=1' 'plain,N=4' 'p,N=1' 'p,N=4'; do exp+="$b:e[$v]:default-command "; done
done
exp+="s1:c:default-c s2:c:default-c "
assert_eq "$keys" "$(tr ' ' '\n' <<<"$exp" | grep . | sort | tr '\n' ' ')" "one key per combination"
"$KILN" run -q m.yaml || fail "run"
assert_eq "$(sql m.kiln.db "SELECT COUNT(*) FROM pexecs WHERE status='ok'")" 27 "every combination ran"
# each combination is its own program: the param and the variable set are in it
assert_eq "$(sql m.kiln.db "SELECT COUNT(DISTINCT hash) FROM programs")" 27 "27 programs"
desc=$(sql m.kiln.db "SELECT description FROM programs p JOIN keys k ON k.id=p.key_id WHERE k.bench='spin2[4]' AND k.vm='e[p,N=4]'")
assert_contains "$desc" "KILN_PARAM.*4"
assert_contains "$desc" "env N.*4"
assert_contains "$(sql m.kiln.db "SELECT description FROM programs p JOIN keys k ON k.id=p.key_id WHERE k.bench='s2'")" \
	"KILN_PARAM.*5" "the suite's param"
"$KILN" report m.kiln.db > rep.txt || fail "report"
assert_contains "$(cat rep.txt)" "spin2\[7\]"
# a ReBench-style list of benchmarks at the top level
printf 'vms: {c: {plugin: c}}\nbenchmarks: [spin, {spin2: 3}]\n' > l.yaml
out=$("$KILN" run --dry-run l.yaml 2>&1) || fail "list: $out"
assert_contains "$out" "spin:c:default-c"
assert_contains "$out" "spin2:c:default-c"

# ---- errors: file:line:col, exit 3, no results file ----
printf 'vms: {c: {plugin: c}}\nbenchmarks:\n  spin: {param: {from: 1, to: 1000000000}}\n' > range.yaml
config_refused range.yaml "range.yaml:3:10: benchmarks.spin.param: the range has 1000000000 values, more than the 100000 keys"
printf 'vms: {c: {plugin: c}}\nbenchmarks:\n  spin: {param: {from: 5, to: 1}}\n' > back.yaml
config_refused back.yaml "back.yaml:3:10: benchmarks.spin.param: the range's to (1) is below its from (5)"
printf 'vms: {c: {plugin: c}}\nbenchmarks:\n  spin: {param: [1, "a:b"]}\n' > colon.yaml
config_refused colon.yaml "colon.yaml:3:22: benchmarks.spin.param: 'a:b': a param of a list names its key"
printf 'vms: {c: {plugin: c}}\nbenchmarks:\n  spin: {param: []}\n' > empty.yaml
config_refused empty.yaml "empty.yaml:3:10: benchmarks.spin: an empty list of params"
# 20^4 combinations of a VM's variable sets
v=$(seq -s, 1 20)
printf 'vms:\n  c:\n    plugin: c\n    vary:\n      env: {A: [%s], B: [%s], C: [%s], D: [%s]}\nbenchmarks: {spin: 1}\n' "$v" "$v" "$v" "$v" > combos.yaml
config_refused combos.yaml "combos.yaml:5:184: vms.c.vary.env.D: 8000 x 20 combinations is more than the 100000 keys"
# benchmarks x VMs: 1000 params on 200 variable sets
printf 'vms:\n  c:\n    plugin: c\n    vary: {env: {A: [%s]}}\nbenchmarks:\n  spin: {param: {from: 1, to: 1000}}\n' "$(seq -s, 1 200)" > keys.yaml
config_refused keys.yaml "keys.yaml:5:1: benchmarks: 1000 benchmarks x 200 VMs is more than the 100000 keys"
# keys x pexecs stays bounded by the schedule's size
printf 'pexecs: 10000000\nvms: {c: {plugin: c}}\nbenchmarks:\n  spin: {param: {from: 1, to: 20}}\n' > sched.yaml
config_refused sched.yaml "sched.yaml:1:9: pexecs: 20 keys x 10000000 pexecs is more than the 100000000"
printf 'vms: {c: {plugin: c, vary: {args: {"a:b": [x]}}}}\nbenchmarks: {spin: 1}\n' > label.yaml
config_refused label.yaml "label.yaml:1:37: vms.c.vary.args.a:b: 'a:b' names a key's part"
printf 'vms: {c: {plugin: c, vary: {}}}\nbenchmarks: {spin: 1}\n' > novary.yaml
config_refused novary.yaml "novary.yaml:1:22: vms: VM 'c': vary needs args or env to vary"
printf 'vms: {c: {plugin: c}}\nsuites:\n  a: {vms: [nope], benchmarks: [spin]}\n' > svm.yaml
config_refused svm.yaml "svm.yaml:3:7: suites.a.vms: no VM 'nope' in vms"
printf 'vms: {c: {plugin: c}}\nbenchmarks: [spin]\nsuites:\n  a: {benchmarks: [spin]}\n' > dup.yaml
config_refused dup.yaml "dup.yaml:4:20: benchmarks: benchmark 'spin' is defined twice (benchmarks and suite a)"
printf 'vms: {c: {plugin: c}}\nsuites:\n  a: {vms: [c]}\n' > nob.yaml
config_refused nob.yaml "nob.yaml:3:3: suites.a: a suite needs its benchmarks"
printf 'vms: {"c[x]": {plugin: c}}\nbenchmarks: [spin]\n' > vname.yaml
config_refused vname.yaml "vname.yaml:1:8: vms: VM name 'c\[x\]' may not contain"
echo ok
