# One experiment over a real Slurm cluster of 3 nodes (scripts/slurm-local.sh):
# 2 keys x 12 pexecs, exact counts after the automatic merge, each node's
# pexecs and audit kept, reports per machine (pooling on request), status per
# node; merging again (all shards, one shard twice) changes nothing; shards
# of another config, of another results file, or doctored, are refused.
source "$KILN_ROOT/tests/lib.sh"
source "$KILN_ROOT/tests/lib-slurm.sh"
t_start=${EPOCHREALTIME/./}
slurm_start 3
make_suite
cd "$T"
cluster_config cluster 12 5 20000000 11 > exp.yaml
"$KILN" run exp.yaml --slurm --nodes 3 2>submit.err || { cat submit.err; fail "submission"; }
assert_contains "$(cat submit.err)" "3 task(s) on exclusive nodes, 24 pexec(s) (8 to 8 each)"
# the schedule is fixed in the results file before any task runs
assert_eq "$(sql exp.kiln.db "SELECT COUNT(*) FROM pexecs")" 24 "schedule stored at submission"
assert_eq "$(sql exp.kiln.db "SELECT COUNT(*) FROM cluster_assign")" 24 "every pexec given out once"
assert_eq "$(sql exp.kiln.db "SELECT COUNT(DISTINCT pexec_id) FROM cluster_assign")" 24 "no pexec given twice"
job=$(sql exp.kiln.db "SELECT job FROM cluster_rounds WHERE round=1")
[ -n "$job" ] || fail "no job recorded"
# the array really is an exclusive array of 3 tasks
scontrol -o show job "$job" | grep -q "OverSubscribe=NO" || fail "tasks not exclusive: $(scontrol -o show job "$job" | head -1)"
wait_round exp.kiln.db 1 60
t_done=${EPOCHREALTIME/./}

# exact counts after the automatic merge
assert_eq "$(sql exp.kiln.db "SELECT COUNT(*) FROM pexecs WHERE status='ok'")" 24 "ok pexecs after merge"
# the programs the shards' pexecs ran came along: one per key, every pexec's recorded
assert_eq "$(sql exp.kiln.db "SELECT COUNT(*) FROM programs")" 2 "programs after merge"
assert_eq "$(sql exp.kiln.db "SELECT COUNT(*) FROM pexecs p WHERE NOT EXISTS (SELECT 1 FROM programs g WHERE g.key_id = p.key_id AND g.hash = p.env_hash)")" 0 "pexecs of no recorded program"
assert_eq "$(sql exp.kiln.db "SELECT COUNT(DISTINCT key_id || '-' || num) FROM pexecs WHERE status='ok'")" 24 "each pexec once"
assert_eq "$(count_iterations exp.kiln.db)" 120 "iterations"
assert_eq "$(sql exp.kiln.db "SELECT COUNT(*) FROM iterations")" 24 "one iteration row per pexec"
assert_eq "$(sql exp.kiln.db "SELECT group_concat(machine || '=' || n, ' ') FROM (SELECT machine, COUNT(*) n FROM origins GROUP BY machine ORDER BY machine)")" \
	"n1=8 n2=8 n3=8" "pexecs per node"
assert_eq "$(sql exp.kiln.db "SELECT COUNT(*) FROM origins o JOIN pexecs p ON p.id = o.pexec_id WHERE p.status='ok'")" 24 "an origin per pexec"
# every node's audit is kept, and says where the task ran
for t in 0 1 2; do
	assert_eq "$(sql exp.kiln.db "SELECT COUNT(*) FROM audit WHERE name IN ('shard:r1-t$t:start', 'shard:r1-t$t:end', 'shard:r1-t$t:task')")" 3 "audit of task $t"
done
assert_eq "$(sql exp.kiln.db "SELECT group_concat(json_extract(value, '\$.machine'), ' ') FROM (SELECT value FROM audit WHERE name LIKE 'shard:%:task' ORDER BY name)")" "n1 n2 n3" "task records"
assert_eq "$(sql exp.kiln.db "SELECT value IS NOT NULL FROM meta WHERE name='ended'")" 1 "the experiment ended"
# the results file and its shards keep a rollback journal: several machines open them
assert_eq "$(sql exp.kiln.db "PRAGMA journal_mode")" delete "main file journal"
assert_eq "$(sql exp.shards/r1-t0.kiln.db "PRAGMA journal_mode")" delete "shard journal"

# status: per node and overall
out=$("$KILN" status exp.kiln.db) || fail "status"
assert_contains "$out" "24 of 24 pexecs done"
for n in 1 2 3; do
	grep -Eq "^[0-2] +n$n +COMPLETED +8/8 " <<<"$out" || fail "status line of n$n: $out"
done
assert_contains "$out" "overall: 24 of 24 pexecs done (24 merged"
assert_eq "$(cluster_field exp.kiln.db "[t['node'] for t in d['task_list']]")" "['n1', 'n2', 'n3']" "status --json nodes"
assert_eq "$(cluster_field exp.kiln.db "d['finished'], d['remaining'], d['merge_state']")" "24 0 COMPLETED" "status --json totals"

# reports: grouped by machine by default (warmup_stats JSON's machines level), pooled on request
"$KILN" report exp.kiln.db --format json --resamples 200 > per.json || fail "report json"
python3 - per.json <<'P' || fail "report json per machine"
import json, sys
d = json.load(open(sys.argv[1]))
m = d["machines"]
assert sorted(m) == ["n1", "n2", "n3"], sorted(m)
n = sum(len(b["process_executons"]) for mach in m.values() for b in mach["fake"].values())
assert n == 24, n
P
"$KILN" report exp.kiln.db --format json --resamples 200 --pool-machines > pooled.json 2>pool.err || fail "report pooled"
assert_contains "$(cat pool.err)" "pexecs of 3 machines (n1+n2+n3) are pooled"
python3 - pooled.json <<'P' || fail "report json pooled"
import json, sys
d = json.load(open(sys.argv[1]))
(name, mach), = d["machines"].items()
assert name == "n1+n2+n3", name
assert sorted(len(b["process_executons"]) for b in mach["fake"].values()) == [12, 12]
P
text=$("$KILN" report exp.kiln.db --resamples 200) || fail "report text"
assert_contains "$text" "spin:fake:default-c@n2"
assert_eq "$("$KILN" report exp.kiln.db --resamples 200 --key 'spin:fake:default-c' | grep -c '^spin:fake')" 3 "--key matches a key on each machine"

# merging again changes nothing: every shard, then one shard named twice
dump() { sql exp.kiln.db "SELECT p.id, p.status, p.attempts, p.duration_s, hex(i.wall), o.machine FROM pexecs p LEFT JOIN iterations i ON i.pexec_id = p.id LEFT JOIN origins o ON o.pexec_id = p.id ORDER BY p.id" | sha256sum; }
before=$(dump)
out=$("$KILN" merge exp.kiln.db) || fail "second merge"
assert_contains "$out" "r1-t0 (n1): 0 merged, 8 before"
assert_eq "$(dump)" "$before" "a second merge changed the results"
"$KILN" merge exp.kiln.db exp.shards/r1-t1.kiln.db exp.shards/r1-t1.kiln.db >/dev/null || fail "merge one shard twice"
assert_eq "$(dump)" "$before" "merging a shard twice changed the results"
assert_eq "$("$KILN" merge --json exp.kiln.db | python3 -c 'import json,sys; d=json.load(sys.stdin); print(sum(s["merged"] for s in d["shards"]), d["done"])')" "0 24" "merge --json"

# a shard of another config is refused, and so is one of another results file of the same config
cluster_config cluster 12 5 20000000 12 > other.yaml
"$KILN" run -q other.yaml --slurm --nodes 1 -- --hold || fail "submit other"
scancel "$(sql other.kiln.db "SELECT job FROM cluster_rounds")"
"$KILN" merge exp.kiln.db other.shards/r1-t0.kiln.db 2>err.txt
assert_eq "$?" 3 "a shard of another config: exit status"
assert_contains "$(cat err.txt)" "from another config"
mkdir copy && cp -r exp.yaml benchmarks copy/
"$KILN" run -q copy/exp.yaml --slurm --nodes 1 -- --hold || fail "submit copy"
scancel "$(sql copy/exp.kiln.db "SELECT job FROM cluster_rounds")"
"$KILN" merge exp.kiln.db copy/exp.shards/r1-t0.kiln.db 2>err.txt
assert_eq "$?" 3 "a shard of another results file: exit status"
assert_contains "$(cat err.txt)" "another results file of this config"
# a doctored shard (a view could show rows that are not there) is refused
cp exp.shards/r1-t2.kiln.db evil.kiln.db
sqlite3 evil.kiln.db "CREATE VIEW v AS SELECT * FROM pexecs"
"$KILN" merge exp.kiln.db evil.kiln.db 2>err.txt
assert_eq "$?" 5 "a doctored shard: exit status"
assert_contains "$(cat err.txt)" "not a schema kiln wrote: view 'v' is not one of kiln's"
# a shard claiming a pexec it was not given
cp exp.shards/r1-t2.kiln.db stolen.kiln.db
sqlite3 stolen.kiln.db "UPDATE meta SET value='r1-t0' WHERE name='shard'"
"$KILN" merge exp.kiln.db stolen.kiln.db 2>err.txt
assert_eq "$?" 3 "a shard with pexecs it was not given: exit status"
assert_contains "$(cat err.txt)" "pexec(s) that"
assert_eq "$(dump)" "$before" "a refused shard changed the results"
# provenance: nodes that ran another program than the key's first pexec
# (here the benchmark's source, changed after the local pexec) are not
# merged into one key (docs/provenance.md)
cluster_config prov 3 5 20000000 11 > prov.yaml
"$KILN" run -q prov.yaml --max-pexecs 1 || fail "local pexec of prov"
cp benchmarks/spin/c/bench.c bench.c.orig
echo '/* changed on the nodes */' >> benchmarks/spin/c/bench.c
"$KILN" run -q prov.yaml --slurm --nodes 1 || fail "submit prov"
wait_round prov.kiln.db 1 60
"$KILN" merge prov.kiln.db 2>err.txt
assert_eq "$?" 3 "a shard whose environment differs: exit status"
assert_contains "$(cat err.txt)" "does not know the key by (env_hash differs"
assert_eq "$(sql prov.kiln.db "SELECT COUNT(*) FROM pexecs WHERE status='pending'")" 5 "the differing pexecs stay pending"
# the same nodes with the same program: the second round is merged
cp bench.c.orig benchmarks/spin/c/bench.c
"$KILN" run -q prov.yaml --slurm --nodes 1 2>err.txt || { cat err.txt; fail "resubmit prov"; }
assert_contains "$(cat err.txt)" "shard r1-t0 not merged"
wait_round prov.kiln.db 2 60
assert_eq "$(sql prov.kiln.db "SELECT COUNT(*) FROM pexecs WHERE status='ok'")" 6 "prov complete"
assert_eq "$(sql prov.kiln.db "SELECT MAX(n) FROM (SELECT COUNT(DISTINCT env_hash) n FROM pexecs GROUP BY key_id)")" 1 "one program per key"

# sbatch refuses the job: nothing is given out, no round is recorded
cluster_config nopart 12 5 20000000 11 > nopart.yaml
"$KILN" run -q nopart.yaml --slurm --nodes 2 -- -p nosuchpartition 2>err.txt
assert_eq "$?" 1 "sbatch refused: exit status"
assert_contains "$(cat err.txt)" "sbatch failed"
assert_contains "$(cat err.txt)" "invalid partition"
assert_eq "$(sql nopart.kiln.db "SELECT COUNT(*) FROM cluster_rounds") $(sql nopart.kiln.db "SELECT COUNT(*) FROM cluster_assign") $(ls nopart.shards | wc -l)" \
	"0 0 0" "a refused submission leaves nothing"

# a finished experiment has nothing to submit
out=$("$KILN" run exp.yaml --slurm 2>&1) || fail "resubmit a finished experiment: $out"
assert_contains "$out" "every pexec is done; nothing to submit"
echo "3-node test: submission to merged $(( (t_done - t_start) / 1000 )) ms, whole test $(( (${EPOCHREALTIME/./} - t_start) / 1000 )) ms"
