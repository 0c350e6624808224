#!/bin/bash
# 65-flame-chromium.sh - the flame graphs of a profile, looked at in
# headless Chromium (issue 16.2): kiln profile writes DIR/flame.html, a
# self-contained page whose script draws the call stacks; the page shows as
# many samples as the profile has, for the whole pexec, the steady state
# (#phase=steady) and an iteration range (#it=2-3); its top list starts with
# the profile's hottest symbol; a search marks it; a zoom on it holds. The
# differential page (warmup vs steady state of one profile, and two
# profiles) shows both sides' counts. kiln report's HTML page carries the
# flame graph of the results file's stored profile and of --profile DIR,
# hostile names in a profile as text only. The speedscope and Firefox
# Profiler files hold every sample. Small profiles (999 Hz) and one
# Chromium for every page: a harness page loads them all in frames.
source "$KILN_ROOT/tests/lib.sh"
CHROME=$(command -v chromium || command -v chromium-browser || true)
[ -n "$CHROME" ] || skip "chromium not installed"
for c in node lua5.4 perf jq; do command -v $c >/dev/null || skip "$c is not installed"; done
perf record -q -e cpu-clock -o "$T/probe.data" true >/dev/null 2>&1 || skip "perf record cannot sample here"
cd "$T"
cat > p.yaml <<'Y'
pexecs: 1
iterations: 6
vms:
  node: {plugin: node}
benchmarks:
  nbody: 30000
Y
sed 's/node: {plugin: node}/lua: {plugin: lua}/' p.yaml >q.yaml
"$KILN" profile p.yaml --key nbody:node -F 999 -o prof --json --split 2 >prof.json 2>err || fail "kiln profile: $(cat err)"
j() { jq -r "$1" prof.json; }
for f in flame.html profile.speedscope.json profile.firefox.json; do [ -s prof/$f ] || fail "prof/$f missing"; done
grep -qiE '<(script|link|img)[^>]* (src|href)=' prof/flame.html && fail "the page loads something from outside"
sym=$(j .hottest_jit.symbol)
uri() { jq -rn --arg s "$1" '$s|@uri'; }

# differences: warmup vs steady of one profile, and two profiles (node, then lua)
"$KILN" flame prof --diff -o diff1.html --json >diff1.json || fail "kiln flame --diff"
assert_eq "$(jq -r .samples_a diff1.json)" "$(j '.phases[0].samples')" "warmup samples in the difference"
assert_eq "$(jq -r .samples_b diff1.json)" "$(j '.phases[1].samples')" "steady samples in the difference"
"$KILN" profile q.yaml --key nbody:lua -n 2 -F 999 -o prof2 --json >prof2.json 2>err || fail "second profile: $(cat err)"
"$KILN" flame prof --diff prof2 -o diff2.html >diff2.txt || fail "kiln flame --diff A B"
assert_contains "$(cat diff2.txt)" "largest changes first"

# kiln report: the results file's stored profile of nbody:node (prof) under its key, --profile
# folders after (prof2: lua is not in the results); a hostile profile's names stay text
"$KILN" run p.yaml -q >/dev/null 2>err || fail "kiln run: $(cat err)"
H='h<b id="inj">'
mkdir "$H"
jq --arg x '</script><img id="inj" src="x"><script>' \
	'.flame.key = "<b id=\"inj\">k</b>" | .flame.frames[.flame.stacks[0][1]][0] = $x' prof/profile.json >"$H/profile.json"
"$KILN" report p.kiln.db -o report.html --plots 0 --profile prof2 --profile "$H" 2>err || fail "kiln report: $(cat err)"
assert_eq "$(grep -c '<iframe class="flame"' report.html)" 3 "flame graphs in the report"
grep -q 'id="inj"' report.html && fail "a hostile name reached the report's HTML unescaped"
"$KILN" report p.kiln.db --format text --profile prof2 >/dev/null 2>&1; assert_eq $? 2 "--profile without html"

# every page in one Chromium: each frame's summary (and the report's flame frames') as JSON lines
pages=("prof/flame.html" "prof/flame.html#phase=steady" "prof/flame.html#it=2-3"
	"prof/flame.html#search=$(uri 'JS:*advance')" "prof/flame.html#zoom=$(uri "$sym")"
	diff1.html diff2.html report.html)
printf '%s\n' "${pages[@]}" | jq -R . | jq -sc . >pages.json
cat > harness.html <<EOF
<!DOCTYPE html><html><body><pre id="out"></pre><script>
const pages=$(cat pages.json);
for(const u of pages){const f=document.createElement('iframe');f.src=u;f.style.width='1200px';document.body.appendChild(f);}
window.addEventListener('load',()=>{const out=[];
 document.querySelectorAll('body>iframe').forEach((f,i)=>{const d=f.contentDocument;
  const fl=[...d.querySelectorAll('iframe.flame')].map(x=>x.contentDocument),docs=fl.length?fl:[d];
  docs.forEach((x,k)=>{const s=x.getElementById('kiln-summary'),svg=x.getElementById('flame');
   out.push(JSON.stringify(Object.assign({page:i,frame:k,inj:d.querySelectorAll('#inj').length+x.querySelectorAll('#inj').length,
    text:svg?svg.textContent.slice(0,200):''},s?s.dataset:{})));});});
 document.getElementById('out').textContent=out.join('\n');});
</script></body></html>
EOF
timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run --allow-file-access-from-files \
	--disable-background-networking --disable-component-update --disable-sync --user-data-dir="$T/chr" \
	--virtual-time-budget=5000 --dump-dom "file://$T/harness.html" 2>/dev/null |
	grep -o '{"page".*}' | sed 's/&lt;/</g; s/&gt;/>/g; s/&amp;/\&/g' >seen.jsonl
v() { jq -rs --argjson p "$1" --argjson f "${3:-0}" ".[] | select(.page == \$p and .frame == \$f) | .$2" seen.jsonl; }
assert_eq "$(v 0 samples)" "$(j .samples)" "samples drawn, whole pexec"
[ "$(v 0 frames)" -gt 20 ] || fail "too few frames drawn: $(head -1 seen.jsonl)"
assert_eq "$(v 0 top)" "$(j '.top[0].symbol')" "the top list's first symbol"
assert_eq "$(v 1 samples)" "$(j '.phases[1].samples')" "samples drawn, steady state"
assert_eq "$(v 2 samples)" "$(j '[.iterations[1].samples, .iterations[2].samples] | add')" "samples drawn, iterations 2-3"
[ "$(v 3 matched)" -gt 0 ] || fail "the search marked nothing: $(sed -n 4p seen.jsonl)"
assert_eq "$(v 4 zoom)" "$sym" "zoomed on the hottest JIT'd function"
assert_eq "$(v 5 samplesBefore)" "$(j '.phases[0].samples')" "the differential page: before"
assert_eq "$(v 5 samples)" "$(j '.phases[1].samples')" "the differential page: after"
assert_eq "$(v 6 samples)" "$(jq -r .samples prof2.json)" "two profiles: after"
assert_eq "$(v 6 samplesBefore)" "$(j .samples)" "two profiles: before"
assert_eq "$(v 7 samples 0)" "$(j .samples)" "the report: the stored profile's flame graph"
assert_eq "$(v 7 samples 1)" "$(jq -r .samples prof2.json)" "the report: --profile prof2"
assert_eq "$(v 7 samples 2)" "$(j .samples)" "the report: the hostile profile still drawn"
assert_contains "$(v 7 text 2)" '</script><img id="inj"' "the hostile frame name, drawn as text"
assert_eq "$(jq -s 'map(.inj) | add' seen.jsonl)" 0 "elements injected by hostile names"

# exports: every sample in speedscope's and the Firefox Profiler's files
assert_eq "$(jq '[.profiles[].samples | length] | add' prof/profile.speedscope.json)" "$(j .samples)" "speedscope samples"
assert_eq "$(jq -r '.["$schema"]' prof/profile.speedscope.json)" "https://www.speedscope.app/file-format-schema.json" "speedscope schema"
assert_eq "$(jq '[.threads[].samples.data | length] | add' prof/profile.firefox.json)" "$(j .samples)" "Firefox Profiler samples"
assert_eq "$(jq '.threads[0].stackTable.data | length' prof/profile.firefox.json)" "$(j '.flame.stacks | length')" "Gecko stack table"
# the Gecko format as the Firefox Profiler's importer reads it (its docs' gecko-profile-format and
# upgraders; the importer itself is not on npm): meta.markerSchema a list from version 22 on (upgrader 26
# iterates it), every table with its schema, stacks and frames in range, and meta.interval the time
# between two samples as perf took them (the profiler gives each sample that duration): at -F 999, 1.001 ms
python3 - prof/profile.firefox.json <<'P' || fail "the Gecko profile a Firefox Profiler importer reads"
import json, sys
d = json.load(open(sys.argv[1]))
m = d["meta"]
assert isinstance(m["version"], int) and m["version"] >= 22 and isinstance(m["markerSchema"], list), m.get("version")
assert abs(m["interval"] - 1000 / 999) < 0.05 * (1000 / 999), m["interval"]
for t in d["threads"]:
    for tab in ("samples", "stackTable", "frameTable", "markers"):
        assert isinstance(t[tab]["schema"], dict) and isinstance(t[tab]["data"], list), tab
    ns, nf, nstr = len(t["stackTable"]["data"]), len(t["frameTable"]["data"]), len(t["stringTable"])
    fs = t["stackTable"]["schema"]
    for row in t["stackTable"]["data"]:
        assert row[fs["prefix"]] is None or 0 <= row[fs["prefix"]] < ns
        assert 0 <= row[fs["frame"]] < nf
    for row in t["frameTable"]["data"]:
        assert 0 <= row[t["frameTable"]["schema"]["location"]] < nstr
    ss = t["samples"]["schema"]
    for row in t["samples"]["data"]:
        assert 0 <= row[ss["stack"]] < ns and row[ss["time"]] >= 0
P
"$KILN" flame prof --phase steady --format folded -o steady.folded || fail "folded"
assert_eq "$(awk '{n += $NF} END {print n}' steady.folded)" "$(j '.phases[1].samples')" "folded stacks: steady samples"
exit 0
