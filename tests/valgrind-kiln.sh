#!/bin/sh
# valgrind-kiln.sh - stands in for kiln in the end-to-end tests under
# `make test-valgrind`: memcheck with errors failing the command (exit 99).
# Children (runners, benchmarks) are not traced: they are not kiln's code.
exec valgrind -q --error-exitcode=99 --trace-children=no --track-fds=no \
	--errors-for-leak-kinds=definite --leak-check=full \
	"$KILN_ROOT/${O:-build}/kiln" "$@"
