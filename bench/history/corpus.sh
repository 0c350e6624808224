#!/bin/bash
# corpus.sh - measure kiln's history corpus: 200 consecutive first-parent
# commits of PUC Lua's public repository (a585eae6..7d6a97e4, July 2020 to
# December 2022, all Lua 5.4: the lua plugin's kilnclock.so is built for
# 5.4) x the 12 benchmarks of lua-history.yaml x 10 pexecs, by `kiln track`
# on this machine, into bench/history/out/lua.history.db (kept out of git:
# about 60 MB), then the last commit against itself in 20 interleaved
# rounds (the noise floor of A/B rounds, which bench/history's simulated
# bisections draw from).  Resumable: run it again after an interrupt.
# Takes hours (about 50 s a commit on a quiet 2-core machine, 4 to 6 min
# at a load of 12); a quiet machine gives the corpus the README's figures
# should come from.
#
#   LUA_REPO=/path/to/lua.git bench/history/corpus.sh [EXTRA kiln track ARGS...]
#
# LUA_REPO is a clone of https://github.com/lua/lua (bare or not; never
# written to).  CORPUS_OUT chooses another output folder.  Extra arguments
# go to kiln track: `--interleave all` measures the commits in rounds (the
# README's interleaved figures: the first 100 commits, `--hashes FILE
# --interleave 100`, then subset.py cuts this corpus to the same commits).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
KILN=${KILN:-$root/build/kiln}
LUA_REPO=${LUA_REPO:-/work/.mirror/lua+lua/repo}
out=${CORPUS_OUT:-$here/out}
[ -x "$KILN" ] || { echo "build kiln first (make)" >&2; exit 2; }
git -C "$LUA_REPO" cat-file -e 7d6a97e42bc3328b9c5ec1dabbd7e280e81c3efd 2>/dev/null ||
	{ echo "LUA_REPO=$LUA_REPO: not a clone of github.com/lua/lua with commit 7d6a97e4" >&2; exit 2; }
mkdir -p "$out"
machine=${CORPUS_MACHINE:-$(hostname)}
# a585eae6 is the parent of the first commit measured: 200 commits after it
"$KILN" track "$here/lua-history.yaml" --repo "$LUA_REPO" -o "$out/lua.history.db" --machine "$machine" \
	a585eae6e7ada1ca9271607a4f48dfb17868ab7b..7d6a97e42bc3328b9c5ec1dabbd7e280e81c3efd "$@" || exit
# the machine's noise floor for interleaved rounds (the bisection bench draws from it): the last
# commit against itself, 20 rounds of every key (exit 1 would mean a key "slower" than itself)
"$KILN" track "$here/lua-history.yaml" --repo "$LUA_REPO" -o "$out/lua.history.db" --machine "$machine" \
	--compare 7d6a97e42bc3328b9c5ec1dabbd7e280e81c3efd 7d6a97e42bc3328b9c5ec1dabbd7e280e81c3efd --pexecs 20 \
	> "$out/aa-compare.md"
echo "A/A compare: $(tail -1 "$out/aa-compare.md")"
