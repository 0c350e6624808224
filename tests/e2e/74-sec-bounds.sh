#!/bin/bash
# Issue 11.6: unbounded work from the instrumentation folder.  A FIFO named
# *.kiln.jsonl, a link to /dev/zero, two records for iteration 100000000,
# 20,000 distinct names, a file over limits.instr_mb: each pexec ends in
# seconds with a clear instr_error, kiln's memory and the results stay
# small, and the benchmark's other records stand.  With a benchmark user
# and without one.
source "$KILN_ROOT/tests/lib.sh"
sec_user kiln-sec-bounds
cat > b.sh <<SH
#!/bin/sh
d=\$KILN_INSTR_DIR
printf '{"name":"fine","value":1}\n' > "\$d/0.kiln.jsonl"
case \$KILN_PEXEC in
0) mkfifo "\$d/a.kiln.jsonl" ;;
1) ln -s /dev/zero "\$d/z.kiln.jsonl" ;;
2) printf '{"i":100000000,"name":"x","value":1}\n{"i":99999999,"name":"y","value":1}\n' > "\$d/i.kiln.jsonl" ;;
3) awk 'BEGIN { for (i = 0; i < 20000; i++) printf "{\"name\":\"n%d\",\"value\":1}\n", i }' > "\$d/n.kiln.jsonl" ;;
4) head -c 3000000 /dev/zero | tr '\0' ' ' > "\$d/big.kiln.jsonl" ;;
esac
$sec_stream
SH
chmod 644 b.sh
for who in user nouser; do
	cat > $who.yaml <<Y
pexecs: 5
iterations: 2
vms:
  e: {plugin: external, runner: [/bin/sh, $T/b.sh], language: evil, entry: x}
benchmarks: {b: 1}
limits: {instr_mb: 2}
$([ $who = user ] && echo "platform: {user: $U}")
Y
	peak_rss rss.txt timeout 60 "$KILN" run -q $who.yaml 2>err.txt; rc=$?
	[ $rc = 124 ] && fail "$who: kiln hung on the folder"
	[ $rc = 0 ] || fail "$who: run: $(cat err.txt)"
	[ "$(cat rss.txt)" -lt 65536 ] || fail "$who: kiln used $(cat rss.txt) KiB"
	[ "$(stat -c %s $who.kiln.db)" -lt 2000000 ] || fail "$who: results of $(stat -c %s $who.kiln.db) bytes"
	e() { sqlite3 $who.kiln.db "SELECT instr_error FROM pexecs WHERE num=$1"; }
	assert_contains "$(e 0)" "a FIFO: refused" "$who: FIFO"
	assert_contains "$(e 1)" "a symbolic link: refused" "$who: /dev/zero"
	assert_contains "$(e 2)" "iteration 100000000 of a pexec of 2 iterations" "$who: huge index"
	assert_contains "$(e 3)" "more than 10000 distinct record names (limits.instr_names)" "$who: names"
	assert_contains "$(e 4)" "over what is left of limits.instr_mb" "$who: size"
	assert_eq "$(sqlite3 $who.kiln.db "SELECT COUNT(*) FROM scalars WHERE name='fine'")" 5 "$who: the other records"
	assert_eq "$(sqlite3 $who.kiln.db "SELECT COUNT(DISTINCT s.name) FROM scalars s JOIN pexecs p ON p.id=s.pexec_id WHERE p.num=3")" 10000 "$who: names kept up to the bound"
	assert_eq "$(sqlite3 $who.kiln.db "SELECT COUNT(*) FROM pexecs WHERE status IN ('ok','tainted')")" 5 "$who: pexecs"
done
echo ok
