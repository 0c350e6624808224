# kiln bench's --export-asciidoc and --export-orgmode: hyperfine 1.15's
# layouts (compared with the real hyperfine's files), --sort and -u, and
# commands that would break a table or become markup, rendered by the real
# tools (Asciidoctor; Emacs' Org exporter) and read back cell by cell.
source "$KILN_ROOT/tests/lib.sh"
command -v asciidoctor >/dev/null || skip "asciidoctor is not installed (scripts/deps.sh --test)"
command -v emacs >/dev/null || skip "emacs is not installed (scripts/deps.sh --test)"
cd "$T"
# numbers out: the layouts compared, not the machine's timings (a lopsided ratio's interval
# is written as its two ends, "r (lo–hi)", where hyperfine writes "r ± h"; hi is "inf" when three
# noisy runs cannot bound it)
shape() { sed -E 's/[0-9]+\.[0-9]+( ± [0-9]+\.[0-9]+| \([0-9]+\.[0-9]+–([0-9]+\.[0-9]+|inf)\))?/N/g; s/,options="header"//' "$1"; }

# ---- the layouts, next to hyperfine's own ----
"$KILN" bench -q --runs 3 true 'sleep 0.001' --export-asciidoc k.adoc --export-orgmode k.org -o k.kiln.db >/dev/null \
	|| fail "kiln bench"
if command -v hyperfine >/dev/null; then
	hyperfine -N --runs 3 true 'sleep 0.001' --export-asciidoc h.adoc --export-orgmode h.org >/dev/null 2>&1 \
		|| fail "hyperfine"
	# the same but for the header option (hyperfine's header is a row of data to Asciidoctor)
	assert_eq "$(shape k.adoc)" "$(shape h.adoc)" "AsciiDoc as hyperfine $(hyperfine --version) writes it"
	assert_eq "$(head -n 1 k.adoc)" '[cols="<,>,>,>,>",options="header"]' "AsciiDoc's header row"
	assert_eq "$(shape k.org)" "$(shape h.org)" "Org as hyperfine writes it"
fi
"$KILN" export k.kiln.db --format hyperfine-orgmode -o e.org >/dev/null || fail "kiln export --format hyperfine-orgmode"
assert_eq "$(shape e.org)" "$(shape k.org)" "kiln export writes the same table"
"$KILN" bench -q --runs 2 'sleep 0.1' true -u s --sort mean-time --export-asciidoc u.adoc -o u.kiln.db >/dev/null \
	|| fail "-u s"
assert_eq "$(sed -n 4p u.adoc)" "| Mean [s] " "-u s"
assert_eq "$(grep '^| `' u.adoc | tr '\n' ,)" '| `true` ,| `sleep 0.1` ,' "--sort mean-time"

# ---- hostile command names: the cells read back by the real renderers ----
cat > names <<'N'
true
echo a|b
echo *b* | [[http://x][y]] @@html:<i>@@ \alpha $x$ {a} image:x.png[] x\]y `c` a=b -- ... a^2 _u_ <<t>> ~c~ +s+ \\
echo a= b
echo |
N
args=()
while IFS= read -r n; do args+=("$n"); done < names
# kiln's own quoting: each name is one word after the program's
q=()
for n in "${args[@]}"; do
	[ "$n" = true ] && q+=(true) && continue
	q+=("echo '$(printf '%s' "${n#echo }" | sed "s/'/'\\\\''/g")'")
done
"$KILN" bench -q --runs 1 -i "${q[@]}" --export-asciidoc x.adoc --export-orgmode x.org -o x.kiln.db >/dev/null \
	|| fail "hostile names"
# what kiln calls each command (its words joined), in order
python3 - "$KILN_ROOT" x.kiln.db > want <<'P' || fail "bench_commands"
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[2])
for c in json.loads(db.execute("SELECT value FROM meta WHERE name='bench_commands'").fetchone()[0])["commands"]:
    print(c["command"])
P
asciidoctor -o x.html x.adoc 2> adoc.err || fail "asciidoctor: $(cat adoc.err)"
[ ! -s adoc.err ] || fail "asciidoctor warned: $(cat adoc.err)"
cat > cells.el <<'L'
(require 'org)
(require 'ox-html)
(find-file (car command-line-args-left))
(princ (org-export-as 'html nil nil t))
L
emacs --batch -Q -l cells.el x.org > org.html 2> org.err || fail "emacs: $(cat org.err)"
python3 - x.html org.html want <<'P' || fail "a command's cell is not the command"
import html, re, sys
want = open(sys.argv[3]).read().split("\n")[:-1]
for f in sys.argv[1:3]:
    rows = re.findall(r"<tr>(.*?)</tr>", open(f).read(), re.S)
    body = [r for r in rows if "<td" in r]
    assert len(body) == len(want), (f, len(body), len(want))
    for r, w in zip(body, want):
        cells = re.findall(r"<td[^>]*>(.*?)</td>", r, re.S)
        assert len(cells) == 5, (f, "cells", len(cells), r)
        c = re.sub(r"^<p class=\"tableblock\">(.*)</p>$", r"\1", cells[0].strip())
        m = re.fullmatch(r"<code>(.*)</code>", c, re.S)
        assert m or "|" in w, (f, "not one code span", c)   # Org writes a command with | as text
        text = html.unescape(m.group(1) if m else c).replace("\u200b", "")
        assert "<" not in (m.group(1) if m else c), (f, "markup in the cell", c)
        assert text == w, (f, text, w)
P
echo ok
