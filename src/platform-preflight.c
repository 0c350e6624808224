/*
 * platform-preflight.c - can this machine meet the platform settings at
 * all?  kiln run asks before it makes the results file, and a cluster node
 * before its task runs anything, so that a setting the machine cannot meet
 * (a CPU it lacks, a sensor a `require` needs) is a config error naming the
 * setting where the config has it, not a results file left behind by a
 * failed sanity child.  The CPUs are read from sysfs (platform_path, so a
 * test's fake tree stands in for hardware this machine lacks), the ones
 * kiln's cpuset allows from the kernel (exec_allowed_cpus).
 */
#include <pwd.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include "exec.h"
#include "platform.h"

/* the error of setting `name`: FILE:LINE:COL: platform.NAME: ... (exit 3) */
KILN_PRINTF(5, 6)
static int unmet(const struct platform_conf *pc, const char *config, struct kerr *e, const char *name, const char *fmt,
		 ...)
{
	struct strbuf msg = STRBUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	sb_vaddf(&msg, fmt, ap);
	va_end(ap);
	const char *at = sv_getenv(&pc->where, name);
	kerr_setc(e, KEXIT_CONFIG, "%s:%s%splatform.%s: %s", config, at ? at : "", at ? ": " : " ", name, msg.buf);
	sb_release(&msg);
	return -1;
}

/* a sysfs CPU list ("0-3,5") into set; -1 when the file is not there */
static int cpu_list(const char *abs, cpu_set_t *set, struct strbuf *text)
{
	sb_reset(text);
	return plat_read(abs, text) < 0 || !text->len || exec_parse_cpus(text->buf, set) < 0 ? -1 : 0;
}

/* what pin_cpus is checked against: the machine's CPUs, the online ones, kiln's cpuset */
struct cpus_have {
	cpu_set_t present, online, allowed;
	int know_online, know_allowed;
	struct strbuf present_s, online_s, allowed_s;
};

static void cpus_have_read(struct cpus_have *h)
{
	memset(h, 0, sizeof(*h));
	if (cpu_list("/sys/devices/system/cpu/present", &h->present, &h->present_s) < 0) {
		/* no sysfs: the CPUs the C library counts */
		CPU_ZERO(&h->present);
		int n = get_nprocs_conf();
		for (int k = 0; k < n && k < CPU_SETSIZE; k++)
			CPU_SET(k, &h->present);
		sb_reset(&h->present_s);
		sb_addf(&h->present_s, n > 1 ? "0-%d" : "0", n - 1);
	}
	h->know_online = cpu_list("/sys/devices/system/cpu/online", &h->online, &h->online_s) == 0;
	h->know_allowed = exec_allowed_cpus(&h->allowed) == 0;
	if (h->know_allowed)
		exec_format_cpus(&h->allowed, &h->allowed_s);
}

/*
 * One pin_cpus item: every CPU of it on this machine, then every one online,
 * then every one in kiln's cpuset (a container's or a cgroup's, which the
 * child could not be pinned to).  Not kiln's own affinity: kiln may run on
 * a housekeeping CPU (taskset, isolcpus) and pin its pexecs to others.
 */
static int check_cpu_item(const struct platform_conf *pc, const char *config, const struct cpus_have *h, size_t i,
			  struct kerr *e)
{
	cpu_set_t want;
	char name[32];
	snprintf(name, sizeof(name), "pin_cpus[%zu]", i);
	if (exec_parse_cpus(pc->pin_cpus.v[i], &want) < 0)
		return 0; /* the config check's */
	for (int k = 0; k < CPU_SETSIZE; k++)
		if (CPU_ISSET(k, &want) && !CPU_ISSET(k, &h->present))
			return unmet(pc, config, e, name, "CPU %d is not on this machine (it has %s)", k, h->present_s.buf);
	for (int k = 0; k < CPU_SETSIZE && h->know_online; k++)
		if (CPU_ISSET(k, &want) && !CPU_ISSET(k, &h->online))
			return unmet(pc, config, e, name, "CPU %d is offline (online: %s)", k, h->online_s.buf);
	for (int k = 0; k < CPU_SETSIZE && h->know_allowed; k++)
		if (CPU_ISSET(k, &want) && !CPU_ISSET(k, &h->allowed))
			return unmet(pc, config, e, name,
				     "CPU %d is not one kiln may run on: its cpuset (cgroup or container) allows %s "
				     "of the machine's %s",
				     k, h->allowed_s.buf, h->present_s.buf);
	return 0;
}

/* pin_cpus: every CPU one this machine has, online, and allowed to kiln */
static int check_cpus(const struct platform_conf *pc, const char *config, struct kerr *e)
{
	if (!pc->pin_cpus.n)
		return 0;
	struct cpus_have h;
	cpus_have_read(&h);
	int r = 0;
	for (size_t i = 0; i < pc->pin_cpus.n && !r; i++)
		r = check_cpu_item(pc, config, &h, i, e);
	sb_release(&h.present_s);
	sb_release(&h.online_s);
	sb_release(&h.allowed_s);
	return r;
}

/* platform.user and platform.nice: what only root (or RLIMIT_NICE) may have */
static int check_privilege(const struct platform_conf *pc, const char *config, struct kerr *e)
{
	if (pc->user) {
		if (!platform_user_name_ok(pc->user))
			return unmet(pc, config, e, "user", "'%s' is not a valid user name (lower case letters, digits, _ and -)",
				     pc->user);
		struct passwd *pw = getpwnam(pc->user);
		if (!pw && geteuid() != 0)
			return unmet(pc, config, e, "user", "user %s does not exist and kiln is not root (it would create it)",
				     pc->user);
		if (pw && pw->pw_uid == 0)
			return unmet(pc, config, e, "user", "%s has uid 0: the benchmark user must be unprivileged", pc->user);
	}
	struct rlimit rl;
	if (pc->has_nice && pc->nice < 0 && geteuid() != 0 &&
	    !(getrlimit(RLIMIT_NICE, &rl) == 0 && (rl.rlim_cur == RLIM_INFINITY || 20 - pc->nice <= (long)rl.rlim_cur)))
		return unmet(pc, config, e, "nice", "%d needs root (or an RLIMIT_NICE of %d)", pc->nice, 20 - pc->nice);
	return 0;
}

int platform_preflight(const struct platform_conf *pc, const char *config, struct kerr *e)
{
	if (check_cpus(pc, config, e) < 0 || check_privilege(pc, config, e) < 0)
		return -1;
	struct platform p;
	int r = platform_open(&p, pc, e);
	const char *what = p.unmet;
	platform_close(&p);
	if (r < 0 && what) {
		/* the message names the setting already: say where it is */
		const char *at = sv_getenv(&pc->where, what);
		char *msg = xstrdup(sb_str(&e->msg));
		kerr_setc(e, KEXIT_CONFIG, "%s:%s%s%s", config, at ? at : "", at ? ": " : " ", msg);
		free(msg);
	}
	return r;
}
