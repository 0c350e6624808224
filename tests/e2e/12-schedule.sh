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
echo ok
