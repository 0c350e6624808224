#!/bin/bash
# Issue 27: kiln profile as platform.user against a hostile perf map (what
# the red team did not reach).  node's nbody, whose benchmark rewrites its
# own /tmp/perf-PID.map as it ends: every JIT'd function named
# '</script><img src=x onerror=...>NAME', and a million more lines.  The
# profile ends, names the JIT'd code with those names, and flame.html,
# profile.json and the text hold them only escaped: no '</script>' from the
# map ends the page's data, no tag reaches the page.  kiln's own memory
# stays small (perf script reads the map, as the user).
source "$KILN_ROOT/tests/lib.sh"
for c in node perf jq setpriv; do command -v $c >/dev/null || skip "$c is not installed"; done
perf record -q -e cpu-clock -o "$T/probe.data" true >/dev/null 2>&1 || skip "perf record cannot sample here"
sec_user kiln-sec-prof
mkdir -p benchmarks/nbody/js
{ cat "$KILN_ROOT/benchmarks/nbody/js/bench.js"
  cat <<'JS'
process.on('exit', () => {
	const fs = require('fs'), map = `/tmp/perf-${process.pid}.map`;
	let lines = [];
	try { lines = fs.readFileSync(map, 'utf8').split('\n').filter(l => l); } catch (e) { return; }
	const fd = fs.openSync(map, 'w');
	fs.writeSync(fd, lines.map(l => l.replace(/^(\S+ \S+ )/, '$1</script><img src=x onerror=alert(1)>')).join('\n') + '\n');
	for (let k = 0; k < 10; k++) {
		const junk = [];
		for (let i = 0; i < 100000; i++)
			junk.push((0x7ff000000000 + (k * 100000 + i) * 16).toString(16) + ' 10 junk' + i);
		fs.writeSync(fd, junk.join('\n') + '\n');
	}
	fs.closeSync(fd);
});
JS
} > benchmarks/nbody/js/bench.js
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
peak_rss rss.txt "$KILN" profile p.yaml --key nbody:node -o prof --json --top 100000 >prof.json 2>err ||
	fail "kiln profile: $(tail -5 err)"
echo "kiln's peak RSS: $(cat rss.txt) KiB"
[ "$(cat rss.txt)" -lt 300000 ] || fail "kiln used $(cat rss.txt) KiB"
hostile=$(jq '[.top[] | select(.symbol | contains("</script><img"))] | length' prof.json)
[ "$hostile" -gt 0 ] || fail "no JIT'd function got the map's hostile name: $(jq -c '.top[:5]' prof.json)"
[ -s prof/flame.html ] || fail "no flame.html"
grep -q '</script><img' prof/flame.html && fail "flame.html holds the map's '</script><img' unescaped"
grep -q '\\u003c/script\\u003e\\u003cimg' prof/flame.html || fail "flame.html lacks the escaped name"
[ "$(grep -c '<script' prof/flame.html)" = 2 ] || fail "flame.html has $(grep -c '<script' prof/flame.html) script elements"
[ "$(grep -o '<img' prof/flame.html | wc -l)" = 0 ] || fail "an <img> tag in flame.html"
"$KILN" flame prof --format folded -o prof.folded || fail "kiln flame of the profile"
echo ok
