# kiln report -o FILE writes FILE.tmp.PID then renames it: a name anyone who can
# write to FILE's folder can guess.  Whatever is found there (a link to a file
# of root's) is not followed: the file it points to is left as it was.
source "$KILN_ROOT/tests/lib.sh"
cd "$T" || fail "no $T"
IN=$KILN_ROOT/tests/data/krun/quick_results.json.bz2
echo "root's file" > victim
# the link made by the shell that then becomes kiln (exec keeps its pid)
out=$(sh -c 'ln -s "$1" "$2.tmp.$$" && exec "$0" report "$3" -o "$2"' "$KILN" "$T/victim" "$T/r.txt" "$IN" 2>&1) ||
	fail "report beside a planted link: $out"
assert_eq "$(cat victim)" "root's file" "the file the link pointed to was written"
[ -f r.txt ] && [ ! -L r.txt ] || fail "r.txt is not the report: $(ls -l r.txt)"
assert_contains "$(cat r.txt)" "benchmark:vm:variant"
[ -z "$(ls ./*.tmp.* 2>/dev/null)" ] || fail "a temporary file left: $(ls ./*.tmp.*)"
true
