/*
 * platform.c - the root path, small readers of /sys and /proc, and every
 * check `kiln doctor` shows.
 *
 * Each check is one function appending one struct pcheck (name, state, value,
 * fix).  A check that cannot look (file missing, not permitted) says
 * "unavailable" and why, never "ok": a benchmark user must see plainly what
 * was not checked.  All paths are logical ("/sys/...") and go through
 * platform_path(), so a test can build a fake tree and set KILN_SYSROOT.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "isolate.h"
#include "platform.h"
#include "idcache.h"
#include "plugin.h"

static char *plat_root_set;
static int plat_root_is_set;

void platform_set_root(const char *root)
{
	free(plat_root_set);
	plat_root_set = root ? xstrdup(root) : NULL;
	plat_root_is_set = root != NULL;
}

const char *platform_root(void)
{
	if (plat_root_is_set)
		return plat_root_set;
	const char *r = getenv("KILN_SYSROOT");
	return r ? r : "";
}

char *platform_path(const char *abs)
{
	const char *r = platform_root();
	size_t n = strlen(r);
	while (n > 0 && r[n - 1] == '/')
		n--;
	return xasprintf("%.*s%s", (int)n, r, abs);
}

static void trim(struct strbuf *sb)
{
	while (sb->len && isspace((unsigned char)sb->buf[sb->len - 1]))
		sb->buf[--sb->len] = '\0';
}

int plat_read(const char *abs, struct strbuf *out)
{
	char *p = platform_path(abs);
	int r = read_file(p, out, NULL);
	free(p);
	if (r == 0)
		trim(out);
	return r;
}

int plat_read_long(const char *abs, long *out)
{
	struct strbuf sb = STRBUF_INIT;
	int r = plat_read(abs, &sb);
	if (r == 0 && parse_long(sb_str(&sb), out))
		r = -1;
	sb_release(&sb);
	return r;
}

static int plat_read_double(const char *abs, double *out)
{
	struct strbuf sb = STRBUF_INIT;
	int r = plat_read(abs, &sb);
	if (r == 0 && parse_double(sb_str(&sb), out))
		r = -1;
	sb_release(&sb);
	return r;
}

void plat_glob(const char *pattern, struct strvec *out)
{
	char *p = platform_path(pattern);
	size_t skip = strlen(p) - strlen(pattern);
	glob_t g;
	if (glob(p, 0, NULL, &g) == 0) {
		for (size_t i = 0; i < g.gl_pathc; i++)
			sv_push(out, g.gl_pathv[i] + skip);
	}
	globfree(&g);
	free(p);
}

/* ---- the list of findings ---- */

const char *pstate_name(enum pstate s)
{
	switch (s) {
	case PS_OK: return "ok";
	case PS_WARN: return "warn";
	case PS_FAIL: return "fail";
	default: return "unavailable";
	}
}

static void add(struct pchecks *c, const char *name, enum pstate st, const char *fix,
		const char *fmt, ...) KILN_PRINTF(5, 6);
static void add(struct pchecks *c, const char *name, enum pstate st, const char *fix,
		const char *fmt, ...)
{
	if (c->n == c->alloc) {
		c->alloc = c->alloc ? 2 * c->alloc : 16;
		c->v = xrealloc(c->v, c->alloc * sizeof(*c->v));
	}
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	sb_vaddf(&sb, fmt, ap);
	va_end(ap);
	struct pcheck *k = &c->v[c->n++];
	k->name = xstrdup(name);
	k->state = st;
	k->value = sb_detach(&sb);
	k->fix = fix ? xstrdup(fix) : NULL;
}

const struct pcheck *pchecks_find(const struct pchecks *c, const char *name)
{
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->v[i].name, name))
			return &c->v[i];
	return NULL;
}

int pchecks_worst(const struct pchecks *c)
{
	int w = PS_OK;
	for (size_t i = 0; i < c->n; i++) {
		if (c->v[i].state == PS_FAIL)
			return PS_FAIL;
		if (c->v[i].state == PS_WARN)
			w = PS_WARN;
	}
	return w;
}

json_t *pchecks_json(const struct pchecks *c)
{
	json_t *a = json_array();
	for (size_t i = 0; i < c->n; i++) {
		const struct pcheck *k = &c->v[i];
		json_array_append_new(a, json_pack("{s:s, s:s, s:s, s:s?}", "name", k->name,
						   "state", pstate_name(k->state), "value", k->value,
						   "fix", k->fix));
	}
	return a;
}

void pchecks_release(struct pchecks *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->v[i].name);
		free(c->v[i].value);
		free(c->v[i].fix);
	}
	free(c->v);
	c->v = NULL;
	c->n = c->alloc = 0;
}

/* a problem is a fail only when the policy requires that check */
static enum pstate bad(enum check_mode m)
{
	return m == CHECK_REQUIRE ? PS_FAIL : PS_WARN;
}

/* ---- the checks ---- */

static void ck_governor(const struct platform_conf *pc, struct pchecks *c)
{
	struct strvec paths = STRVEC_INIT;
	plat_glob("/sys/devices/system/cpu/cpu[0-9]*/cpufreq/scaling_governor", &paths);
	if (!paths.n) {
		add(c, "governor", pc->governor == CHECK_REQUIRE ? PS_FAIL : PS_UNAVAILABLE,
		    "nothing to do in a VM; on hardware load the cpufreq driver",
		    "no cpufreq (no scaling_governor under /sys/devices/system/cpu)");
		sv_clear(&paths);
		return;
	}
	struct strbuf val = STRBUF_INIT, cur = STRBUF_INIT;
	/*
	 * An offline CPU keeps its cpufreq link, but its policy is inactive and
	 * a read of its governor fails (EBUSY): it runs nothing, so it is not
	 * counted (SMT turned off through smt/control leaves half the CPUs so).
	 */
	cpu_set_t online;
	int know_online = plat_read("/sys/devices/system/cpu/online", &cur) == 0 && cur.len &&
			  exec_parse_cpus(cur.buf, &online) == 0;
	size_t notperf = 0, offline = 0;
	for (size_t i = 0; i < paths.n; i++) {
		const char *cpu = strstr(paths.v[i], "/cpu/") + 5;
		long num = strtol(cpu + 3, NULL, 10);
		sb_reset(&cur);
		if (know_online && num >= 0 && num < CPU_SETSIZE && !CPU_ISSET(num, &online)) {
			sb_adds(&cur, "offline");
			offline++;
		} else {
			if (plat_read(paths.v[i], &cur) < 0)
				sb_adds(&cur, "?");
			if (strcmp(sb_str(&cur), "performance"))
				notperf++;
		}
		sb_addf(&val, "%s%.*s=%s", i ? " " : "", (int)strcspn(cpu, "/"), cpu, sb_str(&cur));
	}
	if (notperf)
		add(c, "governor", bad(pc->governor),
		    "kiln run --tune (as root), or: cpupower frequency-set -g performance",
		    "%zu of %zu CPUs not on performance: %s", notperf, paths.n - offline, val.buf);
	else
		add(c, "governor", PS_OK, NULL, "%s", val.buf);
	sb_release(&val);
	sb_release(&cur);
	sv_clear(&paths);
}

static void ck_driver(struct pchecks *c)
{
	struct strbuf sb = STRBUF_INIT;
	struct strvec paths = STRVEC_INIT;
	plat_glob("/sys/devices/system/cpu/cpu[0-9]*/cpufreq/scaling_driver", &paths);
	if (paths.n && plat_read(paths.v[0], &sb) == 0)
		add(c, "scaling-driver", PS_OK, NULL, "%s", sb.buf);
	else
		add(c, "scaling-driver", PS_UNAVAILABLE, NULL, "no cpufreq scaling driver");
	sv_clear(&paths);
	sb_release(&sb);
}

static void ck_turbo(struct pchecks *c)
{
	long v;
	if (plat_read_long("/sys/devices/system/cpu/intel_pstate/no_turbo", &v) == 0) {
		if (v == 1)
			add(c, "turbo", PS_OK, NULL, "off (intel_pstate/no_turbo=1)");
		else
			add(c, "turbo", PS_WARN,
			    "kiln run --tune (as root), or: echo 1 > /sys/devices/system/cpu/intel_pstate/no_turbo",
			    "on (intel_pstate/no_turbo=%ld): clock speed depends on temperature and load", v);
		return;
	}
	if (plat_read_long("/sys/devices/system/cpu/cpufreq/boost", &v) == 0) {
		if (v == 0)
			add(c, "turbo", PS_OK, NULL, "off (cpufreq/boost=0)");
		else
			add(c, "turbo", PS_WARN,
			    "kiln run --tune (as root), or: echo 0 > /sys/devices/system/cpu/cpufreq/boost",
			    "on (cpufreq/boost=%ld): clock speed depends on temperature and load", v);
		return;
	}
	add(c, "turbo", PS_UNAVAILABLE, NULL,
	    "no intel_pstate/no_turbo or cpufreq/boost: cannot tell whether turbo is on");
}

/* value of KEY= in the kernel command line, NULL if absent (caller frees) */
static char *cmdline_get(const char *cmdline, const char *key)
{
	size_t kl = strlen(key);
	const char *p = cmdline;
	while (p && *p) {
		while (*p == ' ')
			p++;
		if (!strncmp(p, "--", 2) && (p[2] == ' ' || !p[2]))
			break; /* what follows "--" goes to init */
		if (!strncmp(p, key, kl) && p[kl] == '=')
			return xstrndup(p + kl + 1, strcspn(p + kl + 1, " "));
		p = strchr(p, ' ');
	}
	return NULL;
}

/* the first CPU of pin_cpus that is not in the isolated list, -1 when none (or either cannot be read) */
static int pinned_not_isolated(const struct platform_conf *pc, const char *isolated)
{
	cpu_set_t iso, want;
	if (!pc->pin_cpus.n || exec_parse_cpus(isolated, &iso) < 0)
		return -1;
	for (size_t i = 0; i < pc->pin_cpus.n; i++) {
		if (exec_parse_cpus(pc->pin_cpus.v[i], &want) < 0)
			continue;
		for (int k = 0; k < CPU_SETSIZE; k++)
			if (CPU_ISSET(k, &want) && !CPU_ISSET(k, &iso))
				return k;
	}
	return -1;
}

static void ck_isolation(const struct platform_conf *pc, struct pchecks *c)
{
	struct strbuf cmd = STRBUF_INIT, iso = STRBUF_INIT;
	int stray;
	int have_cmd = plat_read("/proc/cmdline", &cmd) == 0;
	int have_iso = plat_read("/sys/devices/system/cpu/isolated", &iso) == 0;
	char *isol = have_cmd ? cmdline_get(cmd.buf, "isolcpus") : NULL;
	char *nohz = have_cmd ? cmdline_get(cmd.buf, "nohz_full") : NULL;
	if (!have_cmd && !have_iso) {
		add(c, "isolcpus", PS_UNAVAILABLE, NULL, "cannot read /proc/cmdline or cpu/isolated");
	} else if (have_iso && iso.len && (stray = pinned_not_isolated(pc, iso.buf)) >= 0) {
		/* isolated CPUs that the pexecs are not pinned to isolate nothing of theirs */
		add(c, "isolcpus", PS_WARN, "set platform.pin_cpus to the isolated CPUs",
		    "isolated CPUs %s, but pin_cpus has CPU %d, which is not isolated", iso.buf, stray);
	} else if (have_iso && iso.len) {
		add(c, "isolcpus", PS_OK, pc->pin_cpus.n ? NULL : "set platform.pin_cpus to the isolated CPUs",
		    "isolated CPUs %s%s%s%s", iso.buf, nohz ? ", nohz_full=" : "", nohz ? nohz : "",
		    pc->pin_cpus.n ? "" : " (not used: pin_cpus is not set)");
	} else {
		add(c, "isolcpus", PS_WARN,
		    "boot with isolcpus=N-M nohz_full=N-M (GRUB_CMDLINE_LINUX) and set platform.pin_cpus",
		    "no isolated CPUs%s%s%s", isol ? " (isolcpus=" : "", isol ? isol : "", isol ? " ignored?)" : "");
	}
	free(isol);
	free(nohz);
	sb_release(&cmd);
	sb_release(&iso);
}

static void ck_aslr(const struct platform_conf *pc, struct pchecks *c)
{
	long v;
	if (plat_read_long("/proc/sys/kernel/randomize_va_space", &v) < 0) {
		add(c, "aslr", PS_UNAVAILABLE, NULL, "cannot read /proc/sys/kernel/randomize_va_space");
		return;
	}
	const char *what = v == 0 ? "off" : v == 1 ? "partial" : "full";
	if (v == 0 && pc->aslr == ASLR_ON)
		/* a personality can take randomization away from a child, never give it back */
		add(c, "aslr", PS_WARN, "sysctl kernel.randomize_va_space=2, or set platform.aslr: off or system",
		    "system off (0): aslr: on cannot turn it on per pexec, addresses are fixed");
	else if (v == 0 || pc->aslr == ASLR_OFF)
		add(c, "aslr", PS_OK, NULL, "system %s (%ld)%s", what, v,
		    pc->aslr == ASLR_OFF ? "; kiln turns it off per pexec (aslr: off)" : "");
	else if (pc->aslr == ASLR_ON)
		add(c, "aslr", PS_OK, NULL, "system %s (%ld); kept on per pexec (aslr: on)", what, v);
	else
		add(c, "aslr", PS_WARN,
		    "set platform.aslr: off (per pexec, no root needed) or sysctl kernel.randomize_va_space=0",
		    "system %s (%ld): addresses vary between pexecs", what, v);
}

static void ck_paranoid(struct pchecks *c)
{
	long v;
	if (plat_read_long("/proc/sys/kernel/perf_event_paranoid", &v) < 0) {
		add(c, "perf-paranoid", PS_UNAVAILABLE, NULL, "cannot read /proc/sys/kernel/perf_event_paranoid");
		return;
	}
	if (v <= 1 || geteuid() == 0)
		add(c, "perf-paranoid", PS_OK, NULL, "%ld%s", v, geteuid() == 0 && v > 1 ? " (root is exempt)" : "");
	else
		add(c, "perf-paranoid", PS_WARN, "sysctl kernel.perf_event_paranoid=1",
		    "%ld: unprivileged perf may not profile the kernel or other users (kiln profile)", v);
}

int plat_have_cycles(int *err)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_HARDWARE;
	a.config = PERF_COUNT_HW_CPU_CYCLES;
	a.disabled = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	long fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd < 0) {
		if (err)
			*err = errno;
		return 0;
	}
	close((int)fd);
	return 1;
}

static void ck_counters(struct pchecks *c)
{
	int err = 0;
	if (plat_have_cycles(&err)) {
		add(c, "counters", PS_OK, NULL, "hardware cycles counter available (perf_event_open)");
		return;
	}
	if (err == EACCES || err == EPERM)
		add(c, "counters", PS_WARN, "sysctl kernel.perf_event_paranoid=2 (or lower)",
		    "perf_event_open(cycles): %s", strerror(err));
	else
		add(c, "counters", PS_UNAVAILABLE, "nothing to do in a VM without a virtual PMU",
		    "no hardware counters: perf_event_open(cycles): %s; counters are reported as unavailable",
		    strerror(err));
}

/*
 * What systemd-detect-virt says (its output when it exits 0, else ""),
 * cached for the boot: a machine does not change its hypervisor without
 * rebooting, and a new systemd-detect-virt is asked again.
 */
static int detect_virt(const char *sdv, struct strbuf *out)
{
	struct strbuf boot = STRBUF_INIT;
	char *real = realpath(sdv, NULL);
	char id[96];
	int have = plat_read("/proc/sys/kernel/random/boot_id", &boot) == 0 && real && fileid(real, id) == 0;
	json_t *hit = have ? idc_get("virt", boot.buf) : NULL;
	int r = 0;
	if (hit && json_is_string(json_object_get(hit, "out"))) {
		sb_adds(out, json_string_value(json_object_get(hit, "out")));
	} else {
		char *argv[] = { (char *)sdv, NULL };
		struct exec_result res = { 0 };
		if (exec_simple(argv, 5, &res, NULL) == 0 && res.exited) {
			if (res.status == 0)
				sb_adds(out, sb_str(&res.out));
			trim(out);
			if (have)
				idc_put("virt", boot.buf, json_pack("{s:{s:s}, s:s}", "ids", real, id, "out",
								    esc(ESC_JSON, sb_str(out))));
		} else {
			r = -1;
		}
		exec_result_release(&res);
	}
	free(real);
	sb_release(&boot);
	return r;
}

static void ck_virt(const struct doctor_opts *o, struct pchecks *c)
{
	struct strbuf info = STRBUF_INIT, sb = STRBUF_INIT, why = STRBUF_INIT;
	int looked = 0;
	if (plat_read("/proc/cpuinfo", &info) == 0) {
		looked = 1;
		/* the word "hypervisor" in a flags line */
		for (const char *p = info.buf; (p = strstr(p, "hypervisor")); p++) {
			const char *ls = p;
			while (ls > info.buf && ls[-1] != '\n')
				ls--;
			if (!strncmp(ls, "flags", 5) && (p[10] == ' ' || p[10] == '\n' || !p[10])) {
				sb_adds(&why, "cpuinfo flag hypervisor");
				break;
			}
		}
	}
	static const char *const dmi[] = { "/sys/class/dmi/id/sys_vendor", "/sys/class/dmi/id/product_name" };
	static const char *const vms[] = { "QEMU", "KVM", "VMware", "VirtualBox", "Xen", "Bochs",
		"Amazon EC2", "Google Compute Engine", "Virtual Machine", "OpenStack", "Firecracker", "innotek" };
	for (size_t i = 0; i < ARRAY_SIZE(dmi); i++) {
		if (plat_read(dmi[i], &sb) < 0)
			continue;
		looked = 1;
		for (size_t j = 0; j < ARRAY_SIZE(vms); j++)
			if (strstr(sb.buf, vms[j])) {
				sb_addf(&why, "%sdmi %s", why.len ? ", " : "", sb.buf);
				break;
			}
	}
	/* systemd-detect-virt looks at the real machine: not under a fake root */
	char *sdv = (!o->no_detect_virt && !*platform_root()) ? find_in_path("systemd-detect-virt") : NULL;
	struct strbuf out = STRBUF_INIT;
	if (sdv && detect_virt(sdv, &out) == 0) {
		looked = 1;
		if (out.len && strcmp(out.buf, "none"))
			sb_addf(&why, "%ssystemd-detect-virt %s", why.len ? ", " : "", out.buf);
	}
	sb_release(&out);
	free(sdv);
	if (why.len)
		add(c, "virtualization", PS_WARN,
		    "benchmark on bare metal for final numbers: a hypervisor adds noise and hides counters",
		    "this machine is virtualized (%s)", why.buf);
	else if (looked)
		add(c, "virtualization", PS_OK, NULL, "no sign of a hypervisor");
	else
		add(c, "virtualization", PS_UNAVAILABLE, NULL, "cannot read cpuinfo or DMI");
	sb_release(&info);
	sb_release(&sb);
	sb_release(&why);
}

/* every temperature sensor: thermal zones and hwmon inputs */
static void temp_sensors(struct strvec *out)
{
	plat_glob("/sys/class/thermal/thermal_zone*/temp", out);
	plat_glob("/sys/class/hwmon/hwmon*/temp*_input", out);
}

static void ck_temps(const struct platform_conf *pc, struct pchecks *c)
{
	struct strvec s = STRVEC_INIT;
	temp_sensors(&s);
	struct strbuf val = STRBUF_INIT;
	size_t n = 0;
	double max = -1e9;
	for (size_t i = 0; i < s.n; i++) {
		double t;
		if (plat_read_double(s.v[i], &t) < 0)
			continue;
		t /= 1000;
		if (t > max)
			max = t;
		n++;
	}
	if (n)
		add(c, "temperature", PS_OK, NULL, "%zu sensor%s, hottest %.1f °C", n, n > 1 ? "s" : "", max);
	else
		add(c, "temperature", pc->temperature == CHECK_REQUIRE ? PS_FAIL : PS_UNAVAILABLE,
		    "load the sensor drivers (lm-sensors: sensors-detect); in a VM there are none",
		    "no temperature sensors (thermal_zone*/temp, hwmon*/temp*_input): kiln cannot wait for the machine to cool");
	sv_clear(&s);
	sb_release(&val);
}

static void ck_throttle(struct pchecks *c)
{
	struct strvec s = STRVEC_INIT;
	plat_glob("/sys/devices/system/cpu/cpu[0-9]*/thermal_throttle/*_throttle_count", &s);
	long sum = 0;
	size_t n = 0;
	for (size_t i = 0; i < s.n; i++) {
		long v;
		if (plat_read_long(s.v[i], &v) == 0) {
			sum += v;
			n++;
		}
	}
	if (n)
		add(c, "throttling", sum ? PS_WARN : PS_OK, sum ? "improve cooling; check that the machine is not in a hot room" : NULL,
		    "%zu throttle counters, total %ld since boot", n, sum);
	else
		add(c, "throttling", PS_UNAVAILABLE, NULL,
		    "no thermal_throttle counters: thermal throttling during a pexec cannot be detected");
	sv_clear(&s);
}

/* ---- load and busy processes ---- */

struct pstat { long pid; char comm[64]; char state; unsigned long long ticks; };

/* /proc/PID/stat of every process (logical paths), read from the folder: no stat() of each as glob does */
static void proc_pids(struct strvec *out)
{
	char *proc = platform_path("/proc");
	DIR *d = opendir(proc);
	struct dirent *de;
	while (d && (de = readdir(d)))
		if (de->d_name[0] >= '1' && de->d_name[0] <= '9' && strspn(de->d_name, "0123456789") == strlen(de->d_name))
			sv_pushf(out, "/proc/%s/stat", de->d_name);
	if (d)
		closedir(d);
	free(proc);
}

/* every process's CPU ticks; with running_max, only until that many others are seen running (state R) */
static size_t proc_sample(struct pstat **out, size_t running_max)
{
	struct strvec st = STRVEC_INIT;
	proc_pids(&st);
	struct pstat *v = xcalloc(st.n + 1, sizeof(*v));
	size_t n = 0, running = 0;
	long self = getpid();
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < st.n && (!running_max || running < running_max); i++) {
		if (plat_read(st.v[i], &sb) < 0)
			continue;
		/* pid (comm) state ppid ... utime(14) stime(15): comm may hold spaces and ')' */
		char *l = strchr(sb.buf, '('), *r = strrchr(sb.buf, ')');
		if (!l || !r || r < l)
			continue;
		struct pstat *p = &v[n];
		p->pid = strtol(sb.buf, NULL, 10);
		snprintf(p->comm, sizeof(p->comm), "%.*s", (int)(r - l - 1), l + 1);
		unsigned long long ut = 0, stt = 0;
		if (sscanf(r + 1, " %c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &p->state, &ut, &stt) != 3)
			continue;
		p->ticks = ut + stt;
		running += p->state == 'R' && p->pid != self;
		n++;
	}
	sb_release(&sb);
	sv_clear(&st);
	*out = v;
	return n;
}

/* the top three processes above 5% of a CPU over dt seconds */
static void busy_sampled(double dt, struct strbuf *busy)
{
	struct pstat *a, *b;
	size_t na = proc_sample(&a, 0);
	struct timespec ts = { (time_t)dt, (long)((dt - (long)dt) * 1e9) };
	nanosleep(&ts, NULL);
	size_t nb = proc_sample(&b, 0);
	long hz = sysconf(_SC_CLK_TCK);
	long self = getpid();
	for (int k = 0; k < 3; k++) {
		double best = 0.05;
		size_t bi = (size_t)-1;
		for (size_t i = 0; i < nb; i++) {
			if (b[i].pid == self || b[i].pid < 0)
				continue;
			for (size_t j = 0; j < na; j++)
				if (a[j].pid == b[i].pid) {
					double u = (double)(b[i].ticks - a[j].ticks) / hz / dt;
					if (b[i].ticks >= a[j].ticks && u > best) {
						best = u;
						bi = i;
					}
					break;
				}
		}
		if (bi == (size_t)-1)
			break;
		sb_addf(busy, "%s%s[%ld] %.0f%%", busy->len ? ", " : "", b[bi].comm, b[bi].pid, best * 100);
		b[bi].pid = -1;
	}
	free(a);
	free(b);
}

/*
 * Without waiting: the processes on a CPU or waiting for one now (state R),
 * kiln aside, at most three.  `kiln run` asks only this unless its load
 * check is on: sampling would cost the start of every run its interval.
 * /proc/loadavg counts them first (kiln is one): on a quiet machine no
 * process is read.
 */
static void running_now(struct strbuf *busy)
{
	struct strbuf la = STRBUF_INIT;
	long running = 2;
	if (plat_read("/proc/loadavg", &la) == 0)
		sscanf(la.buf, "%*s %*s %*s %ld/", &running);
	sb_release(&la);
	if (running <= 1)
		return;
	struct pstat *a;
	size_t na = proc_sample(&a, 3), shown = 0;
	long self = getpid();
	for (size_t i = 0; i < na && shown < 3; i++)
		if (a[i].state == 'R' && a[i].pid != self) {
			sb_addf(busy, "%s%s[%ld]", busy->len ? ", " : "", a[i].comm, a[i].pid);
			shown++;
		}
	free(a);
}

static void ck_load(const struct platform_conf *pc, const struct doctor_opts *o, struct pchecks *c)
{
	double l1, l5, l15;
	struct strbuf sb = STRBUF_INIT;
	if (plat_read("/proc/loadavg", &sb) < 0 || sscanf(sb.buf, "%lf %lf %lf", &l1, &l5, &l15) != 3) {
		add(c, "load", PS_UNAVAILABLE, NULL, "cannot read /proc/loadavg");
		sb_release(&sb);
		return;
	}
	struct strbuf busy = STRBUF_INIT;
	if (o->busy_now)
		running_now(&busy);
	else
		busy_sampled(o->busy_sample_s > 0 ? o->busy_sample_s : 0.5, &busy);
	double max = pc->load_max > 0 ? pc->load_max : 1.0;
	if (l1 > max || busy.len)
		add(c, "load", l1 > max ? bad(pc->load) : PS_WARN,
		    "stop other work on the machine (services, desktops, cron jobs) during the experiment",
		    "load %.2f %.2f %.2f (max %.2f)%s%s", l1, l5, l15, max,
		    busy.len ? o->busy_now ? "; running now: " : "; busy: " : "", sb_str(&busy));
	else
		add(c, "load", PS_OK, NULL, "load %.2f %.2f %.2f (max %.2f), no %s process", l1, l5, l15, max,
		    o->busy_now ? "other running" : "busy");
	sb_release(&busy);
	sb_release(&sb);
}

/* kB value of a /proc/meminfo field, -1 if absent */
static long meminfo(const char *text, const char *field)
{
	size_t fl = strlen(field);
	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, field, fl) && p[fl] == ':')
			return strtol(p + fl + 1, NULL, 10);
	return -1;
}

static void ck_memory(const struct experiment *ex, struct pchecks *c)
{
	struct strbuf mi = STRBUF_INIT;
	if (plat_read("/proc/meminfo", &mi) < 0) {
		add(c, "swap", PS_UNAVAILABLE, NULL, "cannot read /proc/meminfo");
		add(c, "memory", PS_UNAVAILABLE, NULL, "cannot read /proc/meminfo");
		return;
	}
	long swap = meminfo(mi.buf, "SwapTotal"), avail = meminfo(mi.buf, "MemAvailable");
	if (swap < 0)
		add(c, "swap", PS_UNAVAILABLE, NULL, "no SwapTotal in /proc/meminfo");
	else if (swap > 0)
		add(c, "swap", PS_WARN, "swapoff -a (and remove swap from /etc/fstab for the experiment)",
		    "%ld MiB of swap: a pexec that swaps is timed with disk I/O", swap / 1024);
	else
		add(c, "swap", PS_OK, NULL, "no swap");
	long heap = ex ? ex->limits.address_space_mb : 0;
	if (avail < 0)
		add(c, "memory", PS_UNAVAILABLE, NULL, "no MemAvailable in /proc/meminfo");
	else if (heap > 0 && avail / 1024 < heap)
		add(c, "memory", PS_FAIL, "lower limits.address_space_mb or free memory",
		    "%ld MiB available, less than the address-space limit %ld MiB", avail / 1024, heap);
	else if (heap > 0)
		add(c, "memory", PS_OK, NULL, "%ld MiB available, address-space limit %ld MiB", avail / 1024, heap);
	else
		add(c, "memory", PS_OK, NULL, "%ld MiB available (no address-space limit set)", avail / 1024);
	sb_release(&mi);
}

/*
 * What makes each built-in VM start for real (`node --version` starts
 * without V8's heap; `node -e 0` reserves it), keyed by plugin name.
 */
static const struct { const char *plugin; const char *args[3]; } vm_start[] = {
	{ "node", { "-e", "0" } },       { "java", { "-version" } },   { "jruby", { "-e", "0" } },
	{ "python", { "-c", "pass" } },  { "pypy", { "-c", "pass" } }, { "lua", { "-e", "" } },
	{ "luajit", { "-e", "" } },      { "ruby", { "-e", "0" } },    { "php", { "-r", "" } },
};

/* does the VM start (with its configured args and env) under an RLIMIT_AS of as_mb (0: none)? */
static int vm_starts(const struct vm_conf *vm, const char *exe, const char *const *start, long as_mb,
		     struct strbuf *why)
{
	struct strvec argv = STRVEC_INIT, env = STRVEC_INIT;
	sv_push(&argv, exe);
	for (size_t i = 0; i < vm->args.n; i++)
		sv_push(&argv, vm->args.v[i]);
	for (size_t i = 0; i < 3 && start[i]; i++)
		sv_push(&argv, start[i]);
	const char *path = getenv("PATH");
	sv_setenv(&env, "PATH", path ? path : "/usr/bin:/bin");
	for (size_t i = 0; i < vm->env.n; i++)
		sv_push(&env, vm->env.v[i]);
	struct exec_opts o;
	exec_opts_plain(&o, sv_array(&argv), sv_array(&env), 60);
	o.capture_bytes = 4096;
	o.rlimit_as_mb = as_mb;
	struct exec_result r = { 0 };
	struct kerr e = KERR_INIT;
	int ok = exec_run(&o, &r, &e) == 0 && r.exited && r.status == 0;
	if (!ok && why) {
		const char *err = sb_str(&r.err);
		while (*err && isspace((unsigned char)*err))
			err++;
		const char *nl = strchr(err, '\n');
		if (r.exited)
			sb_addf(why, "exit status %d", r.status);
		else
			sb_addf(why, "killed by signal %d (%s)", r.signal, strsignal(r.signal));
		if (*err) { /* the VM's words, made safe for a terminal */
			sb_adds(why, ": ");
			esc_addn(why, ESC_TERM, err, nl ? (size_t)(nl - err) : strlen(err));
		}
	}
	exec_result_release(&r);
	kerr_release(&e);
	sv_clear(&argv);
	sv_clear(&env);
	return ok;
}

/*
 * limits.address_space_mb is RLIMIT_AS: node and java reserve gigabytes of
 * address space at start-up and die under a limit that sounds like a heap
 * size.  Each built-in VM of the config is started under it, and where it
 * starts without the limit but not with it, that is a failure.
 */
static void ck_address_space(const struct experiment *ex, struct pchecks *c)
{
	long as = ex ? ex->limits.address_space_mb : 0;
	if (as <= 0)
		return;
	struct strbuf ok = STRBUF_INIT;
	for (size_t v = 0; v < ex->nvms; v++) {
		const struct vm_conf *vm = &ex->vms[v];
		const char *const *start = NULL;
		for (size_t i = 0; vm->pl && i < ARRAY_SIZE(vm_start); i++)
			if (!strcmp(vm->pl->name, vm_start[i].plugin))
				start = vm_start[i].args;
		char *exe = start ? find_in_path(vm->path ? vm->path : vm->pl->vm_default) : NULL;
		if (!exe)
			continue;
		struct strbuf why = STRBUF_INIT;
		if (vm_starts(vm, exe, start, as, &why))
			sb_addf(&ok, "%s%s", ok.len ? ", " : "", vm->name);
		else if (vm_starts(vm, exe, start, 0, NULL))
			add(c, "address space", PS_FAIL,
			    "raise limits.address_space_mb, or set it to 0 and bound the heap the VM's way in vms.X.args "
			    "(node --max-old-space-size=MB, java -Xmx<MB>m)",
			    "VM '%s' (%s) cannot start under limits.address_space_mb %ld MiB (RLIMIT_AS bounds every "
			    "mapping, not the heap): %s", vm->name, exe, as, why.buf);
		sb_release(&why);
		free(exe);
	}
	if (ok.len)
		add(c, "address space", PS_OK, NULL, "started under limits.address_space_mb %ld MiB: %s", as, ok.buf);
	sb_release(&ok);
}

static void ck_thp(struct pchecks *c)
{
	struct strbuf sb = STRBUF_INIT;
	if (plat_read("/sys/kernel/mm/transparent_hugepage/enabled", &sb) < 0) {
		add(c, "thp", PS_UNAVAILABLE, NULL, "no /sys/kernel/mm/transparent_hugepage/enabled");
		return;
	}
	const char *l = strchr(sb.buf, '['), *r = l ? strchr(l, ']') : NULL;
	char *mode = l && r ? xstrndup(l + 1, (size_t)(r - l - 1)) : xstrdup(sb.buf);
	if (!strcmp(mode, "always"))
		add(c, "thp", PS_WARN, "echo madvise > /sys/kernel/mm/transparent_hugepage/enabled",
		    "transparent huge pages: always (khugepaged may move memory during a pexec)");
	else
		add(c, "thp", PS_OK, NULL, "transparent huge pages: %s", mode);
	free(mode);
	sb_release(&sb);
}

static void ck_kmsg(const struct platform_conf *pc, struct pchecks *c)
{
	char *p = platform_path("/dev/kmsg");
	int fd = open(p, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd >= 0) {
		close(fd);
		add(c, "kmsg", PS_OK, NULL, "kernel log readable (%s)", p);
	} else {
		add(c, "kmsg", pc->kmsg == CHECK_REQUIRE ? PS_FAIL : PS_UNAVAILABLE,
		    "run as root or sysctl kernel.dmesg_restrict=0",
		    "%s: %s: kernel messages during a pexec cannot be checked", p, strerror(errno));
	}
	free(p);
}

/*
 * The pexecs' machine and bounds (isolate.h): what kiln can make here, as
 * it would try it, and what a fresh machine does not renew.
 */
static void ck_machine(const struct experiment *ex, struct pchecks *c)
{
	char *why = NULL;
	int off = ex && ex->limits.isolate == ISOLATE_OFF;
	enum machine_kind k = off ? MACHINE_NONE : machine_possible(&why);
	static const char carry[] = "; carried over all the same: the page cache, CPU caches and branch predictors, "
				    "the kernel's caches, files written outside the machine (docs/security.md#what-carries-over)";
	if (k != MACHINE_NONE)
		add(c, "machine", PS_OK, NULL, "a fresh machine for each pexec (%s): private /tmp, /var/tmp, /dev/shm, "
		    "home and SysV IPC%s", k == MACHINE_ROOT ? "namespaces as root" : "in a user namespace", carry);
	else
		add(c, "machine", PS_WARN, off ? "limits.isolate is false" :
		    "run kiln as root, or allow unprivileged user namespaces",
		    "pexecs share /tmp, /var/tmp, /dev/shm and SysV IPC: %s", off ? "limits.isolate is false" : why);
	free(why);
	enum cg_kind g = cg_possible(&why);
	if (g != CG_NONE)
		add(c, "bounds", PS_OK, NULL, "limits.processes and limits.memory_mb by cgroup %s; RLIMIT_NPROC of "
		    "platform.user, RLIMIT_FSIZE", g == CG_V1 ? "v1" : "v2");
	else
		add(c, "bounds", PS_WARN, "run kiln as root (cgroup v1), or in a cgroup of its own with the pids and memory "
		    "controllers delegated (systemd-run --scope -p Delegate=yes)",
		    "no cgroup: %s; processes bounded by RLIMIT_NPROC with platform.user only, memory by "
		    "limits.address_space_mb only", why);
	free(why);
}

static void ck_user(const struct platform_conf *pc, struct pchecks *c)
{
	if (!pc->user) {
		add(c, "user", geteuid() == 0 ? PS_WARN : PS_OK,
		    geteuid() == 0 ? "set platform.user (e.g. kiln-bench): benchmarks should not run as root" : NULL,
		    "benchmarks run as %s", geteuid() == 0 ? "root" : "the invoking user");
		return;
	}
	if (geteuid() != 0) {
		add(c, "user", PS_WARN, "run kiln as root for platform.user to apply",
		    "platform.user %s is ignored: kiln is not root", pc->user);
		return;
	}
	struct strbuf pw = STRBUF_INIT;
	int found = 0;
	if (read_file("/etc/passwd", &pw, NULL) == 0) {
		char *pfx = xasprintf("%s:", pc->user);
		for (const char *l = pw.buf; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
			if (!strncmp(l, pfx, strlen(pfx)))
				found = 1;
		free(pfx);
	}
	add(c, "user", PS_OK, NULL, "benchmarks run as %s%s", pc->user,
	    found ? "" : " (created with useradd --system at the start of the run)");
	sb_release(&pw);
}

/*
 * Where --tune keeps what it changed until it is restored (here, not in
 * platform-tune.c, so that the doctor's check and the tuner both depend on
 * this file and not on each other).
 */
const char *platform_tune_state_path(void)
{
	const char *p = getenv("KILN_TUNE_STATE");
	return p && *p ? p : "/var/lib/kiln/tune-state.json";
}

static void ck_tune_state(struct pchecks *c)
{
	const char *st = platform_tune_state_path();
	long owner = file_exists(st) ? platform_tune_owner(st) : 0;
	if (owner)
		add(c, "tune-state", PS_OK, NULL, "tuned by a kiln run still going (pid %ld): it restores when it ends",
		    owner);
	else if (file_exists(st))
		add(c, "tune-state", PS_WARN, "kiln doctor --restore",
		    "%s exists: an earlier kiln run --tune did not restore the machine", st);
	else
		add(c, "tune-state", PS_OK, NULL, "no unrestored tuning");
}

void platform_doctor(const struct experiment *ex, const struct doctor_opts *o, struct pchecks *out)
{
	struct doctor_opts dflt = { 0 };
	struct platform_conf pcd;
	const struct platform_conf *pc = ex ? &ex->platform : NULL;
	if (!o)
		o = &dflt;
	if (!pc) {
		platform_conf_defaults(&pcd);
		pc = &pcd;
	}
	ck_virt(o, out);
	ck_governor(pc, out);
	ck_driver(out);
	ck_turbo(out);
	ck_isolation(pc, out);
	ck_aslr(pc, out);
	ck_paranoid(out);
	if (!o->no_counters)
		ck_counters(out);
	ck_temps(pc, out);
	ck_throttle(out);
	ck_load(pc, o, out);
	ck_memory(ex, out);
	ck_address_space(ex, out);
	ck_thp(out);
	ck_kmsg(pc, out);
	ck_user(pc, out);
	ck_machine(ex, out);
	ck_tune_state(out);
}
