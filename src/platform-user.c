/*
 * platform-user.c - isolating each pexec and proving that it was isolated.
 *
 * The benchmark user: when kiln runs as root and platform.user is set, every
 * pexec runs as that unprivileged user (created with useradd --system when
 * missing) in a home directory deleted and recreated before each pexec, so
 * nothing one pexec leaves behind (caches, dot-files, JIT caches) reaches
 * the next.  Homes live under one kiln-owned base (<state>/home, see
 * safefs.h, or $KILN_HOME_BASE) rather than whatever passwd says.  The user
 * is hostile: before its home is touched every process it has is killed
 * (none can swap folders under kiln's feet), the removal is fd-relative and
 * never follows a link (rm_rf), and a lock keeps a second kiln from using
 * the same user at the same time.
 *
 * The sanity child: `kiln doctor --sanity-child` prints, as JSON, what it
 * sees from inside (ids, allowed CPUs, nice, rlimits, environment, whether
 * it can write a probe path and its home).  platform_sanity() runs it with
 * the exact exec_opts of a pexec and compares with what was asked.
 *
 * The env log: the environment and placement of a pexec, in a canonical
 * text whose hash must be the same for every pexec of a key.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "isolate.h"
#include "paths.h"
#include "platform.h"
#include "safefs.h"

#include <signal.h>
#include <sys/file.h>
#include <sys/wait.h>

extern char **environ;

/* $KILN_HOME_BASE as given, else <state>/home (made and checked) */
static char *home_base(struct kerr *e)
{
	const char *b = getenv("KILN_HOME_BASE");
	if (b && *b)
		return xstrdup(b);
	return sfs_state_path("home", 0755, e);
}

/* the user's lock: <state>/locks/user-NAME.lock, held until release */
static int user_lock(struct puser *u, struct kerr *e)
{
	char *dir = sfs_state_path("locks", 0700, e);
	if (!dir)
		return -1;
	char *path = xasprintf("%s/user-%s.lock", dir, u->name);
	free(dir);
	int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	int r = 0;
	if (fd < 0) {
		r = kerr_set(e, "%s: %s", path, strerror(errno));
	} else if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		r = kerr_setc(e, errno == EWOULDBLOCK ? KEXIT_LOCKED : KEXIT_FAIL,
			      "platform.user %s is in use by another kiln (%s): one experiment at a time per benchmark user",
			      u->name, errno == EWOULDBLOCK ? path : strerror(errno));
		close(fd);
		fd = -1;
	}
	free(path);
	u->lock_fd = fd;
	return r;
}

int platform_user_name_ok(const char *s)
{
	if (!s || !*s || strlen(s) > 32 || !(islower((unsigned char)*s) || *s == '_'))
		return 0;
	for (; *s; s++)
		if (!(islower((unsigned char)*s) || isdigit((unsigned char)*s) || *s == '_' || *s == '-'))
			return 0;
	return 1;
}

int platform_user_ensure(const char *name, struct puser *u, struct kerr *e)
{
	memset(u, 0, sizeof(*u));
	u->lock_fd = -1;
	if (!platform_user_name_ok(name))
		return kerr_setc(e, KEXIT_CONFIG, "platform.user: '%s' is not a valid user name "
				 "(lower case letters, digits, _ and -)", name ? name : "");
	char *base = home_base(e);
	if (!base)
		return -1;
	char *home = path_join(base, name);
	free(base);
	struct passwd *pw = getpwnam(name);
	if (!pw) {
		if (geteuid() != 0) {
			free(home);
			return kerr_set(e, "platform.user: user %s does not exist and kiln is not root", name);
		}
		char *useradd = find_in_path("useradd");
		if (!useradd) {
			free(home);
			return kerr_set(e, "platform.user: user %s does not exist and useradd is not installed", name);
		}
		char *argv[] = { useradd, "--system", "--user-group", "--no-create-home", "--home-dir", home,
				 "--shell", "/usr/sbin/nologin", "--comment", "kiln benchmark user", (char *)name, NULL };
		struct exec_result r = { 0 };
		int rc = exec_simple(argv, 60, &r, e);
		if (rc == 0 && !(r.exited && r.status == 0))
			rc = kerr_set(e, "platform.user: useradd %s failed: %s", name, sb_str(&r.err));
		exec_result_release(&r);
		free(useradd);
		if (rc < 0) {
			free(home);
			return -1;
		}
		pw = getpwnam(name);
		if (!pw) {
			free(home);
			return kerr_set(e, "platform.user: useradd succeeded but %s is still unknown", name);
		}
	}
	if (pw->pw_uid == 0) {
		free(home);
		return kerr_setc(e, KEXIT_CONFIG, "platform.user: %s has uid 0: the benchmark user must be unprivileged", name);
	}
	u->name = xstrdup(name);
	u->uid = pw->pw_uid;
	u->gid = pw->pw_gid;
	u->home = home;
	u->lock_fd = -1;
	if (user_lock(u, e) < 0) {
		platform_user_release(u);
		return -1;
	}
	return 0;
}

/*
 * The processes of this uid other than this one, from /proc: with `live`,
 * 1 as soon as one still runs (zombies do not); else how many tasks
 * (threads, zombies too: RLIMIT_NPROC counts them) they hold.  A process
 * that made itself non-dumpable shows as root's and is not seen.
 */
static long user_scan(uid_t uid, int live)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	long n = 0;
	char self[32];
	snprintf(self, sizeof(self), "%ld", (long)getpid());
	while (d && !(live && n) && (de = readdir(d))) {
		char path[300], buf[512];
		struct stat st;
		if (de->d_name[0] < '1' || de->d_name[0] > '9' || !strcmp(de->d_name, self))
			continue;
		snprintf(path, sizeof(path), "/proc/%s", de->d_name);
		if (stat(path, &st) < 0 || st.st_uid != uid)
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", de->d_name);
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		ssize_t len = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
		if (fd >= 0)
			close(fd);
		if (len <= 0)
			continue;
		buf[len] = '\0';
		const char *p = strrchr(buf, ')');
		if (!p || p[1] != ' ')
			continue;
		if (live) {
			n = p[2] != 'Z' && p[2] != 'X';
			continue;
		}
		/* num_threads: field 20, the 18th space on from the one after the name */
		long threads = 1;
		for (int f = 0; f < 18 && (p = strchr(p + 1, ' ')); f++)
			;
		if (p)
			threads = strtol(p + 1, NULL, 10);
		n += threads > 0 ? threads : 1;
	}
	if (d)
		closedir(d);
	return n;
}

static int user_alive(uid_t uid)
{
	return user_scan(uid, 1) > 0;
}

long platform_user_tasks(uid_t uid)
{
	return user_scan(uid, 0);
}

/*
 * kiln cannot start the killer while the user's processes fill the
 * session's pids cgroup: root ends them itself, each by its pid (a pid
 * reused meanwhile by another process of the same user is as good).
 */
static void kill_as_root(uid_t uid)
{
	for (int round = 0; round < 200 && user_alive(uid); round++) {
		DIR *d = opendir("/proc");
		struct dirent *de;
		while (d && (de = readdir(d))) {
			char path[300];
			struct stat st;
			if (de->d_name[0] < '1' || de->d_name[0] > '9')
				continue;
			snprintf(path, sizeof(path), "/proc/%s", de->d_name);
			if (stat(path, &st) == 0 && st.st_uid == uid)
				kill((pid_t)atol(de->d_name), SIGKILL);
		}
		if (d)
			closedir(d);
		usleep(1000);
	}
}

/* every process of the user ended; with keys, then its keyrings emptied too (privsep-keys.c) */
static int kill_user(const struct puser *u, int keys, struct kerr *e)
{
	pid_t pid = fork();
	if (pid < 0 && errno == EAGAIN && geteuid() == 0) {
		kill_as_root(u->uid);
		pid = fork();
	}
	if (pid < 0)
		return kerr_set(e, "killing the processes of %s: fork: %s", u->name, strerror(errno));
	if (pid == 0) {
		/* as the user, kill(-1) reaches exactly the user's processes (and not this one) */
		if (setgroups(0, NULL) < 0 || setgid(u->gid) < 0 || setuid(u->uid) < 0)
			_exit(2);
		int left = 1;
		for (int round = 0; round < 1000 && left; round++) {
			if (kill(-1, SIGKILL) < 0 && errno == ESRCH)
				left = 0;
			else
				usleep(1000);
			/* a zombie counts for kill() until its parent reaps it, but runs nothing */
			if (left && !user_alive(u->uid))
				left = 0;
		}
		if (!left && keys && isolate_clear_user_keys(u->uid, 2.0) < 0)
			_exit(3);
		_exit(left);
	}
	int st = 0;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(st) || WEXITSTATUS(st) == 2)
		return kerr_set(e, "killing the processes of %s: the killer could not become uid %ld", u->name, (long)u->uid);
	if (WEXITSTATUS(st) == 3)
		return kerr_set(e, "the kernel keyrings of %s: keys of the user were still there 2 s after they were "
				"removed", u->name);
	if (WEXITSTATUS(st) == 1)
		return kerr_set(e, "the processes of %s could not all be ended (one is forking faster than kiln kills)",
				u->name);
	return 0;
}

int platform_user_kill_all(const struct puser *u, struct kerr *e)
{
	return kill_user(u, 0, e);
}

int platform_user_renew(const struct puser *u, struct kerr *e)
{
	return kill_user(u, 1, e);
}

int platform_user_fresh_home(const struct puser *u, struct kerr *e)
{
	/* the base stays kiln's: the user can write only its own home */
	char *dir = path_dirname(u->home);
	const char *name = strrchr(u->home, '/') + 1;
	int r = -1;
	if (mkdir_p(dir, 0755) < 0) {
		kerr_set(e, "%s: %s", dir, strerror(errno));
		goto out;
	}
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		kerr_set(e, "%s: %s", dir, strerror(errno));
		goto out;
	}
	int hfd = -1;
	if (rm_rf(u->home) < 0)
		kerr_set(e, "%s: cannot remove the previous home: %s", u->home, strerror(errno));
	else if (mkdirat(dfd, name, 0700) < 0)
		kerr_set(e, "%s: %s", u->home, strerror(errno));
	else if ((hfd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		kerr_set(e, "%s: %s", u->home, strerror(errno));
	else if (fchown(hfd, u->uid, u->gid) < 0)
		kerr_set(e, "%s: chown: %s", u->home, strerror(errno));
	else
		r = 0;
	if (hfd >= 0)
		close(hfd);
	close(dfd);
out:
	free(dir);
	return r;
}

void platform_user_release(struct puser *u)
{
	if (u->lock_fd >= 0)
		close(u->lock_fd);
	free(u->name);
	free(u->home);
	memset(u, 0, sizeof(*u));
	u->lock_fd = -1;
}

/* ---- CPU lists ("0,2-3") ---- */

#define CPUBITS 1024
static int cpulist_parse(const char *s, unsigned char *set)
{
	memset(set, 0, CPUBITS / 8);
	while (s && *s) {
		char *end;
		long a = strtol(s, &end, 10), b = a;
		if (end == s || a < 0 || a >= CPUBITS)
			return -1;
		if (*end == '-') {
			s = end + 1;
			b = strtol(s, &end, 10);
			if (end == s || b < a || b >= CPUBITS)
				return -1;
		}
		for (long i = a; i <= b; i++)
			set[i / 8] |= (unsigned char)(1u << (i % 8));
		s = end;
		if (*s == ',')
			s++;
		else if (*s)
			return -1;
	}
	return 0;
}

/* ---- the child side ---- */

static json_t *rlim_json(int res)
{
	struct rlimit rl;
	if (getrlimit(res, &rl) < 0)
		return json_null();
	return json_pack("{s:I, s:I}", "soft", rl.rlim_cur == RLIM_INFINITY ? (json_int_t)-1 : (json_int_t)rl.rlim_cur,
			 "hard", rl.rlim_max == RLIM_INFINITY ? (json_int_t)-1 : (json_int_t)rl.rlim_max);
}

json_t *platform_rlimits_json(void)
{
	static const struct { const char *n; int r; } lim[] = {
		{ "as", RLIMIT_AS }, { "core", RLIMIT_CORE }, { "cpu", RLIMIT_CPU }, { "data", RLIMIT_DATA },
		{ "fsize", RLIMIT_FSIZE }, { "locks", RLIMIT_LOCKS }, { "memlock", RLIMIT_MEMLOCK },
		{ "msgqueue", RLIMIT_MSGQUEUE }, { "nice", RLIMIT_NICE }, { "nofile", RLIMIT_NOFILE },
		{ "nproc", RLIMIT_NPROC }, { "rss", RLIMIT_RSS }, { "rtprio", RLIMIT_RTPRIO },
		{ "rttime", RLIMIT_RTTIME }, { "sigpending", RLIMIT_SIGPENDING }, { "stack", RLIMIT_STACK },
	};
	json_t *o = json_object();
	for (size_t i = 0; i < ARRAY_SIZE(lim); i++)
		json_object_set_new(o, lim[i].n, rlim_json(lim[i].r));
	return o;
}

/* can we create (or, if it exists, open for writing) this path? */
static json_t *probe_write(const char *path)
{
	int exists = access(path, F_OK) == 0;
	int fd = exists ? open(path, O_WRONLY | O_APPEND | O_CLOEXEC)
			: open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	int err = errno;
	if (fd >= 0) {
		close(fd);
		if (!exists)
			unlink(path);
	}
	return json_pack("{s:s, s:b, s:s?}", "path", path, "writable", fd >= 0,
			 "error", fd >= 0 ? NULL : strerror(err));
}

/* a small file of /proc (a link's target, or a file's first line) as a string, "" when unreadable */
static json_t *proc_text(const char *path, int link)
{
	char buf[4096];
	ssize_t n;
	if (link) {
		n = readlink(path, buf, sizeof(buf) - 1);
	} else {
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
		if (fd >= 0)
			close(fd);
	}
	buf[n > 0 ? n : 0] = '\0';
	return json_string(buf);
}

/* what a pexec's machine looks like from inside: namespaces, the temporary folders, oom score, cgroups */
static json_t *machine_json(void)
{
	json_t *o = json_object();
	json_object_set_new(o, "ipc", proc_text("/proc/self/ns/ipc", 1));
	json_object_set_new(o, "mnt", proc_text("/proc/self/ns/mnt", 1));
	json_object_set_new(o, "oom_score_adj", proc_text("/proc/self/oom_score_adj", 0));
	json_object_set_new(o, "cgroup", proc_text("/proc/self/cgroup", 0));
	static const char *const dirs[] = { "/tmp", "/var/tmp", "/dev/shm" };
	json_t *t = json_object();
	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
		struct stat st;
		if (stat(dirs[i], &st) < 0)
			continue;
		json_t *names = json_array();
		DIR *d = opendir(dirs[i]);
		struct dirent *de;
		while (d && (de = readdir(d)) && json_array_size(names) < 100)
			if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
				json_array_append_new(names, json_string(de->d_name));
		if (d)
			closedir(d);
		json_object_set_new(t, dirs[i], json_pack("{s:I, s:o}", "dev", (json_int_t)st.st_dev, "entries", names));
	}
	json_object_set_new(o, "tmp", t);
	return o;
}

int platform_sanity_child(const char *probe, const char *home)
{
	json_t *o = json_object();
	json_object_set_new(o, "uid", json_integer(getuid()));
	json_object_set_new(o, "euid", json_integer(geteuid()));
	json_object_set_new(o, "gid", json_integer(getgid()));
	json_object_set_new(o, "egid", json_integer(getegid()));
	gid_t groups[64];
	int ng = getgroups(64, groups);
	json_t *ga = json_array();
	for (int i = 0; i < ng; i++)
		json_array_append_new(ga, json_integer(groups[i]));
	json_object_set_new(o, "groups", ga);
	cpu_set_t cs;
	CPU_ZERO(&cs);
	struct strbuf sb = STRBUF_INIT;
	if (sched_getaffinity(0, sizeof(cs), &cs) == 0)
		exec_format_cpus(&cs, &sb);
	json_object_set_new(o, "cpus", json_string(sb_str(&sb)));
	sb_release(&sb);
	errno = 0;
	int nv = getpriority(PRIO_PROCESS, 0);
	json_object_set_new(o, "nice", errno ? json_null() : json_integer(nv));
	json_object_set_new(o, "personality", json_integer(personality(0xffffffff)));
	/* the signals it was started with blocked (kiln keeps SIGCHLD blocked; a pexec must not inherit that) */
	json_t *blk = json_array();
	for (int sig = 1; sig < NSIG; sig++)
		if (sigismember(exec_entry_mask(), sig) == 1)
			json_array_append_new(blk, json_integer(sig));
	json_object_set_new(o, "blocked", blk);
	json_object_set_new(o, "rlimits", platform_rlimits_json());
	json_t *env = json_array();
	for (char **p = environ; p && *p; p++)
		json_array_append_new(env, json_string(*p));
	json_object_set_new(o, "env", env);
	char cwd[4096];
	json_object_set_new(o, "cwd", json_string(getcwd(cwd, sizeof(cwd)) ? cwd : ""));
	/* the descriptors it inherited: a pexec gets 0-2 (and its result fd) only */
	json_t *fds = json_array();
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	while (d && (de = readdir(d))) {
		long fd;
		if (de->d_name[0] != '.' && parse_long(de->d_name, &fd) == 0 && fd != dirfd(d))
			json_array_append_new(fds, json_integer(fd));
	}
	if (d)
		closedir(d);
	json_object_set_new(o, "fds", fds);
	json_object_set_new(o, "machine", machine_json());
	if (probe)
		json_object_set_new(o, "probe", probe_write(probe));
	if (home) {
		char *f = path_join(home, ".kiln-sanity");
		json_object_set_new(o, "home", probe_write(f));
		free(f);
	}
	char *text = json_dumps(o, JSON_COMPACT);
	puts(text);
	free(text);
	json_decref(o);
	return fflush(stdout) == 0 ? 0 : 1;
}

/* ---- the parent side ---- */

static int env_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void problem(struct strbuf *sb, const char *fmt, ...) KILN_PRINTF(2, 3);
static void problem(struct strbuf *sb, const char *fmt, ...)
{
	if (sb->len)
		sb_adds(sb, "; ");
	va_list ap;
	va_start(ap, fmt);
	sb_vaddf(sb, fmt, ap);
	va_end(ap);
}

static long soft_limit(const json_t *rep, const char *name)
{
	return (long)json_integer_value(json_object_get(json_object_get(json_object_get(rep, "rlimits"), name), "soft"));
}

/* run `kiln doctor --sanity-child` the way a pexec runs, and read back what it saw */
static int sanity_report(const struct exec_opts *pexec, const struct sanity_expect *x, json_t **rep, struct kerr *e)
{
	char self[4096];
	const char *exe = x->kiln_exe ? x->kiln_exe : kiln_self_exe(self, sizeof(self));
	if (!exe)
		return kerr_set(e, "sanity check: cannot find kiln's own executable");
	struct strvec argv = STRVEC_INIT;
	sv_push(&argv, exe);
	sv_push(&argv, "doctor");
	sv_push(&argv, "--sanity-child");
	if (x->probe) {
		sv_push(&argv, "--probe");
		sv_push(&argv, x->probe);
	}
	if (x->home) {
		sv_push(&argv, "--home");
		sv_push(&argv, x->home);
	}
	struct exec_opts o = *pexec;
	o.argv = sv_array(&argv);
	o.search = 0;
	o.result_fd = 0;
	o.on_stream = NULL;
	o.no_capture = 0;
	if (o.timeout_s <= 0 || o.timeout_s > 60)
		o.timeout_s = 60;
	if (x->home && !o.cwd)
		o.cwd = x->home;
	struct exec_result r = { 0 };
	int rc = exec_run(&o, &r, e);
	sv_clear(&argv);
	if (rc < 0) {
		exec_result_release(&r);
		return kerr_wrap(e, "sanity check");
	}
	json_error_t je;
	*rep = NULL;
	if (!r.exited || r.status != 0 || !(*rep = json_loads(sb_str(&r.out), 0, &je)))
		rc = kerr_set(e, "sanity check: the child (%s doctor --sanity-child) %s: %s%s", exe,
			      r.spawn_errno ? strerror(r.spawn_errno) :
			      !r.exited ? "was killed" : r.status ? "failed" : "printed no JSON",
			      sb_str(&r.err), sb_str(&r.out));
	exec_result_release(&r);
	return rc < 0 ? -1 : 0;
}

/* who the child was: uid, gid, groups, CPUs, nice, limits, ASLR */
static void check_identity(const json_t *rep, const struct exec_opts *pexec, const struct sanity_expect *x,
			   struct strbuf *bad)
{
	if (x->check_uid) {
		long uid = (long)json_integer_value(json_object_get(rep, "uid"));
		long euid = (long)json_integer_value(json_object_get(rep, "euid"));
		long gid = (long)json_integer_value(json_object_get(rep, "gid"));
		if (uid != (long)x->uid || euid != (long)x->uid)
			problem(bad, "uid %ld/%ld, expected %ld", uid, euid, (long)x->uid);
		if (gid != (long)x->gid)
			problem(bad, "gid %ld, expected %ld", gid, (long)x->gid);
		if (x->uid != 0) {
			json_t *g;
			size_t i;
			json_array_foreach(json_object_get(rep, "groups"), i, g)
				if (json_integer_value(g) == 0)
					problem(bad, "still in group 0 (root)");
		}
	}
	if (x->cpus) {
		unsigned char want[CPUBITS / 8], got[CPUBITS / 8];
		const char *gs = json_string_value(json_object_get(rep, "cpus"));
		if (cpulist_parse(x->cpus, want) < 0)
			problem(bad, "bad CPU list '%s'", x->cpus);
		else if (!gs || cpulist_parse(gs, got) < 0 || memcmp(want, got, sizeof(want)))
			problem(bad, "allowed CPUs %s, expected %s", gs ? gs : "?", x->cpus);
	}
	if (x->check_nice) {
		json_t *n = json_object_get(rep, "nice");
		if (!json_is_integer(n) || json_integer_value(n) != x->nice)
			problem(bad, "nice %lld, expected %d", (long long)json_integer_value(n), x->nice);
	}
	if (x->as_mb > 0 && soft_limit(rep, "as") != x->as_mb * 1024 * 1024)
		problem(bad, "RLIMIT_AS %ld, expected %ld MiB", soft_limit(rep, "as"), x->as_mb);
	if (x->stack_mb > 0 && soft_limit(rep, "stack") != x->stack_mb * 1024 * 1024)
		problem(bad, "RLIMIT_STACK %ld, expected %ld MiB", soft_limit(rep, "stack"), x->stack_mb);
	if (pexec->aslr == 0 || pexec->aslr == 1) {
		long pers = (long)json_integer_value(json_object_get(rep, "personality"));
		int norand = (pers & ADDR_NO_RANDOMIZE) != 0;
		if (norand != (pexec->aslr == 0))
			problem(bad, "ASLR %s in the child, expected %s", norand ? "off" : "on",
				pexec->aslr == 0 ? "off" : "on");
	}
}

/* the environment: exactly what was given, nothing inherited */
static void check_env(const json_t *rep, char *const *envp, struct strbuf *bad)
{
	struct strvec want = STRVEC_INIT, got = STRVEC_INIT;
	for (char *const *p = envp; p && *p; p++)
		sv_push(&want, *p);
	json_t *ev;
	size_t i;
	json_array_foreach(json_object_get(rep, "env"), i, ev)
		sv_push(&got, json_string_value(ev) ? json_string_value(ev) : "");
	if (want.n)
		qsort(want.v, want.n, sizeof(char *), env_cmp);
	if (got.n)
		qsort(got.v, got.n, sizeof(char *), env_cmp);
	for (size_t a = 0, b = 0; a < want.n || b < got.n;) {
		int c = a == want.n ? 1 : b == got.n ? -1 : strcmp(want.v[a], got.v[b]);
		if (c < 0)
			problem(bad, "environment lacks %s", want.v[a++]);
		else if (c > 0)
			problem(bad, "environment has extra %s", got.v[b++]);
		else
			a++, b++;
	}
	sv_clear(&want);
	sv_clear(&got);
}

/* what it could reach: inherited descriptors, the probe file it must not write, its home it must */
static void check_files(const json_t *rep, const struct sanity_expect *x, struct strbuf *bad)
{
	json_t *fd;
	size_t i;
	json_array_foreach(json_object_get(rep, "fds"), i, fd)
		if (json_integer_value(fd) > 2)
			problem(bad, "the child inherited file descriptor %lld", (long long)json_integer_value(fd));
	if (!json_is_array(json_object_get(rep, "fds")))
		problem(bad, "the child did not list its file descriptors");
	json_t *sig;
	json_array_foreach(json_object_get(rep, "blocked"), i, sig)
		problem(bad, "the child started with signal %lld blocked", (long long)json_integer_value(sig));
	if (!json_is_array(json_object_get(rep, "blocked")))
		problem(bad, "the child did not list its blocked signals");
	json_t *pr = json_object_get(rep, "probe");
	if (x->probe && (!pr || json_is_true(json_object_get(pr, "writable"))))
		problem(bad, "the benchmark can write %s", x->probe);
	json_t *hm = json_object_get(rep, "home");
	const char *herr = json_string_value(json_object_get(hm, "error"));
	if (x->home && (!hm || !json_is_true(json_object_get(hm, "writable"))))
		problem(bad, "the benchmark cannot write its home %s: %s", x->home, herr ? herr : "?");
}

/* the machine: other namespaces than kiln's, empty temporary folders of its own, the bounds */
static void check_machine(const json_t *rep, const struct sanity_expect *x, struct strbuf *bad)
{
	const json_t *mj = json_object_get(rep, "machine");
	if (x->nproc > 0 && soft_limit(rep, "nproc") != x->nproc)
		problem(bad, "RLIMIT_NPROC %ld, expected %ld", soft_limit(rep, "nproc"), x->nproc);
	if (x->fsize_mb > 0 && soft_limit(rep, "fsize") != x->fsize_mb * 1024 * 1024)
		problem(bad, "RLIMIT_FSIZE %ld, expected %ld MiB", soft_limit(rep, "fsize"), x->fsize_mb);
	const char *oom = json_string_value(json_object_get(mj, "oom_score_adj"));
	if (x->check_oom && (!oom || atoi(oom) != x->oom))
		problem(bad, "oom_score_adj %s, expected %d", oom ? oom : "?", x->oom);
	if (x->check_cgroup) {
		json_t *own = proc_text("/proc/self/cgroup", 0);
		const char *cg = json_string_value(json_object_get(mj, "cgroup"));
		if (!cg || strcmp(cg, json_string_value(own)))
			problem(bad, "cgroups %s, expected kiln's session's: %s", cg ? cg : "?", json_string_value(own));
		json_decref(own);
	}
	if (!x->mach || x->mach->kind == MACHINE_NONE)
		return;
	static const char *const ns[] = { "ipc", "mnt" };
	for (size_t i = 0; i < ARRAY_SIZE(ns); i++) {
		char p[64];
		snprintf(p, sizeof(p), "/proc/self/ns/%s", ns[i]);
		json_t *own = proc_text(p, 1);
		const char *got = json_string_value(json_object_get(mj, ns[i]));
		if (!got || !*got || !strcmp(got, json_string_value(own)))
			problem(bad, "the child is in kiln's own %s namespace (%s)", ns[i], got ? got : "?");
		json_decref(own);
	}
	static const char *const dirs[] = { "/tmp", "/var/tmp", "/dev/shm" };
	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
		struct stat st;
		if (!machine_private(x->mach, dirs[i]) || stat(dirs[i], &st) < 0)
			continue;
		const json_t *t = json_object_get(json_object_get(mj, "tmp"), dirs[i]);
		if (!t || (dev_t)json_integer_value(json_object_get(t, "dev")) == st.st_dev) {
			problem(bad, "the child's %s is kiln's own", dirs[i]);
			continue;
		}
		json_t *n;
		size_t k;
		json_array_foreach(json_object_get(t, "entries"), k, n)
			if (!machine_kiln_entry(x->mach, dirs[i], json_string_value(n)))
				problem(bad, "the child's %s is not empty: it holds %s", dirs[i],
					esc(ESC_TERM, json_string_value(n)));
	}
}

int platform_sanity(const struct exec_opts *pexec, const struct sanity_expect *x,
		    json_t **report, struct kerr *e)
{
	*report = NULL;
	json_t *rep;
	if (sanity_report(pexec, x, &rep, e) < 0)
		return -1;
	struct strbuf bad = STRBUF_INIT;
	check_identity(rep, pexec, x, &bad);
	check_env(rep, x->envp ? x->envp : pexec->envp, &bad);
	check_files(rep, x, &bad);
	check_machine(rep, x, &bad);
	*report = rep;
	if (bad.len) {
		kerr_set(e, "sanity check failed: %s", bad.buf);
		sb_release(&bad);
		return -1;
	}
	return 0;
}
