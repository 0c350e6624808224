#!/bin/bash
# 50-platform.sh - kiln doctor end to end: against a fake /sys and /proc tree
# (KILN_SYSROOT) the checks, --json, tuning held by a process that is then
# killed with SIGKILL and undone by `kiln doctor --restore`, a SIGTERM that
# restores through the signal handler; and on the real machine, that doctor
# says what this machine is (here: a VM without cpufreq, sensors or counters).
source "$KILN_ROOT/tests/lib.sh"
command -v jq >/dev/null || skip "jq not installed"

R=$T/root
mk() { mkdir -p "$(dirname "$R$1")"; printf '%s\n' "$2" >"$R$1"; }
for c in 0 1; do
	mk /sys/devices/system/cpu/cpu$c/cpufreq/scaling_governor powersave
	mk /sys/devices/system/cpu/cpu$c/cpufreq/scaling_available_governors "performance powersave"
	mk /sys/devices/system/cpu/cpu$c/cpufreq/scaling_driver acpi-cpufreq
	mk /sys/devices/system/cpu/cpu$c/thermal_throttle/core_throttle_count 0
done
mk /sys/devices/system/cpu/cpufreq/boost 1
mk /sys/class/thermal/thermal_zone0/temp 47000
mk /proc/sys/kernel/perf_event_max_sample_rate 50000
mk /proc/sys/kernel/randomize_va_space 2
mk /proc/loadavg "0.00 0.00 0.00 1/50 99"
mk /proc/meminfo "MemAvailable: 4096000 kB
SwapTotal: 0 kB"
mk /proc/cmdline "root=/dev/sda1"
mk /proc/cpuinfo "flags : fpu"
mk /dev/kmsg ""
export KILN_SYSROOT=$R KILN_TUNE_STATE=$T/state/tune.json

# the checks, against the fake tree
out=$("$KILN" doctor --json --quick) || fail "doctor failed: $out"
st() { jq -r ".checks[] | select(.name==\"$1\") | .$2" <<<"$out"; }
assert_eq "$(st governor state)" warn "governor"
assert_contains "$(st governor value)" "2 of 2 CPUs not on performance"
assert_eq "$(st turbo state)" warn "turbo"
assert_eq "$(st scaling-driver value)" acpi-cpufreq "driver"
assert_eq "$(st temperature value)" "1 sensor, hottest 47.0 °C" "temperature"
assert_eq "$(st throttling state)" ok "throttling"
assert_eq "$(st swap state)" ok "swap"
assert_eq "$(st virtualization state)" ok "virtualization under the fake tree"

# the screen: no colour when not on a terminal
screen=$("$KILN" doctor --quick)
assert_contains "$screen" "warn        governor"
assert_contains "$screen" "fix: kiln run --tune"
grep -q $'\033' <<<"$screen" && fail "colour codes on a pipe"
# what the machine's files say reaches the terminal made visible, not as escape sequences
mk /sys/devices/system/cpu/cpu0/cpufreq/scaling_driver $'acpi\033]0;owned\007-cpufreq'
screen=$("$KILN" doctor --quick)
grep -q $'\033' <<<"$screen" && fail "an escape sequence from sysfs reached the screen"
assert_contains "$screen" 'acpi\\x1b\]0;owned\\x07-cpufreq'
mk /sys/devices/system/cpu/cpu0/cpufreq/scaling_driver acpi-cpufreq

gov() { cat "$R/sys/devices/system/cpu/cpu$1/cpufreq/scaling_governor"; }
check_orig() {
	assert_eq "$(gov 0)$(gov 1)" "powersavepowersave" "governors restored"
	assert_eq "$(cat "$R/sys/devices/system/cpu/cpufreq/boost")" 1 "boost restored"
	assert_eq "$(cat "$R/proc/sys/kernel/perf_event_max_sample_rate")" 50000 "sample rate restored"
	[ -e "$KILN_TUNE_STATE" ] && fail "state file left behind"
	return 0
}
wait_state() {
	wait_until 5 grep -q "holding" "$1" || fail "tuning did not start: $(cat "$1")"
}

# tuning held by a process killed with SIGKILL: restored by doctor --restore
"$KILN" doctor --tune --hold >"$T/tune.log" 2>&1 &
pid=$!
wait_state "$T/tune.log"
assert_eq "$(gov 0)$(gov 1)" "performanceperformance" "tuned governors"
assert_eq "$(cat "$R/sys/devices/system/cpu/cpufreq/boost")" 0 "boost off"
assert_eq "$(cat "$R/proc/sys/kernel/perf_event_max_sample_rate")" 1 "sample rate 1"
kill -9 $pid
wait $pid 2>/dev/null
[ -e "$KILN_TUNE_STATE" ] || fail "no state file after kill -9"
out=$("$KILN" doctor --json --quick)
assert_eq "$(st tune-state state)" warn "doctor notices the unrestored tune"
"$KILN" doctor --tune >/dev/null 2>&1 && fail "a second tune over an unrestored one must refuse"
"$KILN" doctor --restore >"$T/restore.log" || fail "restore failed: $(cat "$T/restore.log")"
assert_contains "$(cat "$T/restore.log")" "restore: /sys/devices/system/cpu/cpu0/cpufreq/scaling_governor = powersave"
check_orig
assert_contains "$("$KILN" doctor --restore)" "nothing to restore"

# SIGTERM: the signal handler restores
"$KILN" doctor --tune --hold >"$T/tune2.log" 2>&1 &
pid=$!
wait_state "$T/tune2.log"
kill -TERM $pid
wait $pid
assert_eq "$?" 130 "exit status after SIGTERM"
check_orig

# the real machine: whatever it is, doctor must say it plainly
unset KILN_SYSROOT
real=$("$KILN" doctor --json) || true
jq -e '.checks | length >= 15' <<<"$real" >/dev/null || fail "real doctor: $real"
for name in governor turbo temperature counters virtualization load swap thp kmsg; do
	s=$(jq -r ".checks[] | select(.name==\"$name\") | .state" <<<"$real")
	case "$s" in ok|warn|fail|unavailable) ;; *) fail "real doctor: check $name has state '$s'";; esac
done
# on this project's test machine (a VM) the facts are known: say them
if grep -qw hypervisor /proc/cpuinfo; then
	assert_eq "$(jq -r '.checks[] | select(.name=="virtualization") | .state' <<<"$real")" warn "VM detected"
fi
if ! ls /sys/devices/system/cpu/cpu0/cpufreq/scaling_governor >/dev/null 2>&1; then
	assert_eq "$(jq -r '.checks[] | select(.name=="governor") | .state' <<<"$real")" unavailable "no cpufreq"
fi
if ! ls /sys/class/thermal/thermal_zone*/temp /sys/class/hwmon/hwmon*/temp*_input >/dev/null 2>&1; then
	assert_eq "$(jq -r '.checks[] | select(.name=="temperature") | .state' <<<"$real")" unavailable "no sensors"
fi
exit 0
