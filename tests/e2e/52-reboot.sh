# kiln run --reboot, with the reboot simulated: one pexec per boot, the
# resume unit installed while pexecs remain and removed at the end, and a
# bound on reboots so a failing machine cannot loop.  A kiln whose file was
# replaced while it ran (an upgrade) installs the unit for the kiln now at
# its path: before, the unit named "PATH (deleted)", which nothing can start.
source "$KILN_ROOT/tests/lib.sh"
make_suite
cd "$T"
export KILN_UNIT_DIR="$T/units"
# reboot_config FILE PEXECS [LINE...]: an experiment of PEXECS pexecs whose reboot is simulated, LINEs added
reboot_config() {
	local f=$1 n=$2
	shift 2
	printf 'pexecs: %s\niterations: 2\nvms: {native: {plugin: c}}\nbenchmarks: {spin: 100}\n' "$n" >"$f"
	printf '%s\n' "$@" >>"$f"
	printf 'platform:\n  reboot_command: [touch, %s/rebooted]\n' "$T" >>"$f"
}
reboot_config r.yaml 3
boots=0
while :; do
	rm -f rebooted
	"$KILN" run -q --reboot r.yaml || fail "boot $boots: kiln run --reboot failed"
	done_n=$(sqlite3 r.kiln.db "SELECT COUNT(*) FROM pexecs WHERE status='ok'")
	if [ "$done_n" -lt 3 ]; then
		[ -e rebooted ] || fail "pexecs remain but no reboot was asked for"
		[ -f units/kiln-reboot.service ] || fail "no resume unit installed"
		[ -L units/multi-user.target.wants/kiln-reboot.service ] || fail "resume unit not enabled"
		grep -q "ExecStart=.* run .*r.yaml.* --reboot" units/kiln-reboot.service || fail "unit command: $(cat units/kiln-reboot.service)"
		assert_eq "$done_n" $((boots + 1)) "one pexec per boot"
	else
		break
	fi
	boots=$((boots + 1))
	[ $boots -lt 10 ] || fail "never finished"
done
assert_eq "$boots" 2 "reboots for 3 pexecs"
[ ! -e rebooted ] || fail "rebooted after the last pexec"
[ ! -e units/kiln-reboot.service ] || fail "resume unit left installed"
[ ! -e units/multi-user.target.wants/kiln-reboot.service ] || fail "enable link left"
# the bound: a machine that keeps rebooting is stopped
reboot_config b.yaml 5
echo "  max_reboots: 2" >>b.yaml
"$KILN" run -q --reboot b.yaml || fail "boot 1"
"$KILN" run -q --reboot b.yaml || fail "boot 2"
out=$("$KILN" run -q --reboot b.yaml 2>&1); rc=$?
[ $rc -ne 0 ] || fail "a third reboot past max_reboots 2 was allowed"
assert_contains "$out" "reboot"
[ ! -e units/kiln-reboot.service ] || fail "resume unit left installed past the bound"
# kiln's file replaced during the pexec (a pre_execution command stands in for an upgrade)
mkdir bin
cp "$KILN" bin/kiln
export KILN_DATADIR=$KILN_ROOT KILN_LIBEXECDIR=$(dirname "$KILN")
reboot_config u.yaml 2 "pre_execution:" \
	"  - [sh, -c, \"cp '$KILN' '$T/bin/kiln.new' && mv '$T/bin/kiln.new' '$T/bin/kiln'\"]"
out=$(bin/kiln run -q --reboot u.yaml 2>&1) || fail "the run whose kiln was replaced: $out"
[ -e rebooted ] || fail "no reboot asked for: $out"
grep -qF "ExecStart=\"$T/bin/kiln\" run " units/kiln-reboot.service ||
	fail "the unit does not start the kiln at bin/kiln: $(grep ExecStart units/kiln-reboot.service)"
echo ok
