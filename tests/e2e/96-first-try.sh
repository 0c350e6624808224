# What a first try of someone else's suite trips on (issue 28), each said
# clearly: PHP's short open tag `<?`; one key whose build, compilation or
# probe fails is said and skipped while the others run (exit 1, its pexecs
# pending; --strict stops at once); the fixed config then runs without
# --force, as no pexec of the changed keys ran; a change to a key whose
# pexecs ran is still refused, saying which; nothing is written into the
# benchmarks' folders (bench.so, .class, __pycache__ go to kiln's cache).
source "$KILN_ROOT/tests/lib.sh"
cd "$T"

# ---- PHP's short open tag: the file is text to a php with short_open_tag off ----
if command -v php >/dev/null && [ "$(php -r 'echo (int)ini_get("short_open_tag");')" = 0 ]; then
	mkdir -p k/nb/php
	printf '<?\nfunction run_iter($n) { $x = 0; for ($i = 0; $i < $n; $i++) $x += $i; }\n' > k/nb/php/bench.php
	printf 'benchmarks_dir: k\nlayout: krun\nvms: {php: {plugin: php}}\nbenchmarks: {nb: 1}\n' > p.yaml
	"$KILN" run -q p.yaml 2>/dev/null; assert_eq $? 1 "short tag"
	assert_contains "$(sqlite3 p.kiln.db 'SELECT stderr FROM pexecs')" "bench.php opens with PHP's short tag '<?', which this php reads as text (short_open_tag is off): write '<?php', or give the VM args: \[-d, short_open_tag=On\]"
	printf 'benchmarks_dir: k\nlayout: krun\nvms: {php: {plugin: php, args: [-d, short_open_tag=On]}}\nbenchmarks: {nb: 1}\n' > p2.yaml
	"$KILN" run -q p2.yaml || fail "short_open_tag=On"
fi
# ---- one bad key is not the whole run ----
mkdir -p b/benchmarks/good/c b/benchmarks/bad/c b/benchmarks/good/python b/benchmarks/bad/python
echo 'void run_iter(long p) { (void)p; }' > b/benchmarks/good/c/bench.c
echo 'void run_iter(long p) { syntax error }' > b/benchmarks/bad/c/bench.c
printf 'def run_iter(n):\n    pass\ndef checksum():\n    return 0\n' > b/benchmarks/good/python/bench.py
printf 'def run_iter(n) oops\n' > b/benchmarks/bad/python/bench.py
cat > b/exp.yaml <<'Y'
pexecs: 2
iterations: 2
vms:
  c: {plugin: c}
  py: {plugin: python}
  made: {plugin: command, path: out/tool, build: [/bin/sh, -c, "exit 7"]}
benchmarks: {good: 1, bad: 1}
Y
out=$("$KILN" run b/exp.yaml 2>&1); assert_eq $? 1 "skipped keys fail the run: $out"
assert_contains "$out" "warning: bad:c:default-c is skipped (its pexecs stay pending): preparing bad:c: compiling .*bench.c failed"
assert_contains "$out" "warning: good:made:default-command is skipped (its pexecs stay pending): VM made: build command"
assert_contains "$out" "warning: bad:py:default-python is skipped (its pexecs stay pending): bad:py:default-python: the runner's probe before the first pexec failed"
assert_contains "$out" "error: 4 key(s) were skipped, their pexecs left pending: "
st() { sqlite3 b/exp.kiln.db "SELECT k.bench||':'||k.vm||' '||SUM(p.status='ok')||' '||SUM(p.status='pending') FROM pexecs p JOIN keys k ON k.id=p.key_id GROUP BY k.id ORDER BY k.bench, k.vm" | tr '\n' ' '; }
assert_eq "$(st)" "bad:c 0 2 bad:made 0 2 bad:py 0 2 good:c 2 0 good:made 0 2 good:py 2 0 " "the good keys ran"
# --strict: the first bad key stops the run before any pexec
out=$("$KILN" run --strict -o strict.kiln.db b/exp.yaml 2>&1); assert_eq $? 3 "--strict: $out"
assert_eq "$(sqlite3 strict.kiln.db "SELECT COUNT(*) FROM pexecs WHERE status != 'pending'")" 0 "--strict ran nothing"
# the config fixed: the keys that never ran change freely, no --force
sed -i 's/benchmarks: {good: 1, bad: 1}/benchmarks: {good: 1, bad: 1}\nskip: ["bad:*:*", "*:made:*"]/' b/exp.yaml
out=$("$KILN" run b/exp.yaml 2>&1) || fail "the fixed config: $out"
assert_contains "$out" "the config changed only in keys none of whose pexecs ran: 4 such key(s) planned again"
assert_eq "$(st)" "good:c 2 0 good:py 2 0 " "the skipped keys left the schedule"
# more pexecs of the new benchmark and a changed new key are fine; a changed key whose pexecs ran is not
cat >> b/exp.yaml <<'Y'
suites: {more: {benchmarks: {other: {param: 3}}, vms: [c]}}
Y
cp -r b/benchmarks/good b/benchmarks/other
"$KILN" run -q b/exp.yaml || fail "a new suite"
sed -i 's/good: 1,/good: 2,/' b/exp.yaml
out=$("$KILN" run b/exp.yaml 2>&1); assert_eq $? 3 "a key that ran changed: $out"
assert_contains "$out" "keys none of whose pexecs ran may change freely, but key good:c:default-c, whose pexecs ran, changed"
# ---- never write into the user's benchmark tree ----
mkdir -p src/benchmarks
(cd "$KILN_ROOT" && git ls-files benchmarks/nbody) | while read -r f; do
	mkdir -p "src/$(dirname "$f")"; cp "$KILN_ROOT/$f" "src/$f"
done
printf 'pexecs: 1\niterations: 2\nbenchmarks_dir: benchmarks\nvms:\n' > src/all.yaml
for v in c:c python:python3 pypy:pypy3 lua:lua5.4 luajit:luajit node:node java:java ruby:ruby php:php; do
	if [ "${v%%:*}" = c ] || command -v "${v#*:}" >/dev/null; then
		printf '  %s: {plugin: %s, instrument: true}\n' "${v%%:*}" "${v%%:*}" >> src/all.yaml
	fi
done
printf 'benchmarks: {nbody: 50}\n' >> src/all.yaml
snap() { (cd src/benchmarks && find . -printf '%p %s %T@ %m\n' | sort && find . -type f -exec sha256sum {} + | sort); }
before=$(snap)
"$KILN" run -q -o "$T/all.kiln.db" src/all.yaml || fail "every plugin: $(sqlite3 all.kiln.db 'SELECT error FROM pexecs WHERE status != "ok"')"
assert_eq "$(snap)" "$before" "the benchmarks' folders are as they were"
echo ok
