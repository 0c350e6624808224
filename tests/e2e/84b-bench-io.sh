# kiln bench's --show-output, --output, --input and --conclude (hyperfine's
# meanings): where each run's stdin, stdout and stderr really are (read from
# /proc by the command itself), what is kept of the output, the FILEs kiln
# opens as root (no link, FIFO, other owner or second hard link), and the
# conclusion after each run.
source "$KILN_ROOT/tests/lib.sh"
cd "$T"
# the command tells where its fds 0-2 go, and writes to both outputs (kiln's
# audit runs it with --version: that is not a run)
cat > where.sh <<'S'
#!/bin/sh
[ $# = 0 ] || exit 0
echo "$(readlink /proc/$$/fd/0) $(readlink /proc/$$/fd/1) $(readlink /proc/$$/fd/2)" > where.txt
echo "out-$$"
echo "err-$$" >&2
S
chmod +x where.sh
b() { "$KILN" bench -q --runs "$@"; }
fds() { sed "s|$T/||g; s|pipe:\[[0-9]*\]|pipe|g" where.txt; }

# ---- the default: drained through pipes, stored for a failed run, as before ----
out=$(b 2 ./where.sh -o d.kiln.db) || fail "default: $out"
assert_eq "$(fds)" "/dev/null pipe pipe" "default fds"
case $out in *out-*|*err-*) fail "the default let the output through: $out" ;; esac
b 1 'sh -c "echo kept-out; echo kept-err >&2; exit 1"' -o f.kiln.db >/dev/null 2>&1
assert_eq "$(sql f.kiln.db "SELECT CAST(stdout AS TEXT) || CAST(stderr AS TEXT) FROM pexecs" | tr -d '\n')" \
	"kept-outkept-err" "a failed run's output kept"

# ---- null, inherit, --show-output ----
b 2 --output null ./where.sh -o n.kiln.db >/dev/null || fail "--output null"
assert_eq "$(fds)" "/dev/null /dev/null /dev/null" "--output null"
b 2 --output pipe ./where.sh -o p.kiln.db >/dev/null || fail "--output pipe"
assert_eq "$(fds)" "/dev/null pipe pipe" "--output pipe"
b 2 --show-output ./where.sh -o s.kiln.db > s.out 2> s.err || fail "--show-output"
assert_eq "$(fds)" "/dev/null s.out s.err" "--show-output: kiln's own stdout and stderr"
assert_eq "$(grep -c '^out-' s.out)" 2 "each run's stdout shown"
assert_eq "$(grep -c '^err-' s.err)" 2 "each run's stderr shown"
b 1 --output inherit ./where.sh -o i.kiln.db > i.out 2>/dev/null || fail "--output inherit"
assert_eq "$(grep -c '^out-' i.out)" 1 "--output inherit"
assert_eq "$(sql s.kiln.db "SELECT COUNT(*) FROM pexecs WHERE status='ok' AND duration_s > 0")" 2 "timed runs stored"

# ---- --output FILE: stdout, the last run's, 0600, refused where root must not write ----
b 3 --output ./o.txt ./where.sh -o o.kiln.db >/dev/null || fail "--output FILE"
assert_eq "$(fds | cut -d' ' -f1,2)" "/dev/null o.txt" "--output FILE gets stdout"
assert_eq "$(wc -l < o.txt) $(grep -c '^out-' o.txt)" "1 1" "the last run's output only"
# each run writes less than the one before: the file is emptied before each
printf '#!/bin/sh\n[ $# = 0 ] || exit 0\nn=$(cat n 2>/dev/null || echo 6); echo $((n - 1)) > n; seq $n\n' > shrink.sh; chmod +x shrink.sh
b 3 --output ./o2.txt ./shrink.sh -o o2.kiln.db >/dev/null || fail "--output FILE, shrinking"
assert_eq "$(tr '\n' ' ' < o2.txt)" "1 2 3 4 " "the last run's output, not over the earlier ones"
assert_eq "$(stat -c %a o.txt)" 600 "made 0600"
echo precious > target; ln -s target lnk
out=$(b 1 --output ./lnk true 2>&1); assert_eq $? 3 "a link refused"
assert_contains "$out" "lnk: a symbolic link"
assert_eq "$(cat target)" precious "the link's target untouched"
echo theirs > theirs.txt; chown nobody theirs.txt
out=$(b 1 --output ./theirs.txt true 2>&1); assert_eq $? 3 "another user's file refused"
assert_contains "$out" "theirs.txt: not owned"
assert_eq "$(cat theirs.txt)" theirs "another user's file untouched"
ln target hard
out=$(b 1 --output ./hard true 2>&1); assert_eq $? 3 "a hard link refused"
assert_eq "$(cat target)" precious "the hard link's file untouched"
mkfifo fifo
out=$(timeout 20 "$KILN" bench -q --runs 1 --output ./fifo true 2>&1); assert_eq $? 3 "a FIFO refused, not waited on"
assert_contains "$out" "fifo: a FIFO"
out=$(b 1 --output o.txt true 2>&1); assert_eq $? 2 "a FILE without a / (hyperfine's rule)"
out=$(b 1 --show-output --output null true 2>&1); assert_eq $? 2 "--show-output with --output"

# ---- --input FILE: each run reads it from its start ----
printf 'a\nb\nc\n' > in.txt
b 3 --input in.txt --output ./wc.txt 'wc -l' -o in.kiln.db >/dev/null || fail "--input"
assert_eq "$(cat wc.txt)" 3 "the third run read the whole file"
b 1 --input in.txt ./where.sh -o in2.kiln.db >/dev/null || fail "--input fds"
assert_eq "$(fds | cut -d' ' -f1)" in.txt "stdin is the FILE"
out=$(b 1 --input missing.txt true 2>&1); assert_eq $? 3 "a missing input"
assert_contains "$out" "missing.txt"
ln -s in.txt inlnk
out=$(b 1 --input inlnk true 2>&1); assert_eq $? 3 "an input link refused"
out=$(timeout 20 "$KILN" bench -q --runs 1 --input fifo true 2>&1); assert_eq $? 3 "an input FIFO refused"
out=$(b 1 --input . true 2>&1); assert_eq $? 3 "a folder as input"

# ---- --conclude: after each run, warmups included, untimed; one per command ----
b 2 -w 1 -p 'sh -c "echo p >> log"' --conclude 'sh -c "echo c >> log"' 'sh -c "echo r >> log"' -o c.kiln.db \
	>/dev/null || fail "--conclude"
assert_eq "$(tr -d '\n' < log)" prcprcprc "prepare, run, conclude, for the warmup and each run"
b 1 --conclude 'touch c1' --conclude 'touch c2' true 'sleep 0' -o c2.kiln.db >/dev/null || fail "per command"
[ -f c1 ] && [ -f c2 ] || fail "each command's own conclusion"
out=$(b 1 --conclude a --conclude b --conclude c true false 2>&1); assert_eq $? 2 "three conclusions for two commands"
out=$(b 3 --conclude false true -o cf.kiln.db 2>&1); assert_eq $? 1 "a failed conclusion"
assert_contains "$out" "conclude command .false. failed"
assert_eq "$(sql cf.kiln.db "SELECT COUNT(*) FROM pexecs WHERE status='ok'")" 1 "the run before it kept, no more ran"
echo ok
