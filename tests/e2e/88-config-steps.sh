# Issue 14 item 2, for ReBench and Krun users: a VM's and a benchmark's
# build, setup, prepare and cleanup steps (argv, no shell): when and how
# often each runs, with the KILN_* variables (Krun's KRUN_RESULTS_FILE and
# friends) and the key's placeholders, as the benchmark user, in the
# runners' folder; pre_execution/post_execution get the variables too; a
# failing step stops the run.
source "$KILN_ROOT/tests/lib.sh"
sec_user kiln-bench-steps
make_suite
chmod -R a+rX "$T/benchmarks"
# log.sh WORDS...: one line per step: who ran it, where, what it was told
cat > log.sh <<'SH'
#!/bin/sh
echo "$KILN_STEP uid=$(id -u) cwd=$(pwd) key=${KILN_KEY:-} vm=${KILN_VM:-} pexec=${KILN_PEXEC:-} param=${KILN_PARAM:-} pending=$KILN_PENDING results=$KILN_RESULTS config=$KILN_CONFIG home=${HOME:-} args=$*" >> "$(dirname "$0")/log"
SH
chmod 755 log.sh
: > log; chmod 666 log
cat > s.yaml <<Y
pexecs: 2
vms:
  c:
    plugin: c
    build: [$T/log.sh, vm-build, "{vm}"]
    setup: [[$T/log.sh, vm-setup], [$T/log.sh, vm-setup-2]]
    prepare: [$T/log.sh, vm-prepare]
    cleanup: [$T/log.sh, vm-cleanup]
benchmarks:
  spin:
    param: [10, 20]
    build: [$T/log.sh, b-build, "{bench_dir}"]
    setup: [$T/log.sh, b-setup, "{benchmark}"]
    prepare: [$T/log.sh, b-prepare, "{pexec}", "{param}"]
    cleanup: [$T/log.sh, b-cleanup]
pre_execution: [[$T/log.sh, pre, "{pexec}"]]
post_execution: [[$T/log.sh, post]]
platform: {user: $U, kmsg: off}
Y
"$KILN" run -q s.yaml 2>err.txt || fail "run: $(cat err.txt)"
uid=$(id -u "$U")
cnt() { grep -c -- "$1" log; }
# once per VM, once per benchmark folder (both params share it), once per key, per pexec
assert_eq "$(cnt 'args=vm-build c$')" 1 "VM build once"
assert_eq "$(cnt 'args=b-build')" 1 "benchmark build once for its folder"
assert_eq "$(cnt 'args=vm-setup$')" 1 "VM setup once"
assert_eq "$(cnt 'args=vm-setup-2$')" 1 "the VM's second setup command"
assert_eq "$(cnt 'args=b-setup')" 2 "benchmark setup once per key"
assert_eq "$(cnt 'args=vm-prepare')" 4 "VM prepare per pexec"
assert_eq "$(cnt 'args=b-prepare')" 4 "benchmark prepare per pexec"
assert_eq "$(cnt 'args=b-cleanup')" 2 "benchmark cleanup per key"
assert_eq "$(cnt 'args=vm-cleanup')" 1 "VM cleanup once"
assert_eq "$(cnt '^pre_execution ')" 4 "pre_execution per pexec"
assert_eq "$(cnt '^post_execution ')" 4 "post_execution per pexec"
# order: builds, setups, then the pexecs, then cleanups
assert_eq "$(awk '{print $NF}' log | head -1)" "c" "the VM's build first"
assert_eq "$(sed -n 2p log | grep -c b-build)" 1 "then the benchmark's build"
assert_eq "$(tail -1 log | grep -c vm-cleanup)" 1 "the VM's cleanup last"
# the benchmark's steps run as the benchmark user, in its home (where runners start); pre/post as kiln's user
for w in vm-build b-build vm-setup b-setup vm-prepare b-prepare b-cleanup vm-cleanup; do
	assert_eq "$(grep -- "args=$w" log | grep -vc "uid=$uid cwd=$T/homes/$U ")" 0 "$w as the benchmark user"
done
assert_eq "$(grep '^pre_execution ' log | grep -vc "uid=$(id -u) ")" 0 "pre_execution as kiln's user"
# the variables and the placeholders
line=$(grep -- 'args=b-prepare' log | head -1)
assert_contains "$line" "key=spin\[[12]0\]:c:default-c vm=c pexec=[01] param=[12]0 "
assert_contains "$line" "results=$T/s.kiln.db config=$T/s.yaml home=$T/homes/$U args=b-prepare [01] [12]0"
assert_contains "$(grep -- 'args=b-build' log)" "args=b-build $T/benchmarks/spin/c"
assert_contains "$(grep -- 'args=b-setup' log | head -1)" "args=b-setup spin\[[12]0\]"
assert_contains "$(grep '^pre_execution ' log | head -1)" "key=spin\[[12]0\]:c:default-c vm=c pexec=[01] .*args=pre {pexec}"
# KILN_PENDING counts down
assert_eq "$(grep '^pre_execution ' log | sed 's/.*pending=\([0-9]*\).*/\1/' | tr '\n' ' ')" "4 3 2 1 " "pending"
assert_eq "$(sql s.kiln.db "SELECT COUNT(*) FROM pexecs WHERE status='ok'")" 4 "all pexecs ran"
assert_eq "$(live_of -u "$U" | wc -l)" 0 "nothing of a step outlives it"

# a failing step stops the run, says which, exit 1; a failing build before any pexec runs
sed -e "s|build: \[$T/log.sh, b-build, \"{bench_dir}\"\]|build: [/bin/false]|" s.yaml > f.yaml
out=$("$KILN" run f.yaml 2>&1); assert_eq $? 1 "failing build: $out"
assert_contains "$out" "spin\[10\]:c:default-c: build command \`/bin/false\` failed (exit status 1)"
assert_eq "$(sql f.kiln.db "SELECT COUNT(*) FROM pexecs WHERE status!='pending'")" 0 "nothing ran"

# errors at FILE:LINE:COL
printf 'vms: {c: {plugin: c, setup: []}}\nbenchmarks: {spin: 1}\n' > e1.yaml
out=$("$KILN" run e1.yaml 2>&1); assert_eq $? 3 "empty step: $out"
assert_contains "$out" "e1.yaml:1:22: vms.c.setup: a command needs at least a program name"
printf 'vms: {c: {plugin: c}}\nbenchmarks: {spin: {prepare: {a: b}}}\n' > e2.yaml
out=$("$KILN" run e2.yaml 2>&1); assert_eq $? 3 "a mapping: $out"
assert_contains "$out" "e2.yaml:2:21: benchmarks.spin.prepare: expected a list, found a mapping"
echo ok
