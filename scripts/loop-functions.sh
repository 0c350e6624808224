#!/bin/bash
# loop-functions.sh - regenerate src/kiln-loop.ld, the list of kiln's own
# functions its pexec loop runs, which the link puts side by side at the
# start of the text (see the Makefile): kiln's RSS while a benchmark runs is
# mostly code pages its loop faults back in, 64 KiB at a time (the kernel's
# fault-around), so the fewer 64 KiB windows the loop's code spans, the
# less of kiln stays resident beside the benchmark (bench/pexec measures it).
# A function missing from the list only costs memory; a stale name is
# ignored.  Needs valgrind and python3; run it after changing the loop.
#   scripts/loop-functions.sh [O]     (O: the build folder, default build)
set -eu
cd "$(dirname "$0")/.."
O=${1:-${O:-build}}
tmp=$(mktemp -d /tmp/kiln-loop.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/t.yaml" <<Y
pexecs: 60
iterations: 1
vms:
  t: {plugin: command, path: /bin/true}
  s: {plugin: command, path: /bin/sh, args: ["-c", "exit 0"]}
benchmarks:
  noop: 0
Y
valgrind --tool=callgrind --collect-atstart=no --toggle-collect=run_pexec \
	--callgrind-out-file="$tmp/cg" "$O/kiln" run -q "$tmp/t.yaml" >/dev/null 2>&1
nm --defined-only "$O"/obj/src/*.o "$O"/obj/plugins/*/*.o 2>/dev/null | awk 'NF == 3 && ($2 == "t" || $2 == "T") {print $3}' |
	sort -u >"$tmp/own"
# the loop itself (run_pending, inlined into its callers) runs outside run_pexec
callers="job_run run_session run_loop run_pending run_more"
python3 - "$tmp/cg" "$tmp/own" "$callers" >src/kiln-loop.ld <<'PY'
import re, sys
own = set(open(sys.argv[2]).read().split())
names, ran, cur, skip = {}, set(sys.argv[3].split()), None, False
for line in open(sys.argv[1]):
    m = re.match(r'^(c?)fn=\((\d+)\)(?: (.*))?$', line.rstrip('\n'))
    if m:
        if m.group(3):
            names[m.group(2)] = m.group(3)
        if not m.group(1):
            cur = m.group(2)
        continue
    if line.startswith('calls='):
        skip = True
        continue
    if cur and re.match(r'^[+\-*0-9]\S* [1-9]', line):
        if skip:
            skip = False
            continue
        ran.add(names[cur].split("'")[0])
# a clone (f.constprop.0, f.isra.0, f.part.0) is placed with its function
fns = sorted(set(f.split(".")[0] for f in ran if f in own))
print("/*\n * kiln-loop.ld - made by scripts/loop-functions.sh: kiln's own functions that\n"
      " * its pexec loop runs, placed together before the rest of the text (the\n"
      " * objects are compiled with -ffunction-sections) so that they span as few\n"
      " * 64 KiB fault-around windows as can be.  %d functions.\n */" % len(fns))
print("SECTIONS\n{\n\t.text.kiln_loop : {")
for f in fns:
    print("\t\t*(.text.%s .text.%s.*)" % (f, f))
print("\t}\n}\nINSERT BEFORE .text;")
PY
echo "src/kiln-loop.ld: $(grep -c '\*(' src/kiln-loop.ld) functions"
