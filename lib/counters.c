/*
 * counters.c - libkiln's per-iteration counters, through perf_event_open(2).
 *
 * A counter spec ("cycles,instructions,task-clock,aperf") names events from
 * three sources, all resolved in name_lookup():
 *   - hardware events (PERF_TYPE_HARDWARE): cycles, instructions, branches,
 *     branch-misses, cache-misses;
 *   - software events (PERF_TYPE_SOFTWARE): task-clock, cpu-clock,
 *     page-faults, context-switches;
 *   - the x86 `msr` PMU (aperf, mperf, and its other free-running MSRs),
 *     whose type number and event encodings are read from sysfs under
 *     $KILN_SYSFS_ROOT (default "/") so tests can point it at a fake tree.
 *
 * Every requested counter ends up in exactly one of two lists: available
 * (opened; values reported by kiln_counters_read) or unavailable (with a
 * reason for humans: unknown name, no msr PMU, or the errno of the failed
 * open).  An unavailable counter is never reported as zero.
 *
 * Opening (counters_add): each event is first opened counting user and
 * kernel space; when the kernel refuses that (EACCES/EPERM, e.g.
 * perf_event_paranoid 2 without CAP_PERFMON) it is opened user-space-only
 * and its name gets perf's ":u" suffix, so the stored data says what it
 * counted.  A spec may also ask for ":u" itself.  Events are put in as few
 * groups as the kernel accepts (tried against each existing group, else a
 * new group), so one read(2) of a group leader, PERF_FORMAT_GROUP, returns
 * all its members at once.  Group leaders are pinned: a group the PMU cannot
 * hold is put in error state instead of being multiplexed, which the trial
 * read in kc_enable_groups() detects (its counters become
 * unavailable), so values are never silently scaled or partial.
 *
 * Reading (kiln_counters_read): on x86-64, a group whose members are all
 * hardware events with user-space rdpmc enabled (the mmapped
 * perf_event_mmap_page says cap_user_rdpmc and gives the counter index) is
 * read with rdpmc under the page's seqlock, without a system call; any other
 * group, or an rdpmc read that finds the event not on the PMU, uses read(2).
 * Nothing allocates after kiln_counters_open().
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "kiln.h"

#define KC_MAX 32          /* available counters (the runners' arrays hold 32) */
#define KC_MAX_UNAV 64     /* unavailable entries kept */
#define KC_NAME 48
#define KC_REASON 160

enum kc_src { KC_HW, KC_SW, KC_MSR };

struct kc_def {
	const char *name;
	enum kc_src src;
	uint64_t config;
};

static const struct kc_def kc_defs[] = {
	{ "cycles", KC_HW, PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", KC_HW, PERF_COUNT_HW_INSTRUCTIONS },
	{ "branches", KC_HW, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses", KC_HW, PERF_COUNT_HW_BRANCH_MISSES },
	{ "cache-misses", KC_HW, PERF_COUNT_HW_CACHE_MISSES },
	{ "task-clock", KC_SW, PERF_COUNT_SW_TASK_CLOCK },
	{ "cpu-clock", KC_SW, PERF_COUNT_SW_CPU_CLOCK },
	{ "page-faults", KC_SW, PERF_COUNT_SW_PAGE_FAULTS },
	{ "context-switches", KC_SW, PERF_COUNT_SW_CONTEXT_SWITCHES },
	/* msr PMU: config comes from sysfs events/<name> */
	{ "aperf", KC_MSR, 0 },
	{ "mperf", KC_MSR, 0 },
	{ "pperf", KC_MSR, 0 },
	{ "tsc", KC_MSR, 0 },
	{ "smi", KC_MSR, 0 },
	{ "irperf", KC_MSR, 0 },
};

struct kc_event {
	int fd;
	int group;                       /* index into groups[] */
	int hw;                          /* a hardware event (rdpmc candidate) */
	struct perf_event_mmap_page *pg; /* mapped for rdpmc, or NULL */
	char name[KC_NAME];
};

struct kc_group {
	int leader_fd;
	int n;                  /* members, in the order their values are read */
	int member[KC_MAX];     /* event indices */
	int rdpmc;              /* every member readable with rdpmc */
};

struct kiln_counters {
	int n;
	struct kc_event ev[KC_MAX];
	int ngroups;
	struct kc_group groups[KC_MAX];
	int nun;
	char un_name[KC_MAX_UNAV][KC_NAME];
	char un_reason[KC_MAX_UNAV][KC_REASON];
	uint64_t buf[1 + KC_MAX];    /* read(2) buffer for PERF_FORMAT_GROUP */
};

static long kc_perf_open(struct perf_event_attr *a, int group_fd)
{
	return syscall(SYS_perf_event_open, a, 0 /* this thread */, -1 /* any cpu */,
		       group_fd, PERF_FLAG_FD_CLOEXEC);
}

static void kc_unavailable(struct kiln_counters *c, const char *name, const char *fmt, const char *arg)
{
	if (c->nun >= KC_MAX_UNAV)
		return;
	snprintf(c->un_name[c->nun], KC_NAME, "%s", name);
	snprintf(c->un_reason[c->nun], KC_REASON, fmt, arg);
	c->nun++;
}

static const char *kc_errname(int e)
{
	switch (e) {
	case ENOENT: return "ENOENT";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case EACCES: return "EACCES";
	case EPERM: return "EPERM";
	case EINVAL: return "EINVAL";
	case EMFILE: return "EMFILE";
	case ENODEV: return "ENODEV";
	case ENOSYS: return "ENOSYS";
	case EBUSY: return "EBUSY";
	default: return "error";
	}
}

/* a reason a human can act on: the errno's name, what it means here */
static void kc_open_failed(struct kiln_counters *c, const char *name, int e)
{
	char why[KC_REASON];
	const char *hint;
	switch (e) {
	case ENOENT:
	case EOPNOTSUPP:
	case ENODEV:
		hint = "this machine (or VM) does not provide the event";
		break;
	case EACCES:
	case EPERM:
		hint = "not permitted (see /proc/sys/kernel/perf_event_paranoid)";
		break;
	case ENOSYS:
		hint = "the kernel has no perf_event_open";
		break;
	case EINVAL:
		hint = "the kernel rejected the event";
		break;
	default:
		hint = strerror(e);
	}
	snprintf(why, sizeof(why), "%s: %s", kc_errname(e), hint);
	kc_unavailable(c, name, "%s", why);
}

static const struct kc_def *kc_find(const char *name, size_t len)
{
	for (size_t i = 0; i < sizeof(kc_defs) / sizeof(kc_defs[0]); i++)
		if (strlen(kc_defs[i].name) == len && !strncmp(kc_defs[i].name, name, len))
			return &kc_defs[i];
	return NULL;
}

/* read a small sysfs file into buf, NUL-terminated, trailing newline cut */
static int kc_read_small(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, cap - 1);
	int e = errno;
	close(fd);
	if (n < 0) {
		errno = e;
		return -1;
	}
	buf[n] = 0;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = 0;
	return 0;
}

/*
 * The msr PMU's type and the event's config, from
 * ROOT/sys/bus/event_source/devices/msr/{type,events/NAME}.  0, or -1 with a
 * reason recorded.
 */
static int kc_msr_attr(struct kiln_counters *c, const char *name, const char *evname,
		       uint32_t *type, uint64_t *config)
{
	const char *root = getenv("KILN_SYSFS_ROOT");
	if (!root || !*root)
		root = "/";
	char path[4096], buf[256], *end;
	snprintf(path, sizeof(path), "%s/sys/bus/event_source/devices/msr/type", root);
	if (kc_read_small(path, buf, sizeof(buf)) < 0) {
		kc_unavailable(c, name, "%s", errno == ENOENT ? "no msr PMU (not x86, or not exposed in this VM)"
							      : "cannot read the msr PMU's type");
		return -1;
	}
	unsigned long t = strtoul(buf, &end, 10);
	if (end == buf || *end || t > 0xffffffffu) {
		kc_unavailable(c, name, "bad msr PMU type '%.60s' in sysfs", buf);
		return -1;
	}
	snprintf(path, sizeof(path), "%s/sys/bus/event_source/devices/msr/events/%s", root, evname);
	if (kc_read_small(path, buf, sizeof(buf)) < 0) {
		kc_unavailable(c, name, "ENOENT: the msr PMU has no %s event here", evname);
		return -1;
	}
	/* the msr PMU's encodings are a single term, "event=0x01" */
	if (strncmp(buf, "event=", 6)) {
		kc_unavailable(c, name, "cannot parse msr event encoding '%.60s'", buf);
		return -1;
	}
	errno = 0;
	unsigned long long v = strtoull(buf + 6, &end, 0);
	if (end == buf + 6 || *end || errno) {
		kc_unavailable(c, name, "cannot parse msr event encoding '%.60s'", buf);
		return -1;
	}
	*type = (uint32_t)t;
	*config = v;
	return 0;
}

/* open one event, joining an existing group when the kernel allows it */
static int kc_open_grouped(struct kiln_counters *c, struct perf_event_attr *a, int *group)
{
	for (int g = 0; g < c->ngroups; g++) {
		if (c->groups[g].n >= KC_MAX)
			continue;
		a->pinned = 0;
		a->disabled = 0;
		long fd = kc_perf_open(a, c->groups[g].leader_fd);
		if (fd >= 0) {
			*group = g;
			return (int)fd;
		}
		/* not groupable with that leader: try the next, then alone */
	}
	a->pinned = 1;
	a->disabled = 1; /* enabled with its members, see kc_enable_groups() */
	long fd = kc_perf_open(a, -1);
	if (fd < 0)
		return -1;
	*group = -1;
	return (int)fd;
}

static void counters_add(struct kiln_counters *c, const char *tok)
{
	size_t len = strlen(tok);
	int user_only = 0;
	if (len > 2 && !strcmp(tok + len - 2, ":u")) {
		user_only = 1;
		len -= 2;
	}
	if (len >= KC_NAME) {
		kc_unavailable(c, tok, "%s", "unknown counter");
		return;
	}
	const struct kc_def *d = kc_find(tok, len);
	if (!d) {
		kc_unavailable(c, tok, "%s", "unknown counter");
		return;
	}
	for (int i = 0; i < c->n; i++) {
		size_t l = strlen(d->name);
		if (!strncmp(c->ev[i].name, d->name, l) && (!c->ev[i].name[l] || c->ev[i].name[l] == ':'))
			return; /* asked twice: once is enough */
	}
	if (c->n >= KC_MAX) {
		kc_unavailable(c, tok, "%s", "too many counters (32 at most)");
		return;
	}

	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.read_format = PERF_FORMAT_GROUP;
	a.config = d->config;
	if (d->src == KC_HW)
		a.type = PERF_TYPE_HARDWARE;
	else if (d->src == KC_SW)
		a.type = PERF_TYPE_SOFTWARE;
	else {
		uint64_t config;
		if (kc_msr_attr(c, tok, d->name, &a.type, &config) < 0)
			return;
		a.config = config;
	}
	/* the msr PMU cannot exclude modes (the kernel says EINVAL) */
	int can_exclude = d->src != KC_MSR;
	if (user_only && !can_exclude) {
		kc_unavailable(c, tok, "%s", "the msr PMU cannot count user space only");
		return;
	}
	a.exclude_kernel = a.exclude_hv = (unsigned)user_only;

	int group, fd = kc_open_grouped(c, &a, &group);
	int err = errno;
	if (fd < 0 && (err == EACCES || err == EPERM) && !user_only && can_exclude) {
		/* what perf stat does under perf_event_paranoid >= 2 */
		a.exclude_kernel = a.exclude_hv = 1;
		fd = kc_open_grouped(c, &a, &group);
		if (fd >= 0)
			user_only = 1;
		else if (errno != EACCES && errno != EPERM)
			err = errno;
	}
	if (fd < 0) {
		kc_open_failed(c, tok, err);
		return;
	}

	struct kc_event *ev = &c->ev[c->n];
	ev->fd = fd;
	ev->hw = d->src == KC_HW;
	ev->pg = NULL;
	snprintf(ev->name, KC_NAME, "%s%s", d->name, user_only ? ":u" : "");
	if (group < 0) {
		group = c->ngroups++;
		c->groups[group].leader_fd = fd;
		c->groups[group].n = 0;
	}
	ev->group = group;
	c->groups[group].member[c->groups[group].n++] = c->n;
	c->n++;
}

#if defined(__x86_64__)
/* map the event's first page; keep it only when user rdpmc is on for it */
static void kc_map_rdpmc(struct kc_event *ev)
{
	long psz = sysconf(_SC_PAGESIZE);
	void *p = mmap(NULL, (size_t)psz, PROT_READ, MAP_SHARED, ev->fd, 0);
	if (p == MAP_FAILED)
		return;
	struct perf_event_mmap_page *pg = p;
	if (!pg->cap_user_rdpmc || !pg->index) {
		munmap(p, (size_t)psz);
		return;
	}
	ev->pg = pg;
}

static inline uint64_t kc_rdpmc(uint32_t counter)
{
	uint32_t lo, hi;
	__asm__ volatile("rdpmc" : "=a"(lo), "=d"(hi) : "c"(counter));
	return (uint64_t)hi << 32 | lo;
}

/*
 * The value of an event on the PMU, following the protocol documented in
 * linux/perf_event.h: retry while the kernel updates the page (seqlock);
 * 0 with *out set, or -1 when the event is not on the PMU right now.
 */
static int kc_read_rdpmc(const struct perf_event_mmap_page *pg, uint64_t *out)
{
	uint32_t seq, idx;
	uint64_t count;
	do {
		seq = __atomic_load_n(&pg->lock, __ATOMIC_ACQUIRE);
		idx = pg->index;
		count = (uint64_t)pg->offset;
		if (!pg->cap_user_rdpmc || !idx)
			return -1;
		uint16_t width = pg->pmc_width;
		int64_t pmc = (int64_t)kc_rdpmc(idx - 1);
		pmc <<= 64 - width; /* sign-extend the counter's width */
		pmc >>= 64 - width;
		count += (uint64_t)pmc;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
	} while (__atomic_load_n(&pg->lock, __ATOMIC_RELAXED) != seq);
	*out = count;
	return 0;
}
#endif

/* one read(2) of a group: 0, or -1 when the group is in error state */
static int kc_read_group(struct kiln_counters *c, const struct kc_group *g, uint64_t *out)
{
	size_t want = (1 + (size_t)g->n) * sizeof(uint64_t);
	ssize_t r;
	do
		r = read(g->leader_fd, c->buf, want);
	while (r < 0 && errno == EINTR);
	if (r != (ssize_t)want || c->buf[0] != (uint64_t)g->n)
		return -1;
	for (int k = 0; k < g->n; k++)
		out[g->member[k]] = c->buf[1 + k];
	return 0;
}

/*
 * Start every group, then drop the members of groups that cannot be read
 * (pinned but not scheduled).  Leaders are opened disabled and enabled only
 * now, with all their members: a member added to a group that is already
 * counting stays inactive until the group is next scheduled in (a context
 * switch later), so its first readings would be zero or short.
 */
static void kc_enable_groups(struct kiln_counters *c)
{
	uint64_t tmp[KC_MAX];
	for (int g = 0; g < c->ngroups; g++) {
		if (ioctl(c->groups[g].leader_fd, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP) == 0 &&
		    kc_read_group(c, &c->groups[g], tmp) == 0)
			continue;
		for (int k = 0; k < c->groups[g].n; k++) {
			struct kc_event *ev = &c->ev[c->groups[g].member[k]];
			char name[KC_NAME];
			memcpy(name, ev->name, sizeof(name));
			kc_unavailable(c, name, "%s", "EBUSY: the PMU cannot hold this group of counters");
			close(ev->fd);
			ev->fd = -1;
		}
		c->groups[g].n = 0;
	}
	/* compact: keep the available events and renumber the groups */
	struct kiln_counters *old = malloc(sizeof(*old));
	if (!old)
		return;
	memcpy(old, c, sizeof(*old));
	c->n = 0;
	c->ngroups = 0;
	for (int g = 0; g < old->ngroups; g++) {
		if (!old->groups[g].n)
			continue;
		struct kc_group *ng = &c->groups[c->ngroups];
		ng->leader_fd = old->groups[g].leader_fd;
		ng->n = 0;
		for (int k = 0; k < old->groups[g].n; k++) {
			c->ev[c->n] = old->ev[old->groups[g].member[k]];
			c->ev[c->n].group = c->ngroups;
			ng->member[ng->n++] = c->n++;
		}
		c->ngroups++;
	}
	free(old);
}

struct kiln_counters *kiln_counters_open(const char *spec)
{
	struct kiln_counters *c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	if (!spec)
		spec = getenv("KILN_COUNTERS");
	if (!spec)
		return c;
	char *dup = strdup(spec), *save = NULL;
	if (!dup) {
		free(c);
		return NULL;
	}
	for (char *t = strtok_r(dup, ", \t", &save); t; t = strtok_r(NULL, ", \t", &save))
		counters_add(c, t);
	free(dup);
	kc_enable_groups(c);
#if defined(__x86_64__)
	for (int g = 0; g < c->ngroups; g++) {
		struct kc_group *gr = &c->groups[g];
		gr->rdpmc = gr->n > 0;
		for (int k = 0; k < gr->n; k++) {
			struct kc_event *ev = &c->ev[gr->member[k]];
			if (ev->hw && !getenv("KILN_NO_RDPMC"))
				kc_map_rdpmc(ev);
			if (!ev->pg)
				gr->rdpmc = 0;
		}
	}
#endif
	return c;
}

int kiln_counters_count(const struct kiln_counters *c)
{
	return c ? c->n : 0;
}

const char *kiln_counters_name(const struct kiln_counters *c, int i)
{
	return c && i >= 0 && i < c->n ? c->ev[i].name : NULL;
}

int kiln_counters_unavailable_count(const struct kiln_counters *c)
{
	return c ? c->nun : 0;
}

const char *kiln_counters_unavailable_name(const struct kiln_counters *c, int i)
{
	return c && i >= 0 && i < c->nun ? c->un_name[i] : NULL;
}

const char *kiln_counters_unavailable_reason(const struct kiln_counters *c, int i)
{
	return c && i >= 0 && i < c->nun ? c->un_reason[i] : NULL;
}

void kiln_counters_read(struct kiln_counters *c, uint64_t *out)
{
	if (!c)
		return;
	for (int g = 0; g < c->ngroups; g++) {
		const struct kc_group *gr = &c->groups[g];
#if defined(__x86_64__)
		if (gr->rdpmc) {
			int k;
			for (k = 0; k < gr->n; k++)
				if (kc_read_rdpmc(c->ev[gr->member[k]].pg, &out[gr->member[k]]) < 0)
					break;
			if (k == gr->n)
				continue;
		}
#endif
		if (kc_read_group(c, gr, out) < 0)
			for (int k = 0; k < gr->n; k++)
				out[gr->member[k]] = 0; /* cannot happen after the trial read */
	}
}

void kiln_counters_close(struct kiln_counters *c)
{
	if (!c)
		return;
	long psz = sysconf(_SC_PAGESIZE);
	for (int i = 0; i < c->n; i++) {
		if (c->ev[i].pg)
			munmap(c->ev[i].pg, (size_t)psz);
		if (c->ev[i].fd >= 0)
			close(c->ev[i].fd);
	}
	free(c);
}
