# A Krun config's settings kiln cannot read are said, not silently
# dropped: a value it cannot know (a call of a function of the file's) in
# N_EXECUTIONS, STACK_LIMIT, EXECUTION_TIMEOUT, a VM's n_iterations or
# SKIP, a VM def's argument it does not take; and an env passed to a VM
# def by position (Krun's PythonVMDef(vm_path, env)) is the VM's env.
source "$KILN_ROOT/tests/lib.sh"
cd "$T"
cat > t.krun <<'P'
from krun.vm_defs import PythonVMDef, NativeCodeVMDef
from krun import EntryPoint

def f():
    return 5

VARIANTS = {"default-python": EntryPoint("bench.py", subdir="python")}
VMS = {
    'CPython': {
        'vm_def': PythonVMDef('/usr/bin/python3', {'PYTHONHASHSEED': '0'}),
        'variants': ['default-python'],
        'n_iterations': f(),
    },
    'C': {'vm_def': NativeCodeVMDef({'A': 'b'}, True, 7), 'variants': ['default-c'], 'n_iterations': 2},
}
BENCHMARKS = {'nbody': 10}
SKIP = [f(), "nbody:C:*"]
N_EXECUTIONS = f()
EXECUTION_TIMEOUT = f()
STACK_LIMIT = f()
P
out=$("$KILN" convert t.krun 2>err) || fail "convert: $(cat err)"
err=$(cat err)
assert_contains "$out" '"CPython": {plugin: python, path: "/usr/bin/python3", variant: "default-python", env: {"PYTHONHASHSEED": "0"}}' "a positional env is the VM's"
assert_contains "$out" '"C": {plugin: c, variant: "default-c", iterations: 2, env: {"A": "b"}}' "the native VM def's positional env"
assert_contains "$err" 't.krun:18: N_EXECUTIONS: not a positive integer (line 18: a call of f): pexecs: 1 written'
assert_contains "$err" 't.krun:20: STACK_LIMIT: not a positive integer'
assert_contains "$err" 't.krun:19: EXECUTION_TIMEOUT: not a positive number'
assert_contains "$err" "t.krun:10: CPython: n_iterations is line 12: a call of f: not taken over"
assert_contains "$err" "t.krun:17: SKIP: entry 1 is line 17: a call of f: left out"
assert_contains "$err" "C: NativeCodeVMDef's argument 2 (a value) is not taken over"
assert_contains "$err" "C: NativeCodeVMDef's argument 3 (a value) is not taken over"
echo ok
