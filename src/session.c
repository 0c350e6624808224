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
 */
#include "session.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "pexec.h"
#include "safefs.h"

#define REC_FMT "kiln %10ld boot %36s\nrunner %10ld since %20llu uid %10ld\n"

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

/* state, process group and start time of PID from /proc (after the command's closing parenthesis) */
static int proc_stat(const char *pid, char *state, long *pgrp, unsigned long long *start)
{
	char path[300], buf[1024];
	snprintf(path, sizeof(path), "/proc/%s/stat", pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	char *p = strrchr(buf, ')');
	if (!p)
		return -1;
	/* after the command: field 3 (state), 4 (ppid), 5 (pgrp) ... 22 (starttime) */
	char *save = NULL;
	int field = 3;
	for (char *t = strtok_r(p + 1, " ", &save); t; t = strtok_r(NULL, " ", &save), field++) {
		if (field == 3)
			*state = *t;
		if (field == 5)
			*pgrp = atol(t);
		if (field == 22) {
			*start = strtoull(t, NULL, 10);
			return 0;
		}
	}
	return -1;
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

/* a dead session's record: end its runner's group if it may still run */
static int clean_dead(struct session *s)
{
	struct strbuf sb = STRBUF_INIT;
	struct kerr e = KERR_INIT;
	int ended = 0;
	if (read_file(s->path, &sb, &e) == 0) {
		long kpid, pgid, uid;
		unsigned long long since;
		char boot[40];
		if (sscanf(sb_str(&sb), REC_FMT, &kpid, boot, &pgid, &since, &uid) == 5 && pgid > 1 &&
		    !strcmp(boot, s->boot))
			ended = end_group(pgid, since, uid);
	}
	sb_release(&sb);
	kerr_release(&e);
	return ended;
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
	free(dir);
	int ended = clean_dead(s);
	pexec_clean_instr(s->tag);
	s->fd = open(s->path, O_RDWR | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (s->fd < 0) {
		kerr_set(e, "%s: %s", s->path, strerror(errno));
		free(s->path);
		s->path = NULL;
		return -1;
	}
	session_runner(s, 0, 0);
	return ended;
}

void session_arm(struct session *s)
{
	s->armed = boot_ticks();
}

void session_runner(struct session *s, pid_t pgid, uid_t uid)
{
	if (s->fd < 0)
		return;
	char buf[160];
	int n = snprintf(buf, sizeof(buf), REC_FMT, (long)getpid(), s->boot[0] ? s->boot : "-", (long)pgid,
			 pgid ? s->armed : 0ULL, (long)uid);
	if (n > 0 && pwrite(s->fd, buf, (size_t)n, 0) < 0)
		return; /* best effort: PR_SET_PDEATHSIG still ends the runner */
}

void session_end(struct session *s)
{
	if (s->fd >= 0)
		close(s->fd);
	if (s->path) {
		unlink(s->path);
		pexec_clean_instr(s->tag);
	}
	free(s->path);
	memset(s, 0, sizeof(*s));
	s->fd = -1;
}
