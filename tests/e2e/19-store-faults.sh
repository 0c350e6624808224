# The results file under stress: a full disk stops the run cleanly and it
# resumes once space is freed; a file from a newer kiln and a damaged file
# are refused with a clear message; garbage instead of a results file too.
source "$KILN_ROOT/tests/lib.sh"
make_suite
cd "$T"
cat > d.yaml <<Y
pexecs: 40
iterations: 2000
vms: {fake: {plugin: external, runner: [$FAKE, ok, "{iterations}", "0"], language: c, entry: bench.c}}
benchmarks: {spin: 1}
results: mnt/d.kiln.db
Y
if [ "$(id -u)" = 0 ] && mkdir -p mnt && mount -t tmpfs -o size=360k tmpfs mnt 2>/dev/null; then
	trap 'umount "$T/mnt" 2>/dev/null; rm -rf "$T"' EXIT
	out=$("$KILN" run -q d.yaml 2>&1); rc=$?
	assert_eq $rc 5 "exit status on a full disk"
	assert_contains "$out" "disk is full"
	# kept: in the results file, or still in its pexec log (the fold found no room; readers say so)
	done1=$(sqlite3 mnt/d.kiln.db "SELECT COUNT(*) FROM pexecs WHERE status='ok'")
	logged=$("$KILN" status mnt/d.kiln.db 2>&1 | sed -n 's/.*: \([0-9]*\) finished pexec(s) are kept in .*/\1/p')
	done1=$((done1 + ${logged:-0}))
	[ "$done1" -gt 0 ] && [ "$done1" -lt 40 ] || fail "expected a partial run, got $done1 ok pexecs"
	assert_eq "$(sqlite3 mnt/d.kiln.db 'PRAGMA integrity_check')" ok "integrity after ENOSPC"
	# free space: move the results to a bigger place and resume there
	mkdir big && cp mnt/d.kiln.db* big/ && umount mnt
	sed -i 's|results: mnt/d.kiln.db|results: big/d.kiln.db|' d.yaml
	"$KILN" run -q --force d.yaml || fail "resume after freeing space"
	assert_eq "$(sqlite3 big/d.kiln.db "SELECT COUNT(*) FROM pexecs WHERE status='ok'")" 40 "complete after resume"
	assert_eq "$(count_iterations big/d.kiln.db)" 80000 "iterations after resume"
else
	echo "note: not root or no tmpfs, ENOSPC part skipped"
fi
# a results file from a newer schema is refused
cat > n.yaml <<Y
vms: {fake: {plugin: external, runner: [$FAKE, ok, "{iterations}"], language: c, entry: bench.c}}
benchmarks: {spin: 1}
Y
"$KILN" run -q n.yaml || fail "small run"
sqlite3 n.kiln.db "UPDATE meta SET value='99' WHERE name='schema'"
out=$("$KILN" status n.kiln.db 2>&1); rc=$?
assert_eq $rc 5 "newer schema exit"
assert_contains "$out" "written by a newer kiln (results schema 99"
out=$("$KILN" run n.yaml 2>&1); assert_eq $? 5 "run on newer schema"
# a damaged file
"$KILN" run -q -o c.kiln.db n.yaml || fail "run 2"
python3 - <<'P'
import os
f = open("c.kiln.db", "r+b")
size = os.path.getsize("c.kiln.db")
# the b-tree page headers of every page after the first
for page in range(1, size // 4096):
    f.seek(page * 4096)
    f.write(b"\x0d\xff\xff\xff\xff\x00\x00\x00")
f.close()
P
out=$("$KILN" status c.kiln.db 2>&1); rc=$?
assert_eq $rc 5 "damaged file exit"
assert_contains "$out" "damaged\|not a kiln results file\|malformed"
# not a database at all
echo "hello" > junk.kiln.db
out=$("$KILN" status junk.kiln.db 2>&1); assert_eq $? 5 "junk file"
assert_contains "$out" "not a kiln results file\|damaged"
# an SQLite file that is not kiln's is refused by readers and left unchanged
sqlite3 other.db "CREATE TABLE t(x); INSERT INTO t VALUES(1)"
before=$(sha256sum other.db)
out=$("$KILN" status other.db 2>&1); assert_eq $? 5 "foreign database"
assert_contains "$out" "without kiln's tables"
out=$("$KILN" run -q -o other.db n.yaml 2>&1); assert_eq $? 5 "run into a foreign database"
assert_eq "$(sha256sum other.db)" "$before" "foreign database unchanged"
# readers work on a read-only results file
sqlite3 n.kiln.db "UPDATE meta SET value='1' WHERE name='schema'"
chmod a-w n.kiln.db
"$KILN" status n.kiln.db >/dev/null || fail "status on a read-only results file"
chmod u+w n.kiln.db
echo ok
