# kiln compare and kiln bench when a run stops for another reason than
# failed pexecs (here a benchmark whose build fails, so its keys are
# skipped): the run's own error is said, not "N pexec(s) failed".  Before,
# any error that began with a number was read as that many failed pexecs
# ("2 key(s) were skipped" became "2 pexec(s) failed ... --retry-failed"),
# and kiln compare went on to a summary of keys it never measured.
source "$KILN_ROOT/tests/lib.sh"
cd "$T"
synthvm_builds 1.00 1.05
mkdir -p benchmarks/flat/synth benchmarks/broken/synth
cat >c.yaml <<'EOF2'
name: synth
pexecs: 3
iterations: 20
vms:
  vm:
    plugin: external
    path: ./vm-1.00
    runner: ["{vm_path}", "{iterations}", "{param}"]
    language: synth
benchmarks:
  flat: "500:0:0.05"
  broken:
    param: "500:0:0.05"
    build: [sh, -c, "exit 7"]
EOF2
out=$("$KILN" compare c.yaml --vm a=./vm-1.00 --vm b=./vm-1.05 -q 2>&1); rc=$?
assert_eq $rc 1 "a compare with a key skipped: $out"
assert_contains "$out" "key(s) were skipped"
case $out in *"pexec(s) failed"*) fail "a skipped key read as failed pexecs: $out" ;; esac
# a real failed pexec is still counted as one
printf '#!/bin/sh\n[ "$KILN_PEXEC" = 1 ] && exit 3\nexec %s 1.05 "$@"\n' "$SYN" >vm-fails
chmod +x vm-fails
sed '/^  broken:/,$d' c.yaml >c2.yaml
out=$("$KILN" compare c2.yaml --vm a=./vm-1.00 --vm b=./vm-fails -q 2>&1); rc=$?
assert_eq $rc 1 "a compare with a failed pexec: $out"
assert_contains "$out" "1 pexec(s) failed: \`kiln status --failures"
echo ok
