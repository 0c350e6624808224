# Help that agrees with itself: every option a command's help lists is in
# its usage line (by its long or its short name), `kiln help NOSUCH` is a
# usage error (exit 2, as `kiln NOSUCH` is), `kiln run --help` says what
# exit 0 covers (tainted pexecs too), and the man pages point at the docs
# folder they are made for (make install passes its PREFIX's).
source "$KILN_ROOT/tests/lib.sh"
cd "$T"
bad=""
for c in $("$KILN" --help | awk '/^commands:/ {on = 1; next} on && /^  [a-z]/ {print $1}'); do
	"$KILN" "$c" --help > h.txt || fail "kiln $c --help exits non-zero"
	usage=$(sed -n '1,/^$/p' h.txt)
	# the command's own options: lines "  -x, --long" or "  --long" before the analysis options
	while read -r short long; do
		grep -qe "$long" <<<"$usage" && continue
		[ -n "$short" ] && grep -qE -- "$short([^a-zA-Z-]|$)" <<<"$usage" && continue
		bad="$bad kiln $c: $long;"
	done < <(sed -n '/^analysis options/q;p' h.txt | sed -nE 's/^  (-[a-zA-Z]), (--[a-z][a-z-]*).*/\1 \2/p; s/^  (--[a-z][a-z-]*).*/ \1/p')
done
[ -z "$bad" ] || fail "options in the help but not in the usage line:$bad"
"$KILN" help nosuch > out 2> err; rc=$?
assert_eq "$rc" 2 "kiln help nosuch"
assert_contains "$(cat err)" "'nosuch' is not a kiln command"
"$KILN" help run | grep -q "tainted" || fail "kiln run --help does not say that tainted pexecs exit 0"
"$KILN" --man-pages man /opt/kilntest/share/doc/kiln || fail "--man-pages DIR DOCDIR"
grep -q '/opt/kilntest/share/doc/kiln/kiln\\-report.md' man/kiln-report.1 || fail "the man page does not point at DOCDIR: $(tail -3 man/kiln-report.1)"
grep -rq '/usr/local/share/doc' man/ && fail "a man page still names /usr/local"
# the docs' examples are what kiln takes (issue 18.4): docs/plugins/pypy.md's VM block
python3 - "$KILN_ROOT/docs/plugins/pypy.md" > pypy-doc.yaml <<'PY'
import re, sys
block = re.search(r"```yaml\n(.*?)```", open(sys.argv[1]).read(), re.S).group(1)
print(block + "benchmarks: {nbody: 1}")
PY
if command -v pypy3 >/dev/null; then
	out=$("$KILN" run --dry-run pypy-doc.yaml 2>&1) || fail "docs/plugins/pypy.md's example is refused: $out"
fi
echo ok
