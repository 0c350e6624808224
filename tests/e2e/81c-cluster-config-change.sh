# The config changed (pexecs added, or anything under --force) while a
# cluster round is out, on a real Slurm of 2 nodes.  Each shard was made of
# the config as it was, and a shard of another config is refused at the
# merge: before, `kiln run CONFIG` and `kiln run CONFIG --slurm` stored the
# new config first (the submission refused only after that, "still in the
# queue"), so the round's merge job then refused every shard and all the
# round measured was left out (and run again).  Now a config change waits
# for the round to end (exit 4) and leaves the file as it was; once the
# round has ended, the shards not merged yet are merged before the config
# changes.
source "$KILN_ROOT/tests/lib.sh"
source "$KILN_ROOT/tests/lib-slurm.sh"
slurm_start 2
make_suite
cd "$T"
mkdir gates
cluster_config grow 3 3 100000000 5 "$T/gates" > exp.yaml
"$KILN" run -q exp.yaml --slurm --nodes 2 -- --hold || fail "submission"
job=$(sql exp.kiln.db "SELECT job FROM cluster_rounds WHERE round=1")
mjob=$(sql exp.kiln.db "SELECT merge_job FROM cluster_rounds WHERE round=1")
hash0=$(sql exp.kiln.db "SELECT value FROM meta WHERE name='config_hash'")
hold_mid_pexec exp.shards gates "$job" "$mjob" 30 0 1
# more pexecs while both tasks are held mid-pexec: refused, the file as it was
sed -i 's/^pexecs: 3$/pexecs: 4/' exp.yaml
out=$("$KILN" run exp.yaml --slurm --nodes 2 2>&1); assert_eq $? 4 "a grown config submitted mid-round: $out"
assert_contains "$out" "still in the queue"
assert_eq "$(sql exp.kiln.db "SELECT value FROM meta WHERE name='config_hash'")" "$hash0" "the config as it was"
# (bounded: a local run that went ahead would wait at the held pexecs' gates)
out=$(timeout 60 "$KILN" run exp.yaml 2>&1); assert_eq $? 4 "a grown config run locally mid-round: $out"
assert_contains "$out" "still in the queue"
out=$(timeout 60 "$KILN" run exp.yaml --force 2>&1); assert_eq $? 4 "--force mid-round: $out"
assert_eq "$(sql exp.kiln.db "SELECT value FROM meta WHERE name='config_hash'")" "$hash0" "the config as it was"
assert_eq "$(sql exp.kiln.db "SELECT COUNT(*) FROM pexecs")" 6 "the schedule as it was"
rm -f gates/*
wait_round exp.kiln.db 1 60
assert_eq "$(sql exp.kiln.db "SELECT COUNT(*) FROM pexecs WHERE status='ok'")" 6 "the round merged whole"

# a round ended but not merged (its merge job did not run): merged before the config grows
cluster_config grow 3 3 1000000 5 > exp.yaml
rm -f exp.kiln.db; rm -rf exp.shards
"$KILN" run -q exp.yaml --slurm --nodes 2 || fail "second submission"
job=$(sql exp.kiln.db "SELECT job FROM cluster_rounds WHERE round=1")
mjob=$(sql exp.kiln.db "SELECT merge_job FROM cluster_rounds WHERE round=1")
scancel "$mjob"
ended() { [ -z "$(squeue -h -j "$job" 2>/dev/null)" ]; }
wait_until 60 ended || fail "round 1 did not end"
assert_eq "$(sql exp.kiln.db "SELECT COUNT(*) FROM pexecs WHERE status='ok'")" 0 "nothing merged yet"
sed -i 's/^pexecs: 3$/pexecs: 4/' exp.yaml
out=$("$KILN" run exp.yaml 2>&1) || fail "the grown config, locally: $out"
assert_eq "$(sql exp.kiln.db "SELECT COUNT(*) FROM pexecs WHERE status='ok'")" 8 "every pexec, the round's among them"
assert_eq "$(sql exp.kiln.db "SELECT COUNT(*) FROM origins")" 6 "the round's 6 from the nodes"
assert_eq "$(sql exp.kiln.db "SELECT COUNT(*) FROM cluster_assign WHERE merged = 1")" 6 "each merged once"
echo ok
