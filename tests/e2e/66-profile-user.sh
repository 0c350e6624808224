#!/bin/bash
# 66-profile-user.sh - kiln profile with platform.user (issue 16.2: the
# folder self-contained): the steps of perf that read the benchmark user's
# files (perf script: its perf maps; perf inject --jit: its jitdumps) run
# as that user, on a perf.data in kiln's stage folder only the user's group
# may read; kiln copies what perf inject made in the home into DIR without
# following a link, only the user's regular files (safefs.h).
# Node's nbody (V8's jitdump and perf map in the home, /tmp): the JIT'd
# code is named, DIR/jit has the jitted ELF files, perf report on the
# folder moved elsewhere (fresh HOME, the user's home gone) names kiln's
# hottest JIT'd function; the benchmark's planted link (to /etc/shadow)
# and FIFO among the jitted files are refused, not copied; no stage is left.
source "$KILN_ROOT/tests/lib.sh"
for c in node perf jq setpriv; do command -v $c >/dev/null || skip "$c is not installed"; done
perf record -q -e cpu-clock -o "$T/probe.data" true >/dev/null 2>&1 || skip "perf record cannot sample here"
sec_user kiln-profile-u
mkdir -p benchmarks/nbody/js
{ echo "require('fs').symlinkSync('/etc/shadow', 'jitted-1-1.so');"
  echo "require('child_process').execFileSync('mkfifo', ['jitted-1-2.so']);"
  cat "$KILN_ROOT/benchmarks/nbody/js/bench.js"; } >benchmarks/nbody/js/bench.js
chmod -R a+rX benchmarks
cat > p.yaml <<Y
pexecs: 1
iterations: 12
vms:
  node: {plugin: node}
benchmarks:
  nbody: 30000
platform: {user: $U}
Y
# perf through a wrapper that logs who runs each of its commands
real_perf=$(command -v perf)
mkdir -p bin && printf '#!/bin/sh\necho "$(id -u) $*" >>%s/perf.log\nexec %s "$@"\n' "$T" "$real_perf" >bin/perf
chmod 755 bin bin/perf && : >perf.log && chmod 666 perf.log
PATH=$T/bin:$PATH "$KILN" profile p.yaml --key nbody:node -o prof --json --top 100000 >prof.json 2>err || fail "kiln profile: $(cat err)"
# what reads the user's making (jitdumps, the jitted ELF files, perf maps) runs as the user
uid=$(id -u "$U")
for step in "inject --jit" buildid-cache script; do
	grep -q -- "$step" perf.log || fail "no perf $step: $(cat perf.log)"
	grep -- "$step" perf.log | grep -qv "^$uid " && fail "perf $step as root: $(grep -- "$step" perf.log | cut -c1-200)"
done
j() { jq -r "$1" prof.json; }
jit=$(j .categories.jit)
named=$(j '[.top[] | select(.category == "jit" and .symbol != "[unknown]") | .samples] | add // 0')
echo "node as $U: $named of $jit JIT samples named, $(jq -c .pexecs[0].jit prof.json)"
[ "$jit" -ge 50 ] || fail "only $jit samples in JIT'd code"
[ $((100 * named)) -ge $((95 * jit)) ] || fail "$named of $jit JIT samples named"
sym=$(j .hottest_jit.symbol)
[[ $sym == "JS:"*"nbody/js/bench.js:"[0-9]* ]] || fail "hottest JIT'd symbol '$sym'"
[ "$(j '.pexecs[0].jit.jitted_so')" -gt 0 ] || fail "no jitted ELF file: $(cat err)"
ls prof/jit/jitted-*.so >/dev/null 2>&1 || fail "no jitted-*.so in prof/jit: $(ls prof/jit)"
for f in prof/perf.data prof/jit/*; do
	[ -L "$f" ] && fail "$f is a link"
	assert_eq "$(stat -c %u "$f")" 0 "$f's owner"
done
[ -e prof/jit/jitted-1-1.so ] && fail "the planted link was copied"
[ -e prof/jit/jitted-1-2.so ] && fail "the planted FIFO was copied"
assert_contains "$(cat err)" "jitted-1-1.so: a symbolic link: refused"
assert_contains "$(cat err)" "jitted-1-2.so: a FIFO: refused"
assert_eq "$(ls -A state/profile 2>/dev/null)" "" "stage folders left"

# perf report from the folder moved elsewhere, the user's home gone
rm -rf "homes/$U"
mkdir home
mv prof moved
rep=$(HOME=$T/home perf --buildid-dir moved/.debug report -i moved/perf.data --stdio --no-children --sort sym -g none 2>/dev/null |
	grep -E "^ +[0-9.]+% +\[\.\] JS:" | head -1 | sed -E 's/^ +[0-9.]+% +\[\.\] //; s/ +$//')
assert_eq "$rep" "$sym" "hottest JIT'd symbol, perf report on the moved folder vs kiln"
exit 0
