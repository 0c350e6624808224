#!/bin/bash
# kiln profile --pexecs N runs N pexecs, each with its own KILN_PEXEC
# (0..N-1, zero-padded as in kiln run), not all of them "0".
source "$KILN_ROOT/tests/lib.sh"
command -v perf >/dev/null || skip "perf is not installed"
cd "$T"
mkdir -p benchmarks/b/sh && touch benchmarks/b/sh/x
cat > l.sh <<SH
#!/bin/sh
echo "\$KILN_PEXEC" >> $T/labels
printf '{"kiln":1,"clock":"monotonic","counters":[]}\n{"i":0,"wall_ns":1}\n{"done":true}\n' >&3
SH
cat > l.yaml <<Y
vms:
  s: {plugin: external, runner: [/bin/sh, $T/l.sh], language: sh, entry: x}
benchmarks: {b: 1}
Y
"$KILN" profile l.yaml --key b:s --pexecs 3 -o prof >out.txt 2>&1 || fail "profile: $(cat out.txt)"
assert_eq "$(tr '\n' ' ' < labels)" "0 1 2 " "KILN_PEXEC of the profiled pexecs"
echo ok
