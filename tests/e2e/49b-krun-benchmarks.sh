# Benchmarks in Krun's layout (the Lua one also under LuaJIT), as the warmup experiment's sources are
# written, run without edits (issue 14 item 3): C that needs more than
# -std=c11 (u_int32_t, errx, a C99 `inline` function) and keeps its result
# in a global variable named checksum (the C runner called it as a
# function: SIGSEGV); Lua defining a global run_iter and returning nothing;
# JavaScript in a javascript/ folder defining a global function run_iter
# (a d8 script, no module exports).  Neither Lua nor JS has checksum(), as
# Krun's benchmarks have none.  kiln's own layout is still checked (a Lua
# table without checksum() is refused by the probe: test 56).
source "$KILN_ROOT/tests/lib.sh"
cd "$T"
mkdir -p benchmarks/perm/c benchmarks/perm/lua benchmarks/perm/javascript
cat > benchmarks/perm/c/bench.c <<'C'
/* a Krun-style C benchmark: a BSD type with only the headers Krun's include, err.h, C99 inline, a checksum variable */
#include <err.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define N 7
int a[N];
u_int32_t checksum = 0;

inline void swap(int i, int j)
{
	int t = a[i];
	a[i] = a[j];
	a[j] = t;
}

static void permute(int k)
{
	if (k == N) {
		checksum += (u_int32_t)a[0] * 3 + (u_int32_t)a[N - 1];
		return;
	}
	for (int i = k; i < N; i++) {
		swap(k, i);
		permute(k + 1);
		swap(k, i);
	}
}

void run_iter(int n)
{
	for (int r = 0; r < n; r++) {
		for (int i = 0; i < N; i++)
			a[i] = i;
		checksum = 0;
		permute(0);
		if (checksum != 60480)
			errx(EXIT_FAILURE, "bad checksum: %u", checksum);
	}
}
C
cat > benchmarks/perm/lua/bench.lua <<'L'
-- a Krun-style Lua benchmark: a global run_iter, nothing returned
function run_iter(n)
  local s = 0
  for i = 1, n * 1000 do s = s + i % 7 end
  if s < 0 then error("bad sum") end
end
L
cat > benchmarks/perm/javascript/bench.js <<'J'
/* a Krun-style JavaScript benchmark: a script with a global run_iter */
function run_iter(n) {
  var s = 0;
  for (var i = 0; i < n * 1000; i++) s += i % 7;
  if (s < 0) throw new Error("bad sum");
}
J
vms="native: {plugin: c}"
command -v lua5.4 >/dev/null && [ -e "$KILN_ROOT/plugins/lua/kilnclock.so" ] && vms="$vms
  lua: {plugin: lua}"
command -v luajit >/dev/null && vms="$vms
  luajit: {plugin: luajit}"
command -v node >/dev/null && vms="$vms
  node: {plugin: node}"
cat > k.yaml <<Y
pexecs: 2
iterations: 3
benchmarks_dir: $T/benchmarks
vms:
  $vms
benchmarks: {perm: 2}
Y
out=$("$KILN" run k.yaml 2>&1) || fail "Krun's layout: $out"
nvm=$(grep -c 'plugin:' k.yaml)
assert_eq "$(sqlite3 k.kiln.db "SELECT COUNT(*) FROM pexecs WHERE status='ok'")" $((2 * nvm)) "every pexec ok"
assert_eq "$(sqlite3 k.kiln.db "SELECT COUNT(*) FROM iterations WHERE n=3")" $((2 * nvm)) "every iteration"
# both Lua runners load the layouts from plugins/lua/kiln_bench.lua: a luajit
# key's program hashes that file too, though it is the lua plugin's
if command -v luajit >/dev/null; then
	sha=$(sha256sum "$KILN_ROOT/plugins/lua/kiln_bench.lua" | cut -d' ' -f1)
	sqlite3 k.kiln.db "SELECT g.description FROM programs g JOIN keys k ON k.id = g.key_id WHERE k.vm = 'luajit'" |
		grep -qxF "$(printf 'plugin.shared\t../lua/kiln_bench.lua sha256:%s' "$sha")" ||
		fail "the luajit key's program does not hash ../lua/kiln_bench.lua"
fi
# the variable named checksum is not taken for the function: no checksum record for C
assert_eq "$(sqlite3 k.kiln.db "SELECT COUNT(*) FROM scalars s JOIN pexecs p ON p.id=s.pexec_id JOIN keys k ON k.id=p.key_id WHERE k.vm='native' AND s.name='checksum'")" 0 "no checksum record from a variable"
# ... while a function named checksum still is one
mkdir -p benchmarks/sq/c
printf 'static volatile long s;\nvoid run_iter(long p) { for (long i = 0; i < p; i++) s += i; }\nlong checksum(void) { return 42; }\n' > benchmarks/sq/c/bench.c
cat > f.yaml <<Y
pexecs: 1
iterations: 2
benchmarks_dir: $T/benchmarks
vms: {native: {plugin: c}}
benchmarks: {sq: 10}
Y
"$KILN" run -q f.yaml || fail "a C checksum function"
assert_eq "$(sqlite3 f.kiln.db "SELECT CAST(value AS INTEGER) FROM scalars WHERE name='checksum'")" 42 "the checksum function's value"
echo ok
