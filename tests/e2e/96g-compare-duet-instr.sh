#!/bin/bash
# kiln compare --duet runs two pexecs at once on the pexecs' machine: each
# must read its own instrumentation.  Before, both had the machine's one
# KILN_INSTR_DIR: each pexec's records were read from both pexecs' files,
# and a file of the same name was the other's (B's `who` was A's).  Each
# side writes who.kiln.jsonl (the same name) and whoN.kiln.jsonl (its own),
# and waits, so that both run together.
source "$KILN_ROOT/tests/lib.sh"
cd "$T"
mkdir -p benchmarks/b/sh
cat > vm.sh <<'SH'
#!/bin/sh
# vm.sh WHO - ITERATIONS
[ "$1" = --version ] && { echo vm 1; exit 0; }
echo "{\"name\":\"who\",\"value\":$1}" > "$KILN_INSTR_DIR/who.kiln.jsonl"
echo "{\"name\":\"who$1\",\"value\":$1}" > "$KILN_INSTR_DIR/who$1.kiln.jsonl"
sleep 0.3
{ printf '{"kiln":1,"clock":"monotonic","counters":[]}\n'; i=0; while [ $i -lt $3 ]; do printf '{"i":%d,"wall_ns":1000}\n' $i; i=$((i+1)); done; printf '{"done":true}\n'; } >&3
SH
chmod +x vm.sh
printf '#!/bin/sh\nexec %s/vm.sh 1 "$@"\n' "$T" > vm-a
printf '#!/bin/sh\nexec %s/vm.sh 2 "$@"\n' "$T" > vm-b
chmod +x vm-a vm-b
cat > c.yaml <<'Y'
pexecs: 2
iterations: 3
vms:
  vm: {plugin: external, path: ./vm-a, runner: ["{vm_path}", x, "{iterations}"], language: sh}
benchmarks: {b: 1}
Y
"$KILN" compare c.yaml --vm a=./vm-a --vm b=./vm-b --duet --rounds 2 -q > out.txt 2>&1 || fail "compare: $(cat out.txt)"
iso=$(sqlite3 c.a-vs-b.duet.kiln.db "SELECT value FROM audit WHERE name='isolation'")
q="SELECT k.vm || ':' || s.name || '=' || s.value FROM scalars s JOIN pexecs p ON p.id = s.pexec_id JOIN keys k ON k.id = p.key_id"
got=$(sqlite3 c.a-vs-b.duet.kiln.db "$q ORDER BY p.id, s.name" | sort | uniq -c | awk '{print $2 "x" $1}' | tr '\n' ' ')
assert_eq "$got" "a:who1=1.0x2 a:who=1.0x2 b:who2=2.0x2 b:who=2.0x2 " "each pexec's records (machine: $iso)"
echo ok
