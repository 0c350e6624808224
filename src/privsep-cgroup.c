/*
 * privsep-cgroup.c - limits.processes and limits.memory_mb as cgroups
 * (isolate.h), v1 (a pids and a memory hierarchy) or v2 (one hierarchy).
 *
 * kiln makes kiln-TAG below its own cgroup and moves itself in once per
 * session, so that every process it starts is born there: moving a process
 * between cgroups waits for an RCU grace period (about 1 ms measured here),
 * which a pexec must not pay, while a process born in a cgroup costs
 * nothing more.  kiln's own tasks and memory are inside too, so the cgroup
 * gets room for them (its tasks when it enters, KILN_MEM_ROOM_MB); the
 * benchmark's oom_score_adj of 1000 makes it the OOM killer's choice.  Its
 * event counters (pids.events, memory.events or v1's memory.oom_control)
 * are read after each pexec: a count that moved is a bound the pexec hit.
 *
 * cgroup v2 lets a cgroup hand controllers to its children only when no
 * process is in it (the root excepted): kiln's cgroup must hold kiln alone
 * (`systemd-run --scope -p Delegate=yes kiln run ...`), and the pids and
 * memory controllers must be given to it by its parent; otherwise kiln
 * says why and bounds processes with RLIMIT_NPROC alone.
 */
#include "isolate.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define KILN_MEM_ROOM_MB 64

/* $KILN_CGROUP_FS (a fake tree in the tests: files are then created as kiln writes them) or /sys/fs/cgroup */
static const char *cg_fs(int *fake)
{
	const char *f = getenv("KILN_CGROUP_FS");
	*fake = f && *f;
	return *fake ? f : "/sys/fs/cgroup";
}

static int cg_write(const char *dir, const char *file, const char *text)
{
	int fake;
	cg_fs(&fake);
	char *p = xasprintf("%s/%s", dir, file);
	int r = isolate_write(p, text, fake);
	free(p);
	return r;
}

static int cg_open_events(const char *dir, const char *file)
{
	int fake;
	cg_fs(&fake);
	char *p = xasprintf("%s/%s", dir, file);
	int fd = open(p, (fake ? O_RDWR | O_CREAT : O_RDONLY) | O_CLOEXEC, 0644);
	free(p);
	return fd;
}

/* the number after "key " in a flat keyed file read from fd (0 when absent) */
static long long cg_event(int fd, const char *key)
{
	char buf[1024];
	if (fd < 0)
		return 0;
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	size_t kl = strlen(key);
	for (char *l = buf; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (!strncmp(l, key, kl) && l[kl] == ' ')
			return atoll(l + kl + 1);
	return 0;
}

char *cg_of(pid_t pid, const char *controller)
{
	char path[64], buf[4096];
	if (pid)
		snprintf(path, sizeof(path), "/proc/%ld/cgroup", (long)pid);
	else
		snprintf(path, sizeof(path), "/proc/self/cgroup");
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	for (char *l = buf, *nl; l && *l; l = nl) {
		nl = strchr(l, '\n');
		if (nl)
			*nl++ = '\0';
		char *c1 = strchr(l, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (!c2)
			continue;
		*c1 = *c2 = '\0';
		const char *ctls = c1 + 1;
		int match = !*controller && !*ctls && !strcmp(l, "0");
		if (*controller) {
			size_t cl = strlen(controller);
			for (const char *p = ctls; *p && !match; p = strchr(p, ',') ? strchr(p, ',') + 1 : p + strlen(p))
				match = !strncmp(p, controller, cl) && (p[cl] == ',' || !p[cl]);
		}
		if (match)
			return xstrdup(c2 + 1);
	}
	return NULL;
}

static int is_file(const char *dir, const char *name)
{
	char *p = xasprintf("%s/%s", dir, name);
	int r = access(p, F_OK) == 0;
	free(p);
	return r;
}

/* does the space-separated list in DIR/FILE hold word? */
static int cg_lists(const char *dir, const char *file, const char *word)
{
	struct strbuf sb = STRBUF_INIT;
	struct kerr e = KERR_INIT;
	char *p = xasprintf("%s/%s", dir, file);
	int r = 0;
	if (read_file(p, &sb, &e) == 0) {
		size_t wl = strlen(word);
		for (const char *s = sb_str(&sb); *s;) {
			s += strspn(s, " \t\n");
			size_t l = strcspn(s, " \t\n");
			r |= l == wl && !strncmp(s, word, wl);
			s += l;
		}
	}
	free(p);
	sb_release(&sb);
	kerr_release(&e);
	return r;
}

static int own_tasks(void)
{
	DIR *d = opendir("/proc/self/task");
	int n = 0;
	struct dirent *de;
	while (d && (de = readdir(d)))
		n += de->d_name[0] != '.';
	if (d)
		closedir(d);
	return n > 0 ? n : 1;
}

/* kiln (all its threads) into DIR */
static int move_self(const char *dir)
{
	char pid[32];
	snprintf(pid, sizeof(pid), "%ld", (long)getpid());
	return cg_write(dir, "cgroup.procs", pid);
}

/* kiln-* folders of dead sessions below parent: removed when empty (rmdir refuses a cgroup with processes) */
static void sweep_stale(const char *parent, const char *own)
{
	DIR *d = opendir(parent);
	struct dirent *de;
	int n = 0;
	while (d && (de = readdir(d)) && n < 32)
		if (!strncmp(de->d_name, "kiln-", 5) && strcmp(de->d_name, own)) {
			char *p = xasprintf("%s/%s", parent, de->d_name);
			n += rmdir(p) == 0;
			free(p);
		}
	if (d)
		closedir(d);
}

static void cg_limits_text(long v, char *buf, size_t n)
{
	snprintf(buf, n, "%ld", v);
}

static int open_v1(struct cgbound *c, const char *fs, const char *name, struct kerr *e)
{
	const char *ctl[2] = { "pids", "memory" };
	int want[2] = { c->processes > 0, c->memory_mb > 0 };
	for (int i = 0; i < 2; i++) {
		if (!want[i])
			continue;
		char *self = cg_of(0, ctl[i]);
		if (!self)
			return kerr_set(e, "cgroup v1: /proc/self/cgroup names no %s hierarchy", ctl[i]);
		char *base = xasprintf("%s/%s%s", fs, ctl[i], strcmp(self, "/") ? self : "");
		free(self);
		sweep_stale(base, name);
		c->dir[i] = xasprintf("%s/%s", base, name);
		c->from[i] = base;
		if (mkdir(c->dir[i], 0755) < 0 && errno != EEXIST)
			return kerr_set(e, "cgroup v1: %s: %s", c->dir[i], strerror(errno));
		char v[64];
		int r;
		if (i == 0) {
			cg_limits_text(c->processes + own_tasks(), v, sizeof(v));
			r = cg_write(c->dir[i], "pids.max", v);
		} else {
			cg_limits_text((c->memory_mb + KILN_MEM_ROOM_MB) << 20, v, sizeof(v));
			r = cg_write(c->dir[i], "memory.limit_in_bytes", v);
			if (r == 0 && is_file(c->dir[i], "memory.memsw.limit_in_bytes"))
				cg_write(c->dir[i], "memory.memsw.limit_in_bytes", v); /* no swapping past it either */
		}
		if (r < 0)
			return kerr_set(e, "cgroup v1: %s: setting the bound: %s", c->dir[i], strerror(errno));
		if (move_self(c->dir[i]) < 0)
			return kerr_set(e, "cgroup v1: %s: kiln cannot enter it: %s", c->dir[i], strerror(errno));
		if (i == 0)
			c->pids_ev = cg_open_events(c->dir[i], "pids.events");
		else
			c->mem_ev = cg_open_events(c->dir[i], "memory.oom_control");
	}
	c->kind = CG_V1;
	return 0;
}

/* the v2 hierarchy: fs itself (v2 only) or fs/unified (hybrid); NULL when there is none */
static char *v2_root(const char *fs)
{
	if (is_file(fs, "cgroup.controllers"))
		return xstrdup(fs);
	char *u = xasprintf("%s/unified", fs);
	if (is_file(u, "cgroup.controllers"))
		return u;
	free(u);
	return NULL;
}

static int open_v2(struct cgbound *c, const char *root, const char *name, struct kerr *e)
{
	char *self = cg_of(0, "");
	if (!self)
		return kerr_set(e, "cgroup v2: /proc/self/cgroup has no line 0::");
	char *cur = xasprintf("%s%s", root, strcmp(self, "/") ? self : "");
	free(self);
	const char *need[2] = { c->processes > 0 ? "pids" : NULL, c->memory_mb > 0 ? "memory" : NULL };
	struct strbuf miss = STRBUF_INIT;
	for (int i = 0; i < 2; i++)
		if (need[i] && !cg_lists(cur, "cgroup.controllers", need[i]))
			sb_addf(&miss, "%s%s", miss.len ? " and " : "", need[i]);
	if (miss.len) {
		c->why = xasprintf("cgroup v2: kiln's cgroup %s is not given the %s controller%s (its parent's "
				   "cgroup.subtree_control); run kiln where they are delegated, e.g. `systemd-run --scope "
				   "-p Delegate=yes kiln run ...`", cur, miss.buf, strstr(miss.buf, " and ") ? "s" : "");
		sb_release(&miss);
		free(cur);
		return 1;
	}
	sb_release(&miss);
	sweep_stale(cur, name);
	c->dir[0] = xasprintf("%s/%s", cur, name);
	c->from[0] = cur;
	if (mkdir(c->dir[0], 0755) < 0 && errno != EEXIST)
		return kerr_set(e, "cgroup v2: %s: %s", c->dir[0], strerror(errno));
	if (move_self(c->dir[0]) < 0)
		return kerr_set(e, "cgroup v2: %s: kiln cannot enter it: %s", c->dir[0], strerror(errno));
	c->kind = CG_V2; /* kiln is inside: cg_close takes it back */
	struct strbuf en = STRBUF_INIT;
	for (int i = 0; i < 2; i++)
		if (need[i] && !cg_lists(cur, "cgroup.subtree_control", need[i]))
			sb_addf(&en, "%s+%s", en.len ? " " : "", need[i]);
	if (en.len && cg_write(cur, "cgroup.subtree_control", en.buf) < 0) {
		int err = errno;
		c->why = xasprintf("cgroup v2: kiln cannot give its session's cgroup the controllers (%s in "
				   "%s/cgroup.subtree_control: %s)%s", en.buf, cur, strerror(err),
				   err == EBUSY ? ": other processes are in kiln's cgroup, and cgroup v2 hands controllers "
				   "down only from a cgroup without processes; run kiln in a cgroup of its own, e.g. "
				   "`systemd-run --scope -p Delegate=yes kiln run ...`" : "");
		sb_release(&en);
		return 1;
	}
	if (en.len)
		c->parent2 = xstrdup(en.buf);
	sb_release(&en);
	char v[64];
	if (c->processes > 0) {
		cg_limits_text(c->processes + own_tasks(), v, sizeof(v));
		if (cg_write(c->dir[0], "pids.max", v) < 0)
			return kerr_set(e, "cgroup v2: %s/pids.max: %s", c->dir[0], strerror(errno));
		c->pids_ev = cg_open_events(c->dir[0], "pids.events");
	}
	if (c->memory_mb > 0) {
		cg_limits_text((c->memory_mb + KILN_MEM_ROOM_MB) << 20, v, sizeof(v));
		if (cg_write(c->dir[0], "memory.max", v) < 0)
			return kerr_set(e, "cgroup v2: %s/memory.max: %s", c->dir[0], strerror(errno));
		if (is_file(c->dir[0], "memory.swap.max"))
			cg_write(c->dir[0], "memory.swap.max", "0");
		c->mem_ev = cg_open_events(c->dir[0], "memory.events");
	}
	return 0;
}

int cg_open(struct cgbound *c, const char *tag, long processes, long memory_mb, struct kerr *e)
{
	memset(c, 0, sizeof(*c));
	c->pids_ev = c->mem_ev = -1;
	c->processes = processes;
	c->memory_mb = memory_mb;
	if (processes <= 0 && memory_mb <= 0)
		return 1;
	int fake;
	const char *fs = cg_fs(&fake);
	char name[64];
	snprintf(name, sizeof(name), "kiln-%s", tag);
	char *pm = xasprintf("%s/pids/tasks", fs), *mm = xasprintf("%s/memory/tasks", fs);
	int v1 = access(pm, F_OK) == 0 && (memory_mb <= 0 || access(mm, F_OK) == 0) &&
		 (processes <= 0 || access(pm, F_OK) == 0);
	free(pm);
	free(mm);
	int r;
	char *root2 = v1 ? NULL : v2_root(fs);
	if (v1)
		r = open_v1(c, fs, name, e);
	else if (root2)
		r = open_v2(c, root2, name, e);
	else {
		c->why = xasprintf("no cgroup hierarchy with the pids and memory controllers under %s", fs);
		r = 1;
	}
	free(root2);
	if (r == 0) {
		c->pids_max_hits = cg_event(c->pids_ev, "max");
		c->oom_kills = cg_event(c->mem_ev, "oom_kill");
	} else if (r < 0 && !c->why) {
		c->why = xstrdup(sb_str(&e->msg));
	}
	return r;
}

enum cg_kind cg_possible(char **why)
{
	int fake;
	const char *fs = cg_fs(&fake);
	*why = NULL;
	char *pm = xasprintf("%s/pids/tasks", fs), *mm = xasprintf("%s/memory/tasks", fs);
	int v1 = access(pm, F_OK) == 0 && access(mm, F_OK) == 0;
	free(pm);
	free(mm);
	if (v1)
		return geteuid() == 0 ? CG_V1 : (*why = xstrdup("cgroup v1 needs kiln to be root"), CG_NONE);
	char *root = v2_root(fs), *self = cg_of(0, "");
	enum cg_kind k = CG_NONE;
	if (!root || !self) {
		*why = xasprintf("no cgroup hierarchy with the pids and memory controllers under %s", fs);
	} else {
		char *cur = xasprintf("%s%s", root, strcmp(self, "/") ? self : "");
		if (!cg_lists(cur, "cgroup.controllers", "pids") || !cg_lists(cur, "cgroup.controllers", "memory"))
			*why = xasprintf("cgroup v2: kiln's cgroup %s is not given the pids and memory controllers", cur);
		else if (access(cur, W_OK) < 0)
			*why = xasprintf("cgroup v2: kiln cannot write its cgroup %s (not delegated to its user)", cur);
		else
			k = CG_V2;
		free(cur);
	}
	free(root);
	free(self);
	return k;
}

int cg_hits(struct cgbound *c, struct strbuf *why)
{
	if (c->kind == CG_NONE)
		return 0;
	long long p = cg_event(c->pids_ev, "max"), o = cg_event(c->mem_ev, "oom_kill");
	int hit = 0;
	if (p > c->pids_max_hits) {
		sb_addf(why, "%slimits.processes (%ld) reached: %lld time(s) a process or thread of the pexec could not "
			"start (pids cgroup)", why->len ? "; " : "", c->processes, p - c->pids_max_hits);
		hit = 1;
	}
	if (o > c->oom_kills) {
		sb_addf(why, "%slimits.memory_mb (%ld MiB) reached: the kernel's OOM killer ended %lld process(es) of the "
			"pexec (memory cgroup)", why->len ? "; " : "", c->memory_mb, o - c->oom_kills);
		hit = 1;
	}
	c->pids_max_hits = p;
	c->oom_kills = o;
	return hit;
}

void cg_close(struct cgbound *c)
{
	if (c->pids_ev >= 0)
		close(c->pids_ev);
	if (c->mem_ev >= 0)
		close(c->mem_ev);
	if (c->kind == CG_V2 && c->parent2) {
		/* what kiln enabled goes, so that kiln may go back into its own cgroup */
		struct strbuf off = STRBUF_INIT;
		for (const char *p = c->parent2; *p; p++)
			sb_addc(&off, *p == '+' ? '-' : *p);
		cg_write(c->from[0], "cgroup.subtree_control", off.buf);
		sb_release(&off);
	}
	for (int i = 0; i < 2; i++) {
		if (c->kind != CG_NONE && c->from[i] && c->dir[i])
			move_self(c->from[i]);
		int fake;
		cg_fs(&fake);
		if (c->dir[i] && fake)
			rm_rf(c->dir[i]); /* a fake tree's files are kiln's own */
		else if (c->dir[i])
			rmdir(c->dir[i]);
		free(c->dir[i]);
		free(c->from[i]);
	}
	free(c->parent2);
	free(c->why);
	memset(c, 0, sizeof(*c));
	c->pids_ev = c->mem_ev = -1;
}
