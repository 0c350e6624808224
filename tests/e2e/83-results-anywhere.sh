# Results anywhere (issue 14 item 5): every reader (status, report, audit,
# export, plot, diff) works on a results file its user cannot write, in a
# folder it cannot write, and on a read-only mount; a missing results file
# exits 5 from every command.  Run as a real unprivileged system user.
source "$KILN_ROOT/tests/lib.sh"
[ "$(id -u)" = 0 ] || skip "needs root (a system user, a mount)"
command -v useradd >/dev/null || skip "no useradd"
U=kiln-bench-ro$$
MNT=
cleanup() {
	[ -n "$MNT" ] && umount "$MNT" 2>/dev/null
	userdel "$U" 2>/dev/null
	[ -n "${KEEP:-}" ] || rm -rf "$T"
}
trap cleanup EXIT
useradd -r -M -d /nonexistent -s /bin/sh "$U" || skip "cannot create a user"
chmod 755 "$T"
cd "$T"
cat > c.yaml <<'Y'
pexecs: 3
vms: {t: {plugin: command, path: /bin/true}}
benchmarks: {noop: 0}
Y
"$KILN" run -q c.yaml || fail "run: $("$KILN" status --failures c.kiln.db 2>&1)"
[ ! -e c.kiln.db-wal ] && [ ! -e c.kiln.db-shm ] || fail "a finished run leaves no -wal/-shm"
as_user() { su "$U" -s /bin/sh -c "$*"; }

# every reader, on $1 (a results file), as the user; outputs go to a folder of the user's
readers() {
	local db=$1 out=$T/out-${2// /-}
	rm -rf "$out"; mkdir -p "$out"; chown "$U" "$out"
	local c rc
	for c in "status $db" "status --json $db" "report $db" "report --format json $db" "audit $db" \
		"export $db --format krun -o $out/k.json" "export $db --format csv -o $out/k.csv" \
		"plot $db -o $out/plots" "diff $db $db"; do
		as_user "$KILN $c" >"$out/stdout" 2>"$out/stderr"; rc=$?
		[ $rc = 0 ] || fail "$2: kiln $c exited $rc: $(cat "$out/stderr")"
	done
	assert_contains "$(as_user "$KILN status $db")" "noop:t" "$2: status shows the key"
	[ -s "$out/k.json" ] || fail "$2: export wrote nothing"
}

# 1. a file the user cannot write, in a folder the user cannot write
mkdir ro && cp c.kiln.db ro/ && chmod 444 ro/c.kiln.db && chmod 555 ro
before=$(sha256sum ro/c.kiln.db)
readers "$T/ro/c.kiln.db" "read-only folder"
assert_eq "$(sha256sum ro/c.kiln.db)" "$before" "the file is not changed"
[ -z "$(ls ro | grep -v '^c.kiln.db$')" ] || fail "a reader left files: $(ls ro)"

# 2. the folder is the user's, the file is root's and read-only
mkdir mine && cp c.kiln.db mine/ && chmod 444 mine/c.kiln.db && chown "$U" mine
readers "$T/mine/c.kiln.db" "file of root"

# 3. a read-only mount (tmpfs remounted read-only), read by root and by the user
MNT=$T/mnt; mkdir "$MNT"
if mount -t tmpfs -o size=8m kiln-bench-ro "$MNT" 2>/dev/null; then
	cp c.kiln.db "$MNT/" && chmod 644 "$MNT/c.kiln.db"
	mount -o remount,ro "$MNT" || fail "remount read-only"
	touch "$MNT/x" 2>/dev/null && fail "the mount is writable"
	readers "$MNT/c.kiln.db" "read-only mount"
	"$KILN" report "$MNT/c.kiln.db" >/dev/null || fail "root reads a read-only mount"
	"$KILN" status "$MNT/c.kiln.db" >/dev/null || fail "root: status on a read-only mount"
else
	echo "note: no tmpfs mount here, read-only mount not tested"
fi

# 4. a -wal with changes not in the file, in a folder the user cannot write: refused, saying why
mkdir walro && cp c.kiln.db walro/ && chmod 755 walro
python3 - walro/c.kiln.db <<'P' &
import sqlite3, sys, time
c = sqlite3.connect(sys.argv[1])
c.execute("PRAGMA wal_autocheckpoint=0")
c.execute("INSERT INTO meta(name, value) VALUES('kiln_bench_wal', '1')")
c.commit()
open(sys.argv[1] + ".ready", "w").close()
time.sleep(30)
P
holder=$!
wait_until 10 test -e walro/c.kiln.db.ready
chmod 555 walro; chmod 444 walro/c.kiln.db-wal walro/c.kiln.db-shm 2>/dev/null
[ -s walro/c.kiln.db-wal ] || fail "the -wal holds the change"
# with the -shm there, the user reads it, changes included
as_user "$KILN status $T/walro/c.kiln.db" >/dev/null || fail "status with a -wal and -shm"
kill $holder; wait $holder 2>/dev/null
chmod 755 walro; rm -f walro/c.kiln.db-shm; chmod 555 walro
out=$(as_user "$KILN status $T/walro/c.kiln.db" 2>&1); rc=$?
assert_eq $rc 5 "a -wal the user cannot use"
assert_contains "$out" "holds changes not yet in the file"

# 5. a missing results file: exit 5 from every command, with the same message
for c in "status nosuch.kiln.db" "report nosuch.kiln.db" "audit nosuch.kiln.db" \
	"export nosuch.kiln.db --format csv" "plot nosuch.kiln.db -o p" "diff nosuch.kiln.db c.kiln.db" \
	"diff c.kiln.db nosuch.kiln.db" "plan nosuch.kiln.db"; do
	out=$("$KILN" $c 2>&1); rc=$?
	assert_eq $rc 5 "kiln $c"
	assert_contains "$out" "nosuch.kiln.db: no such results file" "kiln $c"
done
echo ok
