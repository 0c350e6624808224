#!/bin/bash
# A pexec that leaves a chain of escaped descendants, each in a session of
# its own (setsid), deeper than a fixed number of kill rounds: every one of
# them is ended before the next pexec, however deep.  kiln is the
# subreaper of what escapes its process groups; killing one level
# re-parents the next to it.  Before, the reaper gave up after 50 rounds
# and left a 70-deep chain's last 20 running into the next pexecs and
# after the session (no benchmark user: nothing else kills them).
source "$KILN_ROOT/tests/lib.sh"
cd "$T"
cat > chain.sh <<'SH'
#!/bin/sh
# chain.sh N: the next level in a session of its own, then wait
[ "$1" -gt 0 ] && setsid sh "$0" $(($1 - 1)) &
sleep 120
SH
cat > run.sh <<SH
#!/bin/sh
if [ "\$KILN_PEXEC" = 0 ]; then
	setsid sh $T/chain.sh 70 &
	# the chain is all there before the runner ends
	i=0; while [ \$(pgrep -fc "$T/chain.sh") -lt 71 ] && [ \$i -lt 200 ]; do sleep 0.05; i=\$((i+1)); done
	pgrep -fc "$T/chain.sh" > $T/built
else
	# the next pexec: nothing of the chain may be left
	n=\$(pgrep -fc "$T/chain.sh")
	[ "\$n" = 0 ] || { echo "\$n" > $T/leak; exit 3; }
fi
$sec_stream
SH
mkdir -p benchmarks/b/chain && touch benchmarks/b/chain/x
cat > c.yaml <<Y
pexecs: 2
iterations: 2
vms:
  e: {plugin: external, runner: [/bin/sh, $T/run.sh], language: chain, entry: x}
benchmarks: {b: 1}
Y
out=$("$KILN" run -q --order interleaved c.yaml 2>&1)
assert_eq "$(cat built)" 71 "the chain built by pexec 0"
[ -f leak ] && { pkill -9 -f "$T/chain.sh"; fail "$(cat leak) process(es) of the chain were still running at the next pexec: $out"; }
[ -n "$out" ] && fail "run: $out"
left=$(live_of -f "$T/chain.sh")
if [ -n "$left" ]; then
	n=$(wc -w <<<"$left")
	pkill -9 -f "$T/chain.sh"
	fail "$n process(es) of the chain outlived the pexec"
fi
assert_eq "$(sqlite3 c.kiln.db "SELECT COUNT(*) FROM pexecs WHERE status = 'ok'")" 2 "pexecs"
echo ok
