# make install into a fresh prefix; the installed kiln runs a config from
# another folder with the bundled suite (C and Python), finds its runners,
# and libkiln builds a program through pkg-config.
source "$KILN_ROOT/tests/lib.sh"
P="$T/prefix"
make -s -C "$KILN_ROOT" O="${O:-build}" install PREFIX="$P" >"$T/install.log" 2>&1 || { cat "$T/install.log"; fail "make install"; }
[ -x "$P/bin/kiln" ] || fail "no bin/kiln"
[ -x "$P/libexec/kiln/kiln-runner-c" ] || fail "no runner"
[ -f "$P/include/kiln.h" ] && [ -f "$P/lib/pkgconfig/kiln.pc" ] || fail "no header or pkg-config file"
[ -f "$P/share/kiln/benchmarks/nbody/c/bench.c" ] || fail "no bundled suite"
# a man page per command, made from the same text as --help, and the docs
for c in run status report plot diff plan export import profile annotate stat doctor audit plugins parse demo; do
	grep -qF ".TH KILN\\-$(echo $c | tr a-z A-Z) 1" "$P/share/man/man1/kiln-$c.1" || fail "no man page for kiln $c"
done
grep -qF 'retry\-failed' "$P/share/man/man1/kiln-run.1" || fail "kiln-run.1 lacks the options of --help"
# the config file, the environment and the exit codes have pages of their own
grep -qF 'benchmarks_dir' "$P/share/man/man5/kiln-config.5" || fail "no kiln-config(5)"
grep -qF 'KILN_RESULT_FD' "$P/share/man/man7/kiln-environment.7" || fail "no kiln-environment(7)"
grep -qF 'KEXIT_LOCKED' "$P/share/man/man7/kiln-exit-codes.7" || fail "no kiln-exit-codes(7)"
[ -f "$P/share/doc/kiln/kiln-run.md" ] || fail "docs not installed"
grep -q 'complete -o filenames -F _kiln kiln' "$P/share/bash-completion/completions/kiln" || fail "no bash completion installed"
grep -q '^#compdef kiln' "$P/share/zsh/site-functions/_kiln" || fail "no zsh completion installed"
if command -v man >/dev/null; then
	MANPATH="$P/share/man" man -P cat kiln-run 2>/dev/null | grep -q "kiln run CONFIG" || fail "man kiln-run does not render"
	MANPATH="$P/share/man" man -P cat 5 kiln-config 2>/dev/null | grep -q "pexecs" || fail "man 5 kiln-config does not render"
fi
# the docs' pages are man pages, not Markdown in a text block: headings, no
# fences, table rules or bold markers, and groff finds nothing to warn about
for pg in man5/kiln-config.5 man7/kiln-environment.7 man7/kiln-exit-codes.7; do
	f=$P/share/man/$pg
	txt=$(MANWIDTH=80 man -l "$f" 2>&1) || fail "man -l $pg: $txt"
	grep -nE '```|\|---|\*\*' <<<"$txt" && fail "$pg shows raw Markdown"
	w=$(groff -ww -z -t -man -Tutf8 "$f" 2>&1; groff -ww -z -t -man "$f" 2>&1)
	[ -z "$w" ] || fail "groff warns about $pg: $w"
done
txt=$(MANWIDTH=80 man -l "$P/share/man/man5/kiln-config.5" 2>&1)
for h in "How the file is checked" "Top level" "Bounds" "Steps: build, setup, prepare, cleanup"; do
	grep -qx "$h" <<<"$txt" || fail "kiln-config(5) lacks the section heading '$h'"
done
grep -qx "The experiment config" <<<"$txt" && fail "kiln-config(5) keeps the page title as a heading"
grep -q '^\.SH$' "$P/share/man/man5/kiln-config.5" && grep -q '^\.SS$' "$P/share/man/man5/kiln-config.5" &&
	grep -q '^\.EX$' "$P/share/man/man5/kiln-config.5" && grep -q '^\.TS$' "$P/share/man/man5/kiln-config.5" ||
	fail "kiln-config(5) has no .SH/.SS headings, .EX code or tbl tables"
mkdir "$T/elsewhere" && cd "$T/elsewhere"
cat > e.yaml <<'Y'
pexecs: 1
iterations: 3
vms:
  native: {plugin: c}
  cpython: {plugin: python, optional: true, instrument: true}
  pypy: {plugin: pypy, optional: true, instrument: true}
  lua: {plugin: lua, optional: true}
  luajit: {plugin: luajit, optional: true}
  node: {plugin: node, optional: true}
  hotspot: {plugin: java, optional: true}
  cruby: {plugin: ruby, optional: true, instrument: true}
  jruby: {plugin: jruby, optional: true}
  php: {plugin: php, variant: tracing, optional: true, instrument: true}
benchmarks:
  nbody: 1000
# other tests on a shared machine write to the kernel log (test_platform's
# deliberate lines), which would taint pexecs: this test is about the install
platform: {kmsg: off}
Y
# nothing of the source tree may leak in: a clean PATH and no KILN_* overrides
env -i PATH="/usr/local/bin:/usr/bin:/bin" HOME="$T" KILN_STATE_DIR="$T/state" "$P/bin/kiln" run -q e.yaml || fail "installed kiln run"
assert_eq "$(sqlite3 e.kiln.db "SELECT COUNT(*) FROM pexecs WHERE status='ok'")" \
	"$(sqlite3 e.kiln.db "SELECT COUNT(*) FROM pexecs")" "all pexecs ok"
assert_eq "$(sqlite3 e.kiln.db "SELECT COUNT(DISTINCT value) FROM scalars WHERE name='checksum'")" 1 "every VM's checksum agrees"
echo "installed kiln ran: $(sqlite3 e.kiln.db "SELECT GROUP_CONCAT(vm) FROM keys")"
# the installed parsers and reports work too
"$P/bin/kiln" report e.kiln.db >/dev/null || fail "installed kiln report"
"$P/bin/kiln" --version | grep -q "^kiln " || fail "--version"
"$P/bin/kiln" plugins | grep -q "^python" || fail "plugins"
cat > t.c <<'C'
#include <kiln.h>
#include <stdio.h>
int main(void) { unsigned long long a = kiln_clock_ns(), b = kiln_clock_ns(); printf("%d\n", b >= a); return 0; }
C
PKG_CONFIG_PATH="$P/lib/pkgconfig" cc -o t t.c $(PKG_CONFIG_PATH="$P/lib/pkgconfig" pkg-config --cflags --libs kiln) || fail "pkg-config build"
# from a prefix the dynamic linker does not search: found through the rpath pkg-config gives
assert_eq "$(env -u LD_LIBRARY_PATH ./t)" 1 "libkiln program without LD_LIBRARY_PATH"
# runners that load libkiln through FFI (CPython, LuaJIT) get the installed one
cat > lk.sh <<'SH'
#!/bin/sh
[ -f "$KILN_LIBKILN" ] && v=1 || v=0
echo "{\"name\":\"libkiln\",\"value\":$v}" > "$KILN_INSTR_DIR/l.kiln.jsonl"
printf '{"kiln":1,"clock":"monotonic","counters":[]}\n{"i":0,"wall_ns":1}\n{"done":true}\n' >&3
SH
mkdir -p benchmarks/b/sh && touch benchmarks/b/sh/x
cat > lk.yaml <<Y
vms:
  s: {plugin: external, runner: [/bin/sh, $PWD/lk.sh], language: sh, entry: x}
benchmarks: {b: 1}
Y
env -i PATH="/usr/local/bin:/usr/bin:/bin" HOME="$T" KILN_STATE_DIR="$T/state" "$P/bin/kiln" run -q lk.yaml || fail "installed kiln, libkiln probe"
assert_eq "$(sqlite3 lk.kiln.db "SELECT CAST(value AS INTEGER) FROM scalars WHERE name='libkiln'")" 1 "KILN_LIBKILN from an installed kiln"
echo ok
