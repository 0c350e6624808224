#!/bin/bash
# 67-profile-php-ruby.sh - `kiln profile` on the bundled nbody under PHP's
# tracing JIT and CRuby's YJIT, with real perf.  PHP: opcache.jit_debug
# (set by the plugin when profiling) makes the JIT write a perf map, and the
# hottest JIT'd symbol kiln names is a trace of Bench::advance, the one
# `perf report` names too (under the function JIT: JIT$Bench::advance); samples are split by iteration; the perf map is
# kept; php8.2 (behind the /usr/bin/php link) counts as the VM.  CRuby:
# YJIT of Ruby 3.1 writes no perf map, so its code is JIT'd but unnamed
# memory (the jit category has samples), and the interpreter variant's time
# is in libruby (the vm category), with no JIT'd code at all.
source "$KILN_ROOT/tests/lib.sh"
command -v perf >/dev/null || skip "perf is not installed"
command -v jq >/dev/null || skip "jq is not installed"
command -v php >/dev/null || command -v ruby >/dev/null || skip "neither php nor ruby is installed"
perf record -q -e cpu-clock -o "$T/probe.data" true >/dev/null 2>&1 || skip "perf record cannot sample here"
cd "$T"
cat > p.yaml <<Y
pexecs: 1
iterations: 6
benchmarks_dir: $KILN_ROOT/benchmarks
vms:
$(command -v php >/dev/null && echo "  php: {plugin: php, variant: tracing}")
$(command -v php >/dev/null && echo "  phpf: {plugin: php, variant: function}")
$(command -v ruby >/dev/null && echo "  rb: {plugin: ruby}")
$(command -v ruby >/dev/null && ruby --yjit -e 'exit(RubyVM::YJIT.enabled? ? 0 : 1)' 2>/dev/null && echo "  yjit: {plugin: ruby, variant: yjit}")
benchmarks:
  nbody: 20000
Y
# the VMs' perf maps in /tmp are the profiles' (kiln keeps copies): removed at the end
trap 'for f in "$T"/*.json; do p=$(jq -r .pid "$f" 2>/dev/null); [ -n "$p" ] && rm -f "/tmp/perf-$p.map"; done; [ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT
prof() { "$KILN" profile p.yaml -F 999 --key "nbody:$1" -o "prof-$1" --json >"$1.json" 2>"$1.err" || fail "kiln profile $1: $(cat "$1.err")"; }
split_ok() {
	local f=$1.json n=$(jq '.iterations | length' "$1.json")
	assert_eq "$n" 6 "$1: iterations"
	assert_eq "$(jq '[.iterations[].samples] | add' "$f")" "$(jq .in_iterations "$f")" "$1: per-iteration samples add up"
	assert_eq "$(jq '[.categories[]] | add' "$f")" "$(jq .samples "$f")" "$1: categories cover all samples"
}

if command -v php >/dev/null; then
	prof php
	split_ok php
	pid=$(jq -r .pid php.json)
	[ -s "prof-php/jit/perf-$pid.map" ] || fail "no perf map kept for pid $pid: $(ls prof-php prof-php/jit)"
	grep -q 'TRACE-[0-9]*\$Bench::advance\$' "prof-php/jit/perf-$pid.map" || fail "the perf map names no trace of advance"
	sym=$(jq -r .hottest_jit.symbol php.json)
	assert_contains "$sym" 'TRACE-[0-9]*\$Bench::advance\$' "hottest JIT'd symbol"
	rep=$(perf report -i prof-php/perf.data --stdio --no-children --sort sym -g none 2>/dev/null |
		grep -E '^ +[0-9.]+% +\[\.\] TRACE-' | head -1 | sed -E 's/^ +[0-9.]+% +\[\.\] //; s/ +$//')
	assert_eq "$sym" "$rep" "hottest JIT'd symbol, kiln vs perf report"
	[ "$(jq .categories.jit php.json)" -gt "$(( $(jq .in_iterations php.json) / 2 ))" ] ||
		fail "nbody under the tracing JIT should spend most iterations in JIT'd code: $(jq -c .categories php.json)"
	# the interpreter and the runtime are php8.2, which /usr/bin/php links to: the VM
	[ "$(jq .categories.vm php.json)" -gt 0 ] || fail "no samples counted as the VM (php8.2): $(jq -c .categories php.json)"
	echo "ok php: $sym $(jq -c .categories php.json)"
	# the function JIT keeps no frame pointer: its samples' chains are
	# empty, and their leaf still names the function
	prof phpf
	split_ok phpf
	assert_eq "$(jq -r .hottest_jit.symbol phpf.json)" 'JIT$Bench::advance' "hottest function-JIT'd symbol"
	echo "ok php function JIT: $(jq -c .categories phpf.json)"
fi
if command -v ruby >/dev/null; then
	prof rb
	split_ok rb
	[ "$(jq .categories.vm rb.json)" -gt "$(( $(jq .in_iterations rb.json) / 2 ))" ] ||
		fail "the interpreter's time should be libruby's: $(jq -c .categories rb.json)"
	assert_eq "$(jq -r '.hottest_jit // "none"' rb.json)" none "JIT'd code with YJIT off"
	echo "ok ruby interp: $(jq -c .categories rb.json)"
	if grep -q 'yjit:' p.yaml; then
		prof yjit
		split_ok yjit
		[ "$(jq .categories.jit yjit.json)" -gt 0 ] || fail "no samples in YJIT's code: $(jq -c .categories yjit.json)"
		echo "ok ruby yjit: $(jq -c .categories yjit.json)"
	fi
fi
exit 0
