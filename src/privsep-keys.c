/*
 * privsep-keys.c - the kernel's keyrings of a benchmark user (isolate.h).
 *
 * Keyrings are kernel state that no file system, IPC namespace or ended
 * process takes away: the user keyring (@u) and user session keyring
 * (@us) of a uid live as long as the machine, its persistent keyring for
 * days, and a process's session keyring (@s) is inherited across fork,
 * setuid and execve.  So a pexec could leave keys there for the next, and
 * a child that becomes the benchmark user took kiln's session keyring
 * with it, which it possesses and so may read and write (pam_keyinit and
 * systemd's services give root one, holding root's keys).
 *
 * isolate_own_keyring makes system calls only: it runs between vfork and
 * execve.
 */
#include "isolate.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef KEYCTL_JOIN_SESSION_KEYRING
#define KEYCTL_JOIN_SESSION_KEYRING 1
#endif
#ifndef KEYCTL_GET_KEYRING_ID
#define KEYCTL_GET_KEYRING_ID 0
#endif
#ifndef KEY_SPEC_SESSION_KEYRING
#define KEY_SPEC_SESSION_KEYRING -3
#endif
#ifndef KEYCTL_UNLINK
#define KEYCTL_UNLINK 9
#endif
#ifndef KEYCTL_CLEAR
#define KEYCTL_CLEAR 7
#endif
#ifndef KEYCTL_GET_PERSISTENT
#define KEYCTL_GET_PERSISTENT 22
#endif
#ifndef KEY_SPEC_USER_KEYRING
#define KEY_SPEC_USER_KEYRING -4
#endif
#ifndef KEY_SPEC_USER_SESSION_KEYRING
#define KEY_SPEC_USER_SESSION_KEYRING -5
#endif

static long keyctl_(int op, long a, long b)
{
#ifdef SYS_keyctl
	return syscall(SYS_keyctl, op, a, b, 0L, 0L);
#else
	errno = ENOSYS;
	return -1;
#endif
}

int isolate_own_keyring(void)
{
	/*
	 * a new, empty, anonymous session keyring, the caller's own; a kernel
	 * without keyrings, or a seccomp filter that refuses them (a
	 * container's), leaves none to share: the filter holds for the
	 * benchmark too
	 */
	if (keyctl_(KEYCTL_JOIN_SESSION_KEYRING, 0, 0) >= 0 || errno == ENOSYS || errno == EPERM)
		return 0;
	return -1;
}

/*
 * A keyring of the user's that may stay: its user, user session and
 * persistent keyrings (emptied), and an empty anonymous session, process
 * or thread keyring of a process that ended (the last killer's), which
 * holds nothing.  desc: "NAME: SUMMARY" as /proc/keys has it.
 */
static int kept_keyring(const char *type, const char *desc)
{
	static const char *const own[] = { "_uid.", "_uid_ses.", "_persistent." };
	static const char *const gone[] = { "_ses: empty", "_pid: empty", "_tid: empty" };
	if (strcmp(type, "keyring"))
		return 0;
	for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++)
		if (!strncmp(desc, own[i], strlen(own[i])))
			return 1;
	for (size_t i = 0; i < sizeof(gone) / sizeof(gone[0]); i++)
		if (!strcmp(desc, gone[i]))
			return 1;
	return 0;
}

/*
 * Is a key of this uid still listed, other than this process's own
 * session keyring and those kept_keyring allows?  /proc/keys lists what
 * the reader may view, so it is read as the user.  -1: not readable (then
 * nothing is known).
 */
static int keys_left(uid_t uid, long own)
{
	static char buf[65536];
	int fd = open("/proc/keys", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	size_t have = 0;
	int left = 0, eof = 0;
	while (!left && !eof) {
		ssize_t n = read(fd, buf + have, sizeof(buf) - 1 - have);
		if (n < 0 && errno == EINTR)
			continue;
		eof = n <= 0;
		have += n > 0 ? (size_t)n : 0;
		buf[have] = '\0';
		char *line = buf, *nl;
		while (!left && ((nl = strchr(line, '\n')) || (eof && *line))) {
			if (nl)
				*nl = '\0';
			/* serial flags usage timeout perm uid gid type description */
			unsigned long serial;
			char flags[16], timeout[16], perm[16], type[32];
			long usage, kuid, kgid;
			int at = -1;
			if (sscanf(line, "%lx %15s %ld %15s %15s %ld %ld %31s %n", &serial, flags, &usage, timeout, perm,
				   &kuid, &kgid, type, &at) >= 8 && at > 0 && kuid == (long)uid && (long)serial != own)
				left = !kept_keyring(type, line + at);
			line = nl ? nl + 1 : line + strlen(line);
		}
		/* a line cut by the buffer's end waits for the next read */
		have = (size_t)(buf + have - line);
		memmove(buf, line, have);
		if (have == sizeof(buf) - 1)
			have = 0; /* no line is that long: drop it */
	}
	close(fd);
	return left;
}

int isolate_clear_user_keys(uid_t uid, double wait_s)
{
	/*
	 * The persistent keyring may be written only by who possesses it:
	 * linked into a session keyring of this process's own (not kiln's, which
	 * the fork brought), then emptied.  That session keyring goes with
	 * this process.
	 */
	long own = -1;
	if (isolate_own_keyring() == 0)
		own = keyctl_(KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING, 0);
	long p = own >= 0 ? keyctl_(KEYCTL_GET_PERSISTENT, -1, KEY_SPEC_SESSION_KEYRING) : -1;
	if (p >= 0) {
		keyctl_(KEYCTL_CLEAR, p, 0);
		keyctl_(KEYCTL_UNLINK, p, KEY_SPEC_SESSION_KEYRING); /* ours holds nothing, as it ends */
	}
	keyctl_(KEYCTL_CLEAR, KEY_SPEC_USER_KEYRING, 0);
	keyctl_(KEYCTL_CLEAR, KEY_SPEC_USER_SESSION_KEYRING, 0);
	/*
	 * An unlinked key, and the session keyring of a process that ended,
	 * goes only once an RCU grace period has passed and the kernel's key
	 * collector has run: until then the next pexec could still list it
	 * (its name is in /proc/keys) and look it up.  Wait for that.
	 */
	for (long waited_us = 0; keys_left(uid, own) > 0; waited_us += 1000) {
		if (waited_us >= (long)(wait_s * 1e6))
			return -1;
		usleep(1000);
	}
	return 0;
}
