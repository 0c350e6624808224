# lib-history.sh - a tiny VM in a git repository of its own, for the tests
# of kiln track, bisect and publish (source it after lib.sh).
#
# make_history_repo DIR makes DIR a git repository of 8 commits of "toy", a
# VM whose iterations report made-up times (2 ms in the steady state, each
# with 1% noise, after WARM iterations 3x slower; CPU time 98% of that),
# built by its Makefile:
#   c0  the VM: steady 2000 us, WARM 5
#   c1  README only                      (same binary as c0: an A/A pair)
#   c2  steady 2200 us                   (+10% steady state)
#   c3  README only                      (same binary as c2)
#   c4  WARM 10                          (2x the time to steady state)
#   c5  a syntax error                   (the build fails)
#   c6  the build fixed, as c4           (same binary as c4)
#   c7  README only                      (same binary as c6)
# The hashes are in HIST_C0 .. HIST_C7 (history_line makes a longer line of
# one speed, or one step).  make_history_config FILE REPO_UNUSED
# writes an experiment of that VM ({src} for the checkout) with one
# benchmark `b` of PEXECS (default 5) pexecs x 30 iterations.
# history_test_begin does both in $T, after checking the tools they need.

history_vm_source() { # STEADY_US WARM [BROKEN]
	cat <<C
/* toy: a VM for kiln's history tests; its iteration times are made, not measured */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define STEADY_US $1
#define WARM $2
${3:-}
int main(void)
{
	const char *fd = getenv("KILN_RESULT_FD"), *it = getenv("KILN_ITERATIONS"), *pa = getenv("KILN_PARAM");
	if (!fd || !it)
		return 2;
	FILE *out = fdopen(atoi(fd), "w");
	if (!out)
		return 2;
	long n = atol(it);
	double param = pa ? atof(pa) : 1;
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	srand48(ts.tv_nsec ^ (long)getpid() << 16);
	fprintf(out, "{\"kiln\":1,\"clock\":\"monotonic_raw\",\"counters\":[]}\n");
	for (long i = 0; i < n; i++) {
		double g = sqrt(-2 * log(drand48() + 1e-300)) * cos(6.283185307179586 * drand48());
		double f = (i < WARM ? 3.0 : 1.0) * exp(0.01 * g);
		long ns = (long)(STEADY_US * 1000.0 * param * f);
		/* its CPU time: 98% of the wall time (the rest "waited") */
		fprintf(out, "{\"i\":%ld,\"wall_ns\":%ld,\"cpu_ns\":%ld}\n", i, ns, ns / 50 * 49);
	}
	fprintf(out, "{\"done\":true}\n");
	return 0;
}
C
}

# history_repo_init DIR: an empty repository of the toy VM (its Makefile, not committed)
history_repo_init() {
	mkdir -p "$1"
	git -C "$1" init -q -b main
	git -C "$1" config user.name "Kiln Test"
	git -C "$1" config user.email "kiln@example.invalid"
	printf 'vm: vm.c\n\tcc -O2 -o vm vm.c -lm\n' > "$1/Makefile"
}

# history_line DIR N [SLOW_AT]: DIR a repository of N commits "c0: rebuilt" .. of the toy VM, one a minute, each its
# own binary, 2000 us a steady iteration (2200 from commit SLOW_AT on, when given); their hashes in HIST_L0 ..
history_line() {
	local d=$1 n=$2 slow=${3:-} i us
	history_repo_init "$d"
	for i in $(seq 0 $((n - 1))); do
		us=2000
		[ -n "$slow" ] && [ "$i" -ge "$slow" ] && us=2200
		history_vm_source $us 5 "static volatile int rebuilt = $i;" > "$d/vm.c"
		git -C "$d" add -A
		GIT_COMMITTER_DATE="2026-01-01T12:$((10 + i)):00Z" GIT_AUTHOR_DATE="2026-01-01T12:$((10 + i)):00Z" \
			git -C "$d" commit -q -m "c$i: rebuilt"
		eval "HIST_L$i=$(git -C "$d" rev-parse HEAD)"
	done
}

make_history_repo() { # DIR
	local d=$1
	history_repo_init "$d"
	_hc() { # MESSAGE: commit everything, the hash into HIST_Cn
		git -C "$d" add -A
		GIT_COMMITTER_DATE="2026-01-0$((HIST_N + 1))T12:00:00Z" GIT_AUTHOR_DATE="2026-01-0$((HIST_N + 1))T12:00:00Z" \
			git -C "$d" commit -q -m "$1"
		eval "HIST_C${HIST_N}=$(git -C "$d" rev-parse HEAD)"
		HIST_N=$((HIST_N + 1))
	}
	HIST_N=0
	history_vm_source 2000 5 > "$d/vm.c"; echo "toy v0" > "$d/README"; _hc "toy: the VM"
	echo "toy, a VM" > "$d/README"; _hc "README: say what toy is"
	history_vm_source 2200 5 > "$d/vm.c"; _hc "interpreter: a slower dispatch"
	echo "toy, a VM (slower)" > "$d/README"; _hc "README: a note"
	history_vm_source 2200 10 > "$d/vm.c"; _hc "jit: compile later"
	history_vm_source 2200 10 "syntax error here" > "$d/vm.c"; _hc "wip: break the build"
	history_vm_source 2200 10 > "$d/vm.c"; _hc "fix the build"
	echo "toy, a VM (slower, later)" > "$d/README"; _hc "README: the last note"
	export HIST_C0 HIST_C1 HIST_C2 HIST_C3 HIST_C4 HIST_C5 HIST_C6 HIST_C7
}

make_history_config() { # FILE [PEXECS]
	local f=$1 dir
	dir=$(dirname "$f")
	mkdir -p "$dir/benchmarks/b/toy"
	echo "the toy VM's benchmark is built into it" > "$dir/benchmarks/b/toy/README"
	cat > "$f" <<Y
name: toy-history
pexecs: ${2:-5}
iterations: 30
vms:
  toy:
    plugin: external
    path: "{src}/vm"
    runner: ["{vm_path}"]
    language: toy
    build: [make, -C, "{src}", -s]
benchmarks:
  b: 1
platform: {kmsg: off}
Y
}

# skipped without git, cc, make or sqlite3; then in $T
history_test_tools() {
	command -v git >/dev/null || skip "git is not installed"
	command -v cc >/dev/null && command -v make >/dev/null || skip "no cc or make"
	command -v sqlite3 >/dev/null || skip "no sqlite3"
	cd "$T" || fail "no $T"
}

# The start of a history test: skipped without git, cc, make or sqlite3;
# in $T, the toy's repository in repo and its experiment in exp/toy.yaml
history_test_begin() {
	history_test_tools
	make_history_repo "$T/repo"
	make_history_config "$T/exp/toy.yaml"
}
