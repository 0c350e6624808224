/*
 * isolate.h - every pexec starts from the same machine, and the benchmark's
 * resources are bounded (docs/security.md#the-machine-a-pexec-runs-on).
 *
 * The machine (privsep-isolate.c): a mount namespace made once per session
 * in which /tmp, /var/tmp, /dev/shm, the benchmark user's home and the
 * instrumentation folder are folders of one tmpfs of limits.disk_mb, and a
 * SysV IPC namespace made anew for each pexec.  kiln holds the namespaces
 * by descriptor; every process of a pexec (its prepare and conclude steps,
 * the runner, the collector, perf under `kiln profile`) and the VMs'
 * probes join them with setns() between fork and execve (exec_opts.join_ns)
 * before they drop to the benchmark user.  Before each pexec the tmpfs is
 * emptied (a statfs says whether anything is in it, two fstatats whether
 * the home's and instrumentation folder's own mode and times changed:
 * nothing to do costs three system calls) and a new IPC namespace made;
 * after it, what the pexec left goes.
 * Folders the experiment needs that live in /tmp, /var/tmp or
 * /dev/shm (its own folder, kiln's state, the homes) are bound back at
 * their own paths, each opened without following a symbolic link on its
 * way and bound from that descriptor (one with a link is refused, said).
 * As root the namespaces are kiln's own; without root, inside a user
 * namespace that maps kiln's user to itself; where neither can be had, no
 * machine, and why is said once.  /dev/mqueue, the host's POSIX message
 * queues, is covered by an empty read-only folder of the tmpfs.
 *
 * The bounds (privsep-cgroup.c): limits.processes and limits.memory_mb as
 * a pids and a memory cgroup, cgroup v1 or v2, that kiln enters once per
 * session (a process is then born inside: moving one in costs about a
 * millisecond, which a pexec must not pay) with room for kiln's own task
 * and memory; its event counters tell kiln when a pexec hit a bound.
 * Beside them RLIMIT_NPROC (with a benchmark user), RLIMIT_FSIZE, and the
 * benchmark's oom_score_adj at 1000, so that the OOM killer takes it, not
 * kiln.
 */
#ifndef KILN_ISOLATE_H
#define KILN_ISOLATE_H

#include <sys/stat.h>
#include <sys/types.h>

#include "util.h"

struct exec_opts;
struct puser;
struct limits_conf;

enum machine_kind { MACHINE_NONE, MACHINE_ROOT, MACHINE_USERNS };
#define MACHINE_IPC_POOL 32

/* what the machine holds */
struct machine_spec {
	long disk_mb;               /* the tmpfs's size */
	const struct puser *user;   /* its home is on the machine, at user->home; NULL: no home */
	const char *instr;          /* the host folder where the machine's instrumentation folder is seen, or NULL */
	const char *const *keep;    /* host folders seen as they are (NULL-terminated) */
};

struct machine {
	enum machine_kind kind;
	int user_fd, mnt_fd, ipc_fd; /* the namespaces held; -1: none */
	int root_fd;                 /* the tmpfs, as kiln sees it (never mounted where a process looks) */
	int join[4];                 /* for exec_opts.join_ns: user, mnt, ipc, -1 */
	char view[40];               /* "/proc/self/fd/N": kiln's path to the tmpfs */
	unsigned long long base_files, base_blocks; /* in use when empty (statfs) */
	struct stat own_st[2];       /* the home's and instrumentation folder's own stat, as made or reset */
	struct strvec skel;          /* folders of the tmpfs kiln made: kept when it is emptied */
	struct strvec shared;        /* of /tmp, /var/tmp, /dev/shm, those left shared (a folder kept is one) */
	char *home, *instr;          /* host paths of the home and instrumentation folder on the machine, or NULL */
	struct strvec keep;          /* host folders seen as they are */
	struct strvec refused;       /* kept folders not bound: a symbolic link on their way (said once) */
	struct strvec covered;       /* host folders anyone may write, each covered by one of the machine's */
	mode_t *cover_mode;          /* their modes, as the machine's folders get them back */
	long disk_mb;
	uid_t uid;
	gid_t gid;
	int ipc_pool[MACHINE_IPC_POOL]; /* IPC namespaces made ahead, each used once */
	size_t ipc_next;             /* the next of the pool (MACHINE_IPC_POOL: empty) */
	char *why;                   /* kind NONE: why there is no machine */
};

/*
 * How kiln can make a machine here: MACHINE_ROOT, MACHINE_USERNS, or
 * MACHINE_NONE with why (malloc'd) when it cannot.  Tried, not guessed: a
 * namespace is made and dropped.
 */
enum machine_kind machine_possible(char **why);

/*
 * Make the session's machine.  0: made; 1: none can be made here (m->kind
 * is MACHINE_NONE, m->why says why); -1: error.  machine_close() in any case.
 */
int machine_open(struct machine *m, const struct machine_spec *s, struct kerr *e);
/* before a pexec (or a probe): the tmpfs emptied, a new IPC namespace; 0 or -1 */
int machine_fresh(struct machine *m, struct kerr *e);
/* after it: what it left (dirty, as machine_usage said) removed, with none of its processes left; its IPC namespace dropped */
void machine_clear(struct machine *m, int dirty);
/* one statfs: did the pexec use the tmpfs at all (dirty), is it full (no block or no inode left)? */
void machine_usage(const struct machine *m, int *dirty, int *full);
int machine_dirty(const struct machine *m);
/*
 * Does a file on the tmpfs have at least `bytes` (RLIMIT_FSIZE stops a
 * write exactly there)?  A bounded walk: call it only when it is dirty.
 */
int machine_file_reached(const struct machine *m, unsigned long long bytes);
/* a process joins the machine (nothing when there is none) */
void machine_opts(const struct machine *m, struct exec_opts *eo);
/* kiln's path to PATH as the machine's processes see it (malloc'd): on the tmpfs, through m->view */
char *machine_view(const struct machine *m, const char *path);
void machine_close(struct machine *m);
/*
 * Two pexecs at once on one machine (a duet) must not share an
 * instrumentation folder: a folder NAME of the user's made inside the
 * machine's, just emptied; its host path (malloc'd), or NULL with e set
 */
char *machine_instr_slot(const struct machine *m, const char *name, struct kerr *e);
/* "/tmp, /var/tmp, /dev/shm" of the machine as the sanity child must see them: 1 when path is one of the machine's */
int machine_private(const struct machine *m, const char *path);

/* is NAME in the folder AT (/tmp, /var/tmp, /dev/shm) one kiln put there (a kept folder's way)? */
int machine_kiln_entry(const struct machine *m, const char *at, const char *name);

/* TEXT written whole into PATH (a /proc or cgroup file; create: a plain file made or truncated); 0 or -1 */
int isolate_write(const char *path, const char *text, int create);

/* ---- keyrings (privsep-keys.c): system calls only ---- */

/*
 * In a process that became the benchmark user: a new, empty session
 * keyring of its own instead of the one inherited from kiln.  0 (also
 * where the kernel has no keyrings), -1 with errno.
 */
int isolate_own_keyring(void);
/*
 * In a process running as the benchmark user, uid: its user, user session
 * and persistent keyrings emptied, and then up to wait_s seconds for the
 * kernel to drop every key of the user's that is gone (an unlinked key,
 * an ended process's session keyring).  0, or -1 when some are still there.
 */
int isolate_clear_user_keys(uid_t uid, double wait_s);

/* ---- bounds (privsep-cgroup.c) ---- */

enum cg_kind { CG_NONE, CG_V1, CG_V2 };

struct cgbound {
	enum cg_kind kind;
	char *dir[2];                /* pids and memory cgroup (v2: dir[0] only) */
	char *from[2];               /* where kiln was (it goes back at the end) */
	char *parent2;               /* v2: the cgroup whose subtree_control kiln changed, else NULL */
	int pids_ev, mem_ev;         /* pids.events, memory.events / memory.oom_control; -1: none */
	long long pids_max_hits, oom_kills; /* as last read */
	long processes, memory_mb;
	long left;                   /* kind NONE: the benchmark user's tasks left when the runner ended (run-isolate.c) */
	char *why;                   /* kind NONE: why (malloc'd) */
};
/*
 * Bound this session's processes (processes, 0: none) and memory
 * (memory_mb, 0: none) with cgroups: kiln enters a cgroup made for the
 * session below its own (the pexecs are born inside).  $KILN_CGROUP_FS
 * stands for /sys/fs/cgroup (tests: a fake tree).  0: bounded; 1: no
 * cgroup can be had (c->why); -1: error.  cg_close() in any case.
 */
int cg_open(struct cgbound *c, const char *tag, long processes, long memory_mb, struct kerr *e);
/* the bounds hit since the last call, said into why ("" when none); 1 when one was */
int cg_hits(struct cgbound *c, struct strbuf *why);
/* what cg_open could do here, without doing it: CG_V1, CG_V2 or CG_NONE with why (malloc'd) */
enum cg_kind cg_possible(char **why);
/* kiln back where it was, the session's cgroup removed */
void cg_close(struct cgbound *c);
/* the line of /proc/PID/cgroup (pid 0: self) for a hierarchy: v1 controller name, or "" for v2 */
char *cg_of(pid_t pid, const char *controller);

struct machine;
/* an empty machine and cgroup (nothing held), before machine_open and cg_open */
void isolate_init(struct machine *m, struct cgbound *c);

/* the defaults of limits.disk_mb and limits.memory_mb on this machine (MiB) */
long isolate_default_disk_mb(void);
long isolate_default_memory_mb(void);

/*
 * The bounds of one process of a pexec: RLIMIT_NPROC only with a benchmark
 * user, who runs nothing else (one more than limits.processes beside a pids
 * cgroup, so that the cgroup, which counts what it refuses, says no first),
 * RLIMIT_FSIZE, oom_score_adj.
 */
void isolate_bound_opts(const struct limits_conf *l, int have_user, const struct cgbound *cg, struct exec_opts *eo);

#endif
