#!/bin/bash
# Issue 11.4: orphans.  After kill -9 of kiln the runner must not keep
# running, and nothing a killed session left (a daemon of the benchmark
# user that forges records into later pexecs' folders, a child in the
# runner's process group, the instrumentation folders) may survive into
# the resumed session.  Both with a benchmark user and without one.
source "$KILN_ROOT/tests/lib.sh"
sec_user kiln-sec-orphan
cat > evil.sh <<SH
#!/bin/sh
if [ "\$KILN_PEXEC" = 0 ] && mkdir $T/mark/0 2>/dev/null; then
	# a daemon that outlives kiln and forges a checksum into every folder it finds
	setsid sh -c 'while :; do for d in /tmp/kiln-instr.* "\$(dirname "\$KILN_INSTR_DIR")"/*; do
		echo "{\"name\":\"checksum\",\"value\":666}" > "\$d/forged.kiln.jsonl"; done 2>/dev/null; sleep 0.05; done' &
	sleep 30
fi
printf '{"name":"checksum","value":1}\n' > "\$KILN_INSTR_DIR/c.kiln.jsonl"
$sec_stream
SH
chmod 644 evil.sh
mkdir mark && chmod 777 mark  # the first attempt of pexec 0 hangs, its rerun does not
cat > o.yaml <<Y
pexecs: 4
iterations: 2

vms:
  e: {plugin: external, runner: [/bin/sh, $T/evil.sh], language: evil, entry: x}
benchmarks: {b: 1}
platform: {user: $U}
Y
# pexec 0 runs first (interleaved order)
"$KILN" run -q --order interleaved o.yaml 2>err.txt &
k=$!
wait_until 10 pgrep -u "$U" -f 'sleep 30'
pgrep -u "$U" -f 'sleep 30' >/dev/null || fail "pexec 0 did not start: $(cat err.txt)"
runner=$(pgrep -u "$U" -x sh -P "$(pgrep -f 'kiln run -q --order interleaved o.yaml' | head -1)" | head -1)
kill -9 $k
wait $k 2>/dev/null
sleep 0.3
# alive and not a zombie (PID 1 may be slow to reap)
alive() { [ -n "$1" ] && [ -n "$(ps -o stat= -p "$1" 2>/dev/null | grep -v Z)" ]; }
alive "$runner" && fail "the runner $runner survived kill -9 of kiln"
[ -n "$(live_of -u "$U")" ] || fail "nothing of the user survived: the test would prove nothing"
"$KILN" run -q --order interleaved o.yaml 2>err.txt || fail "resume: $(cat err.txt)"
[ -n "$(live_of -u "$U")" ] && fail "processes of the benchmark user survived the resumed session: $(live_of -u "$U")"
assert_eq "$(sqlite3 o.kiln.db "SELECT COUNT(*) FROM pexecs WHERE status IN ('ok','tainted')")" 4 "pexecs"
assert_eq "$(sqlite3 o.kiln.db "SELECT COUNT(*) FROM scalars WHERE name='checksum' AND value=666")" 0 "forged values"
assert_eq "$(sqlite3 o.kiln.db "SELECT COUNT(*) FROM scalars WHERE name='checksum' AND value=1")" 4 "real values"
assert_eq "$(ls "$T/state/instr" | wc -l)" 0 "instrumentation folders left"

# A setuid program (crontab, at, fusermount: helpers that start processes
# outside kiln's tree) gives the benchmark user nothing: the benchmark runs
# with PR_SET_NO_NEW_PRIVS.  A setuid-root copy of id must print the
# benchmark user's uid as the effective one, not 0.
mkdir -m 755 suid && cp /usr/bin/id suid/id && chown root:root suid/id && chmod 4755 suid/id
cat > suid.sh <<SH
#!/bin/sh
[ "\$1" = --version ] && { echo suid.sh 1; exit 0; }
echo "euid:\$($T/suid/id -u)" >> $T/seen-suid.txt
$sec_stream
SH
chmod 755 suid.sh
: > seen-suid.txt
chmod 666 seen-suid.txt
# the collector drops to the user too: an external parser gains nothing either
printf '#!/bin/sh\necho "parser-euid:$(%s -u)" >> %s\n' "$T/suid/id" "$T/seen-suid.txt" > suidp.sh
chmod 755 suidp.sh
sed "s|runner: \[/bin/sh, $T/evil.sh\]|runner: [$T/suid.sh], parser: [$T/suidp.sh]|" o.yaml > s.yaml
"$KILN" run -q s.yaml 2>err.txt || fail "suid: run: $(cat err.txt)"
[ "$(grep -c ^euid seen-suid.txt)" -ge 4 ] || fail "suid: pexecs seen: $(cat seen-suid.txt)"
[ "$(grep -c ^parser-euid seen-suid.txt)" -ge 4 ] || fail "suid: parsers seen: $(cat seen-suid.txt)"
[ "$(setpriv --reuid="$U" --regid="$U" --clear-groups suid/id -u)" = 0 ] ||
	fail "the setuid id gives the user no root on the host: the test would prove nothing"
assert_eq "$(grep -c "euid:$(id -u "$U")$" seen-suid.txt)" "$(wc -l < seen-suid.txt)" "suid: the effective uids ($(sort -u seen-suid.txt | tr '\n' ' '))"
grep 'euid:0$' seen-suid.txt && fail "suid: a setuid program made the benchmark or its parser root"

# without a benchmark user: a child in the runner's process group is ended when the next session starts
sed -i '/platform:/d; s/kiln-sec-orphan/x/' o.yaml
cat > grp.sh <<SH
#!/bin/sh
if [ "\$KILN_PEXEC" = 0 ] && mkdir $T/mark/1 2>/dev/null; then sleep 31 & sleep 30; fi
$sec_stream
SH
sed "s|evil.sh|grp.sh|" o.yaml > g.yaml
"$KILN" run -q --order interleaved g.yaml 2>err.txt &
k=$!
wait_until 10 pgrep -f 'sleep 31'
pgrep -f 'sleep 31' >/dev/null || fail "g pexec 0 did not start: $(cat err.txt)"
kill -9 $k
wait $k 2>/dev/null
sleep 0.3
[ -n "$(live_of -f 'sleep 31')" ] || fail "the runner's child did not outlive kiln: the test would prove nothing"
"$KILN" run --order interleaved g.yaml 2>err.txt || fail "resume g: $(cat err.txt)"
[ -n "$(live_of -f 'sleep 31')" ] && fail "the runner's child survived the resumed session"
assert_contains "$(cat err.txt)" "ended 2 process(es) a killed kiln had left running" "the note (sleep 30 and sleep 31)"
assert_eq "$(ls "$T/state/instr" | wc -l)" 0 "instrumentation folders left (no user)"
echo ok
