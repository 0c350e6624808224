#!/bin/bash
# Issue 27, security-r3 break 5: a benchmark that fills the file system
# holding the results and kiln's state (a 48 MiB tmpfs here; it writes
# 200 MiB into its home).  On the pexecs' machine its home is the machine's
# tmpfs: the results' disk never fills and every pexec is stored.  Without
# the machine (limits.isolate: false) the commit fails on the full disk
# (exit 5), and the next `kiln run` removes what the killed session left of
# the benchmark user before it folds the pexec log, and resumes by itself
# (it exited 5 on every retry until someone deleted the file by hand).
# And kiln's state folder on a full disk does not kill kiln.
source "$KILN_ROOT/tests/lib.sh"
sec_user kiln-sec-disk
mkdir fs
mount -t tmpfs -o size=48m tmpfs fs || skip "cannot mount a tmpfs"
trap 'umount -l "$T/fs" 2>/dev/null; pkill -9 -u "$U" 2>/dev/null; sleep 0.1; userdel "$U" 2>/dev/null; [ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT
chmod 755 fs
export KILN_STATE_DIR=$T/fs/state KILN_HOME_BASE=$T/fs/homes
mkdir marks && chmod 777 marks
cat > fill.sh <<SH
#!/bin/bash
if [ ! -e $T/marks/filled-\$KILN_ISOLATED ]; then
	touch $T/marks/filled-\$KILN_ISOLATED
	dd if=/dev/zero of=\$HOME/fill bs=1M count=200 2>/dev/null
fi
$sec_stream
SH
chmod 755 fill.sh
cp -r benchmarks fs/
for iso in true false; do
	cat > fs/$iso.yaml <<Y
pexecs: 6
iterations: 50
vms:
  p: {plugin: external, runner: [$T/fill.sh], language: evil, entry: x, env: {KILN_ISOLATED: "$iso"}}
benchmarks: {b: 1}
platform: {user: $U}
limits: {isolate: $iso}
Y
done
cd fs
"$KILN" run -q true.yaml 2>err.txt || fail "on the machine: $(cat err.txt)"
assert_eq "$(sqlite3 true.kiln.db "SELECT COUNT(*) FROM pexecs WHERE status='ok'")" 6 "on the machine: pexecs"
[ "$(df --output=used -k . | tail -1)" -lt 20000 ] || fail "on the machine: the results' disk holds $(df --output=used -k . | tail -1) KiB"

"$KILN" run -q false.yaml 2>err.txt; rc=$?
assert_eq $rc 5 "without the machine: the full disk ($(cat err.txt))"
assert_contains "$(cat err.txt)" "the disk is full" "its message"
"$KILN" run -q false.yaml 2>err.txt || fail "the run after a full disk did not resume by itself: $(cat err.txt)"
assert_eq "$(sqlite3 false.kiln.db "SELECT COUNT(*) FROM pexecs WHERE status='ok'")" 6 "without the machine: pexecs"
assert_eq "$(sqlite3 false.kiln.db "PRAGMA integrity_check")" ok "integrity"
[ -e homes/$U ] && fail "the home outlived the session"

# kiln's state folder on a full file system: the session's record is not taken (it was mapped and
# written through the mapping: SIGBUS, kiln killed), the run goes on
cd "$T"
dd if=/dev/zero of=fs/fill bs=1M count=64 2>/dev/null
cat > small.yaml <<Y
vms:
  p: {plugin: external, runner: [/bin/sh, $T/ok.sh], language: evil, entry: x}
benchmarks: {b: 1}
Y
printf '#!/bin/sh\n%s\n' "$sec_stream" > ok.sh
"$KILN" run -q small.yaml 2>err.txt; rc=$?
[ $rc -ge 128 ] && fail "kiln was killed by signal $((rc - 128)) with its state on a full disk"
assert_eq $rc 0 "a run with kiln's state on a full disk ($(cat err.txt))"
echo ok
