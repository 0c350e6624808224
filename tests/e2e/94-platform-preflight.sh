# 94-platform-preflight: a platform setting this machine cannot meet is a
# config error (exit 3, FILE:LINE:COL and the setting) before kiln run makes
# the results file (issue 18.3): pin_cpus naming a CPU the machine lacks or
# has offline (on a fake sysfs tree of 4 CPUs, one offline, and on this
# machine's real /sys), a benchmark user that is root, a `require` check
# without its hardware.  (A cluster node's task is test 81's.)
source "$KILN_ROOT/tests/lib.sh"
cd "$T"
make_suite
conf() { # FILE PLATFORM-LINES...
	local f=$1; shift
	{ echo "pexecs: 1"; echo "iterations: 2"; echo "benchmarks_dir: $T/benchmarks"
	  echo "vms: {n: {plugin: c}}"; echo "benchmarks: {spin: 10}"; echo "platform:"
	  printf '  %s\n' "$@"; } > "$f"
}
# a fake machine: CPUs 0-3 present, 2 offline
R=$T/root
mkdir -p "$R/sys/devices/system/cpu"
echo 0-3 > "$R/sys/devices/system/cpu/present"
echo 0-1,3 > "$R/sys/devices/system/cpu/online"
conf off.yaml 'pin_cpus: ["1", "2"]'
KILN_SYSROOT=$R config_refused off.yaml "off.yaml:7:20: platform.pin_cpus\[1\]: CPU 2 is offline (online: 0-1,3)"
conf gone.yaml "kmsg: off" 'pin_cpus:' '  - "0"' '  - "3-5"'
KILN_SYSROOT=$R config_refused gone.yaml "gone.yaml:10:8: platform.pin_cpus\[1\]: CPU 4 is not on this machine (it has 0-3)"
# this machine's real /sys: one CPU past the last it has
n=$(getconf _NPROCESSORS_CONF)
conf real.yaml "pin_cpus: [\"0\", \"$n\"]"
config_refused real.yaml "real.yaml:7:20: platform.pin_cpus\[1\]: CPU $n is not on this machine (it has 0"
# the CPUs it has run (the preflight passes, the pexec is pinned)
conf ok.yaml "pin_cpus: [\"$((n - 1))\"]"
"$KILN" run -q ok.yaml || fail "pin_cpus on a CPU the machine has"
assert_eq "$(sql ok.kiln.db "SELECT COUNT(*) FROM pexecs WHERE status = 'ok'")" 1 "pinned pexec"
# a benchmark user that is root, and a user name that is none
if [ "$(id -u)" = 0 ]; then
	conf root.yaml "user: root"
	config_refused root.yaml "root.yaml:7:9: platform.user: root has uid 0: the benchmark user must be unprivileged"
fi
conf bad.yaml 'user: "../x"'
config_refused bad.yaml "bad.yaml:7:10: platform.user: '../x' is not a valid user name"
# a require without its hardware (the fake tree has no cpufreq, no sensors)
conf gov.yaml "governor: require"
KILN_SYSROOT=$R config_refused gov.yaml "gov.yaml:7:13: platform.governor is require, but this machine has no cpufreq governor"
exit 0
