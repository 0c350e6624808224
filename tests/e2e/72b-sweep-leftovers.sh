#!/bin/bash
# The sweep: a kiln that starts a session removes the session records and
# instrumentation folders other kilns left when they were killed (their
# kiln provably gone: no such pid, a zombie, a pid of another start time, or
# another boot), ending first what their runner left in its group, and
# never anything of a live kiln, and never through a link.  Leftovers made
# the real way: a kiln killed with SIGKILL mid-pexec, beside a live one.
source "$KILN_ROOT/tests/lib.sh"
[ "$(id -u)" = 0 ] || skip "needs root (records of kiln's uid, as on a lab machine)"
export KILN_STATE_DIR="$T/state"
cd "$T"
mkdir -p benchmarks/b/evil mark && touch benchmarks/b/evil/x
S=$KILN_STATE_DIR/sessions I=$KILN_STATE_DIR/instr
# dead.sh: pexec 0 leaves a child in its group and hangs; live.sh: pexec 0 waits for $T/go
cat > dead.sh <<SH
#!/bin/sh
if [ "\$KILN_PEXEC" = 0 ] && mkdir $T/mark/d 2>/dev/null; then sleep 37 & sleep 30; fi
$sec_stream
SH
cat > live.sh <<SH
#!/bin/sh
if [ "\$KILN_PEXEC" = 0 ]; then i=0; while [ ! -e $T/go ] && [ \$i -lt 300 ]; do sleep 0.1; i=\$((i+1)); done; fi
$sec_stream
SH
printf '#!/bin/sh\n%s\n' "$sec_stream" > new.sh
for n in dead live new; do
	cat > $n.yaml <<Y
pexecs: 2
iterations: 2

vms:
  e: {plugin: external, runner: [/bin/sh, $T/$n.sh], language: evil, entry: x}
benchmarks: {b: 1}
Y
done
tag_of() { printf '%08x%08x' "$(stat -c %d "$1")" "$(stat -c %i "$1")"; }
wait_for() { wait_until 15 eval "$1"; }

# the dead one: killed with SIGKILL while its runner hangs, a child of its runner left in its group
"$KILN" run -q dead.yaml 2>dead.err &
k=$!
wait_for 'pgrep -f "sleep 37" >/dev/null' || fail "dead pexec 0 did not start: $(cat dead.err)"
kill -9 $k
wait $k 2>/dev/null
sleep 0.3
dtag=$(tag_of dead.kiln.db)
[ -f "$S/$dtag" ] || fail "the killed kiln left no session record: the test would prove nothing"
dinstr=$(ls -d "$I/$dtag".* 2>/dev/null)
[ -n "$dinstr" ] || fail "the killed kiln left no instrumentation folder: the test would prove nothing"
[ -n "$(live_of -f 'sleep 37')" ] || fail "the runner's child did not outlive kiln: the test would prove nothing"
# planted links: inside the dead folder, and as a folder's and a record's name; none may be followed
mkdir victim && echo keep > victim/f
ln -s "$T/victim" "$dinstr/link"
ln -s "$T/victim/f" "$dinstr/flink"
ln -s "$T/victim" "$I/00000000deadbeef.AbCdEf"
ln -s "$T/victim/f" "$S/00000000deadbeef"

# the live one: another kiln mid-pexec, waiting for $T/go
"$KILN" run -q live.yaml 2>live.err &
lk=$!
wait_for 'ls "$I"/$(tag_of live.kiln.db 2>/dev/null).* >/dev/null 2>&1' || fail "live pexec 0 did not start: $(cat live.err)"
ltag=$(tag_of live.kiln.db)
linstr=$(ls -d "$I/$ltag".*)

# records written by hand for the pid rules: boot is this machine's
boot=$(cat /proc/sys/kernel/random/boot_id)
rec() { # TAG PID START BOOT
	printf 'kiln %10ld start %20s boot %36s\nrunner %10ld since %20s uid %10ld\n' "$2" "$3" "$4" 0 0 0 > "$S/$1"
	chmod 600 "$S/$1"; mkdir -m 700 "$I/$1.Abc123"
}
me=$(awk '{print $22}' /proc/$$/stat)  # this shell's start time ("bash": no blank in its name)
rec 0000000000000001 1 12345 "$boot"           # pid 1 alive, but started at another time: gone
rec 0000000000000002 $$ "$me" "$boot"          # this shell, same start time: alive (an unlocked record)
rec 0000000000000003 $$ "$me" 00000000-0000-0000-0000-000000000000  # another boot: gone
mkdir -m 700 "$I/0000000000000004.Zzz999"      # a folder without a record: gone
rec 0000000000000005 1 12345 "$boot"           # gone by its pid, but locked: a kiln holds it
flock "$S/0000000000000005" sleep 20.5 & holder=$!
rec 0000000000000006 1 12345 "$boot"           # gone, killed while it wrote its runner line (struck out)
sed -i 's/^runner/-unner/' "$S/0000000000000006"
trap 'kill $(pgrep -P $holder) $holder 2>/dev/null; [ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT
wait_for '[ -n "$(live_of -f "sleep 20.5")" ]' || fail "flock did not start"

# a new kiln on a third results file sweeps
"$KILN" run -q new.yaml 2>new.err || fail "new run: $(cat new.err)"
[ -e "$S/$dtag" ] && fail "the dead kiln's session record survived"
ls -d "$I/$dtag".* >/dev/null 2>&1 && fail "the dead kiln's instrumentation folder survived"
[ -n "$(live_of -f 'sleep 37')" ] && fail "the dead kiln's runner's child survived the sweep"
assert_eq "$(cat victim/f)" keep "the file behind the planted links"
[ -d victim ] || fail "the folder behind a planted link was removed"
[ -L "$I/00000000deadbeef.AbCdEf" ] || fail "a link in instr/ was removed (it is not kiln's)"
[ -L "$S/00000000deadbeef" ] || fail "a link in sessions/ was removed (it is not kiln's)"
[ -f "$S/$ltag" ] || fail "the live kiln's session record was removed"
[ -d "$linstr" ] || fail "the live kiln's instrumentation folder was removed"
kill -0 $lk 2>/dev/null || fail "the live kiln died"
[ -e "$S/0000000000000001" ] && fail "a record of a reused pid (other start time) survived"
[ -e "$I/0000000000000001.Abc123" ] && fail "the folder of a reused pid's record survived"
[ -f "$S/0000000000000002" ] || fail "a record of a live pid with its start time was removed"
[ -d "$I/0000000000000002.Abc123" ] || fail "the folder of a live pid's record was removed"
[ -e "$S/0000000000000003" ] && fail "a record of another boot survived"
[ -e "$I/0000000000000004.Zzz999" ] && fail "a folder without a record survived"
[ -e "$S/0000000000000006" ] && fail "a record whose runner line was being written survived"
[ -f "$S/0000000000000005" ] || fail "a locked record was removed"
[ -d "$I/0000000000000005.Abc123" ] || fail "the folder of a locked record was removed"
# the live kiln finishes normally and takes its own away
touch go
wait $lk || fail "live run: exit $?: $(cat live.err)"
[ -e "$S/$ltag" ] && fail "the live kiln's record stayed after it ended"
assert_eq "$(sqlite3 live.kiln.db "SELECT COUNT(*) FROM pexecs WHERE status='ok'")" 2 "live pexecs"
echo ok
