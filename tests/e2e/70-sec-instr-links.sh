#!/bin/bash
# Issue 11.1: links in KILN_INSTR_DIR.  The benchmark (a real unprivileged
# user) leaves symbolic links where kiln as root used to write or read:
# the stats-from-stderr temp file (-> the results file, and -> a root
# file), keep_log's compressor output (-> a root file), a kept log (-> a
# root-only 0600 file) and a *.kiln.jsonl (-> a shadow-like root file).
# Nothing may be written through them, nothing read through them, and the
# results must stay whole.
source "$KILN_ROOT/tests/lib.sh"
sec_user kiln-sec-links
printf 'ROOTFILE-UNCHANGED\n' > rootfile
printf 'ROOTFILE2-UNCHANGED\n' > rootfile2
head -c 8192 /dev/zero | tr '\0' 'S' | sed 's/^/TOPSECRET/' > secret600
printf 'TOPSECRET:$6$salt$hash:19000:0:99999:7:::\n' > shadowlike
chmod 600 rootfile rootfile2 secret600 shadowlike
cat > evil.sh <<SH
#!/bin/sh
d=\$KILN_INSTR_DIR
ln -s $T/e.kiln.db "\$d/.stderr.tmp.\$PPID"
ln -s $T/rootfile "\$d/.stderr"
head -c 10000 /dev/zero > "\$d/big.log"
ln -s $T/rootfile2 "\$d/big.log.zst.tmp"
ln -s $T/secret600 "\$d/leak.log"
ln -s $T/shadowlike "\$d/s.kiln.jsonl"
printf '{"name":"ran","value":1}\n' > "\$d/ok.kiln.jsonl"
printf 'Stats:\n  num_evil: 7\n(End of stats)\n' >&2
$sec_stream
SH
chmod 644 evil.sh
cat > e.yaml <<Y
pexecs: 3
iterations: 2
vms:
  e: {plugin: external, runner: [/bin/sh, $T/evil.sh], language: evil, entry: x, stats_from: stderr, keep_log: true}
benchmarks: {b: 1}
platform: {user: $U}
Y
"$KILN" run -q e.yaml 2>err.txt || fail "run: $(cat err.txt)"
assert_eq "$(sqlite3 e.kiln.db 'PRAGMA integrity_check')" ok "results intact"
assert_eq "$(sqlite3 e.kiln.db "SELECT COUNT(*) FROM pexecs WHERE status='ok'")" 3 "pexecs kept"
assert_eq "$(cat rootfile)" ROOTFILE-UNCHANGED "a root file behind .stderr"
assert_eq "$(cat rootfile2)" ROOTFILE2-UNCHANGED "a root file behind *.zst.tmp"
# nothing of the secrets reached the results or the kept logs
! grep -rqa TOPSECRET e.kiln.db* || fail "a root-only file's content reached the results"
for z in $(find e.kiln.db.logs -name '*.zst'); do zstdcat "$z"; done | grep -qa TOPSECRET && fail "a root-only file was kept as a log"
grep -rqa TOPSECRET e.kiln.db.logs && fail "a root-only file was kept as a log"
[ -s "e.kiln.db.logs/b:e:default-evil/0/big.log.zst" ] || fail "the benchmark's own log was not kept"
# the links are refused by name, the benchmark's own records and stats are kept
err=$(sqlite3 e.kiln.db "SELECT instr_error FROM pexecs LIMIT 1")
assert_contains "$err" "symbolic link" "instr_error"
assert_eq "$(sqlite3 e.kiln.db "SELECT COUNT(*) FROM scalars WHERE name='ran'")" 3 "records next to the links"
assert_eq "$(sqlite3 e.kiln.db "SELECT COUNT(*) FROM scalars WHERE name='num_evil' AND value=7")" 3 "stats from stderr"
echo ok
