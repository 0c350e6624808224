/*
 * exec.h - the one way kiln starts a process (run-command.c in git's sense).
 *
 * No shell: always an argv array.  exec_run() is the full form used for
 * pexecs: fresh process group, the environment given and nothing else, an
 * extra pipe for the result stream, stdout/stderr captured with a bound
 * (head and tail kept), rlimits, ASLR policy, CPU pinning, nice, another
 * user, a timeout that kills the whole process group, and, because kiln is a
 * child subreaper, every descendant reaped, even those that left the group.
 * exec_simple() is the short form for helper commands (gnuplot, perf,
 * notify, VM --version).
 */
#ifndef KILN_EXEC_H
#define KILN_EXEC_H

#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <sys/types.h>
#include "util.h"

/* called with each chunk of the result stream as it arrives */
typedef int (*exec_stream_fn)(void *ctx, const char *data, size_t n);

struct exec_opts {
	char **argv;              /* argv[0]: path (or name found in PATH when `search`) */
	char **envp;              /* the complete environment (NULL: empty) */
	int search;               /* look argv[0] up in PATH */
	const char *cwd;          /* NULL: inherit */
	double timeout_s;         /* 0: none; SIGTERM to the group, SIGKILL 2 s later */
	size_t capture_bytes;     /* per stream: keep this much head and this much tail; 0: 64 KiB */
	int no_capture;           /* pass stdout/stderr through instead of capturing */
	const char *stdin_path;   /* NULL: /dev/null */
	/*
	 * With use_std_fds: descriptors (3 or above, open in kiln) for the
	 * child's stdin, stdout, stderr, each instead of stdin_path and the
	 * capture of that stream; -1 in one keeps its default (kiln bench's
	 * --input, --output)
	 */
	int use_std_fds, std_fds[3];
	/* result stream: a pipe whose write end the child gets at fd `result_fd` */
	int result_fd;            /* 0: no result pipe (fds 0-2 are never used for it) */
	exec_stream_fn on_stream;
	void *stream_ctx;
	/*
	 * stdout (output_fd 1) or stderr (2) is also handed to on_output as it
	 * arrives, whole, before any bound of the capture (a gauge reads it);
	 * a non-zero return stops that and ends the child, as on_stream's
	 */
	int output_fd;
	exec_stream_fn on_output;
	void *output_ctx;
	/* limits and placement, applied in the child before exec */
	long rlimit_as_mb, rlimit_stack_mb; /* 0: unchanged */
	long rlimit_nproc, rlimit_fsize_mb; /* 0: unchanged (RLIMIT_NPROC, RLIMIT_FSIZE) */
	int oom_score_adj, set_oom; /* the child's /proc/self/oom_score_adj (1000: the OOM killer's first pick) */
	/*
	 * Namespaces the child joins (setns) before it changes user: descriptors
	 * ending with -1, a user namespace first (isolate.h: the pexec's
	 * machine); NULL: kiln's own
	 */
	const int *join_ns;
	int aslr;                 /* -1: unchanged, 0: off (ADDR_NO_RANDOMIZE), 1: on */
	const char *cpus;         /* CPU list "0,2-3" or NULL */
	int nice, set_nice;
	uid_t uid; gid_t gid; int set_user; /* set_user: become uid/gid, with PR_SET_NO_NEW_PRIVS */
	int survives;             /* how many interrupts (exec_interrupted) it runs on through, to its timeout: INT_MAX
	                           * for the notice of an interruption, those so far for the cleanup after one */
	/* called in the parent once the child runs (its pid is its process group) */
	void (*on_start)(void *ctx, pid_t pid);
	void *start_ctx;
	/*
	 * called in the parent once the child is reaped, before what is left
	 * of its group and the descendants that escaped it are ended (what it
	 * left behind can still be counted)
	 */
	void (*on_end)(void *ctx, pid_t pid);
	void *end_ctx;
};

struct exec_result {
	int exited;               /* 1: exited normally with `status` */
	int status;               /* exit status */
	int signal;               /* terminating signal, 0 if none */
	int timed_out;
	int spawn_errno;          /* exec failed in the child (ENOENT...) */
	int personality;          /* the child's personality: read back after exec with an aslr policy, else kiln's own (inherited) */
	struct strbuf out, err;   /* captured (head, "[... N bytes omitted ...]", tail) */
	uint64_t out_bytes, err_bytes; /* total seen */
	int64_t start_ns, end_ns; /* CLOCK_MONOTONIC */
	double user_s, sys_s;     /* rusage of the child */
	long maxrss_kb;
	int stream_error;         /* on_stream returned non-zero (the child was killed) */
	int output_error;         /* on_output returned non-zero (the child was killed) */
	pid_t pid;
};

/* a CPU list ("0,2-3") into a set: 0, or -1 when it is not one */
int exec_parse_cpus(const char *s, cpu_set_t *set);
/* a set as a CPU list ("0,2-3"), added to sb */
void exec_format_cpus(const cpu_set_t *set, struct strbuf *sb);
/*
 * The CPUs a child may be pinned to: those of kiln's cgroup cpuset that are
 * online, whatever kiln's own affinity is.  0, or -1 when the kernel does
 * not say.
 */
int exec_allowed_cpus(cpu_set_t *set);

/*
 * The options of a plain command, the start of every exec_opts: argv with
 * envp, a timeout (0: none), ASLR, CPUs, nice and user as kiln's own, no
 * result stream, output captured (64 KiB a stream).  Set the rest after.
 */
void exec_opts_plain(struct exec_opts *o, char **argv, char **envp, double timeout_s);
int exec_run(const struct exec_opts *o, struct exec_result *r, struct kerr *e);
/*
 * Two processes at the same time (a duet), o[0] started first, each watched
 * as exec_run watches one, both to their end; -1 with e set when either
 * could not start (then neither runs on).  The descendants that escaped
 * either's process group are ended once both have ended.
 */
int exec_run_pair(const struct exec_opts *const o[2], struct exec_result *const r[2], struct kerr *e);
void exec_result_release(struct exec_result *r);

/*
 * Run argv to completion with the current environment, capturing output
 * (bounded) into r.  For helper programs.  Returns -1 only if it could not
 * start; check r->exited/status.
 */
int exec_simple(char *const argv[], double timeout_s, struct exec_result *r, struct kerr *e);

/* call after changing signal dispositions: children reset what kiln ignores */
void exec_signals_changed(void);
/* make kiln a child subreaper (called once at start of a run) */
void exec_become_subreaper(void);
/*
 * In a forked child that closed every descriptor it inherited (the
 * instrumentation collector): exec's own (its SIGCHLD signalfd, /dev/null)
 * are made again at its first process, not taken for the closed ones
 */
void exec_forget_fds(void);
/* close every descriptor from first up but keep (keep < first: none kept); async-signal-safe */
int exec_close_inherited(int first, int keep);
/* SIGCHLD to its default and blocked (exec_run learns of exits through a signalfd): first thing in main, before any thread */
void exec_init(void);
/* the signals blocked when kiln started, before exec_init */
const sigset_t *exec_entry_mask(void);
/* signals that interrupt a run count here; exec_run then stops a child that survives fewer (exec_opts.survives) */
extern volatile int exec_interrupted;
/*
 * Set when kiln itself was stopped and continued (SIGSTOP/SIGTSTP, then
 * SIGCONT): a whole-process time measured across it includes the pause.
 * exec_run clears it at the start of each process.
 */
extern volatile int exec_continued;
/* install the SIGCONT handler that sets exec_continued */
void exec_watch_stops(void);

#endif
