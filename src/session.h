/*
 * session.h - what one `kiln run` session leaves where the next can find
 * it, so that every process of a killed session is ended and its folders
 * removed before the next session starts (DESIGN.md, trust boundaries).
 *
 * A session is named by its results file (device and inode, so every path
 * to the file names the same session) and recorded in
 * <state>/sessions/TAG: kiln's pid and start time, the boot, and the
 * process group of the runner in flight with the time it was started; kiln
 * holds an flock on it while the session lasts.  Its instrumentation
 * folders are <state>/instr/TAG.*.  session_begin() runs while kiln holds
 * the results file's lock, so a record it finds is a dead session's.
 */
#ifndef KILN_SESSION_H
#define KILN_SESSION_H

#include <sys/types.h>
#include "util.h"

struct session {
	char tag[17];   /* 16 hex digits */
	char *path;     /* the record; NULL: none (no state folder) */
	int fd;
	char boot[40];  /* /proc/sys/kernel/random/boot_id */
	unsigned long long armed; /* clock ticks since boot before the runner started */
	char *map;      /* the record file, mapped: the runner line is written there (NULL: by pwrite) */
	char rec[160];  /* the record, its runner line filled in by session_runner */
	size_t rec_len;
};

/*
 * Name the session of `results`, end what a dead predecessor left running
 * (its runner's process group, when the boot and the start time match) and
 * remove its instrumentation folders, then record this session; then
 * sweep, a bounded number at a time, other sessions' records and folders
 * whose kiln is provably gone (docs/security.md, the sweep), ending their
 * runners' groups first.  Returns the number of processes ended, or -1
 * with e set.
 */
int session_begin(struct session *s, const char *results, struct kerr *e);
/* just before a runner starts (its start time is no earlier) */
void session_arm(struct session *s);
/* the runner in flight: its process group (its pid) and uid; cheap (a store into the mapped record) */
void session_runner(struct session *s, pid_t pgid, uid_t uid);
/* the session ended normally: its record goes */
void session_end(struct session *s);

#endif
