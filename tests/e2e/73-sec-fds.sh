#!/bin/bash
# Issue 11.5: inherited descriptors.  `kiln run ... 8>>root-file 9<secret`:
# the benchmark, as an unprivileged user, must get neither descriptor, and
# the sanity child must see (and so report) any it is given.
source "$KILN_ROOT/tests/lib.sh"
sec_user kiln-sec-fds
printf 'ROOT-ONLY\n' > rootonly
printf 'TOPSECRET\n' > secret
chmod 600 rootonly secret
cat > fds.sh <<SH
#!/bin/sh
echo PWNED >&8 2>/dev/null && w=1 || w=0
r=\$(head -c 9 <&9 2>/dev/null)
for f in 4 5 6 7 8 9; do [ -e /proc/self/fd/\$f ] && echo "{\"name\":\"fd\$f\",\"value\":1}"; done > "\$KILN_INSTR_DIR/fds.kiln.jsonl"
echo "{\"name\":\"wrote\",\"value\":\$w}" >> "\$KILN_INSTR_DIR/fds.kiln.jsonl"
[ "\$r" = TOPSECRET ] && echo '{"name":"read_secret","value":1}' >> "\$KILN_INSTR_DIR/fds.kiln.jsonl"
$sec_stream
SH
chmod 644 fds.sh
cat > f.yaml <<Y
pexecs: 2
iterations: 1
vms:
  e: {plugin: external, runner: [/bin/sh, $T/fds.sh], language: evil, entry: x}
benchmarks: {b: 1}
platform: {user: $U}
Y
"$KILN" run -q f.yaml 8>>rootonly 9<secret 2>err.txt || fail "run: $(cat err.txt)"
assert_eq "$(cat rootonly)" ROOT-ONLY "a root file through fd 8"
assert_eq "$(sqlite3 f.kiln.db "SELECT GROUP_CONCAT(name) FROM scalars WHERE name LIKE 'fd%' OR name='read_secret'")" "" "descriptors the benchmark had"
assert_eq "$(sqlite3 f.kiln.db "SELECT COUNT(*) FROM scalars WHERE name='wrote' AND value=0")" 2 "the benchmark ran"
# the collector (a fork of kiln that parses the benchmark's files as its user) keeps none of kiln's
# descriptors or shared mappings: not the results database, its -shm index, its lock, nor fd 9.  Seen from
# root while the parser command, the collector's child, runs
cat > parse.sh <<'SH'
#!/bin/sh
sleep 1.5
SH
chmod 755 parse.sh
sed "s|language: evil, entry: x}|language: evil, entry: x, parser: [/bin/sh, $T/parse.sh]}|; s/^pexecs: 2/pexecs: 1/" f.yaml > p.yaml
grep -q parse.sh p.yaml || fail "no parser in p.yaml"
"$KILN" run -q p.yaml 9<secret 2>perr.txt &
k=$!
wait_until 20 pgrep -f "$T/parse.sh" || { wait $k; fail "the parser did not start: $(cat perr.txt)"; }
col=$(ps -o ppid= -p "$(pgrep -f "$T/parse.sh" | head -1)" | tr -d ' ')
fds=$(ls -l /proc/"$col"/fd 2>&1)
maps=$(grep -- '-shm\|kiln\.db' /proc/"$col"/maps)
wait $k || fail "run with a parser: $(cat perr.txt)"
# (it opens the pexec's instrumentation folder itself, after; under valgrind, the tool's own sit above 1024)
case $(grep -v "/state/instr/" <<<"$fds" | awk '$9 < 1024') in *kiln.db*|*secret*|*$T/*) fail "the collector $col kept kiln's descriptors: $fds" ;; esac
[ -z "$maps" ] || fail "the collector $col kept a mapping of the results: $maps"
# the sanity child lists what it inherited (so that a leak would fail the check)
"$KILN" doctor --sanity-child 9<secret > sc.json || fail "sanity child"
python3 -c 'import json,sys; f=json.load(open("sc.json"))["fds"]; sys.exit(0 if 9 in f else 1)' || fail "the sanity child does not list fd 9: $(cat sc.json)"
echo ok
