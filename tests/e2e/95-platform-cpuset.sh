# 95-platform-cpuset: pin_cpus is checked against the CPUs kiln may pin a
# pexec to (its cgroup cpuset), not only against the machine's.  In a cpuset
# of CPU 0 alone, pin_cpus: [1] is a config error (exit 3, FILE:LINE:COL,
# both sets named) before the results file is made, not a failed sanity
# child later.  kiln's own affinity is not that bound: run under
# `taskset -c 0` (kiln on a housekeeping CPU, as isolcpus also leaves it),
# its pexecs are still pinned to CPU 1.
source "$KILN_ROOT/tests/lib.sh"
cd "$T"
[ "$(getconf _NPROCESSORS_ONLN)" -ge 2 ] || skip "needs 2 online CPUs"
command -v taskset >/dev/null || skip "no taskset"
make_suite
cat > pin1.yaml <<EOF
pexecs: 1
iterations: 2
benchmarks_dir: $T/benchmarks
vms: {n: {plugin: c}}
benchmarks: {spin: 10}
platform: {kmsg: off, pin_cpus: ["0", "1"]}
EOF
# kiln itself on CPU 0 only: the pexec on CPU 1 runs (the sanity child checks it got 0-1)
taskset -c 0 "$KILN" run -q pin1.yaml || fail "kiln under taskset -c 0, pin_cpus 0-1: exit $?"
assert_eq "$(sql pin1.kiln.db "SELECT COUNT(*) FROM pexecs WHERE status = 'ok'")" 1 "pinned pexec"
rm -f pin1.kiln.db*

# a cpuset (cgroup v1, or v2 with the cpuset controller on) of CPU 0 alone
[ "$(id -u)" = 0 ] || skip "needs root for a cgroup"
CG=
v1=$(awk '$3 == "cgroup" && $4 ~ /(^|,)cpuset(,|$)/ { print $2; exit }' /proc/mounts)
v2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
if [ -n "$v1" ] && [ -w "$v1" ]; then
	CG=$v1/kiln-tidy-95.$$
	mkdir "$CG" || skip "cannot make a cpuset cgroup"
	cat "$v1/cpuset.mems" > "$CG/cpuset.mems"
	procs=tasks
elif [ -n "$v2" ] && grep -qw cpuset "$v2/cgroup.subtree_control" 2>/dev/null; then
	CG=$v2/kiln-tidy-95.$$
	mkdir "$CG" || skip "cannot make a cpuset cgroup"
	procs=cgroup.procs
else
	skip "no writable cpuset cgroup"
fi
trap 'rmdir "$CG" 2>/dev/null; [ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT
echo 0 > "$CG/cpuset.cpus" || fail "cpuset.cpus"
cat > in-cpuset <<EOF
#!/bin/sh
echo \$\$ > "$CG/$procs" || exit 99
exec "$KILN" "\$@"
EOF
chmod +x in-cpuset
KILN=$T/in-cpuset config_refused pin1.yaml \
	"pin1.yaml:6:40: platform.pin_cpus\[1\]: CPU 1 is not one kiln may run on: its cpuset (cgroup or container) allows 0 of the machine's 0-"
# CPU 0 alone, in that cpuset: it runs
sed 's/pin_cpus: \["0", "1"\]/pin_cpus: ["0"]/' pin1.yaml > pin0.yaml
"$T/in-cpuset" run -q pin0.yaml || fail "pin_cpus 0 in a cpuset of CPU 0: exit $?"
assert_eq "$(sql pin0.kiln.db "SELECT COUNT(*) FROM pexecs WHERE status = 'ok'")" 1 "pexec in the cpuset"
exit 0
