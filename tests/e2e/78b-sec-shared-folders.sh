#!/bin/bash
# Folders anyone may write outside /tmp, /var/tmp and /dev/shm (/run/lock,
# /var/lib/php/sessions, a lab's /srv/scratch): a file a pexec leaves there
# reached every later pexec, and one on the disk that holds the results
# could fill it, file after file of limits.file_mb.  On the pexecs'
# machine each such folder is one of the machine's, emptied before each
# pexec: as a real benchmark user, each pexec looks for what the ones
# before it left in a world-writable folder made for the test (and
# /run/lock where it is one), leaves a file there, and nothing may be left
# on the host afterwards.  A world-writable folder that holds a kept one (a
# folder the config names) stays as it is, and is said.
source "$KILN_ROOT/tests/lib.sh"
sec_user kiln-sec-ww
WW=$(mktemp -d /var/lib/kiln-sec-ww.XXXXXX) || skip "cannot make a folder in /var/lib"
SEC_MADE+=("$WW")
chmod 1777 "$WW"
dirs="$WW"
[ -d /run/lock ] && [ -n "$(find /run/lock -maxdepth 0 -perm -0002)" ] && dirs="$dirs /run/lock"
for d in $dirs; do SEC_MADE+=("$d/left-$U-0" "$d/left-$U-1" "$d/left-$U-2"); done # what a kiln without the fix leaves
# a folder anyone may write that holds a kept folder (one the config names): left as it is, and said
WK=$(mktemp -d /var/lib/kiln-sec-wk.XXXXXX) || skip "cannot make a folder in /var/lib"
SEC_MADE+=("$WK")
chmod 1777 "$WK"
mkdir -m 755 "$WK/kept" && echo kept > "$WK/kept/kept.txt" && chmod 644 "$WK/kept/kept.txt"
: > seen.txt
chmod 666 seen.txt
cat > w.sh <<SH
#!/bin/sh
[ "\$1" = --version ] && { echo w.sh 1; exit 0; }
for d in $dirs; do
	for f in \$d/left-$U-*; do [ -e "\$f" ] && echo "pexec \$KILN_PEXEC saw \$f" >> $T/seen.txt; done
	echo x > \$d/left-$U-\$KILN_PEXEC || echo "pexec \$KILN_PEXEC could not write \$d" >> $T/seen.txt
done
echo "pexec \$KILN_PEXEC kept: \$(cat $WK/kept/kept.txt)" >> $T/seen.txt
$sec_stream
SH
chmod 755 w.sh
cat > w.yaml <<Y
pexecs: 3
iterations: 1
vms:
  w: {plugin: external, runner: [$T/w.sh], language: evil, entry: x, env: {SHARED: $WK/kept/}}
benchmarks: {b: 1}
platform: {user: $U}
Y
"$KILN" run -q w.yaml 2>err.txt || fail "run: $(cat err.txt)"
assert_eq "$(grep -c 'kept: kept$' seen.txt)" 3 "pexecs that ran and saw the kept folder ($(tr '\n' ';' < seen.txt))"
grep -q 'could not write' seen.txt && fail "$(grep 'could not write' seen.txt | head -1)"
grep -q ' saw ' seen.txt && fail "a pexec saw what an earlier one left: $(grep ' saw ' seen.txt | tr '\n' ';')"
for d in $dirs; do
	left=$(ls "$d" | grep "^left-$U-")
	rm -f "$d"/left-"$U"-*
	[ -n "$left" ] && fail "left on the host in $d: $left"
done
iso=$(sqlite3 w.kiln.db "SELECT value FROM audit WHERE name='isolation'")
assert_contains "$iso" "\"covered\":\[[^]]*\"$WW\"" "the isolation audit"
assert_contains "$iso" "\"shared\":\[[^]]*\"$WK\"" "the isolation audit's shared folders"
echo ok
