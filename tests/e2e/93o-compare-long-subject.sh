# kiln track --compare's Markdown (a pull-request comment) holds a commit's
# subject cut to 1000 bytes, on a UTF-8 boundary, as the history stores it:
# anyone who commits writes the subject, and a comment past the forge's
# limit (GitHub's 65536 characters) is refused. Before, a 100,000-byte
# subject went into the comment whole.
source "$KILN_ROOT/tests/lib.sh"
source "$KILN_ROOT/tests/lib-history.sh"
history_test_tools
history_line repo 1
make_history_config exp/toy.yaml 2
# the head commit: another binary, a subject of 99,999 'é' bytes' worth (two bytes each, so a cut can fall inside one)
history_vm_source 2000 5 "static volatile int rebuilt = 99;" > repo/vm.c
git -C repo add -A
long=$(python3 -c 'print("é" * 50000)')
git -C repo commit -q -m "head: $long"
head=$(git -C repo rev-parse HEAD)
out=$("$KILN" track exp/toy.yaml --repo repo -o h.db --compare "$HIST_L0" "$head" --pexecs 2 2>/dev/null)
rc=$?
[ "$rc" -le 1 ] || fail "compare: exit $rc"
assert_contains "$out" "Head: head: é"
n=$(printf '%s' "$out" | wc -c)
[ "$n" -lt 20000 ] || fail "the comment is $n bytes: the subject was not cut"
# what is printed is valid UTF-8 (the cut fell between characters)
printf '%s' "$out" | python3 -c 'import sys; sys.stdin.buffer.read().decode("utf-8")' || fail "not UTF-8 after the cut"
# the history holds the same cut subject
assert_eq "$(sqlite3 h.db "SELECT length(CAST(subject AS BLOB)) <= 1000 FROM commits WHERE hash = '$head'")" 1 \
	"stored subject cut"
echo ok
