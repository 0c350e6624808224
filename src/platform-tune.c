/*
 * platform-tune.c - changing the machine for an experiment and putting it
 * back; reboot mode's small pieces.
 *
 * Tuning order matters for safety: read every original value, write them
 * all to the state file (atomically), and only then change anything.  So a
 * kiln killed at any point leaves either nothing changed or a state file
 * that `kiln doctor --restore` replays.  A second table of the same values,
 * flat C strings prepared in advance, lets platform_restore_signal_safe()
 * restore from a signal handler with only open/write/close/unlink.
 *
 * Reboot mode: a systemd unit (enabled by our own symlink in
 * multi-user.target.wants, which is what `systemctl enable` does), a boot
 * counter file that refuses to go past a bound, and the reboot command.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "platform.h"

/* write a sysfs/procfs value the way `echo v > file` does */
static int sys_write(const char *abs, const char *val, struct kerr *e)
{
	char *p = platform_path(abs);
	int fd = open(p, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0) {
		kerr_set(e, "%s: %s", p, strerror(errno));
		free(p);
		return -1;
	}
	size_t n = strlen(val);
	ssize_t w = write(fd, val, n);
	int err = errno;
	if (close(fd) < 0 && w >= 0) {
		err = errno;
		w = -1;
	}
	if (w != (ssize_t)n) {
		kerr_set(e, "%s: writing '%s': %s", p, val, w < 0 ? strerror(err) : "short write");
		free(p);
		return -1;
	}
	free(p);
	return 0;
}

/* ---- the signal-safe copy ---- */

struct sigrestore {
	char **paths;   /* full paths (root included) */
	char **values;
	size_t n;
	char *state;    /* state file to unlink once restored */
};
static struct sigrestore sigtab;
static volatile sig_atomic_t sig_done = 1;

static void sigtab_set(const json_t *values, const char *state)
{
	sig_done = 1;
	for (size_t i = 0; i < sigtab.n; i++) {
		free(sigtab.paths[i]);
		free(sigtab.values[i]);
	}
	free(sigtab.paths);
	free(sigtab.values);
	free(sigtab.state);
	size_t n = json_array_size(values);
	sigtab.paths = xcalloc(n + 1, sizeof(char *));
	sigtab.values = xcalloc(n + 1, sizeof(char *));
	sigtab.n = n;
	for (size_t i = 0; i < n; i++) {
		json_t *v = json_array_get(values, i);
		sigtab.paths[i] = platform_path(json_string_value(json_object_get(v, "path")));
		sigtab.values[i] = xstrdup(json_string_value(json_object_get(v, "value")));
	}
	sigtab.state = xstrdup(state);
	sig_done = 0;
}

void platform_restore_signal_safe(void)
{
	if (sig_done)
		return;
	sig_done = 1;
	/* reverse order: undo the last change first */
	for (size_t i = sigtab.n; i-- > 0;) {
		int fd = open(sigtab.paths[i], O_WRONLY | O_TRUNC | O_CLOEXEC);
		if (fd < 0)
			continue;
		ssize_t w = write(fd, sigtab.values[i], strlen(sigtab.values[i]));
		(void)w;
		close(fd);
	}
	unlink(sigtab.state);
}

/* ---- tune ---- */

struct change {
	char *path;    /* logical */
	char *orig;
	const char *want;
};

static void plan_add(struct change **v, size_t *n, const char *path, const char *orig, const char *want)
{
	*v = xrealloc(*v, (*n + 1) * sizeof(**v));
	(*v)[*n].path = xstrdup(path);
	(*v)[*n].orig = xstrdup(orig);
	(*v)[*n].want = want;
	(*n)++;
}

/* what --tune would change on this machine, with the current values */
static size_t tune_plan(struct change **out, struct strbuf *log)
{
	struct change *v = NULL;
	size_t n = 0;
	struct strbuf cur = STRBUF_INIT, avail = STRBUF_INIT;
	struct strvec govs = STRVEC_INIT;
	plat_glob("/sys/devices/system/cpu/cpu[0-9]*/cpufreq/scaling_governor", &govs);
	for (size_t i = 0; i < govs.n; i++) {
		if (plat_read(govs.v[i], &cur) < 0)
			continue;
		char *ap = xasprintf("%.*s/scaling_available_governors",
				     (int)(strrchr(govs.v[i], '/') - govs.v[i]), govs.v[i]);
		int has = plat_read(ap, &avail) < 0 || strstr(sb_str(&avail), "performance");
		free(ap);
		if (!has) {
			sb_addf(log, "tune: %s: no performance governor offered, left at %s\n", govs.v[i], cur.buf);
			continue;
		}
		if (strcmp(cur.buf, "performance"))
			plan_add(&v, &n, govs.v[i], cur.buf, "performance");
	}
	if (!govs.n)
		sb_adds(log, "tune: no cpufreq governors: frequency scaling not tuned\n");
	sv_clear(&govs);
	/* intel_pstate says "no turbo" (1 = off), other drivers "boost" (0 = off) */
	static const char *const turbo[][2] = {
		{ "/sys/devices/system/cpu/intel_pstate/no_turbo", "1" },
		{ "/sys/devices/system/cpu/cpufreq/boost", "0" },
	};
	size_t k;
	for (k = 0; k < ARRAY_SIZE(turbo); k++)
		if (plat_read(turbo[k][0], &cur) == 0)
			break;
	if (k == ARRAY_SIZE(turbo))
		sb_adds(log, "tune: no intel_pstate/no_turbo or cpufreq/boost: turbo not tuned\n");
	else if (strcmp(cur.buf, turbo[k][1]))
		plan_add(&v, &n, turbo[k][0], cur.buf, turbo[k][1]);
	if (plat_read("/proc/sys/kernel/perf_event_max_sample_rate", &cur) == 0) {
		if (strcmp(cur.buf, "1"))
			plan_add(&v, &n, "/proc/sys/kernel/perf_event_max_sample_rate", cur.buf, "1");
	} else {
		sb_adds(log, "tune: no perf_event_max_sample_rate: not tuned\n");
	}
	sb_release(&cur);
	sb_release(&avail);
	*out = v;
	return n;
}

int platform_tune(const char *state_path, json_t **saved, struct strbuf *log, struct kerr *e)
{
	const char *sp = state_path ? state_path : platform_tune_state_path();
	*saved = NULL;
	if (!*platform_root() && geteuid() != 0)
		return kerr_set(e, "--tune needs root (it writes /sys and /proc/sys)");
	if (file_exists(sp))
		return kerr_set(e, "%s exists: an earlier --tune was never restored; run kiln doctor --restore first", sp);
	struct change *v;
	size_t n = tune_plan(&v, log);
	json_t *values = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(values, json_pack("{s:s, s:s, s:s}", "path", v[i].path, "value",
							v[i].orig, "set", v[i].want));
	json_t *st = json_pack("{s:i, s:I, s:I, s:s, s:o}", "version", 1, "pid", (json_int_t)getpid(), "start",
			       (json_int_t)proc_self_start(), "root", platform_root(), "values", values);
	int rc = 0;
	if (n) {
		char *dir = path_dirname(sp);
		mkdir_p(dir, 0755);
		free(dir);
		char *text = json_dumps(st, JSON_INDENT(1));
		rc = write_file(sp, text, strlen(text), e);
		free(text);
		if (rc < 0)
			kerr_wrap(e, "saving the original values before tuning");
	}
	if (rc == 0 && n) {
		sigtab_set(values, sp);
		for (size_t i = 0; i < n; i++) {
			if (sys_write(v[i].path, v[i].want, e) < 0) {
				/* undo what was done so far; the state file goes with it */
				kerr_wrap(e, "tuning");
				struct strbuf ignore = STRBUF_INIT;
				platform_restore(sp, st, &ignore, NULL);
				sb_release(&ignore);
				rc = -1;
				break;
			}
			sb_addf(log, "tune: %s: %s -> %s\n", v[i].path, v[i].orig, v[i].want);
		}
	}
	if (rc == 0 && !n)
		sb_adds(log, "tune: nothing to change\n");
	for (size_t i = 0; i < n; i++) {
		free(v[i].path);
		free(v[i].orig);
	}
	free(v);
	if (rc < 0)
		json_decref(st);
	else
		*saved = st;
	return rc;
}

/*
 * The kiln that tuned (the state file's pid and start time) is still
 * running: it restores when it ends, and a restore now would undo the
 * tuning under its pexecs.  A pid reused by another process does not count
 * (its start time differs; a state file without one: the pid's name is not
 * kiln's).  Never this process itself.
 */
static long tuner_running(const json_t *st)
{
	json_int_t pid = json_integer_value(json_object_get(st, "pid"));
	if (pid <= 0 || pid == (json_int_t)getpid())
		return 0;
	char id[32], state;
	long pg;
	unsigned long long start;
	snprintf(id, sizeof(id), "%lld", (long long)pid);
	if (proc_stat(id, &state, &pg, &start) < 0 || state == 'Z')
		return 0;
	const json_t *want = json_object_get(st, "start");
	if (json_is_integer(want))
		return (unsigned long long)json_integer_value(want) == start ? (long)pid : 0;
	char path[64];
	struct strbuf comm = STRBUF_INIT;
	snprintf(path, sizeof(path), "/proc/%s/comm", id);
	int kiln = read_file(path, &comm, NULL) == 0 && !strcmp(sb_str(&comm), "kiln\n");
	sb_release(&comm);
	return kiln ? (long)pid : 0;
}

long platform_tune_owner(const char *state_path)
{
	json_t *st = json_load_file(state_path ? state_path : platform_tune_state_path(), 0, NULL);
	long pid = st ? tuner_running(st) : 0;
	json_decref(st);
	return pid;
}

int platform_restore(const char *state_path, const json_t *saved, struct strbuf *log, struct kerr *e)
{
	const char *sp = state_path ? state_path : platform_tune_state_path();
	json_t *loaded = NULL;
	if (!saved) {
		if (!file_exists(sp)) {
			sb_addf(log, "restore: no %s: nothing to restore\n", sp);
			return 0;
		}
		json_error_t je;
		loaded = json_load_file(sp, 0, &je);
		if (!loaded)
			return kerr_setc(e, KEXIT_CONFIG, "%s:%d:%d: %s", sp, je.line, je.column, je.text);
		saved = loaded;
		long pid = tuner_running(saved);
		if (pid) {
			json_decref(loaded);
			return kerr_set(e, "%s: the kiln that tuned (pid %ld) is still running and restores when it ends; "
				       "stop it (SIGINT) rather than restore under its run", sp, pid);
		}
	}
	const char *root = json_string_value(json_object_get(saved, "root"));
	if (root && strcmp(root, platform_root())) {
		/* values saved from a fake tree must never land on the real one */
		kerr_set(e, "%s was written with KILN_SYSROOT='%s' but the root now is '%s'",
			 sp, root, platform_root());
		json_decref(loaded);
		return -1;
	}
	const json_t *values = json_object_get(saved, "values");
	if (!json_is_array(values)) {
		json_decref(loaded);
		return kerr_setc(e, KEXIT_CONFIG, "%s: values: not an array", sp);
	}
	/* everything is in memory now: the signal-safe table is not needed any more */
	sig_done = 1;
	int rc = 0;
	struct kerr one = KERR_INIT;
	for (size_t i = json_array_size(values); i-- > 0;) {
		const json_t *v = json_array_get(values, i);
		const char *path = json_string_value(json_object_get(v, "path"));
		const char *val = json_string_value(json_object_get(v, "value"));
		if (!path || !val || path[0] != '/' || strstr(path, "..") ||
		    (strncmp(path, "/sys/", 5) && strncmp(path, "/proc/sys/", 10))) {
			/* the state file only ever names /sys and /proc/sys files */
			sb_addf(log, "restore: entry %zu ignored: bad path\n", i);
			rc = -1;
			kerr_set(e, "%s: values[%zu]: bad entry", sp, i);
			continue;
		}
		if (sys_write(path, val, &one) < 0) {
			sb_addf(log, "restore: %s\n", sb_str(&one.msg));
			kerr_set(e, "%s", sb_str(&one.msg));
			rc = -1;
		} else {
			sb_addf(log, "restore: %s = %s\n", path, val);
		}
	}
	kerr_release(&one);
	if (rc == 0 && unlink(sp) < 0 && errno != ENOENT) {
		rc = kerr_set(e, "%s: %s", sp, strerror(errno));
	}
	json_decref(loaded);
	return rc;
}

/* ---- reboot mode ---- */

static const char *unit_dir(const char *d)
{
	if (d)
		return d;
	const char *env = getenv("KILN_UNIT_DIR");
	return env && *env ? env : "/etc/systemd/system";
}

/* systemd's unit syntax: quote an argument, escaping what it interprets */
static void unit_quote(struct strbuf *sb, const char *s)
{
	sb_addc(sb, '"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			sb_addc(sb, '\\');
		if (*s == '%')
			sb_addc(sb, '%');
		if (*s == '$')
			sb_addc(sb, '$');
		sb_addc(sb, *s);
	}
	sb_addc(sb, '"');
}

int platform_reboot_install(const char *udir, const char *kiln_exe, const char *config, struct kerr *e)
{
	const char *d = unit_dir(udir);
	if (kiln_exe[0] != '/' || config[0] != '/')
		return kerr_set(e, "reboot unit: kiln and the config need absolute paths");
	struct strbuf u = STRBUF_INIT;
	sb_adds(&u, "# written by kiln run --reboot; removed when the experiment ends\n"
		    "[Unit]\nDescription=kiln: resume the experiment after a reboot\n"
		    "After=multi-user.target\n\n[Service]\nType=oneshot\nExecStart=");
	unit_quote(&u, kiln_exe);
	sb_adds(&u, " run ");
	unit_quote(&u, config);
	sb_adds(&u, " --reboot\nStandardOutput=journal\n\n[Install]\nWantedBy=multi-user.target\n");
	char *path = path_join(d, PLATFORM_UNIT_NAME);
	char *wants = path_join(d, "multi-user.target.wants");
	char *link = path_join(wants, PLATFORM_UNIT_NAME);
	int rc = 0;
	if (mkdir_p(wants, 0755) < 0)
		rc = kerr_set(e, "%s: %s", wants, strerror(errno));
	else if (write_file(path, u.buf, u.len, e) < 0)
		rc = -1;
	else {
		unlink(link);
		if (symlink(path, link) < 0)
			rc = kerr_set(e, "%s: %s", link, strerror(errno));
	}
	free(path);
	free(wants);
	free(link);
	sb_release(&u);
	return rc;
}

int platform_reboot_remove(const char *udir, struct kerr *e)
{
	const char *d = unit_dir(udir);
	char *path = path_join(d, PLATFORM_UNIT_NAME);
	char *link = xasprintf("%s/multi-user.target.wants/%s", d, PLATFORM_UNIT_NAME);
	int rc = 0;
	if (unlink(link) < 0 && errno != ENOENT)
		rc = kerr_set(e, "%s: %s", link, strerror(errno));
	if (unlink(path) < 0 && errno != ENOENT)
		rc = kerr_set(e, "%s: %s", path, strerror(errno));
	free(path);
	free(link);
	return rc;
}

int platform_boot_count(const char *path, long max, long *count, struct kerr *e)
{
	struct strbuf sb = STRBUF_INIT;
	long n = 0;
	if (read_file(path, &sb, NULL) == 0) {
		while (sb.len && (sb.buf[sb.len - 1] == '\n'))
			sb.buf[--sb.len] = '\0';
		if (parse_long(sb.buf, &n) || n < 0) {
			sb_release(&sb);
			return kerr_setc(e, KEXIT_CONFIG, "%s: not a boot count", path);
		}
	}
	sb_release(&sb);
	if (max > 0 && n + 1 > max) {
		*count = n;
		return kerr_set(e, "reboot mode: %ld reboots done, the bound is %ld: stopping so the machine "
			       "does not loop (remove %s to go on)", n, max, path);
	}
	n++;
	char buf[32];
	int len = snprintf(buf, sizeof(buf), "%ld\n", n);
	if (write_file(path, buf, (size_t)len, e) < 0)
		return -1;
	*count = n;
	return 0;
}

int platform_boot_reset(const char *path)
{
	return unlink(path) < 0 && errno != ENOENT ? -1 : 0;
}

int platform_reboot(const struct strvec *cmd, struct kerr *e)
{
	struct strvec argv = STRVEC_INIT;
	if (cmd && cmd->n) {
		for (size_t i = 0; i < cmd->n; i++)
			sv_push(&argv, cmd->v[i]);
	} else {
		const char *env = getenv("KILN_REBOOT_CMD");
		char *copy = xstrdup(env && *env ? env : "systemctl reboot");
		for (char *s = strtok(copy, " \t"); s; s = strtok(NULL, " \t"))
			sv_push(&argv, s);
		free(copy);
	}
	if (!argv.n)
		return kerr_set(e, "reboot: empty reboot command");
	char *exe = find_in_path(argv.v[0]);
	if (!exe) {
		kerr_set(e, "reboot: %s: not found", argv.v[0]);
		sv_clear(&argv);
		return -1;
	}
	free(argv.v[0]);
	argv.v[0] = exe;
	struct exec_result r = { 0 };
	int rc = exec_simple(sv_array(&argv), 60, &r, e);
	if (rc == 0 && !(r.exited && r.status == 0))
		rc = kerr_set(e, "reboot: %s %s %d: %s", argv.v[0], r.exited ? "exited with" : "killed by signal",
			      r.exited ? r.status : r.signal, sb_str(&r.err));
	exec_result_release(&r);
	sv_clear(&argv);
	return rc;
}
