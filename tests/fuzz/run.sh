#!/bin/bash
# run.sh - build and run every libFuzzer target (tests/fuzz/fuzz_*.c).
#
#   tests/fuzz/run.sh SECONDS [NAME...]     (make fuzz: SECONDS=${FUZZ_SECONDS:-60})
#
# Builds kiln's parsers (src/ without kiln.c, lib/, plugins/*/plugin.c and
# plugins/*/parse*.c) with clang -fsanitize=fuzzer-no-link,address,undefined
# into build-fuzz/libfuzzcore.a (only what changed is recompiled), links each
# target against it, then for each target NAME:
#   1. replays tests/fuzz/regressions/NAME/* (every crash ever found): a
#      failure there fails the run;
#   2. fuzzes for SECONDS with the working corpus build-fuzz/corpus/NAME and
#      the seeds tests/fuzz/corpus/NAME;
#   3. copies any new crash/leak/timeout input to tests/fuzz/regressions/NAME/
#      (so it is replayed from then on) and fails the run.
# Compilers and targets run FUZZ_JOBS at a time (default: one per CPU).
# Ends with one line per target and exits non-zero when any target failed.
set -u
cd "$(dirname "$0")/../.."
SECS=${1:-60}
shift || true
ONLY=("$@")
B=${FUZZ_BUILD:-build-fuzz}
CC=${FUZZ_CC:-clang}
PKGS="libfyaml jansson sqlite3 gsl libzstd capstone libmd zlib yajl"
command -v "$CC" >/dev/null || { echo "fuzz: $CC not found" >&2; exit 77; }
SAN="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
CFLAGS="-std=c11 -D_GNU_SOURCE -g -O1 $SAN -Iinclude -Isrc $(pkg-config --cflags $PKGS)
	-DKILN_PREFIX=\"/usr/local\" -Wno-unused-command-line-argument"
LIBS="$(pkg-config --libs $PKGS) -lbz2 -lm -ldl"
mkdir -p "$B/obj"

# ---- the library of everything a target may call ----
srcs=$(ls src/*.c lib/*.c plugins/*/plugin.c plugins/*/parse*.c 2>/dev/null | grep -v '^src/kiln\.c$')
newest_h=$(ls -t src/*.h include/*.h plugins/*/*.h 2>/dev/null | head -n 1)
# FUZZ_JOBS compilers, then fuzzers, at a time (default: one per CPU):
# throttle waits until fewer than that run in the background
JOBS=${FUZZ_JOBS:-$(nproc)}
throttle() {
	while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do
		wait -n
	done
}
objs=()
built=0
rm -f "$B/compile-failed"
for s in $srcs; do
	o="$B/obj/${s%.c}.o"
	objs+=("$o")
	if [ ! -f "$o" ] || [ "$s" -nt "$o" ] || [ "$newest_h" -nt "$o" ]; then
		mkdir -p "$(dirname "$o")"
		throttle
		# shellcheck disable=SC2086
		{ $CC $CFLAGS -fsanitize=fuzzer-no-link -c -o "$o" "$s" || { rm -f "$o"; echo "$s" >>"$B/compile-failed"; }; } &
		built=1
	fi
done
wait
if [ -s "$B/compile-failed" ]; then
	echo "fuzz: cannot compile $(tr '\n' ' ' <"$B/compile-failed")" >&2
	exit 1
fi
if [ $built = 1 ] || [ ! -f "$B/libfuzzcore.a" ]; then
	rm -f "$B/libfuzzcore.a"
	ar rcs "$B/libfuzzcore.a" "${objs[@]}"
fi

# one target: build, replay its regressions, fuzz; its summary line goes to
# $B/NAME.summary and its status is the target's
target() {
	local t=$1 name=$2
	local bin="$B/fuzz_$name" sum="$B/$name.summary"
	if [ ! -x "$bin" ] || [ "$t" -nt "$bin" ] || [ "$B/libfuzzcore.a" -nt "$bin" ]; then
		# shellcheck disable=SC2086
		$CC $CFLAGS -fsanitize=fuzzer -o "$bin" "$t" "$B/libfuzzcore.a" $LIBS \
			|| { echo "$name: does not build" >"$sum"; return 1; }
	fi
	# libfyaml's own leak (tests/fuzz/lsan.supp), told from kiln's by the full stack of the targets that read YAML
	export LSAN_OPTIONS="suppressions=$PWD/tests/fuzz/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
	case $name in config | convert) export ASAN_OPTIONS="fast_unwind_on_malloc=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}" ;; esac
	local reg="tests/fuzz/regressions/$name"
	if [ -d "$reg" ] && [ -n "$(ls -A "$reg" 2>/dev/null)" ]; then
		if ! "$bin" -runs=1 "$reg"/* >"$B/$name.replay.log" 2>&1; then
			echo "$name: a regression input fails again (see $B/$name.replay.log)" >"$sum"
			tail -n 30 "$B/$name.replay.log" >&2
			return 1
		fi
	fi
	local corpus="$B/corpus/$name" art="$B/artifacts/$name"
	mkdir -p "$corpus" "$art"
	local seeds="tests/fuzz/corpus/$name"
	[ -d "$seeds" ] || seeds=
	echo "fuzz: $name for ${SECS}s" >&2
	# shellcheck disable=SC2086
	"$bin" -max_total_time="$SECS" -max_len=131072 -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="$art/" "$corpus" $seeds >"$B/$name.log" 2>&1
	local rc=$?
	local execs found f
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$B/$name.log" | tail -n 1)
	found=$(ls "$art" 2>/dev/null)
	if [ $rc -ne 0 ] || [ -n "$found" ]; then
		mkdir -p "$reg"
		for f in $found; do
			cp "$art/$f" "$reg/$f" && rm -f "$art/$f"
		done
		echo "$name: FAILED after ${execs:-?} runs; inputs kept in $reg (see $B/$name.log)" >"$sum"
		grep -m 5 -E 'ERROR|SUMMARY|runtime error' "$B/$name.log" >&2
		return 1
	fi
	echo "$name: ok, ${execs:-?} runs in ${SECS}s, corpus $(ls "$corpus" | wc -l) inputs" >"$sum"
}

# each fuzzer is one single-threaded process, so the run takes about
# targets x SECONDS / JOBS
names=()
for t in tests/fuzz/fuzz_*.c; do
	name=$(basename "$t" .c)
	name=${name#fuzz_}
	if [ ${#ONLY[@]} -gt 0 ] && [[ " ${ONLY[*]} " != *" $name "* ]]; then
		continue
	fi
	names+=("$name")
	rm -f "$B/$name.summary"
	throttle
	target "$t" "$name" &
done
wait
failed=()
summary=()
for name in "${names[@]}"; do
	line=$(cat "$B/$name.summary" 2>/dev/null || echo "$name: ended without a summary")
	summary+=("$line")
	[[ "$line" == "$name: ok, "* ]] || failed+=("$name")
done
# the failures last, with what each printed, so that the tail of a CI log names them
printf '%s\n' "${summary[@]}" | grep -v -e ' FAILED after ' -e 'fails again' -e 'does not build'
for f in "${failed[@]}"; do
	printf '%s\n' "${summary[@]}" | grep "^$f: "
	for l in "$B/$f.log" "$B/$f.replay.log"; do
		[ -f "$l" ] && grep -m 12 -E 'ERROR|SUMMARY|runtime error|Test unit written|^ +#[0-9] ' "$l"
	done
done
[ ${#failed[@]} -eq 0 ]
