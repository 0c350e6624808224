/*
 * platform.h - the machine under the benchmarks: check it, watch it during a
 * run, tune it (and put it back), isolate each pexec, record it.
 *
 * Parts (one file each):
 *   platform.c        the root path under which /sys, /proc and /dev are read,
 *                     small readers, and every doctor check (struct pcheck)
 *   platform-run.c    the run-time watch: before a pexec (temperature, load,
 *                     sync, settle), after it (kernel log, throttle counters,
 *                     governors -> tainted)
 *   platform-tune.c   --tune (governor, turbo, perf sample rate) with a state
 *                     file and a restore that is safe from a signal handler,
 *                     reboot mode (systemd unit, boot counter, reboot command)
 *   platform-user.c   the dedicated benchmark user and the sanity child
 *                     (`kiln doctor --sanity-child`)
 *   platform-audit.c  the audit record (json), comparing two audits, notify
 *
 * Every path under /sys, /proc and /dev goes through platform_path(), so the
 * tests run all of this against fake trees they build (KILN_SYSROOT).
 * Nothing here exits; errors come back as struct kerr.
 */
#ifndef KILN_PLATFORM_H
#define KILN_PLATFORM_H

#include <jansson.h>
#include <sys/types.h>
#include "config.h"
#include "exec.h"
#include "util.h"

/* ---- root path ---- */

/* NULL: back to $KILN_SYSROOT (or "" when unset) */
void platform_set_root(const char *root);
const char *platform_root(void);
/* root + abs ("/sys/..."); caller frees */
char *platform_path(const char *abs);

/* ---- checks (kiln doctor) ---- */

enum pstate { PS_OK, PS_WARN, PS_FAIL, PS_UNAVAILABLE };
const char *pstate_name(enum pstate s);

struct pcheck {
	char *name;     /* "governor", "turbo", ... (stable: JSON key, docs) */
	enum pstate state;
	char *value;    /* what was found, one line */
	char *fix;      /* how to fix it, NULL when nothing to do */
};

struct pchecks {
	struct pcheck *v;
	size_t n, alloc;
};
#define PCHECKS_INIT { NULL, 0, 0 }

struct doctor_opts {
	double busy_sample_s;   /* how long to sample /proc/stat for busy processes (0.5) */
	int no_counters;        /* skip the perf_event_open probe */
	int no_detect_virt;     /* do not run systemd-detect-virt */
	int busy_now;           /* busy processes: those running now, without sampling (no wait) */
};

/*
 * Run every check.  `ex` may be NULL (defaults: no heap limit, no pinning);
 * its platform policy decides whether a problem is a warn or a fail.
 */
void platform_doctor(const struct experiment *ex, const struct doctor_opts *o,
		     struct pchecks *out);
const struct pcheck *pchecks_find(const struct pchecks *c, const char *name);
int pchecks_worst(const struct pchecks *c); /* PS_FAIL > PS_WARN > others */
/* [{"name","state","value","fix"}...] */
json_t *pchecks_json(const struct pchecks *c);
void pchecks_release(struct pchecks *c);

/* small readers shared by the parts (paths are logical: "/sys/...") */
int plat_read(const char *abs, struct strbuf *out);        /* 0 / -1, trimmed */
int plat_read_long(const char *abs, long *out);           /* 0 / -1 */
/* can this machine count hardware cycles (perf_event_open on ourselves)? 0 with *err (errno) if not */
int plat_have_cycles(int *err);
/* expand a glob under the root; returned paths are logical (root stripped) */
void plat_glob(const char *pattern, struct strvec *out);
/*
 * The kernel's CPU pressure (platform-pressure.c): microseconds some
 * runnable task has waited for a CPU since boot (/proc/pressure/cpu's
 * "some" total); 0, or -1 where the kernel has no PSI
 */
int plat_cpu_pressure(uint64_t *us);
/* the share of ns nanoseconds that such waiting took, from two readings (0..1; -1: none) */
double plat_cpu_pressure_share(uint64_t us0, uint64_t us1, int64_t ns);
/* a session's CPU pressure: read where its pexecs start (t0 0: they never did) */
struct plat_pressure {
	int ok;      /* us0 read: the kernel has PSI */
	uint64_t us0;
	int64_t t0;  /* mono_ns() then */
};
void plat_pressure_begin(struct plat_pressure *p);
/* the share of the time since plat_pressure_begin some task waited for a CPU (0..1; -1: unknown) */
double plat_pressure_share(const struct plat_pressure *p);

/* ---- during a run ---- */

struct platform {
	struct platform_conf conf;     /* a copy (strvecs borrowed from the caller) */
	double poll_s;                 /* sleep between temperature/load polls (1 s) */
	/* start of the run */
	struct strvec temp_paths;      /* logical paths of temperature sensors */
	double *temp0;                 /* °C at platform_open */
	/* per pexec (set by platform_before_pexec) */
	struct strvec gov_paths;
	struct strvec gov_before;
	struct strvec thr_paths;
	long *thr_before;
	int kmsg_fd;                   /* -1: no kernel log */
	int kmsg_is_file;              /* a regular file (tests) rather than /dev/kmsg */
	void *allow;                   /* compiled allow-list (regex_t[]) */
	size_t nallow;
	int ready;                     /* before_pexec ran */
	const char *unmet;             /* platform_open failed: the setting it could not meet ("governor") */
};

/*
 * Start watching: record start temperatures, open the kernel log, compile
 * the allow-list (built-in defaults + conf->kmsg_allow).  -1 when a `require`
 * check cannot work at all (e.g. kmsg: require but /dev/kmsg unreadable) or a
 * kmsg_allow regex is bad (message names it).
 */
int platform_open(struct platform *p, const struct platform_conf *conf, struct kerr *e);
/*
 * Can this machine meet the platform settings at all?  Asked before kiln
 * run makes its results file, and by a cluster node before its task runs
 * a pexec: pin_cpus' CPUs present, online and in kiln's cpuset, a negative nice allowed,
 * platform.user possible (kiln root, the user not uid 0), the sensors,
 * governors and kernel log a `require` needs.  -1 with KEXIT_CONFIG and
 * the setting where `config` has it (FILE:LINE:COL: platform.NAME: ...).
 */
int platform_preflight(const struct platform_conf *pc, const char *config, struct kerr *e);
/*
 * Before each pexec: wait for temperature (±temp_tolerance_c of the start,
 * too hot: poll until temp_wait_max_s) and load (< load_max, same bound),
 * sync, settle; then note governors, throttle counters and the kernel log
 * position.  Appends what it did and found to `log` (one line each).
 * Returns 0 all fine, 1 a `warn` check gave up (see log), -1 a `require`
 * check gave up (e says which).
 */
int platform_before_pexec(struct platform *p, struct strbuf *log, struct kerr *e);
/*
 * After each pexec: 1 and `reason` (appended, "; "-separated) when the pexec
 * is tainted: a kernel log line outside the allow-list, a thermal-throttle
 * counter change, a governor change.  0 when clean.  Checks in mode `off`
 * are skipped; `warn` mode for kmsg/governor still taints (the lead's
 * rerun_tainted decides what to do), see docs/platform.md.
 */
int platform_after_pexec(struct platform *p, struct strbuf *reason);
void platform_close(struct platform *p);
/* is this kernel log message (text after "prio,seq,ts,flags;") allowed? */
int platform_kmsg_allowed(const struct platform *p, const char *msg);
/*
 * Scan kernel log text in /dev/kmsg's format ("prio,seq,usec,flags;text"
 * lines, continuation lines starting with a space): how many records are not
 * allowed; the first three are added to `reason`.  (Tests, fuzzing.)
 */
int platform_kmsg_scan(const struct platform *p, const char *data, size_t n, struct strbuf *reason);
/* current temperatures of p's sensors; returns how many (tests, logs) */
size_t platform_temps(const struct platform *p, double *out);

/* ---- tuning (root only) ---- */

/* default /var/lib/kiln/tune-state.json; $KILN_TUNE_STATE overrides */
const char *platform_tune_state_path(void);
/*
 * Set governor=performance on every CPU, turbo off, perf_event_max_sample_rate
 * 1, after writing the original values to `state_path` (NULL: default).
 * `*saved` gets them as JSON ({"version":1,"pid":..,"start":..,"values":[{"path","value"}]},
 * start: the tuning kiln's start time, so that a pid reused is not taken for it)
 * for the results DB.  Refuses when a state file already exists (an earlier
 * tune was never restored).  `log` gets one line per change.
 */
int platform_tune(const char *state_path, json_t **saved, struct strbuf *log, struct kerr *e);
/* the pid of a kiln that tuned (its state file) and is still running, else 0 */
long platform_tune_owner(const char *state_path);
/*
 * Put the saved values back and delete the state file.  `saved` NULL: read
 * the state file (kiln doctor --restore after a crash).  No state file and
 * no `saved`: 0, nothing to do (`log` says so).  Idempotent.  Refused (-1)
 * from the state file while the kiln that tuned still runs (platform_tune_owner).
 */
int platform_restore(const char *state_path, const json_t *saved, struct strbuf *log, struct kerr *e);
/*
 * The same from a signal handler: only open/write/close/unlink on a table
 * prepared by platform_tune.  Safe to call twice and when nothing was tuned.
 */
void platform_restore_signal_safe(void);

/* ---- reboot mode ---- */

/* default unit dir /etc/systemd/system; $KILN_UNIT_DIR overrides */
#define PLATFORM_UNIT_NAME "kiln-reboot.service"
int platform_reboot_install(const char *unit_dir, const char *kiln_exe, const char *config,
			    struct kerr *e);
int platform_reboot_remove(const char *unit_dir, struct kerr *e);
/*
 * Count one more boot in `path` (a small text file); -1 with e set when the
 * count would exceed `max` (the machine keeps failing: stop looping).
 */
int platform_boot_count(const char *path, long max, long *count, struct kerr *e);
int platform_boot_reset(const char *path);
/* run the reboot command: `cmd` (NULL or empty: $KILN_REBOOT_CMD split on
 * spaces, else "systemctl reboot") */
int platform_reboot(const struct strvec *cmd, struct kerr *e);

/* ---- the benchmark user ---- */

struct puser {
	char *name;
	uid_t uid;
	gid_t gid;
	char *home;    /* <base>/<name>, base $KILN_HOME_BASE or <state>/home */
	int lock_fd;   /* the user's lock, held while kiln uses the user */
};
/*
 * Look the user up, creating it with useradd --system if missing (root
 * only), and take its lock (<state>/locks/user-NAME.lock): one kiln at a
 * time uses a benchmark user, since each kills all of the user's processes
 * and renews its home.  A user in use is KEXIT_LOCKED.
 */
int platform_user_ensure(const char *name, struct puser *u, struct kerr *e);
/* the names useradd accepts, minus anything that could escape a path */
int platform_user_name_ok(const char *s);
/*
 * End every process of the user (orphans of earlier pexecs or of a killed
 * kiln): a child that becomes the user sends SIGKILL to all it may signal,
 * until none is left.  Before the user's home or folders are touched.
 */
int platform_user_kill_all(const struct puser *u, struct kerr *e);
/*
 * The same, then the user's keyrings emptied (user, user session,
 * persistent: privsep-keys.c), by the same child: where a pexec's machine
 * is renewed (before each pexec and probe, at a session's start and end)
 */
int platform_user_renew(const struct puser *u, struct kerr *e);
/* the tasks (threads, zombies too) of this uid's processes now, from /proc: what its RLIMIT_NPROC counts */
long platform_user_tasks(uid_t uid);
/* delete and recreate u->home, owned by the user, mode 0700 (each pexec; kill_all first) */
int platform_user_fresh_home(const struct puser *u, struct kerr *e);
void platform_user_release(struct puser *u);

/*
 * The sanity child: run `kiln doctor --sanity-child --probe PROBE` with the
 * very exec_opts of a pexec (argv replaced, everything else kept) and check
 * inside the child what exec applied.  Mismatches are listed in e.
 */
struct sanity_expect {
	const char *kiln_exe;   /* NULL: /proc/self/exe */
	int check_uid; uid_t uid; gid_t gid;
	const char *cpus;       /* expected allowed CPUs ("0,2-3"), NULL: not checked */
	int check_nice; int nice;
	long as_mb, stack_mb;   /* expected soft limits, 0: not checked */
	const char *probe;      /* a path the child must NOT be able to create (NULL: none) */
	const char *home;       /* a dir the child must be able to write (NULL: none) */
	char *const *envp;      /* the environment expected inside (NULL: pexec->envp) */
	const struct machine *mach; /* the pexecs' machine it must be on (isolate.h; NULL: none) */
	long nproc, fsize_mb;   /* expected RLIMIT_NPROC and RLIMIT_FSIZE (MiB), 0: not checked */
	int check_oom, oom;     /* expected oom_score_adj */
	int check_cgroup;       /* the child must be in kiln's cgroups (the session's bounds) */
};
int platform_sanity(const struct exec_opts *pexec, const struct sanity_expect *x,
		    json_t **report, struct kerr *e);
/* the child side (cmd-doctor.c calls it): prints one JSON object */
int platform_sanity_child(const char *probe, const char *home);

/* every getrlimit() of this process: {"as":{"soft":N,"hard":N},...}, -1 = unlimited */
json_t *platform_rlimits_json(void);

/* ---- audit, diff, notify ---- */

/*
 * Everything about the machine: kiln version, uname, cpuinfo, cmdline,
 * os-release, doctor findings ("doctor"), rlimits, kiln's environment; and
 * `vms` (taken, may be NULL): an array of the VMs' identities (vmid.h)
 * that the caller learned as the benchmark would run each VM.  `ex` may
 * be NULL.  Credentials are hidden (platform_audit_mask).
 */
json_t *platform_audit(const struct experiment *ex, const struct doctor_opts *o, json_t *vms);
/*
 * Hide the credentials in an audit, in place: the environment's values by
 * name and by value, the VMs' version texts, the kernel command line
 * (secret.h).  For audits from older results files too (exports).
 */
void platform_audit_mask(json_t *audit);
/* lines saying how two audits differ in what matters (host, CPU, kernel,
 * governor, VM versions...); returns how many lines were added */
size_t platform_audit_diff(const json_t *a, const json_t *b, struct strvec *lines);
/*
 * Run conf->notify (no-op when empty) with KILN_NOTIFY_EVENT (failure|taint|
 * complete|stopped|died) and KILN_NOTIFY_MESSAGE added to kiln's
 * environment.  -1 when it could not run or exited non-zero (the caller
 * warns, never stops the run).
 */
int platform_notify(const struct platform_conf *conf, const char *event, const char *message,
		    struct kerr *e);
/*
 * The notification of a kiln that cannot send it itself (kill -9, the OOM
 * killer, a crash): a watcher process, not a child of kiln, that waits on
 * a pipe and, when kiln's end closes without platform_notify_unwatch(),
 * runs conf->notify with event `died` and the message.  Returns the pipe's
 * write end (close-on-exec), -1 when notify is not set or the watcher could
 * not start (said with a warning).  Started before kiln becomes a
 * subreaper, so that the watcher is not among the processes it reaps.
 */
int platform_notify_watch(const struct platform_conf *conf, const char *message);
/* kiln ends as it should: the watcher leaves without a word */
void platform_notify_unwatch(int fd);

#endif
