# 20-runner-python: the CPython runner (plugins/python/runner.py) for real on
# every benchmark: protocol v1 stream, checksum equal to the C version's,
# per-iteration GC records from gc.callbacks (binary_trees must collect).
source "$KILN_ROOT/tests/lib.sh"
source "$KILN_ROOT/tests/helpers/runner_lib.sh"
need python3
python3 -c 'import sys; sys.exit(sys.implementation.name != "cpython")' || skip "python3 is not CPython"
check_vm python --nonzero gc.count --nonzero gc.time --nonzero python.allocated_blocks
