/*
 * exec.c - the process module (see exec.h): every process kiln starts goes
 * through exec_run().
 *
 * Parent side: pipes for stdout, stderr and the result stream, a CLOEXEC
 * "exec error" pipe that tells a failed execve from a program that ran, a
 * signalfd for SIGCHLD (made once: exec_fds) to learn of the child's exit
 * inside the same poll() loop that drains the pipes, and a deadline.
 * Child side: only system calls between fork and execve (new process
 * group, a new session for another user, signals reset, fds moved, rlimits, personality, affinity, nice,
 * user).
 *
 * Ending a pexec: when the child exits or times out, whatever is left of its
 * process group is killed, and, because kiln is a child subreaper, any
 * descendant that escaped the group (setsid, double fork) has been
 * re-parented to kiln: those are found in /proc by their parent pid, killed
 * and reaped.  Output is drained for a bounded time afterwards, so a
 * grandchild holding a pipe open cannot hang kiln.
 */
#include "exec.h"
#include "isolate.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <grp.h>
#include <unistd.h>

volatile int exec_interrupted;
volatile int exec_continued;

static void on_cont(int sig)
{
	(void)sig;
	exec_continued = 1;
}

void exec_watch_stops(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_cont;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGCONT, &sa, NULL);
}

/*
 * What a pexec's start and end need that is the same for every process,
 * made once.  The child's exit wakes the poll loop through one signalfd
 * for SIGCHLD: a pidfd per process costs ~10 us to make and close on
 * kernels with pidfs, a read of the signalfd 0.5 us.  SIGCHLD stays
 * blocked in kiln (main calls this before any thread exists, so every
 * thread inherits the mask and the signal stays pending for the signalfd),
 * and the child unblocks it before execve.  An inherited SIG_IGN is undone
 * first: with it, children would vanish without an exit status.  stdin of
 * a process is /dev/null, opened once here and dup2'd by the child.
 */
static int chld_fd = -2, null_fd = -1;
static sigset_t entry_mask; /* what kiln was started with blocked */
static sigset_t chld_set;   /* SIGCHLD alone: blocked, and read through chld_fd */

/* fd at 3 or above (kiln may have been started with 0-2 closed), close-on-exec */
static int fd_above_stdio(int fd)
{
	if (fd < 0 || fd > 2)
		return fd;
	int d = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	close(fd);
	return d;
}

void exec_init(void)
{
	static int done;
	if (done)
		return;
	done = 1;
	sigemptyset(&chld_set);
	sigaddset(&chld_set, SIGCHLD);
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGCHLD, &sa, NULL);
	sigprocmask(SIG_BLOCK, &chld_set, &entry_mask);
}

const sigset_t *exec_entry_mask(void)
{
	return &entry_mask;
}

/* the descriptors, made at the first process (not in main: `kiln doctor --sanity-child` lists what it inherited) */
static void exec_fds(void)
{
	if (chld_fd != -2)
		return;
	exec_init();
	chld_fd = fd_above_stdio(signalfd(-1, &chld_set, SFD_NONBLOCK | SFD_CLOEXEC));
	null_fd = fd_above_stdio(open("/dev/null", O_RDONLY | O_CLOEXEC));
}

void exec_forget_fds(void)
{
	chld_fd = -2;
	null_fd = -1;
}

/* the pending SIGCHLD read (one: a standard signal does not queue), so the next poll sleeps until the next one */
static void chld_drain(void)
{
	struct signalfd_siginfo si[4];
	ssize_t n = read(chld_fd, si, sizeof(si));
	(void)n;
}

void exec_become_subreaper(void)
{
	prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
}

/* bounded capture: the first `cap` bytes and the last `cap` bytes */
struct capture {
	struct strbuf head;
	char *ring;
	size_t cap, ring_len, ring_pos;
	uint64_t total;
};

static void cap_init(struct capture *c, size_t cap)
{
	memset(c, 0, sizeof(*c));
	c->cap = cap;
}

static void cap_add(struct capture *c, const char *p, size_t n)
{
	c->total += n;
	if (c->head.len < c->cap) {
		size_t take = c->cap - c->head.len;
		if (take > n)
			take = n;
		sb_add(&c->head, p, take);
		p += take;
		n -= take;
	}
	if (!n)
		return;
	if (!c->ring)
		c->ring = xmalloc(c->cap);
	if (n >= c->cap) {
		memcpy(c->ring, p + n - c->cap, c->cap);
		c->ring_pos = 0;
		c->ring_len = c->cap;
		return;
	}
	for (size_t i = 0; i < n; i++) {
		c->ring[c->ring_pos] = p[i];
		c->ring_pos = (c->ring_pos + 1) % c->cap;
	}
	c->ring_len = c->ring_len + n > c->cap ? c->cap : c->ring_len + n;
}

static void cap_finish(struct capture *c, struct strbuf *out, uint64_t *total)
{
	sb_reset(out);
	sb_add(out, c->head.buf ? c->head.buf : "", c->head.len);
	if (c->ring_len) {
		uint64_t omitted = c->total - c->head.len - c->ring_len;
		if (omitted)
			sb_addf(out, "\n[... %llu bytes omitted ...]\n", (unsigned long long)omitted);
		size_t start = c->ring_len < c->cap ? 0 : c->ring_pos;
		for (size_t i = 0; i < c->ring_len; i++)
			sb_addc(out, c->ring[(start + i) % c->cap]);
	}
	*total = c->total;
	sb_release(&c->head);
	free(c->ring);
}

int exec_parse_cpus(const char *s, cpu_set_t *set)
{
	CPU_ZERO(set);
	while (*s) {
		char *end;
		long a = strtol(s, &end, 10), b;
		if (end == s || a < 0 || a >= CPU_SETSIZE)
			return -1;
		b = a;
		if (*end == '-') {
			const char *t = end + 1;
			b = strtol(t, &end, 10);
			if (end == t || b < a || b >= CPU_SETSIZE)
				return -1;
		}
		for (long i = a; i <= b; i++)
			CPU_SET(i, set);
		if (*end == ',')
			end++;
		else if (*end)
			return -1;
		s = end;
	}
	return 0;
}

void exec_format_cpus(const cpu_set_t *set, struct strbuf *sb)
{
	for (int i = 0; i < CPU_SETSIZE; i++) {
		if (!CPU_ISSET(i, set))
			continue;
		int j = i;
		while (j + 1 < CPU_SETSIZE && CPU_ISSET(j + 1, set))
			j++;
		sb_addf(sb, "%s%d", sb->len ? "," : "", i);
		if (j > i)
			sb_addf(sb, "-%d", j);
		i = j;
	}
}

/*
 * The kernel gives a thread asking for every CPU the ones its cpuset allows
 * (and are online), and says which: asked in a thread of its own, so kiln's
 * own affinity (taskset, or the housekeeping CPUs isolcpus leaves it) is
 * neither the answer nor changed.
 */
static void *allowed_probe(void *arg)
{
	cpu_set_t all, *got = arg;
	CPU_ZERO(&all);
	for (int i = 0; i < CPU_SETSIZE; i++)
		CPU_SET(i, &all);
	if (sched_setaffinity(0, sizeof(all), &all) < 0 || sched_getaffinity(0, sizeof(*got), got) < 0)
		CPU_ZERO(got);
	return NULL;
}

int exec_allowed_cpus(cpu_set_t *set)
{
	pthread_t t;
	CPU_ZERO(set);
	if (pthread_create(&t, NULL, allowed_probe, set))
		return -1;
	pthread_join(t, NULL);
	return CPU_COUNT(set) ? 0 : -1;
}

/*
 * Signals the child must have reset: execve() resets handled signals by
 * itself, but ignored ones (kiln's SIGPIPE, a SIGHUP ignored by nohup) would
 * be inherited by the benchmark.  Found once, so the child makes one system
 * call per such signal instead of one per signal.
 */
static int ignored_sigs[NSIG], nignored = -1;

/*
 * The kernel's own sigaction, through the raw system call: glibc's
 * sigaction() refuses the signals it reserves (32, 33), which a sanitizer
 * runtime or a parent may still have left ignored.
 */
struct ksigaction {
	void (*handler)(int);
	unsigned long flags;
	void (*restorer)(void);
	unsigned long mask;
};

static int ksigaction(int sig, const struct ksigaction *act, struct ksigaction *old)
{
	return (int)syscall(SYS_rt_sigaction, sig, act, old, sizeof(unsigned long));
}

void exec_signals_changed(void)
{
	nignored = -1;
}

static void find_ignored(void)
{
	nignored = 0;
	for (int s = 1; s < NSIG; s++) {
		struct ksigaction ka;
		if (s != SIGKILL && s != SIGSTOP && ksigaction(s, NULL, &ka) == 0 && ka.handler == SIG_IGN)
			ignored_sigs[nignored++] = s;
	}
}

/*
 * Close every descriptor above the ones the child is given (0-2 and the
 * result fd): nothing kiln has open, nor anything kiln's caller left open
 * (`kiln run 9</etc/shadow`), reaches the benchmark.  The exec-error pipe
 * (fork builds) stays: it is close-on-exec.
 */
int exec_close_inherited(int first, int keep)
{
	if (keep >= first) {
		if (keep > first && close_range((unsigned)first, (unsigned)keep - 1, 0) < 0)
			return -1;
		first = keep + 1;
	}
	return close_range((unsigned)first, ~0U, 0);
}

/* the child's OOM score: open, write, close (system calls only) */
static int write_oom_adj(int adj)
{
	char buf[16];
	int n = 0, neg = adj < 0;
	unsigned v = neg ? (unsigned)-adj : (unsigned)adj;
	char tmp[12];
	do
		tmp[n++] = (char)('0' + v % 10);
	while ((v /= 10) && n < 11);
	int k = 0;
	if (neg)
		buf[k++] = '-';
	while (n)
		buf[k++] = tmp[--n];
	int fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t w = write(fd, buf, (size_t)k);
	close(fd);
	return w == k ? 0 : -1;
}

/*
 * The child's first steps: its own process group (the group kiln kills),
 * no signal blocked, and the default action for every signal kiln found
 * ignored (an ignored signal stays ignored across execve).  A child that
 * becomes another user gets a session of its own too, and so no
 * controlling terminal: in kiln's session it could open /dev/tty, the
 * terminal of whoever started kiln, read what they type and push input
 * into it (TIOCSTI) that root's shell runs once kiln exits.  -1 only when
 * setsid fails.
 */
static int child_signals(int own_session)
{
	if (own_session) {
		if (setsid() < 0)
			return -1;
	} else {
		setpgid(0, 0);
	}
	sigset_t all;
	sigemptyset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
	struct ksigaction dfl = { SIG_DFL, 0, NULL, 0 };
	for (int i = 0; i < nignored; i++)
		ksigaction(ignored_sigs[i], &dfl, NULL);
	return 0;
}

/* stdin (a given fd, stdin_path or /dev/null), then stdout and stderr: the capture pipes or the given fds */
static int child_stdio(const struct exec_opts *o, int out_w, int err_w)
{
	const int *given = o->use_std_fds ? o->std_fds : NULL;
	int in = given && given[0] >= 0 ? given[0]
		 : o->stdin_path || null_fd < 0 ? open(o->stdin_path ? o->stdin_path : "/dev/null", O_RDONLY)
						 : null_fd;
	if (in < 0 || dup2(in, 0) < 0)
		return -1;
	if ((out_w >= 0 && dup2(out_w, 1) < 0) || (err_w >= 0 && dup2(err_w, 2) < 0))
		return -1;
	if (given && ((given[1] >= 0 && dup2(given[1], 1) < 0) || (given[2] >= 0 && dup2(given[2], 2) < 0)))
		return -1;
	return 0;
}

/* the result pipe at result_fd, kept open across execve */
static int child_result_fd(const struct exec_opts *o, int res_w)
{
	if (res_w == o->result_fd)
		return fcntl(res_w, F_SETFD, 0) < 0 ? -1 : 0;
	return dup2(res_w, o->result_fd) < 0 ? -1 : 0;
}

/* the limits asked for (0: unchanged), soft and hard alike so the benchmark cannot raise them */
static int child_rlimits(const struct exec_opts *o)
{
	struct rlimit rl;
	if (o->rlimit_as_mb > 0) {
		rl.rlim_cur = rl.rlim_max = (rlim_t)o->rlimit_as_mb << 20;
		if (setrlimit(RLIMIT_AS, &rl) < 0)
			return -1;
	}
	if (o->rlimit_stack_mb > 0) {
		rl.rlim_cur = rl.rlim_max = (rlim_t)o->rlimit_stack_mb << 20;
		if (setrlimit(RLIMIT_STACK, &rl) < 0)
			return -1;
	}
	if (o->rlimit_nproc > 0) {
		rl.rlim_cur = rl.rlim_max = (rlim_t)o->rlimit_nproc;
		if (setrlimit(RLIMIT_NPROC, &rl) < 0)
			return -1;
	}
	if (o->rlimit_fsize_mb > 0) {
		rl.rlim_cur = rl.rlim_max = (rlim_t)o->rlimit_fsize_mb << 20;
		if (setrlimit(RLIMIT_FSIZE, &rl) < 0)
			return -1;
	}
	return 0;
}

/* ASLR off (aslr 0) or on (1) in the personality execve keeps */
static int child_aslr(int aslr)
{
	int p = personality(0xffffffff);
	if (p < 0)
		return -1;
	p = aslr == 0 ? (p | ADDR_NO_RANDOMIZE) : (p & ~ADDR_NO_RANDOMIZE);
	return personality((unsigned long)p) < 0 ? -1 : 0;
}

/*
 * The child, between fork and execve: system calls only (after vfork it
 * runs in kiln's memory, so no malloc, no stdio).  The order is kept: the
 * OOM score and the namespaces joined (which may need kiln's privileges)
 * before the user is changed, the parent-death signal after it (the uid
 * change clears it).  A step that fails reaches the parent as errno and
 * the step's number (step_name).
 */
static KILN_NORETURN void child(const struct exec_opts *o, const char *prog, int out_w, int err_w,
				int res_w, int errpipe, volatile int *errmem, const cpu_set_t *cpus, pid_t parent)
{
	int step = 15;
	if (child_signals(o->set_user) < 0)
		goto fail;
	step = 1;
	if (child_stdio(o, out_w, err_w) < 0)
		goto fail;
	step = 2;
	if (res_w >= 0 && child_result_fd(o, res_w) < 0)
		goto fail;
	step = 3;
	if (child_rlimits(o) < 0)
		goto fail;
	step = 12;
	if (o->set_oom && write_oom_adj(o->oom_score_adj) < 0)
		goto fail;
	step = 13;
	for (const int *ns = o->join_ns; ns && *ns >= 0; ns++)
		if (setns(*ns, 0) < 0)
			goto fail;
	step = 4;
	if (o->aslr >= 0 && child_aslr(o->aslr) < 0)
		goto fail;
	step = 5;
	if (cpus && sched_setaffinity(0, sizeof(*cpus), cpus) < 0)
		goto fail;
	step = 6;
	if (o->set_nice && setpriority(PRIO_PROCESS, 0, o->nice) < 0)
		goto fail;
	step = 7;
	if (o->set_user) {
		if (setgroups(0, NULL) < 0 || setgid(o->gid) < 0 || setuid(o->uid) < 0)
			goto fail;
		/*
		 * no setuid or file-capability program gives the benchmark user
		 * more: a setuid helper (crontab, at, fusermount) could start
		 * processes outside the pexec's tree that outlive it
		 */
		step = 14;
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
			goto fail;
		/* not kiln's session keyring, which it would possess (privsep-keys.c) */
		step = 16;
		if (isolate_own_keyring() < 0)
			goto fail;
	}
	/* dies with kiln (set after the uid change, which clears it) */
	step = 8;
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
		goto fail;
	step = 9;
	if (o->cwd && chdir(o->cwd) < 0)
		goto fail;
	step = 10;
	if (exec_close_inherited(res_w >= 0 ? o->result_fd + 1 : 3, errpipe) < 0)
		goto fail;
	step = 11;
	static char *empty[] = { NULL };
	execve(prog, o->argv, o->envp ? o->envp : empty);
fail:;
	int msg[2] = { errno, step };
	if (errmem) { /* vfork: the parent's memory, read once the child is gone */
		errmem[0] = msg[0];
		errmem[1] = msg[1];
	} else {
		ssize_t w = write(errpipe, msg, sizeof(msg));
		(void)w;
	}
	_exit(127);
}

static const char *step_name(int step)
{
	static const char *names[] = { "setup", "stdin", "result fd", "rlimit", "personality",
				       "cpu affinity", "nice", "user", "parent-death signal", "cwd",
				       "closing descriptors", "exec", "oom_score_adj", "joining the pexec's machine (setns)",
				       "no new privileges (PR_SET_NO_NEW_PRIVS)", "a session of its own (setsid)",
				       "a session keyring of its own" };
	return step >= 0 && step < (int)ARRAY_SIZE(names) ? names[step] : "?";
}

/* SIGKILL every pid listed in fd's "children" text but except; 1 when it named any, 0 none, -1 unreadable */
static int kill_listed(int fd, pid_t except)
{
	char buf[4096];
	size_t have = 0;
	int any = 0;
	for (;;) {
		ssize_t n = read(fd, buf + have, sizeof(buf) - 1 - have);
		if (n < 0)
			return any ? 1 : -1;
		have += (size_t)n;
		buf[have] = '\0';
		/* every whole number in the buffer; a number cut by its end waits for the next read */
		char *p = buf, *end;
		for (;;) {
			long pid = strtol(p, &end, 10);
			if (end == p || (n > 0 && *end == '\0'))
				break;
			p = end;
			if (pid > 0 && pid != except) {
				kill((pid_t)pid, SIGKILL);
				any = 1;
			}
		}
		if (n == 0)
			return any;
		have = (size_t)(buf + have - p);
		memmove(buf, p, have);
	}
}

/*
 * Kill and reap every process re-parented to us: descendants that escaped
 * the process group.  As a subreaper kiln inherits them, so they are in
 * /proc/self/task/<tid>/children (a small read, not a scan of /proc).
 * Killing one level of a chain re-parents the next to kiln, so it goes on
 * until none is left, bounded by time (5 s), not by a number of rounds
 * that a deeper chain (setsid in a loop) would outlast.
 */
static void reap_orphans(pid_t except)
{
	static char path[64];
	if (!path[0])
		snprintf(path, sizeof(path), "/proc/self/task/%d/children", (int)getpid());
	int64_t until = mono_ns() + 5000000000LL;
	do {
		int found = 0;
		pid_t w;
		while ((w = waitpid(-1, NULL, WNOHANG)) > 0)
			found = 1;
		if (w < 0 && errno == ECHILD) /* no child left at all: nothing escaped */
			return;
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return;
		int k = kill_listed(fd, except);
		close(fd);
		if (!found && k <= 0)
			return;
		usleep(1000);
	} while (mono_ns() < until);
}

static int pidfd_open_(pid_t pid)
{
#ifdef SYS_pidfd_open
	return (int)syscall(SYS_pidfd_open, pid, 0);
#else
	errno = ENOSYS;
	return -1;
#endif
}

/*
 * Sanitizer runtimes do not follow a vfork child, so those builds fork and
 * learn of a failed execve through a CLOEXEC pipe; others vfork, and the
 * child reports through kiln's own memory, read once it has exec'd.
 */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define USE_FORK 1
#else
#define USE_FORK 0
#endif

/* one process being run: its pipes, its captures, its clocks */
struct xstate {
	const struct exec_opts *o;
	struct exec_result *r;
	int outp[2], errp[2], resp[2], ep[2];
	struct capture co, ce;
	pid_t pid;
	int pfd;                  /* readable once the child may have exited (SIGCHLD's signalfd, or a pidfd); -1: none (poll the child) */
	int64_t deadline, kill_at, drain_until;
	int64_t look_until;       /* a pipe ended before the child did: look again without sleeping until then */
	int exited, wstatus;
	struct rusage ru;
};

static int x_pipes(struct xstate *x, struct kerr *e)
{
	const struct exec_opts *o = x->o;
	int given_out = o->use_std_fds && o->std_fds[1] >= 0, given_err = o->use_std_fds && o->std_fds[2] >= 0;
	if ((USE_FORK && pipe2(x->ep, O_CLOEXEC) < 0) ||
	    (!o->no_capture && ((!given_out && pipe2(x->outp, O_CLOEXEC) < 0) ||
				(!given_err && pipe2(x->errp, O_CLOEXEC) < 0))) ||
	    (o->result_fd && pipe2(x->resp, O_CLOEXEC) < 0))
		return kerr_set(e, "pipe: %s", strerror(errno));
	/*
	 * A child that runs as platform.user may reopen its ends by name
	 * (/dev/stderr, /dev/fd/N: the Lua runners, shell scripts), which
	 * checks the pipe's owner: pipes kiln made as root are the user's to
	 * write, not to reopen.  They are the user's own output anyway.
	 */
	if (o->set_user) {
		int ends[] = { x->outp[1], x->errp[1], x->resp[1] };
		for (size_t i = 0; i < ARRAY_SIZE(ends); i++)
			if (ends[i] >= 0 && fchown(ends[i], o->uid, o->gid) < 0)
				return kerr_set(e, "pipe: giving it to uid %ld: %s", (long)o->uid, strerror(errno));
	}
	return 0;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/*
 * Start the child and learn whether execve worked.  vfork: the child
 * borrows kiln's memory until execve, so starting a pexec costs no
 * page-table copy; child() makes only system calls.
 */
static int x_spawn(struct xstate *x, const char *prog, const cpu_set_t *cpus, struct kerr *e)
{
	const struct exec_opts *o = x->o;
	struct exec_result *r = x->r;
	volatile int errmem[2] = { 0, 0 };
	pid_t parent = getpid();
	if (nignored < 0)
		find_ignored();
	exec_continued = 0;
	r->start_ns = mono_ns();
	pid_t pid = USE_FORK ? fork() : vfork();
	if (pid < 0)
		return kerr_set(e, "fork: %s", strerror(errno));
	if (pid == 0)
		child(o, prog, x->outp[1], x->errp[1], x->resp[1], x->ep[1], USE_FORK ? NULL : errmem, cpus, parent);
	x->pid = r->pid = pid;
	if (USE_FORK && !o->set_user)
		setpgid(pid, pid); /* after fork the parent may run first; after vfork the child has exec'd */
	close_fd(&x->ep[1]);
	close_fd(&x->outp[1]);
	close_fd(&x->errp[1]);
	close_fd(&x->resp[1]);
	int msg[2] = { errmem[0], errmem[1] };
	ssize_t n = msg[0] ? (ssize_t)sizeof(msg) : 0;
	if (USE_FORK) {
		do
			n = read(x->ep[0], msg, sizeof(msg));
		while (n < 0 && errno == EINTR);
	}
	if (n != (ssize_t)sizeof(msg))
		return 0;
	r->spawn_errno = msg[0];
	waitpid(pid, NULL, 0);
	r->end_ns = mono_ns();
	cap_finish(&x->co, &r->out, &r->out_bytes);
	cap_finish(&x->ce, &r->err, &r->err_bytes);
	return kerr_set(e, "cannot run %s (%s): %s", o->argv[0], step_name(msg[1]), strerror(msg[0]));
}

/* the ASLR policy verified: the child's personality, read back after exec */
static int read_personality(pid_t pid)
{
	char path[64], buf[32];
	snprintf(path, sizeof(path), "/proc/%d/personality", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC), p = -1;
	if (fd < 0)
		return -1;
	ssize_t k = read(fd, buf, sizeof(buf) - 1);
	if (k > 0) {
		buf[k] = '\0';
		p = (int)strtol(buf, NULL, 16);
	}
	close(fd);
	return p;
}

static int own_personality(void)
{
	static int p = -2;
	if (p == -2)
		p = personality(0xffffffff);
	return p;
}

static void x_kill(struct xstate *x, int sig, int64_t next_ns)
{
	kill(-x->pid, sig);
	x->kill_at = mono_ns() + next_ns;
}

/* before each poll: the timeout's SIGTERM, SIGKILL 2 s later, an interrupt; how long to wait */
static int x_wait_ms(struct xstate *x)
{
	int64_t now = mono_ns();
	if (x->exited)
		return now >= x->drain_until ? -2 : (int)((x->drain_until - now) / 1000000) + 1;
	if (x->deadline && !x->kill_at && now >= x->deadline) {
		x->r->timed_out = 1;
		x_kill(x, SIGTERM, 2000000000LL);
	}
	if (x->kill_at && now >= x->kill_at)
		x_kill(x, SIGKILL, 1000000000LL);
	if (exec_interrupted > x->o->survives && !x->kill_at)
		x_kill(x, SIGKILL, 1000000000LL);
	int64_t next = x->kill_at ? x->kill_at : x->deadline;
	int ms = next ? (int)((next - now) / 1000000) + 1 : -1;
	if (x->pfd < 0) /* no pidfd: poll the child */
		ms = ms < 0 || ms > 10 ? 10 : ms;
	return ms;
}

/*
 * A pipe at its end while the child has not been reaped: the child is
 * almost always exiting, microseconds from being a zombie (its files close
 * before its parent is told).  Waiting for that in poll() slept and woke
 * once more per pipe (2.3 polls a pexec, counted), and a CPU woken from
 * idle costs tens of microseconds on a virtual machine; so kiln looks
 * again, yielding the CPU between looks, for at most this long, then
 * sleeps as before.  The benchmark is no longer writing anything then.
 */
#define EXIT_LOOK_NS 200000LL

/* one chunk from a ready pipe: into its capture or the stream callback */
static void x_read(struct xstate *x, int k, char *buf, size_t bufsz)
{
	int *fdp[3] = { &x->outp[0], &x->errp[0], &x->resp[0] };
	const struct exec_opts *o = x->o;
	ssize_t n = read(*fdp[k], buf, bufsz);
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n <= 0) {
		close_fd(fdp[k]);
		if (!x->exited && !x->look_until)
			x->look_until = mono_ns() + EXIT_LOOK_NS;
		return;
	}
	if (k < 2 && o->on_output && o->output_fd == k + 1 && !x->r->output_error &&
	    o->on_output(o->output_ctx, buf, (size_t)n)) {
		x->r->output_error = 1; /* what it read is bad beyond repair: the child ends */
		if (!x->exited)
			x_kill(x, SIGKILL, 1000000000LL);
	}
	if (k == 0)
		cap_add(&x->co, buf, (size_t)n);
	else if (k == 1)
		cap_add(&x->ce, buf, (size_t)n);
	else if (o->on_stream && !x->r->stream_error && o->on_stream(o->stream_ctx, buf, (size_t)n)) {
		/* the stream is bad beyond repair: stop reading it, end the child */
		x->r->stream_error = 1;
		if (!x->exited)
			x_kill(x, SIGKILL, 1000000000LL);
	}
}

/* the child exited: what is left of its group and escaped descendants go now */
static void x_reaped(struct xstate *x)
{
	x->exited = 1;
	x->r->end_ns = mono_ns();
	if (x->o->on_end)
		x->o->on_end(x->o->end_ctx, x->pid);
	kill(-x->pid, SIGKILL);
	reap_orphans(x->pid);
	x->drain_until = mono_ns() + 500000000LL;
}

/* drain the pipes and wait for the child, within the deadlines */
static int x_loop(struct xstate *x, struct kerr *e)
{
	char buf[65536];
	for (;;) {
		struct pollfd pf[4];
		int np = 0, idx[3] = { -1, -1, -1 }, ipid = -1;
		int fds[3] = { x->outp[0], x->errp[0], x->resp[0] };
		for (int k = 0; k < 3; k++)
			if (fds[k] >= 0)
				pf[idx[k] = np++] = (struct pollfd){ fds[k], POLLIN, 0 };
		if (!x->exited && x->pfd >= 0)
			pf[ipid = np++] = (struct pollfd){ x->pfd, POLLIN, 0 };
		if (x->exited && np == 0)
			return 0;
		int ms = x_wait_ms(x);
		if (ms == -2)
			return 0;
		if (!x->exited && x->look_until && ms != 0 && mono_ns() < x->look_until) {
			sched_yield();
			ms = 0;
		}
		int pr = poll(pf, (nfds_t)np, ms);
		if (pr < 0 && errno != EINTR) {
			kill(-x->pid, SIGKILL);
			return kerr_set(e, "poll: %s", strerror(errno));
		}
		if (exec_interrupted > x->o->survives && !x->exited && !x->kill_at)
			x_kill(x, SIGKILL, 1000000000LL);
		for (int k = 0; k < 3 && pr > 0; k++)
			if (idx[k] >= 0 && (pf[idx[k]].revents & (POLLIN | POLLHUP | POLLERR)))
				x_read(x, k, buf, sizeof(buf));
		int woken = ipid >= 0 && pr > 0 && (pf[ipid].revents & POLLIN);
		if (woken && x->pfd == chld_fd)
			chld_drain(); /* a SIGCHLD: this child's, or another's (an orphan, an earlier step) */
		if (!x->exited && (x->pfd < 0 || woken) && wait4(x->pid, &x->wstatus, WNOHANG, &x->ru) == x->pid)
			x_reaped(x);
	}
}

/* the child is gone: its status, times and captures */
static void x_finish(struct xstate *x)
{
	struct exec_result *r = x->r;
	if (!x->exited) { /* poll failed: make sure the child is gone */
		kill(-x->pid, SIGKILL);
		wait4(x->pid, &x->wstatus, 0, &x->ru);
		r->end_ns = mono_ns();
		reap_orphans(x->pid);
	}
	if (WIFEXITED(x->wstatus)) {
		r->exited = 1;
		r->status = WEXITSTATUS(x->wstatus);
	} else if (WIFSIGNALED(x->wstatus)) {
		r->signal = WTERMSIG(x->wstatus);
	}
	r->user_s = (double)x->ru.ru_utime.tv_sec + x->ru.ru_utime.tv_usec / 1e6;
	r->sys_s = (double)x->ru.ru_stime.tv_sec + x->ru.ru_stime.tv_usec / 1e6;
	r->maxrss_kb = x->ru.ru_maxrss;
	cap_finish(&x->co, &r->out, &r->out_bytes);
	cap_finish(&x->ce, &r->err, &r->err_bytes);
}

/* the options checked and the child started, watched from here on (x->pid); -1 with e set: nothing runs */
static int x_begin(struct xstate *x, const struct exec_opts *o, struct exec_result *r, struct kerr *e)
{
	memset(r, 0, sizeof(*r));
	r->personality = -1;
	exec_fds();
	memset(x, 0, sizeof(*x));
	x->o = o;
	x->r = r;
	x->pfd = -1;
	for (int k = 0; k < 2; k++)
		x->outp[k] = x->errp[k] = x->resp[k] = x->ep[k] = -1;
	char *prog = o->search ? find_in_path(o->argv[0]) : xstrdup(o->argv[0]);
	cpu_set_t cpus;
	int rc = -1;
	if (!prog)
		return kerr_set(e, "%s: command not found", o->argv[0]);
	if (o->cpus && exec_parse_cpus(o->cpus, &cpus) < 0) {
		kerr_setc(e, KEXIT_CONFIG, "bad CPU list '%s'", o->cpus);
		goto out;
	}
	if (o->result_fd && o->result_fd < 3) {
		kerr_set(e, "result fd must be 3 or above");
		goto out;
	}
	for (int k = 0; o->use_std_fds && k < 3; k++)
		if (o->std_fds[k] >= 0 && o->std_fds[k] < 3) {
			kerr_set(e, "a descriptor for the child's fd %d must be 3 or above", k);
			goto out;
		}
	size_t cap = o->capture_bytes ? o->capture_bytes : 65536;
	cap_init(&x->co, cap);
	cap_init(&x->ce, cap);
	if (x_pipes(x, e) < 0 || x_spawn(x, prog, o->cpus ? &cpus : NULL, e) < 0)
		goto out;
	/* with a policy, read back; without, the child has kiln's own (execve keeps it) */
	r->personality = o->aslr >= 0 ? read_personality(x->pid) : own_personality();
	if (o->on_start)
		o->on_start(o->start_ctx, x->pid);
	x->pfd = chld_fd >= 0 ? chld_fd : pidfd_open_(x->pid);
	x->deadline = o->timeout_s > 0 ? r->start_ns + (int64_t)(o->timeout_s * 1e9) : 0;
	rc = 0;
out:
	free(prog);
	return rc;
}

/* what x_begin opened, closed */
static void x_close(struct xstate *x)
{
	if (x->pfd >= 0 && x->pfd != chld_fd)
		close(x->pfd);
	x->pfd = -1;
	for (int k = 0; k < 2; k++) {
		close_fd(&x->outp[k]);
		close_fd(&x->errp[k]);
		close_fd(&x->resp[k]);
		close_fd(&x->ep[k]);
	}
}

int exec_run(const struct exec_opts *o, struct exec_result *r, struct kerr *e)
{
	struct xstate x;
	int rc = -1;
	if (x_begin(&x, o, r, e) == 0) {
		rc = x_loop(&x, e) < 0 ? -1 : 0;
		x_finish(&x);
	}
	x_close(&x);
	return rc;
}

void exec_result_release(struct exec_result *r)
{
	sb_release(&r->out);
	sb_release(&r->err);
}

void exec_opts_plain(struct exec_opts *o, char **argv, char **envp, double timeout_s)
{
	memset(o, 0, sizeof(*o));
	o->argv = argv;
	o->envp = envp;
	o->timeout_s = timeout_s;
	o->aslr = -1;
}

int exec_simple(char *const argv[], double timeout_s, struct exec_result *r, struct kerr *e)
{
	extern char **environ;
	struct exec_opts o;
	exec_opts_plain(&o, (char **)argv, environ, timeout_s);
	o.search = 1;
	return exec_run(&o, r, e);
}

/*
 * ---- two processes at once (a duet: kiln compare --duet) ----
 *
 * Each process is watched as exec_run watches one (its pipes, its
 * deadline, its group killed when it ends), in one poll loop.  One thing
 * waits: the descendants that escaped a process's group are looked for
 * (reap_orphans: any child of kiln but the one given) only once both have
 * ended, since the other is a child of kiln too and may not be disturbed.
 */

/* the child reaped: its group ends now, its escaped descendants with the other's */
static void x_reaped_one(struct xstate *x)
{
	x->exited = 1;
	x->r->end_ns = mono_ns();
	if (x->o->on_end)
		x->o->on_end(x->o->end_ctx, x->pid);
	kill(-x->pid, SIGKILL);
	x->drain_until = mono_ns() + 500000000LL;
}

/* is x over: reaped, and its pipes drained (or the time to drain them over)? */
static int x_over(struct xstate *x)
{
	int open = x->outp[0] >= 0 || x->errp[0] >= 0 || x->resp[0] >= 0;
	return x->exited && (!open || mono_ns() >= x->drain_until);
}

/* poll's timeout for both: the sooner of their deadlines, 0 while one looks again for its exit */
static int pair_wait_ms(struct xstate *xs, int n)
{
	int ms = -1;
	for (int i = 0; i < n; i++) {
		struct xstate *x = &xs[i];
		if (x_over(x))
			continue;
		int m = x_wait_ms(x);
		if (m == -2)
			continue;
		if (!x->exited && x->look_until && m != 0 && mono_ns() < x->look_until) {
			sched_yield();
			m = 0;
		}
		ms = ms < 0 || (m >= 0 && m < ms) ? m : ms;
	}
	return ms;
}

static int x_loop_pair(struct xstate *xs, int n, struct kerr *e)
{
	char buf[65536];
	for (;;) {
		struct pollfd pf[8];
		int np = 0, idx[2][3], ipid[2] = { -1, -1 }, live = 0;
		for (int i = 0; i < n; i++) {
			struct xstate *x = &xs[i];
			int fds[3] = { x->outp[0], x->errp[0], x->resp[0] };
			int over = x_over(x);
			live += !over;
			for (int k = 0; k < 3; k++)
				idx[i][k] = !over && fds[k] >= 0 ? np : -1, np += !over && fds[k] >= 0;
			for (int k = 0; k < 3; k++)
				if (idx[i][k] >= 0)
					pf[idx[i][k]] = (struct pollfd){ fds[k], POLLIN, 0 };
			int shared = i > 0 && xs[0].pfd == x->pfd && ipid[0] >= 0;
			if (!x->exited && x->pfd >= 0 && !shared)
				pf[ipid[i] = np++] = (struct pollfd){ x->pfd, POLLIN, 0 };
			else if (shared)
				ipid[i] = ipid[0];
		}
		if (!live)
			return 0;
		int ms = pair_wait_ms(xs, n);
		int pr = poll(pf, (nfds_t)np, ms);
		if (pr < 0 && errno != EINTR) {
			for (int i = 0; i < n; i++)
				if (!xs[i].exited)
					kill(-xs[i].pid, SIGKILL);
			return kerr_set(e, "poll: %s", strerror(errno));
		}
		int drained = 0;
		for (int i = 0; i < n; i++) {
			struct xstate *x = &xs[i];
			if (exec_interrupted > x->o->survives && !x->exited && !x->kill_at)
				x_kill(x, SIGKILL, 1000000000LL);
			for (int k = 0; k < 3 && pr > 0; k++)
				if (idx[i][k] >= 0 && (pf[idx[i][k]].revents & (POLLIN | POLLHUP | POLLERR)))
					x_read(x, k, buf, sizeof(buf));
			int woken = ipid[i] >= 0 && pr > 0 && (pf[ipid[i]].revents & POLLIN);
			if (woken && x->pfd == chld_fd && !drained++)
				chld_drain();
			if (!x->exited && (x->pfd < 0 || woken || x->look_until) &&
			    wait4(x->pid, &x->wstatus, WNOHANG, &x->ru) == x->pid)
				x_reaped_one(x);
		}
	}
}

int exec_run_pair(const struct exec_opts *const o[2], struct exec_result *const r[2], struct kerr *e)
{
	struct xstate xs[2];
	int rc = -1, started = 0;
	memset(xs, 0, sizeof(xs));
	for (int i = 0; i < 2; i++)
		for (int k = 0; k < 2; k++)
			xs[i].outp[k] = xs[i].errp[k] = xs[i].resp[k] = xs[i].ep[k] = -1, xs[i].pfd = -1;
	while (started < 2 && x_begin(&xs[started], o[started], r[started], e) == 0)
		started++;
	if (started == 2)
		rc = x_loop_pair(xs, 2, e) < 0 ? -1 : 0;
	else if (started == 1)
		x_kill(&xs[0], SIGKILL, 0); /* the second could not start: the first is not measured alone */
	for (int i = 0; i < started; i++)
		x_finish(&xs[i]);
	reap_orphans(0);
	for (int i = 0; i < 2; i++)
		x_close(&xs[i]);
	return rc;
}
