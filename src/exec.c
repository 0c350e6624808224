/*
 * exec.c - the process module (see exec.h): every process kiln starts goes
 * through exec_run().
 *
 * Parent side: pipes for stdout, stderr and the result stream, a CLOEXEC
 * "exec error" pipe that tells a failed execve from a program that ran, a
 * pidfd to learn of the child's exit inside the same poll() loop that
 * drains the pipes, and a deadline.  Child side: only system calls between
 * fork and execve (new process group, signals reset, fds moved, rlimits,
 * personality, affinity, nice, user).
 *
 * Ending a pexec: when the child exits or times out, whatever is left of its
 * process group is killed, and, because kiln is a child subreaper, any
 * descendant that escaped the group (setsid, double fork) has been
 * re-parented to kiln: those are found in /proc by their parent pid, killed
 * and reaped.  Output is drained for a bounded time afterwards, so a
 * grandchild holding a pipe open cannot hang kiln.
 */
#include "exec.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/resource.h>
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

static int parse_cpus(const char *s, cpu_set_t *set)
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
static int close_inherited(int first, int keep)
{
	if (keep >= first) {
		if (keep > first && close_range((unsigned)first, (unsigned)keep - 1, 0) < 0)
			return -1;
		first = keep + 1;
	}
	return close_range((unsigned)first, ~0U, 0);
}

/* the child, between fork and execve: system calls only */
static KILN_NORETURN void child(const struct exec_opts *o, const char *prog, int out_w, int err_w,
				int res_w, int errpipe, volatile int *errmem, const cpu_set_t *cpus, pid_t parent)
{
	int step = 0;
	setpgid(0, 0);
	sigset_t all;
	sigemptyset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
	struct ksigaction dfl = { SIG_DFL, 0, NULL, 0 };
	for (int i = 0; i < nignored; i++)
		ksigaction(ignored_sigs[i], &dfl, NULL);

	int in = open(o->stdin_path ? o->stdin_path : "/dev/null", O_RDONLY);
	step = 1;
	if (in < 0 || dup2(in, 0) < 0)
		goto fail;
	if (!o->no_capture) {
		if (dup2(out_w, 1) < 0 || dup2(err_w, 2) < 0)
			goto fail;
	}
	if (res_w >= 0) {
		step = 2;
		if (res_w == o->result_fd) {
			if (fcntl(res_w, F_SETFD, 0) < 0)
				goto fail;
		} else if (dup2(res_w, o->result_fd) < 0) {
			goto fail;
		}
	}
	struct rlimit rl;
	step = 3;
	if (o->rlimit_as_mb > 0) {
		rl.rlim_cur = rl.rlim_max = (rlim_t)o->rlimit_as_mb << 20;
		if (setrlimit(RLIMIT_AS, &rl) < 0)
			goto fail;
	}
	if (o->rlimit_stack_mb > 0) {
		rl.rlim_cur = rl.rlim_max = (rlim_t)o->rlimit_stack_mb << 20;
		if (setrlimit(RLIMIT_STACK, &rl) < 0)
			goto fail;
	}
	step = 4;
	if (o->aslr >= 0) {
		int p = personality(0xffffffff);
		if (p < 0)
			goto fail;
		p = o->aslr == 0 ? (p | ADDR_NO_RANDOMIZE) : (p & ~ADDR_NO_RANDOMIZE);
		if (personality((unsigned long)p) < 0)
			goto fail;
	}
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
	}
	/* dies with kiln (set after the uid change, which clears it) */
	step = 8;
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
		goto fail;
	step = 9;
	if (o->cwd && chdir(o->cwd) < 0)
		goto fail;
	step = 10;
	if (close_inherited(res_w >= 0 ? o->result_fd + 1 : 3, errpipe) < 0)
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
				       "closing descriptors", "exec" };
	return step >= 0 && step < (int)ARRAY_SIZE(names) ? names[step] : "?";
}

/*
 * Kill and reap every process re-parented to us: descendants that escaped
 * the process group.  As a subreaper kiln inherits them, so they are in
 * /proc/self/task/<tid>/children (one small read, not a scan of /proc).
 */
static void reap_orphans(pid_t except)
{
	static char path[64];
	if (!path[0])
		snprintf(path, sizeof(path), "/proc/self/task/%d/children", (int)getpid());
	for (int round = 0; round < 50; round++) {
		int found = 0;
		pid_t w;
		while ((w = waitpid(-1, NULL, WNOHANG)) > 0)
			found = 1;
		if (w < 0 && errno == ECHILD) /* no child left at all: nothing escaped */
			return;
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return;
		char buf[4096];
		ssize_t n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n > 0) {
			buf[n] = '\0';
			char *p = buf, *end;
			for (;;) {
				long pid = strtol(p, &end, 10);
				if (end == p)
					break;
				p = end;
				if (pid > 0 && pid != except) {
					kill((pid_t)pid, SIGKILL);
					found = 1;
				}
			}
		}
		if (!found)
			return;
		usleep(1000);
	}
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

int exec_run(const struct exec_opts *o, struct exec_result *r, struct kerr *e)
{
	memset(r, 0, sizeof(*r));
	r->personality = -1;
	int outp[2] = { -1, -1 }, errp[2] = { -1, -1 }, resp[2] = { -1, -1 }, ep[2] = { -1, -1 };
	char *prog = o->search ? find_in_path(o->argv[0]) : xstrdup(o->argv[0]);
	cpu_set_t cpus;
	int rc = -1;

	if (!prog)
		return kerr_set(e, "%s: command not found", o->argv[0]);
	if (o->cpus && parse_cpus(o->cpus, &cpus) < 0) {
		free(prog);
		return kerr_setc(e, KEXIT_CONFIG, "bad CPU list '%s'", o->cpus);
	}
	if (o->result_fd && o->result_fd < 3) {
		free(prog);
		return kerr_set(e, "result fd must be 3 or above");
	}
	/*
	 * How the child tells a failed execve from a program that ran: under
	 * vfork it writes errno into `errmem` (kiln's own memory, which it
	 * borrows, read after the child has exec'd or exited); under fork a
	 * CLOEXEC pipe that execve closes.
	 */
	volatile int errmem[2] = { 0, 0 };
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
	int use_errpipe = 1;
#else
	int use_errpipe = 0;
#endif
	if ((use_errpipe && pipe2(ep, O_CLOEXEC) < 0) ||
	    (!o->no_capture && (pipe2(outp, O_CLOEXEC) < 0 || pipe2(errp, O_CLOEXEC) < 0)) ||
	    (o->result_fd && pipe2(resp, O_CLOEXEC) < 0)) {
		kerr_set(e, "pipe: %s", strerror(errno));
		goto out;
	}
	size_t cap = o->capture_bytes ? o->capture_bytes : 65536;
	struct capture co, ce;
	cap_init(&co, cap);
	cap_init(&ce, cap);

	if (nignored < 0)
		find_ignored();
	pid_t parent = getpid();
	exec_continued = 0;
	r->start_ns = mono_ns();
	/*
	 * vfork: the child borrows kiln's memory until execve, so starting a
	 * pexec costs no page-table copy; child() makes only system calls.
	 * Sanitizer runtimes do not follow a vfork child, so those builds fork.
	 */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
	pid_t pid = fork();
#else
	pid_t pid = vfork();
#endif
	if (pid < 0) {
		kerr_set(e, "fork: %s", strerror(errno));
		goto out;
	}
	if (pid == 0)
		child(o, prog, outp[1], errp[1], resp[1], ep[1], use_errpipe ? NULL : errmem, o->cpus ? &cpus : NULL,
		      parent);
	r->pid = pid;
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
	setpgid(pid, pid); /* after fork the parent may run first; after vfork the child has exec'd */
#endif
	if (ep[1] >= 0)
		close(ep[1]), ep[1] = -1;
	if (outp[1] >= 0)
		close(outp[1]), outp[1] = -1;
	if (errp[1] >= 0)
		close(errp[1]), errp[1] = -1;
	if (resp[1] >= 0)
		close(resp[1]), resp[1] = -1;

	/* did exec succeed? */
	int msg[2] = { errmem[0], errmem[1] };
	ssize_t n = msg[0] ? (ssize_t)sizeof(msg) : 0;
	if (use_errpipe) {
		do
			n = read(ep[0], msg, sizeof(msg));
		while (n < 0 && errno == EINTR);
	}
	if (n == (ssize_t)sizeof(msg)) {
		r->spawn_errno = msg[0];
		waitpid(pid, NULL, 0);
		r->end_ns = mono_ns();
		kerr_set(e, "cannot run %s (%s): %s", o->argv[0], step_name(msg[1]), strerror(msg[0]));
		cap_finish(&co, &r->out, &r->out_bytes);
		cap_finish(&ce, &r->err, &r->err_bytes);
		goto out;
	}
	if (o->aslr >= 0) { /* verify the ASLR policy: the child's personality, read back */
		char path[64], buf[32];
		snprintf(path, sizeof(path), "/proc/%d/personality", (int)pid);
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			ssize_t k = read(fd, buf, sizeof(buf) - 1);
			if (k > 0) {
				buf[k] = '\0';
				r->personality = (int)strtol(buf, NULL, 16);
			}
			close(fd);
		}
	}

	if (o->on_start)
		o->on_start(o->start_ctx, pid);
	int pfd = pidfd_open_(pid);
	int64_t deadline = o->timeout_s > 0 ? r->start_ns + (int64_t)(o->timeout_s * 1e9) : 0;
	int64_t kill_at = 0, drain_until = 0;
	int exited = 0, wstatus = 0;
	struct rusage ru;
	memset(&ru, 0, sizeof(ru));
	char buf[65536];

	for (;;) {
		struct pollfd pf[4];
		int np = 0, iout = -1, ierr = -1, ires = -1, ipid = -1;
		if (outp[0] >= 0)
			pf[iout = np++] = (struct pollfd){ outp[0], POLLIN, 0 };
		if (errp[0] >= 0)
			pf[ierr = np++] = (struct pollfd){ errp[0], POLLIN, 0 };
		if (resp[0] >= 0)
			pf[ires = np++] = (struct pollfd){ resp[0], POLLIN, 0 };
		if (!exited && pfd >= 0)
			pf[ipid = np++] = (struct pollfd){ pfd, POLLIN, 0 };
		if (exited && np == 0)
			break;

		int64_t now = mono_ns();
		int wait_ms = -1;
		if (!exited) {
			if (deadline && !kill_at && now >= deadline) {
				r->timed_out = 1;
				kill(-pid, SIGTERM);
				kill_at = now + 2000000000LL;
			}
			if (kill_at && now >= kill_at) {
				kill(-pid, SIGKILL);
				kill_at = now + 1000000000LL;
			}
			if (exec_interrupted && !kill_at) {
				kill(-pid, SIGKILL);
				kill_at = now + 1000000000LL;
			}
			int64_t next = kill_at ? kill_at : deadline;
			if (next)
				wait_ms = (int)((next - now) / 1000000) + 1;
			if (pfd < 0) /* no pidfd: poll the child */
				wait_ms = wait_ms < 0 || wait_ms > 10 ? 10 : wait_ms;
		} else {
			if (now >= drain_until)
				break;
			wait_ms = (int)((drain_until - now) / 1000000) + 1;
		}
		int pr = poll(pf, (nfds_t)np, wait_ms);
		if (pr < 0 && errno != EINTR) {
			kerr_set(e, "poll: %s", strerror(errno));
			kill(-pid, SIGKILL);
			break;
		}
		if (exec_interrupted && !exited && !kill_at) {
			kill(-pid, SIGKILL);
			kill_at = mono_ns() + 1000000000LL;
		}
		int fds_closed = 0;
		int idx[3] = { iout, ierr, ires };
		int *fdp[3] = { &outp[0], &errp[0], &resp[0] };
		for (int k = 0; k < 3; k++) {
			if (idx[k] < 0 || pr <= 0 || !(pf[idx[k]].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			n = read(*fdp[k], buf, sizeof(buf));
			if (n < 0 && (errno == EINTR || errno == EAGAIN))
				continue;
			if (n <= 0) {
				close(*fdp[k]);
				*fdp[k] = -1;
				fds_closed = 1;
				continue;
			}
			if (k == 0)
				cap_add(&co, buf, (size_t)n);
			else if (k == 1)
				cap_add(&ce, buf, (size_t)n);
			else if (o->on_stream && !r->stream_error && o->on_stream(o->stream_ctx, buf, (size_t)n)) {
				/* the stream is bad beyond repair: stop reading it, end the child */
				r->stream_error = 1;
				if (!exited) {
					kill(-pid, SIGKILL);
					kill_at = mono_ns() + 1000000000LL;
				}
			}
		}
		(void)fds_closed;
		if (!exited && (pfd < 0 || (ipid >= 0 && pr > 0 && (pf[ipid].revents & POLLIN)))) {
			pid_t w = wait4(pid, &wstatus, WNOHANG, &ru);
			if (w == pid) {
				exited = 1;
				r->end_ns = mono_ns();
				/* what is left of the group and escaped descendants go now */
				kill(-pid, SIGKILL);
				reap_orphans(pid);
				drain_until = mono_ns() + 500000000LL;
			}
		}
	}
	if (pfd >= 0)
		close(pfd);
	if (!exited) { /* poll failed: make sure the child is gone */
		kill(-pid, SIGKILL);
		wait4(pid, &wstatus, 0, &ru);
		r->end_ns = mono_ns();
		reap_orphans(pid);
	}
	if (WIFEXITED(wstatus)) {
		r->exited = 1;
		r->status = WEXITSTATUS(wstatus);
	} else if (WIFSIGNALED(wstatus)) {
		r->signal = WTERMSIG(wstatus);
	}
	r->user_s = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6;
	r->sys_s = (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
	r->maxrss_kb = ru.ru_maxrss;
	cap_finish(&co, &r->out, &r->out_bytes);
	cap_finish(&ce, &r->err, &r->err_bytes);
	rc = 0;
out:
	for (int k = 0; k < 2; k++) {
		if (outp[k] >= 0)
			close(outp[k]);
		if (errp[k] >= 0)
			close(errp[k]);
		if (resp[k] >= 0)
			close(resp[k]);
		if (ep[k] >= 0)
			close(ep[k]);
	}
	free(prog);
	return rc;
}

void exec_result_release(struct exec_result *r)
{
	sb_release(&r->out);
	sb_release(&r->err);
}

int exec_simple(char *const argv[], double timeout_s, struct exec_result *r, struct kerr *e)
{
	extern char **environ;
	struct exec_opts o;
	memset(&o, 0, sizeof(o));
	o.argv = (char **)argv;
	o.envp = environ;
	o.search = 1;
	o.timeout_s = timeout_s;
	o.aslr = -1;
	return exec_run(&o, r, e);
}
