#!/bin/bash
# 64-profile-jit-names.sh - kiln profile names the JIT'd code of PyPy and
# LuaJIT, which write no perf map or jitdump of their own (issue 16.1): PyPy
# logs its loops' and bridges' addresses and machine code (PYPYLOG
# jit-backend-addr, jit-backend-dump, jit-log-opt), the LuaJIT runner
# records each trace's machine code and start (jit.attach, jit.util); kiln
# names every sample in that code by loop or trace with its source
# location, writes a jitdump, and perf inject --jit makes the folder
# self-contained.  For each VM, on nbody: at least 95% of the JIT samples
# get a name (the share is printed), the hottest JIT'd symbol names the
# benchmark's source file and line; perf report on the folder moved
# elsewhere (fresh HOME, no /tmp map) names that same symbol hottest among
# the JIT'd code; kiln annotate disassembles it with instruction counts that
# add up to the profile's count for it.
source "$KILN_ROOT/tests/lib.sh"
command -v perf >/dev/null || skip "perf is not installed"
command -v jq >/dev/null || skip "jq is not installed"
perf record -q -e cpu-clock -o "$T/probe.data" true >/dev/null 2>&1 || skip "perf record cannot sample here"
cd "$T"
vms=()
command -v pypy3 >/dev/null && vms+=(pypy)
command -v luajit >/dev/null && vms+=(luajit)
[ ${#vms[@]} -gt 0 ] || skip "neither pypy3 nor luajit is installed"
cat > p.yaml <<'Y'
pexecs: 1
iterations: 6
vms:
  pypy: {plugin: pypy}
  luajit: {plugin: luajit}
benchmarks:
  nbody: 40000
Y
mkdir home
for vm in "${vms[@]}"; do
	"$KILN" profile p.yaml --key nbody:$vm -o prof-$vm --json --top 100000 >$vm.json 2>$vm.err ||
		fail "kiln profile nbody:$vm: $(cat $vm.err)"
	j() { jq -r "$1" $vm.json; }
	jit=$(j .categories.jit)
	named=$(j '[.top[] | select(.category == "jit" and .symbol != "[unknown]") | .samples] | add // 0')
	echo "$vm: $named of $jit JIT samples named ($(( jit ? 100 * named / jit : 0 ))%), $(jq -c '.pexecs[0].jit' $vm.json)"
	[ "$jit" -ge 50 ] || fail "$vm: only $jit samples in JIT'd code"
	[ $((100 * named)) -ge $((95 * jit)) ] || fail "$vm: $named of $jit JIT samples named"
	sym=$(j .hottest_jit.symbol)
	case $vm in
	pypy) [[ $sym == "pypy:Loop "*"nbody/python/bench.py:"* ]] || fail "pypy: hottest JIT'd symbol '$sym'" ;;
	luajit) [[ $sym == "luajit:trace "*"nbody/lua/bench.lua:"[0-9]* ]] || fail "luajit: hottest JIT'd symbol '$sym'" ;;
	esac
	pid=$(j .pid)
	[ -s prof-$vm/jit/jit-$pid.dump ] || fail "$vm: no jitdump: $(ls prof-$vm/jit)"
	[ -s prof-$vm/jit/perf-$pid.map ] || fail "$vm: no perf map"
	[ "$(j '.pexecs[0].jit.jitted_so')" -gt 0 ] || fail "$vm: perf inject made no ELF file"

	# perf report from the folder moved elsewhere: the same hottest JIT'd symbol
	mv prof-$vm moved
	rep=$(HOME=$T/home perf --buildid-dir moved/.debug report -i moved/perf.data --stdio --no-children --sort sym -g none 2>/dev/null |
		grep -E "^ +[0-9.]+% +\[\.\] $vm:" | head -1 | sed -E 's/^ +[0-9.]+% +\[\.\] //; s/ +$//')
	mv moved prof-$vm
	assert_eq "$rep" "$sym" "$vm: hottest JIT'd symbol, perf report on the moved folder vs kiln"

	# annotate: the instructions of that loop or trace
	"$KILN" annotate prof-$vm "$sym" --json >ann-$vm.json 2>ann.err || fail "$vm: kiln annotate: $(cat ann.err)"
	a() { jq -r "$1" ann-$vm.json; }
	[ "$(a '.instructions | length')" -gt 10 ] || fail "$vm: too few instructions"
	assert_eq "$(a '[.instructions[].samples] | add')" "$(a .samples)" "$vm: instruction counts sum to the load's"
	assert_eq "$(a '[.loads[].samples] | add')" "$(j .hottest_jit.samples)" "$vm: the loads of the name = the profile's count"
done
exit 0
