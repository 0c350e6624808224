# Issue 17.2: the identity cache (<state>/cache/ids.db, src/idcache.c) is
# read and written a row at a time, so a full one costs a run no more than
# an empty one.  Here: the JSON file an older kiln kept is removed; a cache
# full to the bound (1,024 rows per kind, tests/helpers/fill_idcache.py)
# still gives a run its own entry, and a kind that gains rows loses its
# least recently used ones, not all of them; a damaged file (not SQLite,
# cut short, a row altered behind its checksum) is emptied and learned
# again, never believed; kilns at once (one holding the write lock, or
# two starting on no cache at all) wait for each other and all keep
# what they learned.  Whether the audit's VM entry came from the cache is
# the audit's own `cached` flag.
source "$KILN_ROOT/tests/lib.sh"
ldc=$(command -v ldconfig || echo /sbin/ldconfig)
[ -x "$ldc" ] || skip "no ldconfig"
cd "$T"
export KILN_STATE_DIR="$T/state"
FILL="python3 $KILN_ROOT/tests/helpers/fill_idcache.py"
DB=state/cache/ids.db
mkdir bin
for n in "" 1 2 3; do
	cp "$ldc" bin/vm$n
	cat > c$n.yaml <<Y
pexecs: 1
vms: {v: {plugin: command, path: $T/bin/vm$n, args: [-p]}}
benchmarks: {noop: 0}
Y
done
run() { # run N [CONFIG-SUFFIX]: a fresh results file; prints whether the VM's entry was cached
	local c=c${2:-}
	rm -f $c.kiln.db*
	"$KILN" run -q $c.yaml 2> err.$1 || { cat err.$1; fail "run $1"; }
	"$KILN" audit --json $c.kiln.db > audit.$1 || fail "audit $1"
	python3 -c 'import json, sys; v = json.load(open(sys.argv[1]))["start"]["vms"][0]
assert "ldconfig" in v["version"] and v["version_status"] == 0, v
print(v["cached"])' audit.$1 || fail "run $1: the audit's VM is incomplete"
}
rows() { sqlite3 $DB "SELECT kind, COUNT(*) FROM ids GROUP BY kind ORDER BY kind" | tr '\n' ' '; }
intact() { assert_eq "$(sqlite3 $DB 'PRAGMA integrity_check')" ok "$1: the cache file afterwards"; }
learned() { # N: the cache holds the VM entry run N learned (its path and hash), not the run's entry alone
	local real sha
	read -r real sha < <(python3 -c 'import json, sys; v = json.load(open(sys.argv[1]))["start"]["vms"][0]
print(v["real"], v["sha256"])' audit.$1)
	assert_eq "$(sqlite3 $DB "SELECT COUNT(*) FROM ids WHERE kind = 'vm' AND instr(value, '\"$real\"')
		AND instr(value, '$sha')")" 1 "run $1: its VM's entry in the cache"
}

# what an older kiln left: its JSON file and a crashed write's copy, removed
mkdir -m 711 state && mkdir -m 700 state/cache
echo '{"version":1}' > state/cache/ids.json
echo '{"vers' > state/cache/ids.json.tmp.4242
assert_eq "$(run 1)" False "run 1"
[ ! -e state/cache/ids.json ] && [ ! -e state/cache/ids.json.tmp.4242 ] ||
	fail "the old cache files are still there: $(ls state/cache)"
[ -f $DB ] && [ ! -L $DB ] || fail "no cache file: $(ls -l state/cache)"
learned 1

# (1) full: kiln's own rows made the least recently used, then every kind filled to 1,024
# (dpkg's answers are a kind where dpkg is: the VM's, "no package", learned by run 1)
dk=$(sqlite3 $DB "SELECT DISTINCT kind FROM ids WHERE kind = 'dpkg'")
sqlite3 $DB "UPDATE ids SET used = 0"
$FILL $DB 1024 > /dev/null
assert_eq "$(rows)" "${dk:+dpkg|1024 }sha256|1024 virt|1024 vm|1024 " "rows after the fill"
fillers() { sqlite3 $DB "SELECT COUNT(*) FROM ids WHERE kind = '$1' AND key LIKE 'fill-%'"; }
mine() { sqlite3 $DB "SELECT kind FROM ids WHERE key NOT LIKE 'fill-%' AND used $1 ORDER BY 1" | tr '\n' ' '; }
assert_eq "$(run 3)" True "run 3: its entry in a full cache"
# its hits are marked used; the VM's hash and dpkg's answers are not looked up when the VM's entry holds
assert_eq "$(mine '= 0')" "${dk:+dpkg }sha256 " "kiln's rows unused by run 3"
for k in sha256 vm; do eval "before_$k=$(fillers $k)"; done
# the VM changes: new rows for vm and sha256, each kind back to the bound by its least recently used going
printf '\0' >> bin/vm
assert_eq "$(run 4)" False "run 4: a changed VM"
assert_eq "$(rows)" "${dk:+dpkg|1024 }sha256|1024 virt|1024 vm|1024 " "rows after run 4 added some"
assert_eq "$(mine '= 0')" "" "the row least recently used (the old VM's hash) kept"
assert_eq "$(mine '> 0' | grep -o 'virt vm vm')" "virt vm vm" "rows run 3 used, or run 4 added: $(mine '> 0')"
gone_vm=$((before_vm - $(fillers vm)))
[ "$gone_vm" -ge 1 ] || fail "vm: no filler went"
for k in sha256 vm; do
	gone=$((before_$k - $(fillers $k)))
	assert_eq "$(sqlite3 $DB "SELECT MIN(used) FROM ids WHERE kind = '$k' AND key LIKE 'fill-%'")" \
		$((gone + 1)) "$k: the oldest filler left after $gone went (not the least recently used went?)"
done
learned 4

# (2) damaged: cut short; not SQLite at all; a row altered behind its checksum
sz=$(stat -c %s $DB)
truncate -s $((sz / 2)) $DB
assert_eq "$(run 6)" False "run 6: a cache cut short"
grep -q "identity cache is damaged" err.6 || fail "run 6 did not say the cache was damaged: $(cat err.6)"
intact "run 6"
learned 6
head -c 65536 /dev/urandom > $DB
assert_eq "$(run 8)" False "run 8: a cache that is not SQLite"
intact "run 8"
sqlite3 $DB "UPDATE ids SET value = replace(value, 'ldconfig', 'forged') WHERE kind = 'vm'"
assert_eq "$(run 9)" False "run 9: an altered row"
grep -q "checksum" err.9 || fail "run 9 did not say why: $(cat err.9)"
grep -q forged audit.9 && fail "the altered row reached the audit"
intact "run 9"

# (3) at once: a writer holding the cache's lock while a kiln that has rows
# to write runs (its hits' last use, made old here), then two kilns on no cache
sqlite3 $DB "UPDATE ids SET used = 0"
python3 - $DB hold.ready <<'P' &
import sqlite3, sys, time
con = sqlite3.connect(sys.argv[1], isolation_level=None)
con.execute("BEGIN IMMEDIATE")
open(sys.argv[2], "w").close()
time.sleep(2)
con.execute("COMMIT")
P
holder=$!
wait_until 5 test -e hold.ready
[ -e hold.ready ] || fail "the lock holder did not start"
assert_eq "$(run 10)" True "run 10: beside a writer"
wait $holder || fail "the lock holder failed"
assert_eq "$(mine '= 0')" "${dk:+dpkg }sha256 " "rows run 10 used, not marked so (it did not wait for the writer?)"
rm -rf state
for n in 1 2; do run 12.$n $n > cached.$n & done
wait
for n in 1 2; do assert_eq "$(cat cached.$n)" False "run 12.$n"; done
intact "run 12"
for n in 1 2; do learned 12.$n; done
echo ok
