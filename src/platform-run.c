/*
 * platform-run.c - watching the machine around each pexec.
 *
 * platform_open() records what the machine looked like when the run started
 * (temperatures) and opens the kernel log once.  platform_before_pexec()
 * waits until the machine is back to that state (not hotter than the start
 * by more than the tolerance, load low), syncs, settles, then snapshots what
 * must not change during the pexec: governors, thermal-throttle counters,
 * the kernel log position (SEEK_END).  platform_after_pexec() compares: any
 * change, or a kernel log line outside the allow-list, taints the pexec.
 *
 * The kernel log is /dev/kmsg (one record per read(), EAGAIN at the end,
 * EPIPE when records were overwritten) or, in tests, a regular file in the
 * same "prio,seq,usec,flags;message" format that the test appends to.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "platform.h"

/* kernel messages that say nothing about the benchmark's timing */
static const char *const kmsg_default_allow[] = {
	"^audit: ",
	"^kauditd_printk_skb: ",
	"^(IPv6|IPv4): ",
	"^(eth|en|wl|ww|veth|br-|docker|virbr|tap|vnet|bond|lo)[^ ]*: ",
	"^[^ ]+: port [0-9]+\\([^)]*\\) entered (blocking|disabled|forwarding|learning) state",
	"^device [^ ]+ (entered|left) promiscuous mode",
	"^systemd(-[a-z]+)?\\[[0-9]+\\]: ",
	"^\\[UFW ",
	"^nf_conntrack: ",
	"^random: ",
	"^EXT4-fs \\([^)]*\\): mounted filesystem",
};

static void sleep_s(double s)
{
	if (s <= 0)
		return;
	struct timespec ts = { (time_t)s, (long)((s - (long)s) * 1e9) };
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR && !exec_interrupted)
		;
}

/*
 * Every sensor's °C (millidegrees in sysfs); a sensor that cannot be read
 * now (real ones fail with EIO, ENODATA, EAGAIN: a wireless card down, an
 * ACPI zone that errs) is NAN and the others still count.  How many were read.
 */
static size_t read_temps(const struct strvec *paths, double *out)
{
	size_t ok = 0;
	for (size_t i = 0; i < paths->n; i++) {
		long v;
		if (plat_read_long(paths->v[i], &v) < 0) {
			out[i] = NAN;
			continue;
		}
		out[i] = v / 1000.0;
		ok++;
	}
	return ok;
}

size_t platform_temps(const struct platform *p, double *out)
{
	return read_temps(&p->temp_paths, out) < p->temp_paths.n ? 0 : p->temp_paths.n;
}

static int load1(double *l)
{
	struct strbuf sb = STRBUF_INIT;
	int r = plat_read("/proc/loadavg", &sb);
	if (r == 0 && sscanf(sb.buf, "%lf", l) != 1)
		r = -1;
	sb_release(&sb);
	return r;
}

int platform_open(struct platform *p, const struct platform_conf *conf, struct kerr *e)
{
	memset(p, 0, sizeof(*p));
	p->conf = *conf;
	p->poll_s = 1;
	p->kmsg_fd = -1;
	if (p->conf.temperature != CHECK_OFF) {
		plat_glob("/sys/class/thermal/thermal_zone*/temp", &p->temp_paths);
		plat_glob("/sys/class/hwmon/hwmon*/temp*_input", &p->temp_paths);
		p->temp0 = xcalloc(p->temp_paths.n + 1, sizeof(double));
		read_temps(&p->temp_paths, p->temp0);
		/* a sensor unreadable at the start has no start to compare with: the others are watched */
		struct strvec ok = STRVEC_INIT;
		size_t k = 0;
		for (size_t i = 0; i < p->temp_paths.n; i++)
			if (!isnan(p->temp0[i])) {
				sv_push(&ok, p->temp_paths.v[i]);
				p->temp0[k++] = p->temp0[i];
			}
		sv_clear(&p->temp_paths);
		p->temp_paths = ok;
		if (!p->temp_paths.n && p->conf.temperature == CHECK_REQUIRE) {
			p->unmet = "temperature";
			return kerr_set(e, "platform.temperature is require, but this machine has no readable "
				       "temperature sensor (thermal_zone*/temp, hwmon*/temp*_input)");
		}
	}
	plat_glob("/sys/devices/system/cpu/cpu[0-9]*/cpufreq/scaling_governor", &p->gov_paths);
	plat_glob("/sys/devices/system/cpu/cpu[0-9]*/thermal_throttle/*_throttle_count", &p->thr_paths);
	p->thr_before = xcalloc(p->thr_paths.n + 1, sizeof(long));
	if (!p->gov_paths.n && p->conf.governor == CHECK_REQUIRE) {
		p->unmet = "governor";
		return kerr_set(e, "platform.governor is require, but this machine has no cpufreq governor");
	}

	if (p->conf.kmsg != CHECK_OFF) {
		size_t nuser = conf->kmsg_allow.n;
		size_t ndef = ARRAY_SIZE(kmsg_default_allow);
		regex_t *re = xcalloc(ndef + nuser + 1, sizeof(regex_t));
		p->allow = re;
		for (size_t i = 0; i < ndef + nuser; i++) {
			const char *pat = i < ndef ? kmsg_default_allow[i] : conf->kmsg_allow.v[i - ndef];
			int rc = regcomp(&re[i], pat, REG_EXTENDED | REG_NOSUB);
			if (rc) {
				char buf[256];
				regerror(rc, &re[i], buf, sizeof(buf));
				return kerr_setc(e, KEXIT_CONFIG, "platform.kmsg_allow[%zu]: bad regex '%s': %s",
						 i - ndef, pat, buf);
			}
			p->nallow++;
		}
		char *kp = platform_path("/dev/kmsg");
		p->kmsg_fd = open(kp, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		int err = errno;
		if (p->kmsg_fd >= 0) {
			struct stat st;
			p->kmsg_is_file = fstat(p->kmsg_fd, &st) == 0 && S_ISREG(st.st_mode);
		} else if (p->conf.kmsg == CHECK_REQUIRE) {
			p->unmet = "kmsg";
			kerr_set(e, "platform.kmsg is require, but %s cannot be read: %s", kp, strerror(err));
			free(kp);
			return -1;
		}
		free(kp);
	}
	return 0;
}

void platform_close(struct platform *p)
{
	regex_t *re = p->allow;
	for (size_t i = 0; i < p->nallow; i++)
		regfree(&re[i]);
	free(re);
	if (p->kmsg_fd >= 0)
		close(p->kmsg_fd);
	sv_clear(&p->temp_paths);
	free(p->temp0);
	sv_clear(&p->gov_paths);
	sv_clear(&p->gov_before);
	sv_clear(&p->thr_paths);
	free(p->thr_before);
	memset(p, 0, sizeof(*p));
	p->kmsg_fd = -1;
}

int platform_kmsg_allowed(const struct platform *p, const char *msg)
{
	const regex_t *re = p->allow;
	for (size_t i = 0; i < p->nallow; i++)
		if (regexec(&re[i], msg, 0, NULL, 0) == 0)
			return 1;
	return 0;
}

/* a `warn` check gives up with a log line, a `require` one with an error */
static int give_up(enum check_mode m, struct strbuf *log, struct kerr *e, const char *what)
{
	if (m == CHECK_REQUIRE)
		return kerr_set(e, "%s", what);
	sb_addf(log, "warning: %s\n", what);
	return 1;
}

static int wait_temps(struct platform *p, struct strbuf *log, struct kerr *e)
{
	size_t n = p->temp_paths.n;
	if (p->conf.temperature == CHECK_OFF)
		return 0;
	if (!n) {
		sb_adds(log, "temperature: no sensors, not checked\n");
		return 0;
	}
	double *t = xcalloc(n, sizeof(double));
	int64_t t0 = mono_ns();
	int64_t limit = (int64_t)(p->conf.temp_wait_max_s * 1e9);
	int waited = 0, rc = 0;
	for (;;) {
		size_t hot = n;
		if (!read_temps(&p->temp_paths, t)) {
			sb_adds(log, "temperature: no sensor readable, not checked\n");
			break;
		}
		/* one sensor failing a read is skipped this time, not every sensor with it */
		for (size_t i = 0; i < n; i++)
			if (!isnan(t[i]) && t[i] > p->temp0[i] + p->conf.temp_tolerance_c) {
				hot = i;
				break;
			}
		if (hot == n) {
			if (waited)
				sb_addf(log, "temperature: back within %.1f °C of the start after %.1f s\n",
					p->conf.temp_tolerance_c, (mono_ns() - t0) / 1e9);
			break;
		}
		if (mono_ns() - t0 >= limit || exec_interrupted) {
			char *msg = xasprintf("temperature: %s is %.1f °C, start was %.1f °C (tolerance %.1f): "
					      "still too hot after %.0f s", p->temp_paths.v[hot], t[hot],
					      p->temp0[hot], p->conf.temp_tolerance_c, (mono_ns() - t0) / 1e9);
			rc = give_up(p->conf.temperature, log, e, msg);
			free(msg);
			break;
		}
		waited = 1;
		sleep_s(p->poll_s);
	}
	free(t);
	return rc;
}

static int wait_load(struct platform *p, struct strbuf *log, struct kerr *e)
{
	if (p->conf.load == CHECK_OFF || p->conf.load_max <= 0)
		return 0;
	int64_t t0 = mono_ns();
	int64_t limit = (int64_t)(p->conf.temp_wait_max_s * 1e9);
	int waited = 0;
	for (;;) {
		double l;
		if (load1(&l) < 0) {
			sb_adds(log, "load: /proc/loadavg unreadable, not checked\n");
			return 0;
		}
		if (l <= p->conf.load_max) {
			if (waited)
				sb_addf(log, "load: %.2f after waiting %.1f s\n", l, (mono_ns() - t0) / 1e9);
			return 0;
		}
		if (mono_ns() - t0 >= limit || exec_interrupted) {
			char *msg = xasprintf("load: 1-minute load %.2f above %.2f after %.0f s", l,
					      p->conf.load_max, (mono_ns() - t0) / 1e9);
			int rc = give_up(p->conf.load, log, e, msg);
			free(msg);
			return rc;
		}
		waited = 1;
		sleep_s(p->poll_s);
	}
}

/* read and discard whatever the kernel log holds now (its position is then the end) */
static void kmsg_seek_end(struct platform *p)
{
	if (p->kmsg_fd < 0)
		return;
	lseek(p->kmsg_fd, 0, SEEK_END);
}

int platform_before_pexec(struct platform *p, struct strbuf *log, struct kerr *e)
{
	int rc = 0, r;
	if ((r = wait_temps(p, log, e)) < 0)
		return -1;
	rc |= r;
	if ((r = wait_load(p, log, e)) < 0)
		return -1;
	rc |= r;
	if (p->conf.sync)
		sync();
	if (p->conf.settle_s > 0)
		sleep_s(p->conf.settle_s);
	sv_clear(&p->gov_before);
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < p->gov_paths.n; i++) {
		if (plat_read(p->gov_paths.v[i], &sb) < 0)
			sb_reset(&sb);
		sv_push(&p->gov_before, sb_str(&sb));
	}
	sb_release(&sb);
	for (size_t i = 0; i < p->thr_paths.n; i++)
		if (plat_read_long(p->thr_paths.v[i], &p->thr_before[i]) < 0)
			p->thr_before[i] = -1;
	kmsg_seek_end(p);
	p->ready = 1;
	return rc;
}

static void reason_add(struct strbuf *reason, const char *fmt, ...) KILN_PRINTF(2, 3);
static void reason_add(struct strbuf *reason, const char *fmt, ...)
{
	if (reason->len)
		sb_adds(reason, "; ");
	va_list ap;
	va_start(ap, fmt);
	sb_vaddf(reason, fmt, ap);
	va_end(ap);
}

/* one kmsg record: "prio,seq,usec,flags;text\n" followed by " KEY=value" lines */
static int kmsg_record(const struct platform *p, const char *rec, size_t len, struct strbuf *reason, int *bad)
{
	const char *semi = memchr(rec, ';', len);
	if (!semi)
		return 0;
	const char *msg = semi + 1;
	const char *end = memchr(msg, '\n', (size_t)(rec + len - msg));
	char *text = xstrndup(msg, end ? (size_t)(end - msg) : (size_t)(rec + len - msg));
	int allowed = !*text || platform_kmsg_allowed(p, text); /* an empty message says nothing */
	if (!allowed) {
		if (*bad < 3)
			reason_add(reason, "kernel log: %s", text);
		(*bad)++;
	}
	free(text);
	return !allowed;
}

static void kmsg_scan(const struct platform *p, const char *data, size_t n, struct strbuf *reason, int *bad)
{
	const char *end = data + n;
	/* records are lines; continuation lines (" KEY=value") start with a space */
	for (const char *l = data; l && l < end;) {
		const char *nl = memchr(l, '\n', (size_t)(end - l));
		size_t len = nl ? (size_t)(nl - l) : (size_t)(end - l);
		if (len && *l != ' ')
			kmsg_record(p, l, len, reason, bad);
		l = nl ? nl + 1 : NULL;
	}
}

int platform_kmsg_scan(const struct platform *p, const char *data, size_t n, struct strbuf *reason)
{
	int bad = 0;
	kmsg_scan(p, data, n, reason, &bad);
	return bad;
}

static int check_kmsg(struct platform *p, struct strbuf *reason)
{
	if (p->kmsg_fd < 0 || p->conf.kmsg == CHECK_OFF)
		return 0;
	int bad = 0;
	char buf[8192];
	struct strbuf acc = STRBUF_INIT; /* regular file: several records per read */
	for (;;) {
		ssize_t r = read(p->kmsg_fd, buf, sizeof(buf));
		if (r < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EPIPE) {
				/* records were overwritten before we read them */
				reason_add(reason, "kernel log: records lost (ring buffer overrun)");
				bad++;
				continue;
			}
			break; /* EAGAIN: no more records */
		}
		if (r == 0)
			break;
		if (!p->kmsg_is_file) {
			kmsg_record(p, buf, (size_t)r, reason, &bad);
			continue;
		}
		sb_add(&acc, buf, (size_t)r);
	}
	kmsg_scan(p, sb_str(&acc), acc.len, reason, &bad);
	sb_release(&acc);
	if (bad > 3)
		reason_add(reason, "kernel log: %d more lines", bad - 3);
	return bad > 0;
}

int platform_after_pexec(struct platform *p, struct strbuf *reason)
{
	int tainted = 0;
	if (!p->ready)
		return 0;
	p->ready = 0;
	tainted |= check_kmsg(p, reason);
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < p->thr_paths.n; i++) {
		long v;
		if (p->thr_before[i] < 0 || plat_read_long(p->thr_paths.v[i], &v) < 0)
			continue;
		if (v != p->thr_before[i]) {
			reason_add(reason, "thermal throttling: %s went from %ld to %ld", p->thr_paths.v[i],
				   p->thr_before[i], v);
			tainted = 1;
		}
	}
	if (p->conf.governor != CHECK_OFF) {
		for (size_t i = 0; i < p->gov_paths.n && i < p->gov_before.n; i++) {
			if (plat_read(p->gov_paths.v[i], &sb) < 0)
				sb_reset(&sb);
			if (strcmp(sb_str(&sb), p->gov_before.v[i])) {
				reason_add(reason, "governor changed: %s went from %s to %s", p->gov_paths.v[i],
					   p->gov_before.v[i], sb_str(&sb));
				tainted = 1;
			}
		}
	}
	sb_release(&sb);
	return tainted;
}
