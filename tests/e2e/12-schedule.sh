# The schedule is reproducible from the seed, differs with another seed,
# --order interleaved is Krun's order, and the stored schedule is what runs.
source "$KILN_ROOT/tests/lib.sh"
make_suite
cd "$T"
mk() { cat > "$1" <<Y
pexecs: 6
iterations: 2
seed: $2
vms: {a: {plugin: c}, b: {plugin: c, variant: O0}}
benchmarks: {spin: 10, spin2: 10}
Y
}
mk s1.yaml 11; mk s2.yaml 11; mk s3.yaml 12
a=$("$KILN" run --dry-run s1.yaml | grep -v '^#'); b=$("$KILN" run --dry-run s2.yaml | grep -v '^#'); c=$("$KILN" run --dry-run s3.yaml | grep -v '^#')
assert_eq "$a" "$b" "same seed, same schedule"
[ "$a" != "$c" ] || fail "another seed gave the same schedule"
assert_eq "$(wc -l <<<"$a")" 24 "schedule length"
# every key appears with pexecs 0..5 exactly once
assert_eq "$(cut -f2,3 <<<"$a" | sort -u | wc -l)" 24 "distinct pexecs"
i=$("$KILN" run --dry-run --order interleaved s1.yaml | grep -v '^#' | cut -f3)
assert_eq "$(head -4 <<<"$i" | sort -u)" "0" "interleaved: round 0 first"
assert_eq "$(sed -n 5,8p <<<"$i" | sort -u)" "1" "interleaved: round 1 next"
# the stored order is the planned one
"$KILN" run -q s1.yaml || fail run
stored=$(sqlite3 -separator ' ' s1.kiln.db "SELECT k.bench||':'||k.vm||':'||k.variant, p.num FROM pexecs p JOIN keys k ON k.id=p.key_id ORDER BY p.seq")
planned=$(cut -f2,3 <<<"$a" | tr '\t' ' ')
assert_eq "$stored" "$planned" "stored schedule"
# pexec labels are zero padded to the widest
"$KILN" run --dry-run s1.yaml >/dev/null
# --order rounds: round n runs pexec n - 1 of every key, each round in an order of its own, stored with the schedule
r=$("$KILN" run --dry-run --order rounds s1.yaml | grep -v '^#')
for n in 0 1 2 3 4 5; do
	assert_eq "$(sed -n "$((4 * n + 1)),$((4 * n + 4))p" <<<"$r" | cut -f3,5 | sort -u)" "$n	round $((n + 1))" "round $((n + 1))"
	assert_eq "$(sed -n "$((4 * n + 1)),$((4 * n + 4))p" <<<"$r" | cut -f2 | sort -u | wc -l)" 4 "round $((n + 1))'s keys"
done
[ "$(cut -f2 <<<"$r" | paste -sd' ')" != "$(cut -f2 <<<"$i" | paste -sd' ')" ] || fail "rounds in Krun's fixed order"
"$KILN" run -q --order rounds -o r.kiln.db s1.yaml || fail "run in rounds"
assert_eq "$(sqlite3 r.kiln.db "SELECT value FROM meta WHERE name='order'")" rounds "order stored"
assert_eq "$(sqlite3 r.kiln.db "SELECT COUNT(*) FROM pexecs p JOIN pexec_rounds r ON r.pexec_id = p.id WHERE r.round = p.num + 1")" \
	24 "rounds stored"
echo ok
