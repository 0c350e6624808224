#!/bin/sh
# deps.sh - the one place that names the Debian packages kiln needs, and
# installs those that are missing.  Idempotent; prints nothing when all is
# there.  `scripts/deps.sh` installs what building and `make demo` need;
# `scripts/deps.sh --test` adds what the test suite needs (every VM, perf,
# clang for fuzzing, valgrind, chromium for the HTML report test, pdflatex
# for the LaTeX table); `--bench` that and what `make bench` needs.
set -eu

# building kiln and libkiln (liblowdown: the docs/ pages as man pages, Markdown
# to roff; libbsd: what its static library needs; libxxhash: the header only,
# the analysis cache's key hash)
BUILD="gcc make pkg-config libfyaml-dev libjansson-dev libsqlite3-dev libgsl-dev
libzstd-dev libbz2-dev zlib1g-dev libcapstone-dev libmd-dev libyajl-dev liblua5.4-dev gnuplot-nox
liblowdown-dev libbsd-dev libxxhash-dev"
# the VMs the bundled plugins drive (a missing VM is skipped by the demo)
VMS="python3 pypy3 lua5.4 luajit default-jdk-headless ruby jruby php-cli php8.2-opcache"
# the test suite and the harness benchmarks (slurm*, munge: the real one-machine
# cluster scripts/slurm-local.sh starts for the cluster tests; pdflatex with
# booktabs: the LaTeX table is compiled and checked for overfull boxes;
# poppler: PDF plots are counted and rendered; man-db, groff: the man pages are
# rendered and checked for warnings; asciidoctor, emacs-nox: kiln bench's AsciiDoc
# and Org tables rendered by the real tools; gdb: a test holds kiln at a chosen
# system call to order a cancel's signals)
TEST="libcmocka-dev sqlite3 bzip2 zstd linux-perf hyperfine clang libclang-rt-14-dev
valgrind chromium procps util-linux kmod strace gdb slurmctld slurmd slurm-client munge
texlive-latex-base texlive-latex-recommended poppler-utils man-db groff-base asciidoctor emacs-nox"

# `make bench` besides: numpy and scipy, for Otava's detector run from its
# sources beside kiln's (bench/history.sh; asv's needs neither)
BENCH="python3-numpy python3-scipy"

want="$BUILD $VMS"
[ "${1:-}" = "--test" ] && want="$want $TEST"
[ "${1:-}" = "--bench" ] && want="$want $TEST $BENCH"

# Node.js: any `node` on PATH will do (Debian's nodejs or another build)
command -v node >/dev/null 2>&1 || want="$want nodejs"
# a JDK already installed under another name is fine too
if command -v javac >/dev/null 2>&1; then want=$(echo "$want" | sed 's/default-jdk-headless//'); fi

missing=""
for p in $want; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
		missing="$missing $p"
	fi
done
[ -z "$missing" ] && exit 0

echo "kiln: installing Debian packages:$missing" >&2
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >/dev/null
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
