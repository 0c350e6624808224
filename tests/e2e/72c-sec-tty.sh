#!/bin/bash
# The benchmark user must not reach the terminal kiln was started from.  A
# pexec that shares kiln's session has kiln's controlling terminal: it can
# open /dev/tty (whatever the terminal's owner and mode) and push input
# into it with TIOCSTI, which the root shell that started kiln reads as
# typed once kiln exits; it can also read what root types and write
# escapes that bypass kiln's own.  Run under script(1), so that kiln has a
# terminal; the runner, a prepare step and the parser (run by the
# collector) each try, as a real benchmark user.
source "$KILN_ROOT/tests/lib.sh"
sec_user kiln-sec-tty
command -v script >/dev/null || skip "no script(1)"
command -v cc >/dev/null || skip "no cc"
cat > sti.c <<'C'
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
/* sti WHO SEEN: open /dev/tty and push a command into its input */
int main(int argc, char **argv)
{
	FILE *seen = fopen(argv[2], "a");
	int fd = open("/dev/tty", O_RDWR | O_NOCTTY);
	if (fd < 0) {
		fprintf(seen, "%s: no tty: %m\n", argv[1]);
		return 0;
	}
	const char *cmd = "touch /tmp/kiln-sec-tty-pwned\n";
	int pushed = 1;
	for (const char *p = cmd; *p && pushed; p++)
		pushed = ioctl(fd, TIOCSTI, p) == 0;
	fprintf(seen, "%s: opened the tty%s\n", argv[1], pushed ? ", pushed input" : "");
	return 0;
}
C
cc -o sti sti.c || fail "cc"
chmod 755 sti
: > seen.txt
chmod 666 seen.txt
cat > r.sh <<SH
#!/bin/sh
[ "\$1" = --version ] && { echo r.sh 1; exit 0; }
$T/sti runner $T/seen.txt
$sec_stream
SH
chmod 755 r.sh
cat > t.yaml <<Y
pexecs: 1
iterations: 1
vms:
  v: {plugin: external, runner: [$T/r.sh], language: evil, entry: x, prepare: [$T/sti, prepare, $T/seen.txt], parser: [$T/sti, parser, $T/seen.txt]}
benchmarks: {b: 1}
platform: {user: $U}
Y
# root's shell, on a terminal: kiln runs, then the shell reads the next line typed
script -qec "bash -c '\"$KILN\" run -q t.yaml 2>err.txt; echo \$? > rc.txt; read -r -t 2 line; echo \"read:\$line\" > read.txt'" /dev/null \
	< <(sleep 30) > script.out 2>&1
assert_eq "$(cat rc.txt 2>/dev/null)" 0 "kiln run ($(cat err.txt 2>/dev/null))"
for who in runner prepare parser; do
	assert_contains "$(grep "^$who:" seen.txt)" "no tty" "$who (seen: $(tr '\n' ';' < seen.txt))"
done
assert_eq "$(cat read.txt)" "read:" "what root's shell read after kiln"
echo ok
