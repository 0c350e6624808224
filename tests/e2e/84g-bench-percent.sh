# kiln bench's percentages are plain numbers: with few runs of a command
# that varies a lot, the CI line and "could see" read "The CI is ±2.4e+02%
# of the mean" and "could see ±1e+04%" (%g's exponent; kiln compare's
# "could show" too).  Now "±2080%", and a bound beyond a 100-fold change
# is ">10000%".
source "$KILN_ROOT/tests/lib.sh"
cd "$T"
# 10 ms on its first run, 50 ms on its second: two runs whose 99% CI is far wider than the mean
cat >alt.sh <<'S'
if [ -e alt.flag ]; then rm alt.flag; sleep 0.05; else touch alt.flag; sleep 0.01; fi
S
out=$("$KILN" bench -q -m 2 -M 2 'sh alt.sh' 'sleep 0.02' -o p.kiln.db 2>&1) || fail "bench: $out"
grep -q "e+[0-9]" <<<"$out" && fail "a number in exponent notation: $out"
assert_contains "$out" "^  The CI is ±[0-9]\{3,\}% of the mean, not 1%: "
assert_contains "$out" "could see ±\(>10000\|[0-9.]*\)%)"
echo ok
