# kiln report -o FILE writes FILE.tmp.PID then renames it: a name anyone who can
# write to FILE's folder can guess.  Whatever is found there (a link to a file
# of root's) is not followed: the file it points to is left as it was.  The
# same for kiln plot's .dat and .gp files and kiln flame -o.
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
# kiln plot: its gnuplot data and script, written through write_file
mkdir plots
out=$(sh -c 'ln -s "$1" "$2.dat.tmp.$$" && ln -s "$1" "$2.gp.tmp.$$" && exec "$0" plot "$3" -o plots' \
	"$KILN" "$T/victim" "$T/plots/nbody_Java_default-java-p0" "$IN" 2>&1) || fail "plot beside planted links: $out"
assert_eq "$(cat victim)" "root's file" "kiln plot wrote the file a link pointed to"
[ -f plots/nbody_Java_default-java-p0.gp ] && [ ! -L plots/nbody_Java_default-java-p0.gp ] || fail "no plot script"
# kiln flame -o
mkdir fl
python3 - <<'P'
import json
fl = {"categories": ["jit"], "frames": [["f", "d", 0]], "stacks": [[-1, 0]],
      "samples": {"stack": [0], "phase": [1], "iter": [0], "pexec": [0], "t_ms": [0]}, "pexecs": [{"pid": 1}]}
json.dump({"flame": fl}, open("fl/profile.json", "w"))
P
out=$(sh -c 'ln -s "$1" "$2.tmp.$$" && exec "$0" flame fl --format folded -o "$2"' "$KILN" "$T/victim" "$T/f.folded" 2>&1) ||
	fail "flame beside a planted link: $out"
assert_eq "$(cat victim)" "root's file" "kiln flame wrote the file a link pointed to"
assert_contains "$(cat f.folded)" "f"
true
