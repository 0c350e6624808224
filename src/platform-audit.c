/*
 * platform-audit.c - what the results must remember about the machine, how
 * two such records differ, and notifications.
 *
 * The audit is one JSON object (the lead stores it in the results DB and
 * `kiln audit` prints it): kiln's version and build, uname, CPU, kernel
 * command line, distribution, each VM's identity (vmid.h: the caller learns
 * it as the benchmark would run the VM, kiln only records it), doctor's
 * findings, rlimits and kiln's environment, credentials hidden by name and
 * by value (secret.h).  platform_audit_diff() reads two of
 * them and names what makes results hard to compare: another host, CPU,
 * kernel, governor, VM version.  Notifications: platform.notify run on an
 * event, and a watcher that sends the one a killed kiln cannot.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "platform.h"
#include "secret.h"

extern char **environ;

/* first line of `text` starting with "key" up to ':'; value trimmed */
static char *field(const char *text, const char *key)
{
	size_t kl = strlen(key);
	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		if (strncmp(l, key, kl))
			continue;
		const char *p = l + kl;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p != ':' && *p != '=')
			continue;
		p++;
		while (*p == ' ' || *p == '"')
			p++;
		size_t n = strcspn(p, "\n");
		while (n && (p[n - 1] == ' ' || p[n - 1] == '"'))
			n--;
		return xstrndup(p, n);
	}
	return NULL;
}

static json_t *str_or_null(char *s)
{
	json_t *j = s ? json_string(s) : json_null();
	free(s);
	return j;
}

static const char *check_value(const json_t *doctor, const char *name)
{
	size_t i;
	json_t *c;
	json_array_foreach(doctor, i, c)
		if (!strcmp(json_string_value(json_object_get(c, "name")) ?: "", name))
			return json_string_value(json_object_get(c, "value"));
	return NULL;
}

json_t *platform_audit(const struct experiment *ex, const struct doctor_opts *o, json_t *vms)
{
	json_t *a = json_object();
	char when[32];
	iso_time(wall_ns(), when, sizeof(when));
	json_object_set_new(a, "kiln", json_pack("{s:s, s:s, s:s}", "version", KILN_VERSION,
						   "built", __DATE__ " " __TIME__, "compiler", __VERSION__));
	json_object_set_new(a, "time", json_string(when));
	struct utsname u;
	if (uname(&u) == 0)
		json_object_set_new(a, "uname", json_pack("{s:s, s:s, s:s, s:s, s:s}", "sysname", u.sysname,
							    "nodename", u.nodename, "release", u.release,
							    "version", u.version, "machine", u.machine));
	struct strbuf sb = STRBUF_INIT;
	if (plat_read("/proc/cpuinfo", &sb) == 0) {
		json_object_set_new(a, "cpu_model", str_or_null(field(sb.buf, "model name")));
		json_object_set_new(a, "cpuinfo", json_string(sb.buf));
	}
	json_object_set_new(a, "ncpus", json_integer(sysconf(_SC_NPROCESSORS_ONLN)));
	if (plat_read("/proc/cmdline", &sb) == 0)
		json_object_set_new(a, "cmdline", json_string(sb.buf));
	if (plat_read("/etc/os-release", &sb) == 0 || plat_read("/usr/lib/os-release", &sb) == 0) {
		json_object_set_new(a, "distribution", str_or_null(field(sb.buf, "PRETTY_NAME")));
		json_object_set_new(a, "os_release", json_string(sb.buf));
	}
	sb_release(&sb);
	if (ex) {
		json_object_set_new(a, "config", json_pack("{s:s?, s:s}", "path", ex->path, "hash", ex->hash));
	}
	if (vms)
		json_object_set_new(a, "vms", vms);
	struct pchecks pc = PCHECKS_INIT;
	platform_doctor(ex, o, &pc);
	json_object_set_new(a, "doctor", pchecks_json(&pc));
	pchecks_release(&pc);
	json_object_set_new(a, "rlimits", platform_rlimits_json());
	json_t *env = json_array();
	for (char **p = environ; p && *p; p++)
		json_array_append_new(env, json_string(esc(ESC_JSON, *p)));
	json_object_set_new(a, "environment", env);
	platform_audit_mask(a);
	char cwd[4096];
	if (getcwd(cwd, sizeof(cwd)))
		json_object_set_new(a, "cwd", json_string(cwd));
	json_object_set_new(a, "euid", json_integer(geteuid()));
	return a;
}

/* hide one string member's credentials, in place */
static void mask_member(json_t *o, const char *name, int is_var)
{
	const char *v = json_string_value(json_object_get(o, name));
	if (!v)
		return;
	struct strbuf sb = STRBUF_INIT;
	if (is_var)
		secret_mask_var(&sb, v);
	else
		secret_mask(&sb, v);
	json_object_set_new(o, name, json_string(esc(ESC_JSON, sb.buf)));
	sb_release(&sb);
}

void platform_audit_mask(json_t *audit)
{
	json_t *env = json_object_get(audit, "environment"), *vms = json_object_get(audit, "vms"), *x;
	size_t i;
	json_array_foreach(env, i, x) {
		if (!json_is_string(x))
			continue;
		struct strbuf sb = STRBUF_INIT;
		secret_mask_var(&sb, json_string_value(x));
		json_array_set_new(env, i, json_string(esc(ESC_JSON, sb.buf)));
		sb_release(&sb);
	}
	json_array_foreach(vms, i, x)
		mask_member(x, "version", 0);
	mask_member(audit, "cmdline", 0);
}

static const char *jget(const json_t *o, const char *a, const char *b)
{
	const json_t *v = json_object_get(o, a);
	if (b)
		v = json_object_get(v, b);
	return json_string_value(v);
}

static size_t differ(struct strvec *lines, const char *what, const char *x, const char *y)
{
	if (!x && !y)
		return 0;
	if (x && y && !strcmp(x, y))
		return 0;
	/* a multi-line value (a VM's --version) is shown by its first line */
	sv_pushf(lines, "%s: %.*s vs %.*s", what, x ? (int)strcspn(x, "\n") : 9, x ? x : "(unknown)",
		 y ? (int)strcspn(y, "\n") : 9, y ? y : "(unknown)");
	return 1;
}

/*
 * name -> the first entry of that name in vms (an object: jansson's hash
 * table), so that matching the two sides' VMs is linear in their count: a
 * hostile file's list of 100,000 entries was 10^10 name comparisons
 */
static json_t *vm_index(const json_t *vms)
{
	json_t *ix = json_object(), *x;
	size_t i;
	json_array_foreach(vms, i, x) {
		const char *name = jget(x, "name", NULL);
		if (name && !json_object_get(ix, name))
			json_object_set(ix, name, x);
	}
	return ix;
}

static size_t differ_vm(struct strvec *lines, const char *name, const json_t *x, const json_t *y)
{
	static const char *const what[][3] = { { "version", "version", NULL }, { "package", "package", "version" },
					       { "path", "path", NULL } };
	size_t n = 0;
	for (size_t k = 0; k < ARRAY_SIZE(what); k++) {
		char *w = xasprintf("vm %s %s", name, what[k][0]);
		n += differ(lines, w, jget(x, what[k][1], what[k][2]), jget(y, what[k][1], what[k][2]));
		free(w);
	}
	return n;
}

size_t platform_audit_diff(const json_t *a, const json_t *b, struct strvec *lines)
{
	size_t n = 0;
	n += differ(lines, "host", jget(a, "uname", "nodename"), jget(b, "uname", "nodename"));
	n += differ(lines, "cpu", jget(a, "cpu_model", NULL), jget(b, "cpu_model", NULL));
	n += differ(lines, "kernel", jget(a, "uname", "release"), jget(b, "uname", "release"));
	n += differ(lines, "kernel command line", jget(a, "cmdline", NULL), jget(b, "cmdline", NULL));
	n += differ(lines, "distribution", jget(a, "distribution", NULL), jget(b, "distribution", NULL));
	n += differ(lines, "kiln", jget(a, "kiln", "version"), jget(b, "kiln", "version"));
	const json_t *da = json_object_get(a, "doctor"), *db = json_object_get(b, "doctor");
	static const char *const checks[] = { "governor", "turbo", "aslr", "virtualization", "isolcpus",
		"thp", "swap", "scaling-driver" };
	for (size_t i = 0; i < ARRAY_SIZE(checks); i++)
		n += differ(lines, checks[i], check_value(da, checks[i]), check_value(db, checks[i]));
	/* VMs by name; kiln writes each name once, and a file that repeats one
	 * is compared by the name's first entry on each side, so a record
	 * compared with itself never differs */
	const json_t *va = json_object_get(a, "vms");
	json_t *ia = vm_index(va), *ib = vm_index(json_object_get(b, "vms")), *x;
	size_t i;
	json_array_foreach(va, i, x) {
		const char *name = jget(x, "name", NULL);
		if (!name || json_object_get(ia, name) != x)
			continue;
		const json_t *y = json_object_get(ib, name);
		if (y)
			n += differ_vm(lines, name, x, y);
	}
	json_decref(ia);
	json_decref(ib);
	return n;
}

/* the watcher: blocks until kiln writes its "done" byte or dies */
static void notify_watcher(const struct platform_conf *conf, int rfd, const char *message)
{
	signal(SIGINT, SIG_IGN); /* a Ctrl-C or kill of kiln's group is kiln's to report */
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	char c;
	ssize_t n;
	while ((n = read(rfd, &c, 1)) < 0 && errno == EINTR)
		;
	if (n == 1)
		_exit(0);
	struct kerr e = KERR_INIT;
	if (platform_notify(conf, "died", message, &e) < 0)
		kiln_warn("notify: %s", sb_str(&e.msg));
	_exit(0);
}

int platform_notify_watch(const struct platform_conf *conf, const char *message)
{
	int p[2];
	if (!conf || !conf->notify.n)
		return -1;
	if (pipe2(p, O_CLOEXEC) < 0) {
		kiln_warn("notify: no watcher for kiln's own death: pipe: %s", strerror(errno));
		return -1;
	}
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		/* the watcher's parent exits at once: the watcher is nobody's child kiln reaps */
		if (fork() != 0)
			_exit(0);
		int null = open("/dev/null", O_RDWR);
		if (null < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0 || (p[0] != 3 && dup2(p[0], 3) < 0))
			_exit(1);
		close_range(4, ~0U, 0); /* the results file's lock and database above all */
		notify_watcher(conf, 3, message);
	}
	close(p[0]);
	if (pid < 0) {
		kiln_warn("notify: no watcher for kiln's own death: fork: %s", strerror(errno));
		close(p[1]);
		return -1;
	}
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	return p[1];
}

void platform_notify_unwatch(int fd)
{
	if (fd < 0)
		return;
	ssize_t w = write(fd, "d", 1);
	(void)w;
	close(fd);
}

int platform_notify(const struct platform_conf *conf, const char *event, const char *message,
		    struct kerr *e)
{
	if (!conf || !conf->notify.n)
		return 0;
	struct strvec env = STRVEC_INIT, argv = STRVEC_INIT;
	for (char **p = environ; p && *p; p++)
		sv_push(&env, *p);
	sv_setenv(&env, "KILN_NOTIFY_EVENT", event);
	sv_setenv(&env, "KILN_NOTIFY_MESSAGE", message ? message : "");
	for (size_t i = 0; i < conf->notify.n; i++)
		sv_push(&argv, conf->notify.v[i]);
	struct exec_opts o;
	exec_opts_plain(&o, sv_array(&argv), sv_array(&env), 60);
	o.search = 1;
	o.survives = INT_MAX; /* a Ctrl-C or SIGTERM that stopped the run is what it tells */
	struct exec_result r = { 0 };
	int rc = exec_run(&o, &r, e);
	if (rc == 0 && !(r.exited && r.status == 0)) {
		if (r.spawn_errno)
			rc = kerr_set(e, "notify: %s: %s", argv.v[0], strerror(r.spawn_errno));
		else
			rc = kerr_set(e, "notify: %s %s %d%s%s", argv.v[0],
				      r.exited ? "exited with" : "killed by signal", r.exited ? r.status : r.signal,
				      r.err.len ? ": " : "", sb_str(&r.err));
	}
	exec_result_release(&r);
	sv_clear(&env);
	sv_clear(&argv);
	return rc;
}
