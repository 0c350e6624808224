/*
 * session.c - finding and ending what a killed kiln left behind (see
 * session.h).
 *
 * A runner gets SIGKILL when kiln dies (PR_SET_PDEATHSIG, exec.c), and with
 * platform.user every process of the benchmark user is killed before each
 * pexec; this record covers the rest: a runner's children in its process
 * group when kiln was killed without a benchmark user.  Process ids are
 * reused, so a process is ended only when it is in the recorded group,
 * owned by the recorded user, started no earlier than the runner, and the
 * machine has not rebooted since.
 *
 * A session record held by a live kiln is flock()ed by it for the whole
 * session, so the sweep (session_sweep) can tell a dead session's record
 * from a live one's without the results file's lock: every session start
 * also removes, a bounded number at a time, the records and instrumentation
 * folders of other sessions whose kiln is provably gone.
 */
#include "session.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "pexec.h"
#include "safefs.h"

#define REC_FMT "kiln %10ld start %20llu boot %36s\nrunner %10ld since %20llu uid %10ld\n"
/* the record before kiln's start time was in it (kilns still running may write it) */
#define REC_OLD_FMT "kiln %10ld boot %36s\nrunner %10ld since %20llu uid %10ld\n"
#define REC_RUNNER_LEN 60 /* "runner " 10 " since " 20 " uid " 10 "\n" */

/* how much one start sweeps: records looked at, dead sessions removed, folders removed, names listed */
#define SWEEP_LOOK 64
#define SWEEP_DEAD 16
#define SWEEP_FOLDERS 32
#define SWEEP_LIST 4096

/* a record read back */
struct rec {
	long kpid, pgid, uid;
	unsigned long long kstart; /* 0: not recorded (REC_OLD_FMT) */
	unsigned long long since;
	char boot[40];
};

static void read_boot(char out[40])
{
	struct strbuf sb = STRBUF_INIT;
	struct kerr e = KERR_INIT;
	out[0] = '\0';
	if (read_file("/proc/sys/kernel/random/boot_id", &sb, &e) == 0)
		snprintf(out, 40, "%.36s", sb_str(&sb));
	sb_release(&sb);
	kerr_release(&e);
}

/* clock ticks since boot, the unit of /proc/PID/stat's start time */
static unsigned long long boot_ticks(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_BOOTTIME, &ts);
	long hz = sysconf(_SC_CLK_TCK);
	return (unsigned long long)ts.tv_sec * (unsigned long long)hz +
	       (unsigned long long)ts.tv_nsec / (1000000000ULL / (unsigned long long)(hz > 0 ? hz : 100));
}

/* end the processes of group pgid owned by uid and started at or after `since`; how many */
static int end_group(long pgid, unsigned long long since, long uid)
{
	int ended = 0;
	for (int round = 0; round < 20; round++) {
		DIR *d = opendir("/proc");
		struct dirent *de;
		int found = 0;
		while (d && (de = readdir(d))) {
			long pg = 0;
			unsigned long long st = 0;
			char path[300], state = 0;
			struct stat sst;
			if (de->d_name[0] < '1' || de->d_name[0] > '9' || proc_stat(de->d_name, &state, &pg, &st) < 0 ||
			    pg != pgid || state == 'Z' || state == 'X')
				continue;
			snprintf(path, sizeof(path), "/proc/%s", de->d_name);
			if (st < since || stat(path, &sst) < 0 || (long)sst.st_uid != uid)
				continue;
			if (kill((pid_t)atol(de->d_name), SIGKILL) == 0) {
				found = 1;
				if (!round)
					ended++;
			}
		}
		if (d)
			closedir(d);
		if (!found)
			break;
		usleep(5000);
	}
	return ended;
}

/*
 * The record open as fd, either layout; -1 when its kiln line is neither
 * (empty, torn, not kiln's).  A runner line that is not whole (struck out
 * while it was written: session_runner) names no group: pgid 0.
 */
static int rec_read(int fd, struct rec *r)
{
	char buf[256];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	memset(r, 0, sizeof(*r));
	int got = sscanf(buf, REC_FMT, &r->kpid, &r->kstart, r->boot, &r->pgid, &r->since, &r->uid), whole = 6;
	if (got < 3 || !r->kstart) {
		r->kstart = 0;
		got = sscanf(buf, REC_OLD_FMT, &r->kpid, r->boot, &r->pgid, &r->since, &r->uid);
		whole = 5;
		if (got < 2)
			return -1;
	}
	if (got < whole)
		r->pgid = r->since = r->uid = 0;
	return 0;
}

/*
 * Whether the kiln of record r is provably gone: the machine rebooted
 * since (both boot ids known and different), or no process has its pid,
 * or that process is a zombie, or it started at another time than the
 * recorded kiln (its pid reused).  An old record has no start time: its
 * pid alive is taken as its kiln alive.
 */
static int rec_gone(const struct rec *r, const char *boot)
{
	if (boot[0] && strcmp(r->boot, "-") && strcmp(r->boot, boot))
		return 1;
	if (r->kpid <= 0)
		return 0;
	char pid[24], path[40], state = 0;
	snprintf(pid, sizeof(pid), "%ld", r->kpid);
	snprintf(path, sizeof(path), "/proc/%s", pid);
	long pg;
	unsigned long long start;
	if (access(path, F_OK) < 0)
		return errno == ENOENT;
	if (proc_stat(pid, &state, &pg, &start) < 0)
		return 0;
	return state == 'Z' || state == 'X' || (r->kstart && start != r->kstart);
}

/* a dead session's runner group ended if it may still run (same boot); how many */
static int rec_end(const struct rec *r, const char *boot)
{
	return r->pgid > 1 && boot[0] && !strcmp(r->boot, boot) ? end_group(r->pgid, r->since, r->uid) : 0;
}

/*
 * The record open, created when missing, and flock()ed: a sweeping kiln
 * may hold it a moment, and may have removed it meanwhile (then it is made
 * anew).  Not truncated: what a dead session wrote is read first.
 */
static int record_open(const char *path)
{
	for (int attempt = 0; attempt < 8; attempt++) {
		int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0)
			return -1;
		struct stat st, sp;
		if (flock(fd, LOCK_EX) == 0 && fstat(fd, &st) == 0 && lstat(path, &sp) == 0 && st.st_nlink &&
		    st.st_dev == sp.st_dev && st.st_ino == sp.st_ino)
			return fd;
		close(fd);
	}
	errno = EAGAIN;
	return -1;
}

/* the sessions folder as the sweep listed it (sorted), and which of them it removed */
struct listing {
	int sfd;
	struct strvec names;
	char *removed;
};

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * Is tag's record gone from the sessions folder (its instrumentation
 * folders with it)?  The listing answers for most (a record listed and
 * kept: no); the rest are asked of the folder itself, since a session may
 * have started since it was listed.
 */
static int record_missing(const char *tag, void *arg)
{
	struct listing *l = arg;
	const char *key = tag;
	char **hit = l->names.n ? bsearch(&key, l->names.v, l->names.n, sizeof(char *), cmp_name) : NULL;
	if (hit && !l->removed[hit - l->names.v])
		return 0;
	struct stat st;
	return fstatat(l->sfd, tag, &st, AT_SYMLINK_NOFOLLOW) < 0 && errno == ENOENT;
}

/*
 * One other session's record NAME: removed when its kiln is provably gone,
 * after its runner's group is ended.  Never through a link, only a regular
 * file of kiln's of one link writable by nobody else, and only when no one
 * holds its lock (a live kiln does, all its session long).  Returns the
 * processes ended, -1 when the record stays.
 */
static int sweep_record(int sfd, const char *name, const char *boot)
{
	int fd = openat(sfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	struct stat st, sp;
	struct rec r;
	int ended = -1;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() && !(st.st_mode & 077) &&
	    st.st_nlink == 1 && flock(fd, LOCK_EX | LOCK_NB) == 0 &&
	    fstatat(sfd, name, &sp, AT_SYMLINK_NOFOLLOW) == 0 && sp.st_dev == st.st_dev && sp.st_ino == st.st_ino &&
	    rec_read(fd, &r) == 0 && rec_gone(&r, boot)) {
		ended = rec_end(&r, boot);
		if (unlinkat(sfd, name, 0) < 0)
			ended = -1;
	}
	close(fd); /* the lock goes with it */
	return ended;
}

/*
 * The bounded sweep: at most SWEEP_LOOK other records looked at, starting
 * at a place of the listing that differs per kiln (so live ones first in
 * it cannot hide the dead after them), SWEEP_DEAD dead sessions removed,
 * then SWEEP_FOLDERS instrumentation folders of sessions without a record.
 * Returns the processes ended.
 */
static int session_sweep(const struct session *s, int sfd)
{
	int dfd = dup(sfd);
	DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
	if (!d) {
		if (dfd >= 0)
			close(dfd);
		return 0;
	}
	struct listing l = { sfd, STRVEC_INIT, NULL };
	struct dirent *de;
	while (l.names.n < SWEEP_LIST && (de = readdir(d)))
		if (pexec_is_tag(de->d_name, '\0'))
			sv_push(&l.names, de->d_name);
	closedir(d);
	if (l.names.n)
		qsort(l.names.v, l.names.n, sizeof(char *), cmp_name);
	l.removed = xcalloc(l.names.n + 1, 1);
	int ended = 0, dead = 0;
	size_t first = l.names.n ? (size_t)getpid() % l.names.n : 0;
	for (size_t i = 0, j; i < l.names.n && i < SWEEP_LOOK && dead < SWEEP_DEAD; i++) {
		j = (first + i) % l.names.n;
		int n = strcmp(l.names.v[j], s->tag) ? sweep_record(sfd, l.names.v[j], s->boot) : -1;
		if (n >= 0) {
			ended += n;
			dead++;
			l.removed[j] = 1;
		}
	}
	pexec_sweep_instr(s->tag, record_missing, &l, SWEEP_FOLDERS);
	sv_clear(&l.names);
	free(l.removed);
	return ended;
}

/* a dead session's record (this session's, found at its start): end its runner's group if it may still run */
static int clean_dead(struct session *s)
{
	struct rec r;
	return rec_read(s->fd, &r) == 0 ? rec_end(&r, s->boot) : 0;
}

int session_begin(struct session *s, const char *results, struct kerr *e)
{
	memset(s, 0, sizeof(*s));
	s->fd = -1;
	struct stat st;
	if (stat(results, &st) < 0)
		return kerr_set(e, "%s: %s", results, strerror(errno));
	snprintf(s->tag, sizeof(s->tag), "%08lx%08lx", (unsigned long)(st.st_dev & 0xffffffffUL),
		 (unsigned long)(st.st_ino & 0xffffffffUL));
	read_boot(s->boot);
	char *dir = sfs_state_path("sessions", 0700, e);
	if (!dir)
		return -1;
	s->path = xasprintf("%s/%s", dir, s->tag);
	s->fd = record_open(s->path);
	if (s->fd < 0) {
		kerr_set(e, "%s: %s", s->path, strerror(errno));
		free(s->path);
		free(dir);
		s->path = NULL;
		return -1;
	}
	int ended = clean_dead(s);
	pexec_clean_instr(s->tag);
	int n = snprintf(s->rec, sizeof(s->rec), REC_FMT, (long)getpid(), proc_self_start(), s->boot[0] ? s->boot : "-",
			 0L, 0ULL, 0L);
	/* a boot id longer than its field: no record rather than a misplaced one (the file stays, locked, empty) */
	s->rec_len = n > 0 && (size_t)n < sizeof(s->rec) ? (size_t)n : 0;
	if (ftruncate(s->fd, 0) < 0)
		s->rec_len = 0;
	session_runner(s, 0, 0);
	struct stat rs;
	/* a record the full disk did not take is not mapped: a store into its page would be SIGBUS */
	if (s->fd >= 0 && s->rec_len && fstat(s->fd, &rs) == 0 && rs.st_size >= (off_t)s->rec_len) {
		void *m = mmap(NULL, s->rec_len, PROT_READ | PROT_WRITE, MAP_SHARED, s->fd, 0);
		s->map = m == MAP_FAILED ? NULL : m;
	}
	int sfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	free(dir);
	if (sfd >= 0) {
		ended += session_sweep(s, sfd);
		close(sfd);
	}
	return ended;
}

void session_arm(struct session *s)
{
	s->armed = boot_ticks();
}

/* v right-aligned in the w characters ending at end (REC_FMT's %Nld: fixed widths, so the record's size never changes) */
static void put_num(char *end, int w, unsigned long long v)
{
	do {
		*--end = (char)('0' + v % 10);
		v /= 10;
		w--;
	} while (v && w > 0);
	while (w-- > 0)
		*--end = ' ';
}

/*
 * The runner line into the mapped record.  A kiln killed while it writes
 * must not leave a line that names another process group, so the line's
 * first letter is struck out ("-unner", which REC_FMT does not match)
 * until its fields are whole.  The signal fences keep the compiler to
 * that order; a killed process's stores stop at one point of it.
 */
static void put_runner_line(char *line, const char *run)
{
	line[0] = '-';
	atomic_signal_fence(memory_order_seq_cst);
	memcpy(line + 1, run + 1, REC_RUNNER_LEN - 1);
	atomic_signal_fence(memory_order_seq_cst);
	line[0] = run[0];
}

/*
 * Twice per pexec, so neither through printf nor a system call (between
 * pexecs a pwrite of the record took 10 us on average, a store into its
 * mapped page 0.4 us): the record as REC_FMT lays it out (its first line
 * made once, at session_begin), the runner's fields written into their
 * fixed-width places.
 */
void session_runner(struct session *s, pid_t pgid, uid_t uid)
{
	if (s->fd < 0 || !s->rec_len)
		return;
	char buf[sizeof(s->rec)];
	memcpy(buf, s->rec, s->rec_len);
	char *run = buf + s->rec_len - REC_RUNNER_LEN;
	put_num(run + 17, 10, pgid > 0 ? (unsigned long long)pgid : 0);
	put_num(run + 44, 20, pgid ? s->armed : 0ULL);
	put_num(run + 59, 10, (unsigned long long)uid);
	if (s->map)
		put_runner_line(s->map + s->rec_len - REC_RUNNER_LEN, run);
	else if (pwrite(s->fd, buf, s->rec_len, 0) < 0)
		return; /* best effort: PR_SET_PDEATHSIG still ends the runner */
}

void session_end(struct session *s)
{
	if (s->map)
		munmap(s->map, s->rec_len);
	/* the folders before the record: a folder without a record is one the sweep may remove */
	if (s->path) {
		pexec_clean_instr(s->tag);
		unlink(s->path);
	}
	if (s->fd >= 0)
		close(s->fd);
	free(s->path);
	memset(s, 0, sizeof(*s));
	s->fd = -1;
}
