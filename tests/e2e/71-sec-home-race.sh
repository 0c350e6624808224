#!/bin/bash
# Issue 11.3: the benchmark home's removal cannot be redirected.  A process
# of the benchmark user that is still alive when the next pexec starts (an
# orphan of a killed kiln, or another experiment's benchmark) swaps a
# folder of its home for a link to a root-owned folder, over and over,
# while kiln renews the home: kiln must end it first, and its removal must
# never follow the link.  And a second kiln cannot use the same benchmark
# user at the same time.
source "$KILN_ROOT/tests/lib.sh"
sec_user kiln-sec-home
mkdir victim
for i in $(seq 3000); do : > victim/f$i; done
cat > ok.sh <<SH
#!/bin/sh
$sec_stream
SH
chmod 644 ok.sh
cat > h.yaml <<Y
pexecs: 2
iterations: 1
vms:
  e: {plugin: external, runner: [/bin/sh, $T/ok.sh], language: evil, entry: x}
benchmarks: {b: 1}
platform: {user: $U}
Y
"$KILN" run -q h.yaml --results "$T/first.kiln.db" 2>err.txt || fail "first run (creates the user): $(cat err.txt)"
home="$T/homes/$U"
# a session removes the home when it ends; a killed kiln leaves it, as here
mkdir -p "$home" && chown "$U:" "$home" && chmod 700 "$home"
cat > swap.py <<P
import os, sys
os.chdir("$home")
os.mkdir("d")
for i in range(3000):
    open("d/f%d" % i, "w").close()
while True:  # d: a folder, then a link to the victim, then the folder again
    try:
        os.rename("d", "d.real"); os.symlink("$T/victim", "d")
        os.unlink("d"); os.rename("d.real", "d")
    except OSError:
        pass
P
chmod 644 swap.py
setpriv --reuid="$U" --regid="$U" --clear-groups /usr/bin/python3 swap.py &
swapper=$!
sleep 1
kill -0 $swapper 2>/dev/null || fail "the swapper did not start"
"$KILN" run -q h.yaml 2>err.txt || fail "run beside a live process of the user: $(cat err.txt)"
assert_eq "$(ls victim | wc -l)" 3000 "root's files behind the swapped link"
sleep 0.2
kill -0 $swapper 2>/dev/null && fail "the user's process survived the run"
wait $swapper 2>/dev/null

# one kiln per benchmark user: a second experiment with the same user is refused
cat > slow.sh <<SH
#!/bin/sh
sleep 2
$sec_stream
SH
chmod 644 slow.sh
sed "s|ok.sh|slow.sh|; s|pexecs: 2|pexecs: 1|" h.yaml > slow.yaml
"$KILN" run -q slow.yaml --results "$T/a.kiln.db" 2>a.txt &
a=$!
sleep 1
"$KILN" run -q h.yaml --results "$T/b.kiln.db" 2>b.txt; rc=$?
wait $a || fail "the first experiment: $(cat a.txt)"
assert_eq $rc 4 "exit of a second kiln on the same benchmark user"
assert_contains "$(cat b.txt)" "in use by another kiln" "its message"
echo ok
