/*
 * privsep-isolate.c - the machine a pexec runs on (isolate.h): a mount
 * namespace with a private tmpfs for /tmp, /var/tmp, /dev/shm, the home and
 * the instrumentation folder, an empty read-only /dev/mqueue, and a fresh
 * SysV IPC namespace per pexec.
 *
 * The namespaces are made by a short-lived child (a fork: valgrind, which
 * `make test-valgrind` runs kiln under, refuses a clone that shares
 * descriptors): it unshares, mounts, opens /proc/self/ns/{mnt,ipc,user}
 * and the tmpfs, and sends those descriptors back over a socket
 * (SCM_RIGHTS); kiln puts them at numbers it reserved before (the plan's
 * paths name the tmpfs through one of them).  It follows a plan kiln
 * wrote before.  kiln itself never enters the namespaces; it
 * reaches the tmpfs through the descriptor (openat, never following a
 * link: rm_rf_at), so the mount that the processes see can be
 * detached from any path once made.
 */
#include "isolate.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <dirent.h>
#include <unistd.h>
#ifdef SYS_openat2
#include <linux/openat2.h>
#endif

#include "config.h"
#include "exec.h"
#include "platform.h"
#include "safefs.h"

#ifndef MNT_DETACH
#define MNT_DETACH 2
#endif

/* the machine's folders, on the tmpfs, and where its processes see them */
static const struct {
	const char *name, *at;
} tops[] = { { "tmp", "/tmp" }, { "vartmp", "/var/tmp" }, { "shm", "/dev/shm" } };

/* ---- the plan the maker child carries out (system calls only) ---- */

enum { P_MKDIR = 1, P_BIND, P_BIND_REC, P_CHOWN, P_BIND_KEPT, P_READONLY, P_BIND_OVER };

struct pstep {
	int op;
	const char *a, *b;   /* MKDIR/CHOWN: a; BIND: a onto b; BIND_KEPT: the folder rel below a onto b */
	mode_t mode;
	uid_t uid;
	gid_t gid;
	const char *rel;
};

struct plan {
	int flags;            /* what to unshare */
	int setns_user;       /* join this user namespace first (-1: none) */
	const char *mp;       /* where the tmpfs is mounted first */
	const char *opts;     /* its options */
	const char *uid_map, *gid_map; /* a new user namespace's maps */
	const char *root_path;/* "/proc/self/fd/<root_fd>" */
	struct pstep *steps;
	size_t nsteps;
	int rfd[4];           /* reserved numbers: root, mnt, ipc, user */
	const int *ipc;       /* then this many new IPC namespaces, one after the other, at these numbers */
	size_t nipc;
	int errpipe;
};

int isolate_write(const char *path, const char *text, int create)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC | (create ? O_CREAT | O_TRUNC : 0), 0644);
	if (fd < 0)
		return -1;
	size_t n = strlen(text);
	ssize_t w = write(fd, text, n);
	int err = errno;
	close(fd);
	errno = err;
	return w == (ssize_t)n ? 0 : -1;
}

/* open path and move the descriptor to the reserved number (in the shared table) */
static int put_fd(const char *path, int flags, int at)
{
	int fd = open(path, flags | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fd == at)
		return 0;
	int r = dup3(fd, at, O_CLOEXEC);
	close(fd);
	return r < 0 ? -1 : 0;
}

/*
 * The next folder NAME below DIR (closed here), never through a symbolic
 * link: an O_PATH descriptor, or -1 with errno ELOOP (a link), ENOTDIR.
 */
static int open_part(int dir, const char *name)
{
	int fd = openat(dir, name, O_PATH | O_NOFOLLOW | O_CLOEXEC), err = errno;
	close(dir);
	struct stat st = { 0 };
	if (fd >= 0 && fstat(fd, &st) < 0)
		st.st_mode = 0;
	if (fd < 0 || S_ISDIR(st.st_mode)) {
		errno = err;
		return fd;
	}
	err = S_ISLNK(st.st_mode) ? ELOOP : ENOTDIR;
	close(fd);
	errno = err;
	return -1;
}

/* open_kept without openat2: one component at a time */
static int open_kept_walk(int top, const char *rel)
{
	char part[256];
	int fd = fcntl(top, F_DUPFD_CLOEXEC, 0);
	for (const char *c = rel; fd >= 0 && *c; c += strspn(c, "/")) {
		size_t n = strcspn(c, "/");
		if (!n)
			continue;
		if (n >= sizeof(part) || (c[0] == '.' && (n == 1 || (n == 2 && c[1] == '.')))) {
			close(fd);
			errno = EINVAL;
			return -1;
		}
		memcpy(part, c, n);
		part[n] = '\0';
		fd = open_part(fd, part);
		c += n;
	}
	return fd;
}

/*
 * The kept folder REL below the top folder TOP (/tmp, /var/tmp, /dev/shm),
 * opened O_PATH without following a symbolic link anywhere on the way:
 * anyone may put a link in those folders, and root must bind the folder it
 * checked, not where a link points (a 0700 home above it would not count).
 * -1 with errno ELOOP when a link is on the way.  System calls only: the
 * maker child runs it.
 */
static int open_kept(int top, const char *rel)
{
	rel += strspn(rel, "/"); /* RESOLVE_BENEATH refuses an absolute path */
#ifdef SYS_openat2
	struct open_how how = { .flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
				.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_BENEATH };
	int fd = (int)syscall(SYS_openat2, top, rel, &how, sizeof(how));
	if (fd >= 0 || errno != ENOSYS)
		return fd;
#endif
	return open_kept_walk(top, rel);
}

/* KEPT below the top folder AT: 1 a folder reached without a link, -1 a link on the way, 0 none (or not a folder) */
static int kept_ok(const char *at, const char *kept)
{
	int top = open(at, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (top < 0)
		return 0;
	int fd = open_kept(top, kept + strlen(at)), err = errno;
	close(top);
	if (fd >= 0)
		close(fd);
	return fd >= 0 ? 1 : err == ELOOP ? -1 : 0;
}

/*
 * A kept folder bound from the descriptor that opened it (open_kept), in
 * the maker's own mount namespace: what was checked is what is bound.
 */
static int bind_kept(const struct pstep *s)
{
	int top = open(s->a, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (top < 0)
		return -1;
	int fd = open_kept(top, s->rel), err = errno;
	close(top);
	if (fd < 0) {
		errno = err;
		return -1;
	}
	char src[48];
	snprintf(src, sizeof(src), "/proc/self/fd/%d", fd);
	int r = mount(src, s->b, NULL, MS_BIND | MS_REC, NULL);
	err = errno;
	close(fd);
	errno = err;
	return r;
}

/*
 * A folder of the tmpfs (a) bound over the host folder b, reached from /
 * without following a link (open_kept): a folder anyone may write is
 * covered where it was found, never where a link put in its way points.
 */
static int bind_over(const struct pstep *s)
{
	int top = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (top < 0)
		return -1;
	int fd = open_kept(top, s->b), err = errno;
	close(top);
	if (fd < 0) {
		errno = err;
		return -1;
	}
	char dst[48];
	snprintf(dst, sizeof(dst), "/proc/self/fd/%d", fd);
	int r = mount(s->a, dst, NULL, MS_BIND, NULL);
	err = errno;
	close(fd);
	errno = err;
	return r;
}

static int run_step(const struct pstep *s)
{
	switch (s->op) {
	case P_MKDIR:
		if (mkdir(s->a, s->mode) < 0 && errno != EEXIST)
			return -1;
		return chmod(s->a, s->mode) < 0 || chown(s->a, s->uid, s->gid) < 0 ? -1 : 0;
	case P_CHOWN:
		return chown(s->a, s->uid, s->gid);
	case P_BIND:
		return mount(s->a, s->b, NULL, MS_BIND, NULL);
	case P_BIND_KEPT:
		return bind_kept(s);
	case P_BIND_OVER:
		return bind_over(s);
	case P_READONLY:
		return mount(NULL, s->b, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
	default:
		return mount(s->a, s->b, NULL, MS_BIND | MS_REC, NULL);
	}
}

static KILN_NORETURN void maker_fail(const struct plan *p, int step)
{
	int msg[2] = { errno, step };
	ssize_t w = write(p->errpipe, msg, sizeof(msg));
	(void)w;
	_exit(1);
}

/* the descriptors the plan asked for (rfd[] then ipc[]), in that order, over the socket */
static int plan_fds(const struct plan *p, int *out, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < 4; i++)
		if (p->rfd[i] >= 0 && n < max)
			out[n++] = p->rfd[i];
	for (size_t i = 0; i < p->nipc && n < max; i++)
		out[n++] = p->ipc[i];
	return (int)n;
}

#define MAKER_FDS (4 + MACHINE_IPC_POOL)

static void send_fds(const struct plan *p)
{
	int fds[MAKER_FDS], msg[2] = { 0, 0 };
	int n = plan_fds(p, fds, MAKER_FDS);
	union {
		char buf[CMSG_SPACE(sizeof(int) * MAKER_FDS)];
		struct cmsghdr align;
	} u;
	memset(&u, 0, sizeof(u));
	struct iovec iov = { msg, sizeof(msg) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	if (n) {
		mh.msg_control = u.buf;
		mh.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)n);
		struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)n);
		memcpy(CMSG_DATA(c), fds, sizeof(int) * (size_t)n);
	}
	if (sendmsg(p->errpipe, &mh, 0) < 0)
		maker_fail(p, 11);
}

static int maker(void *arg)
{
	const struct plan *p = arg;
	if (p->setns_user >= 0 && setns(p->setns_user, CLONE_NEWUSER) < 0)
		maker_fail(p, 1);
	if (unshare(p->flags) < 0)
		maker_fail(p, 2);
	if (p->uid_map && (isolate_write("/proc/self/setgroups", "deny", 0) < 0 ||
			   isolate_write("/proc/self/uid_map", p->uid_map, 0) < 0 ||
			   isolate_write("/proc/self/gid_map", p->gid_map, 0) < 0))
		maker_fail(p, 3);
	if (p->flags & CLONE_NEWNS) {
		/* mounts made here never reach kiln's namespace; the host's still come in */
		if (mount(NULL, "/", NULL, MS_REC | MS_SLAVE, NULL) < 0)
			maker_fail(p, 4);
		if (mount("kiln-machine", p->mp, "tmpfs", MS_NOSUID | MS_NODEV, p->opts) < 0)
			maker_fail(p, 5);
		if (put_fd(p->mp, O_RDONLY | O_DIRECTORY, p->rfd[0]) < 0)
			maker_fail(p, 6);
		for (size_t i = 0; i < p->nsteps; i++)
			if (run_step(&p->steps[i]) < 0)
				maker_fail(p, 100 + (int)i);
		/*
		 * the tmpfs is reached through kiln's descriptor only: detached
		 * where it was mounted, and where a kept folder showed it again
		 */
		if (umount2(p->root_path, MNT_DETACH) < 0)
			maker_fail(p, 7);
		umount2(p->mp, MNT_DETACH);
		if (put_fd("/proc/self/ns/mnt", O_RDONLY, p->rfd[1]) < 0)
			maker_fail(p, 8);
	}
	if ((p->flags & CLONE_NEWIPC) && put_fd("/proc/self/ns/ipc", O_RDONLY, p->rfd[2]) < 0)
		maker_fail(p, 9);
	if ((p->flags & CLONE_NEWUSER) && put_fd("/proc/self/ns/user", O_RDONLY, p->rfd[3]) < 0)
		maker_fail(p, 10);
	for (size_t i = 0; i < p->nipc; i++)
		if (unshare(CLONE_NEWIPC) < 0 || put_fd("/proc/self/ns/ipc", O_RDONLY, p->ipc[i]) < 0)
			maker_fail(p, 9);
	send_fds(p);
	_exit(0);
}

/*
 * Run the plan in a child; what it opened comes back over a socket and
 * takes the numbers kiln reserved.  0, or -1 with errno and *step of the
 * failure.
 */
static int run_maker(struct plan *p, int *step)
{
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
		*step = 0;
		return -1;
	}
	p->errpipe = sv[1];
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		close(sv[0]);
		maker(p);
	}
	int err = errno;
	close(sv[1]);
	int r = 0, msg[2] = { 0, 0 };
	*step = 0;
	if (pid < 0) {
		r = -1;
	} else {
		union {
			char buf[CMSG_SPACE(sizeof(int) * MAKER_FDS)];
			struct cmsghdr align;
		} u;
		struct iovec iov = { msg, sizeof(msg) };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof(u.buf) };
		ssize_t n;
		do
			n = recvmsg(sv[0], &mh, MSG_CMSG_CLOEXEC);
		while (n < 0 && errno == EINTR);
		int st = 0;
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
		int want[MAKER_FDS], got = 0, *fds = NULL;
		int nwant = plan_fds(p, want, MAKER_FDS);
		struct cmsghdr *c = n > 0 ? CMSG_FIRSTHDR(&mh) : NULL;
		if (c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
			fds = (int *)CMSG_DATA(c);
			got = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
		}
		if (n != (ssize_t)sizeof(msg) || msg[0] || got != nwant || !WIFEXITED(st) || WEXITSTATUS(st)) {
			err = n == (ssize_t)sizeof(msg) && msg[0] ? msg[0] : EIO;
			*step = n == (ssize_t)sizeof(msg) && msg[0] ? msg[1] : -1;
			r = -1;
		}
		for (int i = 0; i < got; i++) {
			if (r == 0 && dup3(fds[i], want[i], O_CLOEXEC) < 0)
				r = -1, err = errno;
			close(fds[i]);
		}
	}
	close(sv[0]);
	errno = err;
	return r;
}

/* a descriptor number kiln holds for the child to replace (/dev/null until then) */
static int reserve_fd(void)
{
	return open("/dev/null", O_RDONLY | O_CLOEXEC);
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* ---- what is possible here ---- */

enum machine_kind machine_possible(char **why)
{
	*why = NULL;
	int rfd[4] = { -1, -1, reserve_fd(), -1 };
	struct plan p = { .flags = CLONE_NEWIPC, .setns_user = -1 };
	memcpy(p.rfd, rfd, sizeof(rfd));
	int step;
	enum machine_kind k = MACHINE_NONE;
	if (geteuid() == 0 && run_maker(&p, &step) == 0)
		k = MACHINE_ROOT;
	if (k == MACHINE_NONE) {
		char um[64], gm[64];
		snprintf(um, sizeof(um), "%ld %ld 1", (long)geteuid(), (long)geteuid());
		snprintf(gm, sizeof(gm), "%ld %ld 1", (long)getegid(), (long)getegid());
		p.flags = CLONE_NEWUSER | CLONE_NEWIPC;
		p.uid_map = um;
		p.gid_map = gm;
		p.rfd[3] = reserve_fd();
		if (run_maker(&p, &step) == 0)
			k = MACHINE_USERNS;
		else
			*why = xasprintf("%s, and a user namespace cannot be made (%s%s)",
					 geteuid() ? "kiln is not root" : "namespaces cannot be made", strerror(errno),
					 errno == EPERM || errno == ENOSPC ?
					 "; user namespaces may be turned off: sysctl user.max_user_namespaces, "
					 "kernel.unprivileged_userns_clone, kernel.apparmor_restrict_unprivileged_userns" : "");
		close_fd(&p.rfd[3]);
	}
	close_fd(&p.rfd[2]);
	return k;
}

/* ---- the session's machine ---- */

static const char *step_what(int step)
{
	switch (step) {
	case 0: return "clone";
	case 1: return "setns (user)";
	case 2: return "unshare";
	case 3: return "uid_map";
	case 4: return "mount --make-rslave /";
	case 5: return "mount tmpfs";
	case 6: return "open the tmpfs";
	case 7: return "umount (detach) the tmpfs";
	case 8: return "open the mount namespace";
	case 9: return "open the IPC namespace";
	case 10: return "open the user namespace";
	case 11: return "send the namespaces to kiln";
	default: return "a folder of the machine";
	}
}

/* is path inside dir (or dir itself)? */
static int path_in(const char *path, const char *dir)
{
	size_t n = strlen(dir);
	while (n > 1 && dir[n - 1] == '/')
		n--;
	return !strncmp(path, dir, n) && (path[n] == '/' || !path[n]);
}

/* the path absolute, its . and .. and repeated slashes gone, links left as they are (malloc'd) */
static char *clean_path(const char *p)
{
	char *a = abspath(p);
	struct strbuf o = STRBUF_INIT;
	for (char *c = a, *end; *c; c = end) {
		while (*c == '/')
			c++;
		end = c + strcspn(c, "/");
		size_t n = (size_t)(end - c);
		if (!n || (n == 1 && *c == '.'))
			continue;
		if (n == 2 && c[0] == '.' && c[1] == '.') {
			while (o.len && o.buf[o.len - 1] != '/')
				o.len--;
			if (o.len)
				o.len--;
			o.buf[o.len] = '\0';
			continue;
		}
		sb_addc(&o, '/');
		sb_add(&o, c, n);
	}
	free(a);
	if (!o.len)
		sb_addc(&o, '/');
	return sb_detach(&o);
}

struct builder {
	struct plan p;
	struct strvec strs;  /* every string the plan points into */
	struct pstep *steps;
	size_t n, cap;
	char *root;          /* "/proc/self/fd/<root>" */
	uid_t own;           /* who owns kiln's folders on the tmpfs: root, or kiln's user in its user namespace */
	gid_t own_gid;
};

static const char *keep_str(struct builder *b, char *s)
{
	sv_push(&b->strs, s);
	free(s);
	return b->strs.v[b->strs.n - 1];
}

static struct pstep *add_step(struct builder *b, int op, const char *a, const char *bb, mode_t mode, uid_t uid,
			      gid_t gid)
{
	if (b->n == b->cap) {
		b->cap = b->cap ? 2 * b->cap : 32;
		b->steps = xrealloc(b->steps, b->cap * sizeof(*b->steps));
	}
	b->steps[b->n] = (struct pstep){ .op = op, .a = a, .b = bb, .mode = mode, .uid = uid, .gid = gid };
	return &b->steps[b->n++];
}

/* the folder REL of the tmpfs (and each one above it), made by the child, remembered as skeleton */
static void add_dirs(struct builder *b, struct machine *m, const char *rel, mode_t mode, uid_t uid, gid_t gid)
{
	char *r = xstrdup(rel);
	for (char *q = strchr(r, '/'); q; q = strchr(q + 1, '/')) {
		*q = '\0';
		int have = 0;
		for (size_t i = 0; i < m->skel.n && !have; i++)
			have = !strcmp(m->skel.v[i], r);
		if (!have) {
			sv_push(&m->skel, r);
			add_step(b, P_MKDIR, keep_str(b, xasprintf("%s/%s", b->root, r)), NULL, 0755, b->own, b->own_gid);
		}
		*q = '/';
	}
	sv_push(&m->skel, r);
	add_step(b, P_MKDIR, keep_str(b, xasprintf("%s/%s", b->root, r)), NULL, mode, uid, gid);
	free(r);
}

#ifndef MQUEUE_MAGIC
#define MQUEUE_MAGIC 0x19800202
#endif

/*
 * /dev/mqueue, where mounted, is the host's IPC namespace's POSIX queues,
 * 1777: a queue made there outlives the pexec, whose own IPC namespace
 * does not cover it (a mount ties to the namespace of who mounted it, and
 * the machine's mount namespace outlives each pexec's IPC namespace).  An
 * empty folder of the tmpfs is bound over it, read-only.
 */
static void cover_mqueue(struct builder *b, struct machine *m)
{
	struct statfs sf;
	if (statfs("/dev/mqueue", &sf) < 0 || sf.f_type != MQUEUE_MAGIC)
		return;
	add_dirs(b, m, "mqueue", 0555, b->own, b->own_gid);
	add_step(b, P_BIND, keep_str(b, xasprintf("%s/mqueue", b->root)), "/dev/mqueue", 0, 0, 0);
	add_step(b, P_READONLY, NULL, "/dev/mqueue", 0, 0, 0);
}

/*
 * Folders anyone may write elsewhere than /tmp, /var/tmp and /dev/shm
 * (/run/lock, /var/lib/php/sessions, a lab's /srv/scratch): what a pexec
 * leaves there reaches the next, and on the results' disk it could fill
 * it file after file.  Looked for below these, this deep, without
 * following a link, among at most COVER_LOOK folders; each found (but one
 * that holds a kept folder, or is one) is covered by a folder of the
 * tmpfs with its mode, and what is below it is not looked at.
 */
static const char *const cover_roots[] = { "/var", "/run", "/srv", "/opt", "/home", "/mnt", "/media" };
#define COVER_DEPTH 4
#define COVER_LOOK 20000
#define COVER_MAX 64

/*
 * May the folder PATH, which anyone may write, be covered?  1: yes; 0: it
 * is the machine's already (/var/tmp); -1: no, it is or holds a kept
 * folder, the home or the instrumentation folder (left shared, and said)
 */
static int cover_ok(const struct machine *m, const char *path)
{
	for (size_t t = 0; t < ARRAY_SIZE(tops); t++)
		if (path_in(path, tops[t].at) || path_in(tops[t].at, path))
			return 0;
	if ((m->home && path_in(m->home, path)) || (m->instr && path_in(m->instr, path)))
		return -1;
	for (size_t k = 0; k < m->keep.n; k++)
		if (path_in(m->keep.v[k], path))
			return -1;
	return 1;
}

static void cover_dir(struct builder *b, struct machine *m, const char *path, mode_t mode)
{
	size_t i = m->covered.n;
	char *rel = xasprintf("cover/%zu", i);
	if (!i)
		add_dirs(b, m, "cover", 0755, b->own, b->own_gid);
	add_dirs(b, m, rel, mode & 07777, b->own, b->own_gid);
	add_step(b, P_BIND_OVER, keep_str(b, xasprintf("%s/%s", b->root, rel)), keep_str(b, xstrdup(path)), 0, 0, 0);
	sv_push(&m->covered, path);
	m->cover_mode = xrealloc(m->cover_mode, m->covered.n * sizeof(*m->cover_mode));
	m->cover_mode[i] = mode & 07777;
	free(rel);
}

static void cover_walk(struct builder *b, struct machine *m, int fd, const char *path, int depth, long *budget)
{
	DIR *d = fdopendir(fd);
	if (!d) {
		close(fd);
		return;
	}
	struct dirent *de;
	while ((de = readdir(d)) && *budget > 0 && m->covered.n < COVER_MAX) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") || (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN))
			continue;
		--*budget;
		struct stat st;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISDIR(st.st_mode))
			continue;
		char *sub = xasprintf("%s/%s", path, de->d_name);
		int ok = st.st_mode & S_IWOTH ? cover_ok(m, sub) : 0;
		if (ok > 0) {
			cover_dir(b, m, sub, st.st_mode);
		} else if (ok < 0) {
			sv_push(&m->shared, sub); /* a kept folder is there: seen as it is, and said */
		} else if (!(st.st_mode & S_IWOTH) && depth < COVER_DEPTH) {
			int sfd = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (sfd >= 0)
				cover_walk(b, m, sfd, sub, depth + 1, budget);
		}
		free(sub);
	}
	closedir(d);
}

static void cover_writable(struct builder *b, struct machine *m)
{
	long budget = COVER_LOOK;
	for (size_t r = 0; r < ARRAY_SIZE(cover_roots); r++) {
		int fd = open(cover_roots[r], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd >= 0)
			cover_walk(b, m, fd, cover_roots[r], 1, &budget);
	}
}

/*
 * The plan: the tmpfs's folders, the kept host folders bound into its tmp
 * folders (they go along when those are bound, recursively, over /tmp and
 * the others), then the home and the instrumentation folder over theirs.
 */
static void build_plan(struct builder *b, struct machine *m)
{
	uid_t u = m->uid, own = b->own;
	gid_t g = m->gid, og = b->own_gid;
	for (size_t t = 0; t < ARRAY_SIZE(tops); t++) {
		struct stat st;
		int shared = 0;
		for (size_t k = 0; k < m->keep.n && !shared; k++)
			shared = !strcmp(m->keep.v[k], tops[t].at);
		if (shared || stat(tops[t].at, &st) < 0 || !S_ISDIR(st.st_mode)) {
			if (shared)
				sv_push(&m->shared, tops[t].at);
			continue;
		}
		add_dirs(b, m, tops[t].name, 01777, own, og);
		for (size_t k = 0; k < m->keep.n; k++) {
			const char *kp = m->keep.v[k];
			if (!path_in(kp, tops[t].at) || kept_ok(tops[t].at, kp) <= 0)
				continue;
			char *rel = xasprintf("%s%s", tops[t].name, kp + strlen(tops[t].at));
			add_dirs(b, m, rel, 0755, own, og);
			add_step(b, P_BIND_KEPT, tops[t].at, keep_str(b, xasprintf("%s/%s", b->root, rel)), 0, 0, 0)->rel =
				kp + strlen(tops[t].at);
			free(rel);
		}
		add_step(b, P_BIND_REC, keep_str(b, xasprintf("%s/%s", b->root, tops[t].name)), tops[t].at, 0, 0, 0);
	}
	cover_mqueue(b, m);
	cover_writable(b, m);
	if (m->home) {
		add_dirs(b, m, "home", 0700, u, g);
		add_step(b, P_BIND, keep_str(b, xasprintf("%s/home", b->root)), m->home, 0, 0, 0);
	}
	if (m->instr) {
		add_dirs(b, m, "instr", 0700, u, g);
		add_step(b, P_BIND, keep_str(b, xasprintf("%s/instr", b->root)), m->instr, 0, 0, 0);
	}
}

/* the statfs figures of an empty machine */
static int usage(int fd, unsigned long long *files, unsigned long long *blocks)
{
	struct statfs sf;
	if (fstatfs(fd, &sf) < 0)
		return -1;
	*files = (unsigned long long)(sf.f_files - sf.f_ffree);
	*blocks = (unsigned long long)(sf.f_blocks - sf.f_bfree);
	return 0;
}

/*
 * The home and the instrumentation folder are the benchmark user's: a
 * chmod or a touch of the folder itself leaves no file for statfs to
 * count, yet would reach the next pexec.  Their stat as kiln left them is
 * kept, and one that differs in mode, owner, mtime or ctime (a ctime's
 * tick may be coarse; a touch -d also sets the mtime) makes the machine
 * dirty, so that reset() puts them back.
 */
static const char *const own_dirs[2] = { "home", "instr" };

static void own_dirs_note(struct machine *m)
{
	for (size_t i = 0; i < 2; i++)
		if (fstatat(m->root_fd, own_dirs[i], &m->own_st[i], AT_SYMLINK_NOFOLLOW) < 0)
			memset(&m->own_st[i], 0, sizeof(m->own_st[i]));
}

static int ts_ne(struct timespec a, struct timespec b)
{
	return a.tv_sec != b.tv_sec || a.tv_nsec != b.tv_nsec;
}

static int own_dirs_changed(const struct machine *m)
{
	for (size_t i = 0; i < 2; i++) {
		const struct stat *o = &m->own_st[i];
		struct stat st;
		if (!o->st_mode)
			continue;
		if (fstatat(m->root_fd, own_dirs[i], &st, AT_SYMLINK_NOFOLLOW) < 0 || st.st_mode != o->st_mode ||
		    st.st_uid != o->st_uid || st.st_gid != o->st_gid || ts_ne(st.st_mtim, o->st_mtim) ||
		    ts_ne(st.st_ctim, o->st_ctim))
			return 1;
	}
	return 0;
}

static void machine_init(struct machine *m)
{
	memset(m, 0, sizeof(*m));
	m->ipc_next = MACHINE_IPC_POOL; /* empty: filled at the first pexec */
	m->user_fd = m->mnt_fd = m->ipc_fd = m->root_fd = -1;
	m->join[0] = -1;
	m->skel = (struct strvec)STRVEC_INIT;
	m->shared = (struct strvec)STRVEC_INIT;
	m->keep = (struct strvec)STRVEC_INIT;
	m->refused = (struct strvec)STRVEC_INIT;
	m->covered = (struct strvec)STRVEC_INIT;
}

/* the join list: user, mnt, ipc, as held */
static void set_join(struct machine *m)
{
	int n = 0;
	if (m->user_fd >= 0)
		m->join[n++] = m->user_fd;
	if (m->mnt_fd >= 0)
		m->join[n++] = m->mnt_fd;
	if (m->ipc_fd >= 0)
		m->join[n++] = m->ipc_fd;
	m->join[n] = -1;
}

/*
 * A kept folder in /tmp, /var/tmp or /dev/shm with a symbolic link on its
 * way: refused (root would bind what the link points to), said once.
 */
static int kept_refused(const char *c)
{
	for (size_t t = 0; t < ARRAY_SIZE(tops); t++)
		if (strcmp(c, tops[t].at) && path_in(c, tops[t].at))
			return kept_ok(tops[t].at, c) < 0;
	return 0;
}

/* the path a failed step of the plan was about, for the message (malloc'd), or NULL */
static char *step_path(const struct builder *b, int step)
{
	if (step < 100 || (size_t)(step - 100) >= b->n)
		return NULL;
	const struct pstep *s = &b->steps[step - 100];
	return s->op == P_MKDIR ? xstrdup(s->a) : s->op == P_BIND_KEPT ? xasprintf("%s%s", s->a, s->rel) : xstrdup(s->b);
}

int machine_open(struct machine *m, const struct machine_spec *s, struct kerr *e)
{
	machine_init(m);
	char *why = NULL;
	enum machine_kind k = machine_possible(&why);
	if (k == MACHINE_NONE) {
		m->why = why;
		return 1;
	}
	m->disk_mb = s->disk_mb;
	m->uid = s->user ? s->user->uid : geteuid();
	m->gid = s->user ? s->user->gid : getegid();
	if (s->user)
		m->home = clean_path(s->user->home);
	if (s->instr)
		m->instr = clean_path(s->instr);
	/* each folder once, none inside another (that one is seen with it) */
	for (const char *const *kp = s->keep; kp && *kp; kp++) {
		char *c = clean_path(*kp);
		int inside = 0;
		for (const char *const *o = s->keep; o && *o && !inside; o++) {
			char *oc = clean_path(*o);
			inside = strcmp(oc, c) && path_in(c, oc);
			free(oc);
		}
		for (size_t i = 0; i < m->keep.n && !inside; i++)
			inside = !strcmp(m->keep.v[i], c);
		if (!inside && kept_refused(c))
			sv_push(&m->refused, c);
		else if (!inside)
			sv_push(&m->keep, c);
		free(c);
	}
	char *mp = sfs_state_path("machine", 0755, e);
	if (!mp)
		return -1;
	struct builder b;
	memset(&b, 0, sizeof(b));
	b.strs = (struct strvec)STRVEC_INIT;
	for (int i = 0; i < 4; i++)
		b.p.rfd[i] = reserve_fd();
	b.root = xasprintf("/proc/self/fd/%d", b.p.rfd[0]);
	b.own = k == MACHINE_ROOT ? 0 : geteuid();
	b.own_gid = k == MACHINE_ROOT ? 0 : getegid();
	build_plan(&b, m);
	char opts[96], um[64], gm[64];
	long inodes = s->disk_mb * 64 > 4096 ? s->disk_mb * 64 : 4096;
	snprintf(opts, sizeof(opts), "size=%ldm,nr_inodes=%ld,mode=0755", s->disk_mb, inodes);
	b.p.flags = CLONE_NEWNS | CLONE_NEWIPC;
	b.p.setns_user = -1;
	b.p.mp = mp;
	b.p.opts = opts;
	b.p.root_path = b.root;
	b.p.steps = b.steps;
	b.p.nsteps = b.n;
	if (k == MACHINE_USERNS) {
		snprintf(um, sizeof(um), "%ld %ld 1", (long)geteuid(), (long)geteuid());
		snprintf(gm, sizeof(gm), "%ld %ld 1", (long)getegid(), (long)getegid());
		b.p.flags |= CLONE_NEWUSER;
		b.p.uid_map = um;
		b.p.gid_map = gm;
	}
	int step = 0, r = run_maker(&b.p, &step);
	if (r < 0) {
		int err = errno;
		char *what = step_path(&b, step);
		kerr_set(e, "making the pexecs' machine: %s%s%s: %s", step_what(step), what ? " " : "", what ? what : "",
			 strerror(err));
		free(what);
		for (int i = 0; i < 4; i++)
			close(b.p.rfd[i]);
	} else {
		m->kind = k;
		m->root_fd = b.p.rfd[0];
		m->mnt_fd = b.p.rfd[1];
		m->ipc_fd = b.p.rfd[2];
		m->user_fd = k == MACHINE_USERNS ? b.p.rfd[3] : -1;
		if (k != MACHINE_USERNS)
			close(b.p.rfd[3]);
		snprintf(m->view, sizeof(m->view), "/proc/self/fd/%d", m->root_fd);
		if (usage(m->root_fd, &m->base_files, &m->base_blocks) < 0)
			r = kerr_set(e, "the pexecs' machine: statfs: %s", strerror(errno));
		own_dirs_note(m);
		set_join(m);
	}
	free(b.root);
	free(b.steps);
	sv_clear(&b.strs);
	free(mp);
	return r < 0 ? -1 : 0;
}

void machine_usage(const struct machine *m, int *dirty, int *full)
{
	struct statfs sf;
	*dirty = *full = 0;
	if (m->kind == MACHINE_NONE)
		return;
	if (fstatfs(m->root_fd, &sf) < 0) {
		*dirty = 1;
		return;
	}
	*dirty = (unsigned long long)(sf.f_files - sf.f_ffree) != m->base_files ||
		 (unsigned long long)(sf.f_blocks - sf.f_bfree) != m->base_blocks || own_dirs_changed(m);
	*full = sf.f_bavail == 0 || sf.f_ffree == 0;
}

int machine_dirty(const struct machine *m)
{
	int dirty, full;
	machine_usage(m, &dirty, &full);
	return dirty;
}

/* a file of at least `bytes` below the folder fd (closed here); *budget: entries left to look at */
static int big_file_in(int fd, unsigned long long bytes, long *budget, int depth)
{
	DIR *d = fdopendir(fd);
	if (!d) {
		close(fd);
		return 0;
	}
	int found = 0;
	struct dirent *de;
	while (!found && (de = readdir(d)) && --*budget > 0) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		struct stat st;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (S_ISREG(st.st_mode))
			found = (unsigned long long)st.st_size >= bytes;
		else if (S_ISDIR(st.st_mode) && depth < 64) {
			int sub = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (sub >= 0)
				found = big_file_in(sub, bytes, budget, depth + 1);
		}
	}
	closedir(d);
	return found;
}

/*
 * The tmpfs's root on a descriptor of its own, for a walk: a dup() of
 * root_fd shares its offset, which a walk's readdir leaves at the end, so
 * that every later walk saw an empty root (a file over limits.file_mb went
 * unseen once the machine had been emptied; reset() skipped the root).
 */
static int open_root(const struct machine *m)
{
	return openat(m->root_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

int machine_file_reached(const struct machine *m, unsigned long long bytes)
{
	if (m->kind == MACHINE_NONE || !bytes)
		return 0;
	long budget = 100000;
	int fd = open_root(m);
	return fd >= 0 && big_file_in(fd, bytes, &budget, 0);
}

/* is REL (relative to the tmpfs) one of the folders kiln made? */
static int is_skel(const struct machine *m, const char *rel)
{
	for (size_t i = 0; i < m->skel.n; i++)
		if (!strcmp(m->skel.v[i], rel))
			return 1;
	return 0;
}

/* everything in the folder REL of the tmpfs but kiln's own folders, removed; those emptied in turn */
static int empty_dir(const struct machine *m, const char *rel, int depth)
{
	int fd = openat(m->root_fd, rel, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : -1;
	DIR *d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -1;
	}
	int r = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		char *sub = xasprintf("%s/%s", rel, de->d_name);
		if (is_skel(m, sub) && de->d_type == DT_DIR && depth < 64) {
			if (empty_dir(m, sub, depth + 1) < 0)
				r = -1;
		} else if (rm_rf_at(dirfd(d), de->d_name) < 0) {
			r = -1;
		}
		free(sub);
	}
	closedir(d);
	return r;
}

/* the tmpfs as it was made: only kiln's folders, each with its mode and owner */
static int reset(struct machine *m)
{
	int r = 0;
	DIR *d = NULL;
	int fd = open_root(m);
	if (fd >= 0 && !(d = fdopendir(fd)))
		close(fd);
	struct dirent *de;
	while (d && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (!is_skel(m, de->d_name) && rm_rf_at(dirfd(d), de->d_name) < 0)
			r = -1;
	}
	if (d)
		closedir(d);
	for (size_t i = 0; i < m->skel.n; i++)
		if (!strchr(m->skel.v[i], '/') && empty_dir(m, m->skel.v[i], 0) < 0)
			r = -1;
	/* modes and owners as made (a benchmark may chmod its own home) */
	for (size_t i = 0; i < m->skel.n; i++) {
		const char *s = m->skel.v[i];
		int top_user = !strcmp(s, "home") || !strcmp(s, "instr");
		int sticky = !strchr(s, '/') && !top_user;
		uid_t uid = top_user ? m->uid : m->kind == MACHINE_ROOT ? 0 : geteuid();
		gid_t gid = top_user ? m->gid : m->kind == MACHINE_ROOT ? 0 : getegid();
		mode_t mode = top_user ? 0700 : !strcmp(s, "mqueue") ? 0555 : !strcmp(s, "cover") ? 0755 : sticky ? 01777 : 0755;
		size_t ci;
		if (!strncmp(s, "cover/", 6) && sscanf(s + 6, "%zu", &ci) == 1 && ci < m->covered.n)
			mode = m->cover_mode[ci];
		if (fchownat(m->root_fd, s, uid, gid, AT_SYMLINK_NOFOLLOW) < 0 || fchmodat(m->root_fd, s, mode, 0) < 0)
			r = -1;
		/* and the user's folders' times as a new folder's (a touch -d of its home) */
		if (top_user && utimensat(m->root_fd, s, NULL, AT_SYMLINK_NOFOLLOW) < 0)
			r = -1;
	}
	return r;
}

/*
 * New IPC namespaces, MACHINE_IPC_POOL at a time: one child makes them all
 * (a child costs some 50 us, a namespace some 10), each used once.
 */
static int fill_ipc_pool(struct machine *m, struct kerr *e)
{
	struct plan p = { .flags = 0, .setns_user = m->user_fd, .ipc = m->ipc_pool, .nipc = MACHINE_IPC_POOL };
	p.rfd[0] = p.rfd[1] = p.rfd[2] = p.rfd[3] = -1;
	for (size_t i = 0; i < MACHINE_IPC_POOL; i++)
		m->ipc_pool[i] = reserve_fd();
	int step;
	if (run_maker(&p, &step) < 0) {
		int err = errno;
		for (size_t i = 0; i < MACHINE_IPC_POOL; i++)
			close_fd(&m->ipc_pool[i]);
		return kerr_set(e, "new IPC namespaces for the pexecs: %s: %s", step_what(step), strerror(err));
	}
	m->ipc_next = 0;
	return 0;
}

int machine_fresh(struct machine *m, struct kerr *e)
{
	if (m->kind == MACHINE_NONE)
		return 0;
	if (machine_dirty(m)) {
		if (reset(m) < 0)
			return kerr_set(e, "emptying the pexecs' machine: %s", strerror(errno));
		own_dirs_note(m);
	}
	/* a new IPC namespace (nothing of the last pexec's shared memory, semaphores or queues) */
	close_fd(&m->ipc_fd);
	if (m->ipc_next >= MACHINE_IPC_POOL && fill_ipc_pool(m, e) < 0) {
		set_join(m);
		return -1;
	}
	m->ipc_fd = m->ipc_pool[m->ipc_next];
	m->ipc_pool[m->ipc_next++] = -1;
	set_join(m);
	return 0;
}

void machine_clear(struct machine *m, int dirty)
{
	if (m->kind == MACHINE_NONE)
		return;
	if (dirty) {
		reset(m);
		own_dirs_note(m);
	}
	close_fd(&m->ipc_fd);
	set_join(m);
}

void machine_opts(const struct machine *m, struct exec_opts *eo)
{
	eo->join_ns = m && m->kind != MACHINE_NONE ? m->join : NULL;
}

char *machine_view(const struct machine *m, const char *path)
{
	if (!m || m->kind == MACHINE_NONE)
		return xstrdup(path);
	char *p = clean_path(path);
	char *r = NULL;
	/* the home and the instrumentation folder are mounted over their host folders, kept or not */
	if (m->home && path_in(p, m->home))
		r = xasprintf("%s/home%s", m->view, p + strlen(m->home));
	if (!r && m->instr && path_in(p, m->instr))
		r = xasprintf("%s/instr%s", m->view, p + strlen(m->instr));
	for (size_t k = 0; k < m->keep.n && !r; k++)
		if (path_in(p, m->keep.v[k]))
			r = xstrdup(p);
	for (size_t t = 0; t < ARRAY_SIZE(tops) && !r; t++)
		if (path_in(p, tops[t].at) && machine_private(m, tops[t].at))
			r = xasprintf("%s/%s%s", m->view, tops[t].name, p + strlen(tops[t].at));
	free(r ? p : NULL);
	return r ? r : p;
}

char *machine_instr_slot(const struct machine *m, const char *name, struct kerr *e)
{
	int dfd = openat(m->root_fd, "instr", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), r = -1;
	/* made anew here: one there already is not kiln's (the machine was just emptied) */
	if (dfd >= 0 && mkdirat(dfd, name, 0700) == 0)
		r = fchownat(dfd, name, m->uid, m->gid, AT_SYMLINK_NOFOLLOW);
	int err = errno;
	if (dfd >= 0)
		close(dfd);
	if (r < 0) {
		kerr_set(e, "the pexec's instrumentation folder %s/%s: %s", m->instr, name, strerror(err));
		return NULL;
	}
	return xasprintf("%s/%s", m->instr, name);
}

int machine_private(const struct machine *m, const char *path)
{
	if (!m || m->kind == MACHINE_NONE)
		return 0;
	for (size_t t = 0; t < ARRAY_SIZE(tops); t++)
		if (!strcmp(path, tops[t].at))
			return is_skel(m, tops[t].name);
	return 0;
}

void machine_close(struct machine *m)
{
	for (size_t i = m->ipc_next; i < MACHINE_IPC_POOL; i++)
		close_fd(&m->ipc_pool[i]);
	close_fd(&m->ipc_fd);
	close_fd(&m->mnt_fd);
	close_fd(&m->user_fd);
	close_fd(&m->root_fd);
	sv_clear(&m->skel);
	sv_clear(&m->shared);
	sv_clear(&m->keep);
	sv_clear(&m->refused);
	sv_clear(&m->covered);
	free(m->cover_mode);
	free(m->home);
	free(m->instr);
	free(m->why);
	machine_init(m);
	m->user_fd = m->mnt_fd = m->ipc_fd = m->root_fd = -1;
}

int machine_kiln_entry(const struct machine *m, const char *at, const char *name)
{
	for (size_t t = 0; t < ARRAY_SIZE(tops); t++)
		if (!strcmp(at, tops[t].at)) {
			char *rel = xasprintf("%s/%s", tops[t].name, name);
			int r = is_skel(m, rel);
			free(rel);
			return r;
		}
	return 0;
}

void isolate_init(struct machine *m, struct cgbound *c)
{
	machine_init(m);
	memset(c, 0, sizeof(*c));
	c->pids_ev = c->mem_ev = -1;
}

/* ---- defaults ---- */

static long mem_total_mb(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
	return pages > 0 && psz > 0 ? (long)((double)pages * (double)psz / 1048576.0) : 0;
}

long isolate_default_disk_mb(void)
{
	long q = mem_total_mb() / 4;
	return q <= 0 ? 1024 : q < 4096 ? (q < 64 ? 64 : q) : 4096;
}

long isolate_default_memory_mb(void)
{
	long t = mem_total_mb();
	return t <= 0 ? 0 : t - (t / 10 > 512 ? t / 10 : 512 < t / 2 ? 512 : t / 2);
}

void isolate_bound_opts(const struct limits_conf *l, int have_user, const struct cgbound *cg, struct exec_opts *eo)
{
	int counted = cg && cg->kind != CG_NONE && cg->processes > 0;
	eo->rlimit_nproc = have_user && l->processes > 0 ? l->processes + counted : 0;
	eo->rlimit_fsize_mb = l->file_mb;
	eo->set_oom = 1;
	eo->oom_score_adj = 1000;
}
