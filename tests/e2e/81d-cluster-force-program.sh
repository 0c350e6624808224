# A key's program changed between rounds of a cluster run (here the
# benchmark's source), on a real Slurm of 1 node.  The round's shards are
# refused at the merge (one key is one program), and the refusal says how
# to go on: `kiln run CONFIG --slurm --force` gives the pexecs out again and
# keeps the new program's apart (KEY#2), as a local --force does.  Before,
# the merge compared every pexec with the key's first one whatever the
# submission said, so the shards of a --force round were refused too, and
# the experiment could never be finished on the cluster.  A round without
# --force is still refused; a node that runs a program the results file
# holds pexecs of is merged.
source "$KILN_ROOT/tests/lib.sh"
source "$KILN_ROOT/tests/lib-slurm.sh"
slurm_start 1
make_suite
cd "$T"
cluster_config force 3 5 20000000 11 > exp.yaml
"$KILN" run -q exp.yaml --max-pexecs 1 || fail "a local pexec"
echo '/* changed */' >> benchmarks/spin/c/bench.c
"$KILN" run -q exp.yaml --slurm --nodes 1 || fail "round 1"
wait_round exp.kiln.db 1 60
out=$("$KILN" merge exp.kiln.db 2>&1); assert_eq $? 3 "round 1 of another program: $out"
assert_contains "$out" "r1-t0.kiln.db: not merged: 2 pexec(s) of spin:fake:default-c ran a program"
assert_contains "$out" "--slurm --force"
assert_eq "$(sql exp.kiln.db "SELECT COUNT(*) FROM pexecs WHERE status='ok'")" 1 "nothing merged of round 1"

# --force: round 2 merged, the new program's pexecs apart
out=$("$KILN" run exp.yaml --slurm --nodes 1 --force 2>&1) || fail "round 2 (--force): $out"
wait_round exp.kiln.db 2 60
out=$("$KILN" merge exp.kiln.db 2>&1)
assert_eq "$(sql exp.kiln.db "SELECT COUNT(*) FROM pexecs WHERE status='ok'")" 6 "every pexec after round 2: $out"
assert_eq "$(sql exp.kiln.db "SELECT COUNT(DISTINCT env_hash) FROM pexecs p JOIN keys k ON k.id = p.key_id WHERE k.bench='spin'")" \
	2 "spin ran two programs"
assert_eq "$(sql exp.kiln.db "SELECT COUNT(*) FROM programs p JOIN keys k ON k.id = p.key_id WHERE k.bench='spin'")" 2 \
	"both recorded"
assert_eq "$(sql exp.kiln.db "SELECT COUNT(*) FROM pexecs p WHERE NOT EXISTS (SELECT 1 FROM programs g WHERE g.key_id = p.key_id AND g.hash = p.env_hash)")" \
	0 "every pexec of a recorded program"
report=$("$KILN" report exp.kiln.db 2>&1) || fail "report: $report"
assert_contains "$report" "spin:fake:default-c#2"
echo ok
