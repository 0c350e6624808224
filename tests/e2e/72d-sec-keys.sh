#!/bin/bash
# The kernel's keyrings: what no file system, IPC namespace or ended
# process takes away.  As a real benchmark user, each pexec lists the keys
# it can see, then leaves one in its user keyring (@u), its user session
# keyring (@us), its session keyring (@s) and its persistent keyring; the
# next pexec must see none of them, nor the session's end leave them.
# kiln is started with a session keyring of root's holding a key (as
# pam_keyinit and systemd's services give one): neither the runner nor a
# parser (run by the collector) may read it.
source "$KILN_ROOT/tests/lib.sh"
sec_user kiln-sec-keys
command -v cc >/dev/null || skip "no cc"
cat > keys.c <<'C'
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/keyctl.h>
static long kc(int op, long a, long b, long c) { return syscall(SYS_keyctl, op, a, b, c, 0L); }
int main(int argc, char **argv)
{
	if (argc > 2 && !strcmp(argv[1], "root")) { /* root: a session keyring with a key, then argv[2]... */
		if (kc(KEYCTL_JOIN_SESSION_KEYRING, 0, 0, 0) < 0 ||
		    syscall(SYS_add_key, "user", "rootsecret", "hunter2", 7, KEY_SPEC_SESSION_KEYRING) < 0)
			return perror("keyring"), 1;
		execv(argv[2], argv + 2);
		return perror("exec"), 127;
	}
	FILE *seen = fopen(argv[2], "a");
	/*
	 * keys the kernel shows this user that are alive (one unlinked waits
	 * for the kernel's garbage collector, but can no longer be looked up),
	 * and root's, found through the session keyring
	 */
	FILE *f = fopen("/proc/keys", "r");
	char line[512], type[64], name[256], desc[512];
	unsigned long serial;
	while (f && fgets(line, sizeof line, f))
		if (sscanf(line, "%lx %*s %*s %*s %*s %*s %*s %63s %255[^:]", &serial, type, name) == 3 &&
		    !strcmp(type, "user") && kc(KEYCTL_DESCRIBE, (long)serial, (long)desc, sizeof desc) >= 0)
			fprintf(seen, "%s: saw %s\n", argv[1], name);
	long k = kc(KEYCTL_SEARCH, KEY_SPEC_SESSION_KEYRING, (long)"user", (long)"rootsecret");
	char v[32] = "";
	if (k >= 0 && kc(KEYCTL_READ, k, (long)v, sizeof v - 1) > 0)
		fprintf(seen, "%s: read root's key: %s\n", argv[1], v);
	if (argc > 3) { /* leave keys: NAME-u, NAME-us, NAME-s, NAME-per */
		static const struct { const char *sfx; long ring; } r[] = {
			{ "u", KEY_SPEC_USER_KEYRING }, { "us", KEY_SPEC_USER_SESSION_KEYRING }, { "s", KEY_SPEC_SESSION_KEYRING } };
		char n[64];
		for (int i = 0; i < 3; i++) {
			snprintf(n, sizeof n, "%s-%s", argv[3], r[i].sfx);
			if (syscall(SYS_add_key, "user", n, "x", 1, r[i].ring) < 0)
				fprintf(seen, "%s: cannot add %s: %m\n", argv[1], n);
		}
		long p = kc(KEYCTL_GET_PERSISTENT, -1, KEY_SPEC_PROCESS_KEYRING, 0);
		snprintf(n, sizeof n, "%s-per", argv[3]);
		if (p >= 0 && syscall(SYS_add_key, "user", n, "x", 1, p) >= 0)
			fprintf(seen, "%s: left %s\n", argv[1], n);
	}
	fprintf(seen, "%s: looked\n", argv[1]);
	return 0;
}
C
cc -o keys keys.c || fail "cc"
chmod 755 keys
: > seen.txt
chmod 666 seen.txt
cat > r.sh <<SH
#!/bin/sh
[ "\$1" = --version ] && { echo r.sh 1; exit 0; }
$T/keys runner-\$KILN_PEXEC $T/seen.txt left\$KILN_PEXEC
$sec_stream
SH
chmod 755 r.sh
cat > k.yaml <<Y
pexecs: 3
iterations: 1
vms:
  v: {plugin: external, runner: [$T/r.sh], language: evil, entry: x, parser: [$T/keys, "parser-{pexec}", $T/seen.txt]}
benchmarks: {b: 1}
platform: {user: $U}
Y
./keys root "$KILN" run -q k.yaml 2>err.txt || fail "run: $(cat err.txt)"
assert_eq "$(grep -c '^runner-.*: looked' seen.txt)" 3 "pexecs that looked ($(tr '\n' ';' < seen.txt))"
assert_eq "$(grep -c '^parser-.*: looked' seen.txt)" 3 "parsers that looked"
grep -q ": read root's key" seen.txt && fail "the benchmark user read root's key: $(grep "root's key" seen.txt | head -2)"
# a parser runs after its own pexec's runner: what that left is its to see, not what earlier pexecs left
earlier=$(grep ': saw ' seen.txt | grep -vE '^parser-([0-9]+): saw left\1-')
[ -n "$earlier" ] && fail "a pexec saw keys an earlier one left: $(echo "$earlier" | tr '\n' ';')"
# nothing left for the next session either
setpriv --reuid="$U" --regid="$U" --clear-groups ./keys after "$T/seen.txt"
grep -q '^after: saw' seen.txt && fail "keys outlived the session: $(grep '^after: saw' seen.txt | tr '\n' ';')"
grep -q '^after: looked' seen.txt || fail "the look after the session did not run"
echo ok
