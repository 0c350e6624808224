/*
 * safefs.c - opening and making files where the benchmark user could
 * interfere (see safefs.h for the rules).
 */
#include "safefs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *kind_of(mode_t m)
{
	return S_ISDIR(m) ? "a folder" : S_ISFIFO(m) ? "a FIFO" : S_ISCHR(m) ? "a character device"
	       : S_ISBLK(m) ? "a block device" : S_ISSOCK(m) ? "a socket" : S_ISLNK(m) ? "a symbolic link"
	       : "not a regular file";
}

int sfs_open_file_at(int dirfd, const char *dirname, const char *name, uid_t owner, off_t *size, struct kerr *e)
{
	const char *d = dirname ? dirname : ".";
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ELOOP)
			return kerr_setc(e, KEXIT_CONFIG, "%s/%s: a symbolic link: refused", d, name);
		return kerr_setc(e, KEXIT_CONFIG, "%s/%s: %s", d, name, strerror(errno));
	}
	struct stat st;
	if (fstat(fd, &st) < 0) {
		int err = errno;
		close(fd);
		return kerr_setc(e, KEXIT_CONFIG, "%s/%s: %s", d, name, strerror(err));
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return kerr_setc(e, KEXIT_CONFIG, "%s/%s: %s: refused", d, name, kind_of(st.st_mode));
	}
	if (owner != (uid_t)-1 && st.st_uid != owner) {
		close(fd);
		return kerr_setc(e, KEXIT_CONFIG, "%s/%s: owned by uid %ld, not by the benchmark's uid %ld: refused", d,
				 name, (long)st.st_uid, (long)owner);
	}
	int fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	if (size)
		*size = st.st_size;
	return fd;
}

int sfs_open_output(const char *path, uid_t owner, struct kerr *e)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0600);
	if (fd < 0 && errno == ELOOP)
		return kerr_setc(e, KEXIT_CONFIG, "%s: a symbolic link: refused", path);
	if (fd < 0 && errno == ENXIO)
		return kerr_setc(e, KEXIT_CONFIG, "%s: a FIFO: refused", path);
	if (fd < 0)
		return kerr_setc(e, KEXIT_CONFIG, "%s: %s", path, strerror(errno));
	struct stat st;
	const char *bad = NULL;
	if (fstat(fd, &st) < 0)
		bad = strerror(errno);
	else if (!S_ISREG(st.st_mode))
		bad = kind_of(st.st_mode);
	else if (st.st_uid != owner)
		bad = "not owned by the user running kiln";
	else if (st.st_nlink != 1)
		bad = "a file with another hard link";
	if (bad) {
		close(fd);
		return kerr_setc(e, KEXIT_CONFIG, "%s: %s: refused", path, bad);
	}
	int fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	return fd;
}

/* from one descriptor to the other, at most max bytes */
static int copy_fd(int in, int out, off_t max, const char *from, const char *to, struct kerr *e)
{
	char buf[65536];
	off_t done = 0;
	for (;;) {
		ssize_t n = read(in, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return kerr_set(e, "%s: %s", from, strerror(errno));
		if (n == 0)
			return 0;
		if ((done += n) > max)
			return kerr_set(e, "%s: grew past %lld bytes while copied: refused", from, (long long)max);
		for (ssize_t w = 0; w < n;) {
			ssize_t k = write(out, buf + w, (size_t)(n - w));
			if (k < 0 && errno == EINTR)
				continue;
			if (k < 0)
				return kerr_set(e, "%s: %s", to, strerror(errno));
			w += k;
		}
	}
}

int sfs_copy_file(const char *dir, const char *name, uid_t owner, off_t max, const char *to, mode_t mode,
		  struct kerr *e)
{
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0)
		return errno == ENOENT ? 1 : kerr_set(e, "%s: %s", dir, strerror(errno));
	struct stat st;
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 && errno == ENOENT) {
		close(dfd);
		return 1;
	}
	off_t size;
	int fd = sfs_open_file_at(dfd, dir, name, owner, &size, e);
	close(dfd);
	if (fd < 0)
		return -1;
	if (size > max) {
		close(fd);
		return kerr_set(e, "%s/%s: %lld bytes, more than %lld: not copied", dir, name, (long long)size,
				(long long)max);
	}
	int out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, mode);
	int r = out < 0 ? kerr_set(e, "%s: %s", to, strerror(errno)) : 0;
	if (r == 0) {
		char *from = path_join(dir, name);
		r = copy_fd(fd, out, max, from, to, e);
		free(from);
		if (close(out) < 0 && r == 0)
			r = kerr_set(e, "%s: %s", to, strerror(errno));
		if (r < 0)
			unlink(to);
	}
	close(fd);
	return r;
}

int sfs_own_dir_at(int dirfd, const char *dirname, const char *name, mode_t mode, struct kerr *e)
{
	const char *d = dirname ? dirname : ".";
	if (mkdirat(dirfd, name, mode) < 0 && errno != EEXIST)
		return kerr_set(e, "%s/%s: %s", d, name, strerror(errno));
	int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return kerr_set(e, "%s/%s: %s", d, name,
				errno == ELOOP || errno == ENOTDIR ? "not a folder (a link or a file): refusing to use it"
								  : strerror(errno));
	struct stat st;
	if (fstat(fd, &st) < 0 || st.st_uid != geteuid() || (st.st_mode & 022)) {
		close(fd);
		return kerr_set(e, "%s/%s: not kiln's own folder (owner uid %ld, mode %03o): refusing to use it; "
			"remove it or set KILN_STATE_DIR", d, name, (long)st.st_uid, (unsigned)(st.st_mode & 0777));
	}
	if ((st.st_mode & 07777) != mode && fchmod(fd, mode) < 0) {
		int err = errno;
		close(fd);
		return kerr_set(e, "%s/%s: chmod: %s", d, name, strerror(err));
	}
	return fd;
}

int sfs_own_dirs_at(int dirfd, const char *dirname, const char *rel, mode_t mode, struct kerr *e)
{
	char *copy = xstrdup(rel), *save = NULL;
	int fd = dup(dirfd);
	struct strbuf where = STRBUF_INIT;
	sb_adds(&where, dirname ? dirname : ".");
	for (char *c = strtok_r(copy, "/", &save); c && fd >= 0; c = strtok_r(NULL, "/", &save)) {
		int nfd = !strcmp(c, ".") || !strcmp(c, "..") ? kerr_set(e, "%s: '%s' in a path kiln makes", rel, c)
							      : sfs_own_dir_at(fd, where.buf, c, mode, e);
		close(fd);
		fd = nfd;
		sb_addf(&where, "/%s", c);
	}
	if (fd < 0 && !e->msg.len)
		kerr_set(e, "%s: %s", rel, strerror(errno));
	sb_release(&where);
	free(copy);
	return fd;
}

/* the state folder, made and checked once per process */
static char *state_dir(struct kerr *e)
{
	static char *dir;
	if (dir)
		return dir;
	const char *env = getenv("KILN_STATE_DIR");
	char *d = env && *env ? xstrdup(env)
		  : geteuid() == 0 ? xstrdup("/var/lib/kiln") : xasprintf("/tmp/kiln-%ld", (long)geteuid());
	if (d[0] != '/') {
		kerr_set(e, "KILN_STATE_DIR '%s': not an absolute path", d);
		free(d);
		return NULL;
	}
	char *parent = path_dirname(d);
	const char *base = strrchr(d, '/') + 1;
	if (geteuid() == 0 && mkdir_p(parent, 0755) < 0 && errno != EEXIST) {
		kerr_set(e, "%s: %s", parent, strerror(errno));
		free(parent);
		free(d);
		return NULL;
	}
	int pfd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int fd = pfd < 0 ? kerr_set(e, "%s: %s", parent, strerror(errno)) : sfs_own_dir_at(pfd, parent, base, 0711, e);
	if (pfd >= 0)
		close(pfd);
	free(parent);
	if (fd < 0) {
		free(d);
		return NULL;
	}
	close(fd);
	dir = d;
	return dir;
}

char *sfs_state_path(const char *sub, mode_t mode, struct kerr *e)
{
	char *dir = state_dir(e);
	if (!dir)
		return NULL;
	if (!sub)
		return xstrdup(dir);
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0) {
		kerr_set(e, "%s: %s", dir, strerror(errno));
		return NULL;
	}
	int fd = sfs_own_dirs_at(dfd, dir, sub, mode, e);
	close(dfd);
	if (fd < 0)
		return NULL;
	close(fd);
	return path_join(dir, sub);
}

int sfs_name_ok(const char *name, size_t max)
{
	size_t n = strlen(name);
	if (!n || n > max || name[0] == '.')
		return 0;
	for (const char *p = name; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '.' ||
		      *p == '_' || *p == '-' || *p == '+'))
			return 0;
	return 1;
}
