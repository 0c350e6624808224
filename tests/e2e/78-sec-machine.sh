#!/bin/bash
# Issue 27: every pexec starts from the same machine.  A runner, as a real
# benchmark user and as kiln's own, leaves files in /tmp, /var/tmp,
# /dev/shm and its home, SysV shared memory, a semaphore and a queue, and a
# marker its `--version` reads back; the next pexec must see none of it,
# TMPDIR must be /tmp, the VMs' probes at the start and the end must run
# in a renewed home (security-r3 row 16: the end audit said what the last
# pexec left; with a benchmark user, whose home kiln renews), the sanity
# child must have checked the machine, and nothing
# may be left on the host afterwards (files, IPC objects, the home).
source "$KILN_ROOT/tests/lib.sh"
sec_user kiln-sec-mach
: > seen.txt
chmod 666 seen.txt
cat > m.sh <<SH
#!/bin/bash
if [ "\$1" = --version ]; then
	echo "m.sh version \$(cat \${HOME:-/nonexistent}/marker 2>/dev/null || echo clean) \$(ls /tmp/left-$U 2>/dev/null || echo notmp)"
	exit 0
fi
{
	echo "pexec=\$KILN_PEXEC tmpdir=\${TMPDIR:-unset}"
	for f in /tmp/left-$U /var/tmp/left-$U /dev/shm/left-$U \${HOME:+\$HOME/left-$U}; do [ -e \$f ] && echo "saw \$f"; done
	echo "ipc \$(ipcs -m | grep -c '^0x') \$(ipcs -s | grep -c '^0x') \$(ipcs -q | grep -c '^0x')"
} >> $T/seen.txt
touch /tmp/left-$U /var/tmp/left-$U /dev/shm/left-$U
[ -n "\$HOME" ] && touch \$HOME/left-$U && echo "left-by-\$KILN_PEXEC" > \$HOME/marker
ipcmk -M 4096 >/dev/null; ipcmk -S 1 >/dev/null; ipcmk -Q >/dev/null
$sec_stream
SH
chmod 755 m.sh
ipc_host() { echo "$(ipcs -m | grep -c '^0x') $(ipcs -s | grep -c '^0x') $(ipcs -q | grep -c '^0x')"; }
for who in user nouser; do
	: > seen.txt
	before=$(ipc_host)
	cat > $who.yaml <<Y
pexecs: 3
iterations: 2
vms:
  m: {plugin: external, runner: [$T/m.sh], language: evil, entry: x}
benchmarks: {b: 1}
$([ $who = user ] && echo "platform: {user: $U}")
Y
	"$KILN" run -q $who.yaml 2>err.txt || fail "$who: run: $(cat err.txt)"
	assert_eq "$(grep -c '^pexec=' seen.txt)" 3 "$who: pexecs seen"
	assert_eq "$(grep -c 'tmpdir=/tmp$' seen.txt)" 3 "$who: TMPDIR of each pexec"
	grep '^saw' seen.txt && fail "$who: a pexec saw what an earlier one left: $(grep '^saw' seen.txt | head -3)"
	assert_eq "$(grep -c '^ipc 0 0 0$' seen.txt)" 3 "$who: SysV IPC objects seen by the pexecs ($(grep ^ipc seen.txt | tr '\n' ' '))"
	# the host: nothing left
	for f in /tmp/left-$U /var/tmp/left-$U /dev/shm/left-$U; do [ -e $f ] && fail "$who: $f is on the host"; done
	assert_eq "$(ipc_host)" "$before" "$who: the host's SysV IPC objects (before: $before)"
	assert_eq "$(ls state/instr | wc -l)" 0 "$who: instrumentation folders left"
	# the probes: a renewed home at the start and at the end
	start=$(sqlite3 $who.kiln.db "SELECT value FROM audit WHERE name='start'")
	end=$(sqlite3 $who.kiln.db "SELECT value FROM audit WHERE name='end'")
	assert_contains "$start" "m.sh version clean notmp" "$who: the start audit's --version"
	assert_contains "$end" "m.sh version clean notmp" "$who: the end audit's --version (it ran where the last pexec left its marker)"
	iso=$(sqlite3 $who.kiln.db "SELECT value FROM audit WHERE name='isolation'")
	assert_contains "$iso" '"machine":"root"' "$who: the isolation audit"
	san=$(sqlite3 $who.kiln.db "SELECT value FROM audit WHERE name='sanity'")
	assert_contains "$san" '"oom_score_adj":"1000' "$who: the sanity child's machine"
	assert_contains "$san" '"TMPDIR=/tmp"' "$who: the sanity child's TMPDIR"
done
[ -e "$T/homes/$U" ] && fail "the benchmark user's home outlived the session"

# Kept folders in /tmp are bound by root without following a link: a link
# any local user put in /tmp, to a 0755 folder below a 0700 one, must not
# show that folder to the benchmark user inside the pexec (the 0700 folder
# above it would not count); a kept folder that is no link is still seen.
mkdir -m 700 priv && mkdir -m 755 priv/pub && echo s3cret > priv/pub/secret && chmod 644 priv/pub/secret
SL=$(mktemp -u /tmp/kiln-sec-link.XXXXXX) KP=$(mktemp -d /tmp/kiln-sec-kept.XXXXXX)
SEC_MADE+=("$SL" "$KP")
ln -s "$T/priv/pub" "$SL"
chmod 755 "$KP" && echo kept-ok > "$KP/ok.txt" && chmod 644 "$KP/ok.txt"
cat > link.sh <<SH
#!/bin/bash
[ "\$1" = --version ] && { echo link.sh 1; exit 0; }
echo "secret:\$(cat "\$(dirname "\$DATA")/secret" 2>&1) kept:\$(cat "\$OK" 2>&1)" >> $T/seen-link.txt
$sec_stream
SH
chmod 755 link.sh
: > seen-link.txt
chmod 666 seen-link.txt
cat > link.yaml <<Y
pexecs: 2
iterations: 1
vms:
  m: {plugin: external, runner: [$T/link.sh], language: evil, entry: x, env: {DATA: $SL/x, OK: $KP/ok.txt}}
benchmarks: {b: 1}
platform: {user: $U}
Y
"$KILN" run link.yaml >out.txt 2>err.txt || fail "link: run: $(cat err.txt)"
assert_eq "$(grep -c 'kept:kept-ok$' seen-link.txt)" 2 "link: a kept folder with no link on its way ($(cat seen-link.txt))"
grep s3cret seen-link.txt && fail "link: the benchmark user read a file below a 0700 folder through a link in /tmp"
assert_contains "$(cat err.txt)" "$SL is not seen by the pexecs: a symbolic link is on its way" "link: what kiln says"
assert_contains "$(sqlite3 link.kiln.db "SELECT value FROM audit WHERE name='isolation'")" "\"refused\":\[\"$SL\"\]" \
	"link: the isolation audit"

# The home's and the instrumentation folder's own mode and times: a pexec
# that changes them and leaves no file (statfs counts nothing) must not
# hand them to the next one: each pexec finds them 0700, writable, and not
# with the mtime an earlier one set.
cat > mode.sh <<SH
#!/bin/bash
[ "\$1" = --version ] && { echo mode.sh 1; exit 0; }
w=\$(touch "\$HOME/w" 2>&1 && rm "\$HOME/w" && echo writable)
echo "home:\$(stat -c %a "\$HOME") instr:\$(stat -c %a "\$KILN_INSTR_DIR") \$w mtime:\$(stat -c %Y "\$HOME")" >> $T/seen-mode.txt
touch -d @978307200 "\$HOME" "\$KILN_INSTR_DIR"
chmod 500 "\$HOME" "\$KILN_INSTR_DIR"
$sec_stream
SH
chmod 755 mode.sh
: > seen-mode.txt
chmod 666 seen-mode.txt
sed "s|$T/m.sh|$T/mode.sh|" user.yaml > mode.yaml
"$KILN" run -q mode.yaml 2>err.txt || fail "mode: run: $(cat err.txt)"
[ "$(wc -l < seen-mode.txt)" -ge 3 ] || fail "mode: pexecs seen: $(cat seen-mode.txt)"
grep -v '^home:700 instr:700 writable mtime:' seen-mode.txt && fail "mode: a pexec found its home or instrumentation folder as an earlier one left it"
grep 'mtime:978307200$' seen-mode.txt && fail "mode: a pexec found its home's mtime as an earlier one set it"

# POSIX message queues made through /dev/mqueue (the host's mqueue mount,
# 1777, of the host's IPC namespace) must not outlive their pexec: no
# pexec sees what an earlier one made there, nor does the host afterwards
# (with a benchmark user and as kiln's own user).
if [ "$(stat -f -c %T /dev/mqueue 2>/dev/null)" = mqueue ]; then
	Q=/dev/mqueue/kiln-q-$U
	SEC_MADE+=("$Q")
	cat > q.sh <<SH
#!/bin/bash
[ "\$1" = --version ] && { echo q.sh 1; exit 0; }
echo "pexec \$(ls -A /dev/mqueue | grep -c kiln-q-$U)" >> $T/seen-q.txt
touch $Q 2>/dev/null
$sec_stream
SH
	chmod 755 q.sh
	for who in user nouser; do
		: > seen-q.txt
		chmod 666 seen-q.txt
		sed "s|$T/m.sh|$T/q.sh|" $who.yaml > q-$who.yaml
		"$KILN" run -q q-$who.yaml 2>err.txt || fail "mqueue $who: run: $(cat err.txt)"
		[ "$(grep -c '^pexec' seen-q.txt)" -ge 3 ] || fail "mqueue $who: pexecs seen: $(cat seen-q.txt)"
		grep -v '^pexec 0$' seen-q.txt && fail "mqueue $who: a pexec saw the queue an earlier one made in /dev/mqueue"
		[ -e "$Q" ] && fail "mqueue $who: $Q is on the host"
	done
else
	echo "/dev/mqueue is not an mqueue mount here: its part not tested"
fi

# kiln itself run by an unprivileged user: the machine is made in a user namespace
mkdir unpriv
cp -r benchmarks unpriv/
# the runner writes beside the config: /tmp outside the experiment's folder is not the pexec's
sed "s|$T/seen.txt|$T/unpriv/seen.txt|" m.sh > unpriv/m.sh
chmod 755 unpriv/m.sh
sed "s|$T/m.sh|$T/unpriv/m.sh|" nouser.yaml > unpriv/u.yaml
: > unpriv/seen.txt
chown -R "$U" unpriv
cd unpriv
as_user() { setpriv --reuid="$U" --regid="$U" --clear-groups env -i PATH="$PATH" HOME="$T/unpriv" "$@"; }
if as_user unshare -U true 2>/dev/null; then
	as_user "$KILN" run -q u.yaml 2>err.txt || fail "unprivileged: run: $(cat err.txt)"
	assert_eq "$(grep -c 'tmpdir=/tmp$' seen.txt)" 3 "unprivileged: TMPDIR of each pexec"
	grep '^saw' seen.txt && fail "unprivileged: a pexec saw what an earlier one left"
	assert_eq "$(grep -c '^ipc 0 0 0$' seen.txt)" 3 "unprivileged: SysV IPC objects seen by the pexecs"
	assert_contains "$(sqlite3 u.kiln.db "SELECT value FROM audit WHERE name='isolation'")" \
		'"machine":"user namespace"' "unprivileged: the isolation audit"
else
	as_user "$KILN" run u.yaml 2>err.txt || fail "unprivileged, no user namespaces: run: $(cat err.txt)"
	assert_contains "$(cat err.txt)" "each pexec sees what the ones before it left in /tmp" "unprivileged: what kiln says"
fi
cd "$T"
rm -rf "/tmp/kiln-$(id -u "$U")"
live=$(live_of -u "$U")
[ -z "$live" ] || fail "processes of $U left: $live"
echo ok
