/*
 * profile-jit.c - kiln profile's JIT'd code, for VMs that name it in
 * their own logs (PyPy, LuaJIT) and for those that write a jitdump (V8):
 *
 *   KILN_INSTR_DIR ──ps_collect (as the benchmark user, keep_log)──▶ DIR/instr/ (kiln's copies)
 *   DIR/instr/pypy-jit.log[.zst] + calibration.json, luajit-traces.jsonl ──jitcode──▶ code table
 *   the runner's marker DIR/jit/jit-PID.dump (a header, mapped so perf saw it) ◀── the table
 *   perf inject --jit: every JIT'd function an ELF file DIR/jit/jitted-PID-N.so, perf.data
 *     rewritten to use them, build ids in DIR/.debug: perf report and perf annotate name
 *     the JIT'd code from DIR alone, on any machine
 *   samples in JIT'd code perf still calls [unknown] ◀── named from the table
 *
 * The core never opens the benchmark's files: the collector child reads
 * them and the monitor writes kiln's copies (privsep.h); those copies are
 * then parsed as the hostile input they are (jitcode.c bounds everything).
 */
#include "profile-jit.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../plugins/pypy/pypylog.h"
#include "exec.h"
#include "jitdump.h"
#include "platform.h"
#include "privsep.h"
#include "safefs.h"

extern char **environ;

int profjit_collect(const struct experiment *ex, const struct pexec_spec *px, const char *dir, struct kerr *e)
{
	if (!px->instr_dir)
		return 0;
	struct kerr ke = KERR_INIT;
	if (px->have_user && platform_user_kill_all(&px->user, &ke) < 0) {
		kiln_warn("the instrumentation folder is not read: %s", sb_str(&ke.msg));
		kerr_release(&ke);
		return 0;
	}
	char *kept = path_join(dir, "instr");
	if (mkdir_p(kept, 0755) < 0) {
		kerr_set(e, "%s: %s", kept, strerror(errno));
		free(kept);
		return -1;
	}
	int logs = open(kept, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	free(kept);
	if (logs < 0)
		return kerr_set(e, "%s/instr: %s", dir, strerror(errno));
	struct ps_request rq;
	memset(&rq, 0, sizeof(rq));
	rq.dir = px->instr_dir;
	rq.keep_log = 1;
	rq.set_user = px->have_user;
	rq.uid = px->user.uid;
	rq.gid = px->user.gid;
	ps_bounds_of(&rq.b, &ex->limits, px->k.pc.iterations);
	struct ps_result res;
	memset(&res, 0, sizeof(res));
	int r = ps_collect(&rq, logs, &res, e);
	if (r == 0 && res.log_error.len)
		kiln_warn("%s: %s", px->k.key, res.log_error.buf);
	ps_result_release(&res);
	close(logs);
	return r;
}

/* DIR/instr/NAME or NAME.zst, whichever the monitor kept; NULL: neither */
static char *kept_file(const char *dir, const char *name)
{
	char *p = xasprintf("%s/instr/%s", dir, name);
	if (file_exists(p))
		return p;
	free(p);
	p = xasprintf("%s/instr/%s.zst", dir, name);
	if (file_exists(p))
		return p;
	free(p);
	return NULL;
}

static int64_t map_runner_clock(const void *ctx, int64_t t)
{
	return prof_clockmap_map(ctx, t);
}

/* what a JIT log may take: the instrumentation limit, at most 4 GiB */
static size_t log_max(const struct experiment *ex)
{
	uint64_t b = (uint64_t)ex->limits.instr_mb << 20;
	return b > ((uint64_t)4 << 30) ? (size_t)4 << 30 : (size_t)b;
}

/* PyPy's ticks -> the runner's clock, from the calibration it wrote */
static int pypy_ticks(const char *dir, struct jc_ticks *t, struct kerr *e)
{
	memset(t, 0, sizeof(*t));
	char *cal = kept_file(dir, "calibration.json");
	if (!cal)
		return 0; /* load times unknown: each region counts from the start */
	struct strbuf b = STRBUF_INIT;
	struct pypylog_calib c;
	int r = read_file_zst(cal, 1 << 20, &b, e);
	if (r == 0)
		r = pypylog_calib_parse(cal, sb_str(&b), b.len, &c, e);
	if (r == 0)
		*t = (struct jc_ticks){ c.ns_per_tick, c.tick0, c.ns0, 1 };
	sb_release(&b);
	free(cal);
	return r;
}

int profjit_load(const struct experiment *ex, const char *dir, const struct prof_clockmap *m, struct jitcode *jc,
		 struct kerr *e)
{
	char *pypy = kept_file(dir, "pypy-jit.log"), *lj = kept_file(dir, "luajit-traces.jsonl");
	struct strbuf b = STRBUF_INIT;
	int r = 0;
	if (pypy) {
		struct jc_ticks t;
		r = pypy_ticks(dir, &t, e);
		if (r == 0)
			r = read_file_zst(pypy, log_max(ex), &b, e);
		if (r == 0)
			r = jitcode_parse_pypylog(pypy, sb_str(&b), b.len, &t, jc, e);
	}
	sb_reset(&b);
	if (r == 0 && lj) {
		r = read_file_zst(lj, log_max(ex), &b, e);
		if (r == 0)
			r = jitcode_parse_luajit(lj, sb_str(&b), b.len, jc, e);
	}
	if (r == 0 && prof_clockmap_ok(m))
		jitcode_map_times(jc, map_runner_clock, m);
	jitcode_index(jc);
	sb_release(&b);
	free(pypy);
	free(lj);
	return r;
}

/* "jit-1234.dump" -> 1234, 0 for any other name */
static int dump_pid(const char *name)
{
	long pid = 0;
	const char *p = name + 4;
	if (strncmp(name, "jit-", 4) || !str_ends_with(name, ".dump"))
		return 0;
	for (; *p >= '0' && *p <= '9' && pid < 1 << 22; p++)
		pid = pid * 10 + (*p - '0');
	return p > name + 4 && !strcmp(p, ".dump") ? (int)pid : 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

void profjit_sampled(const struct pscript *ps, size_t from, size_t to, struct profjit_ips *out)
{
	memset(out, 0, sizeof(*out));
	size_t alloc = 0;
	for (size_t i = from; i < to; i++) {
		const struct ps_sample *s = &ps->s[i];
		for (uint32_t f = 0; f < s->nframes; f++) {
			const struct ps_frame *fr = &ps->frames[s->frame0 + f];
			if (!fr->dso || !prof_is_jit_dso(ps_str(ps, fr->dso)))
				continue;
			if (out->n == alloc) {
				alloc = alloc ? alloc * 2 : 1024;
				out->ip = xrealloc(out->ip, alloc * sizeof(*out->ip));
			}
			out->ip[out->n++] = fr->ip;
		}
	}
	if (out->n)
		qsort(out->ip, out->n, sizeof(*out->ip), cmp_u64);
}

/* does [addr, addr+size) hold a sampled IP? */
static int sampled(const struct profjit_ips *s, uint64_t addr, uint64_t size)
{
	size_t lo = 0, hi = s->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (s->ip[mid] < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->n && s->ip[lo] - addr < size;
}

int profjit_write_table(const char *jitdir, int pid, const char *path, const struct jitcode *jc,
			const struct profjit_ips *ips, json_t *files, struct kerr *e)
{
	unsigned char *keep = xcalloc(jc->n ? jc->n : 1, 1);
	for (size_t i = 0; i < jc->n; i++)
		keep[i] = sampled(ips, jc->v[i].addr, jc->v[i].size);
	char *map = xasprintf("%s/perf-%d.map", jitdir, pid);
	unlink(path); /* a fresh file of kiln's, not the runner's */
	int r = jitcode_write_jitdump(jc, (uint32_t)pid, keep, path, e);
	if (r == 0)
		r = jitcode_write_perfmap(jc, map, e);
	if (r == 0)
		json_array_append_new(files, json_sprintf("jit/perf-%d.map", pid));
	free(map);
	free(keep);
	return r;
}

/* a VM's own jitdump (V8's) cut to its sampled loads: perf inject makes an ELF file per load */
static int cut_dump(const char *path, const struct profjit_ips *ips, struct kerr *e)
{
	struct strbuf b = STRBUF_INIT;
	struct jitdump jd;
	int r = read_file(path, &b, e);
	if (r == 0 && jitdump_parse(b.buf, b.len, &jd, e) == 0) {
		unsigned char *keep = xcalloc(jd.nloads ? jd.nloads : 1, 1);
		for (size_t i = 0; i < jd.nloads; i++)
			keep[i] = sampled(ips, jd.loads[i].code_addr, jd.loads[i].code_size);
		unlink(path);
		r = jitdump_write_kept(b.buf, b.len, &jd, keep, path, e);
		free(keep);
		jitdump_free(&jd);
	} else if (r == 0) {
		kiln_warn("%s: %s: left as it is", path, sb_str(&e->msg));
		sb_reset(&e->msg);
	}
	sb_release(&b);
	return r;
}

int profjit_dumps(const char *jitdir, const struct jitcode *jc, const struct profjit_ips *ips, json_t *files,
		  struct kerr *e)
{
	DIR *d = opendir(jitdir);
	if (!d)
		return 0;
	struct dirent *de;
	int r = 0, n = 0;
	while (r == 0 && (de = readdir(d))) {
		int pid = dump_pid(de->d_name);
		if (!pid)
			continue;
		char *path = path_join(jitdir, de->d_name);
		struct stat st;
		if (lstat(path, &st) || !S_ISREG(st.st_mode))
			r = 0; /* not kiln's to touch */
		else if (st.st_size == 40 && jc->n)
			r = profjit_write_table(jitdir, pid, path, jc, ips, files, e);
		else if (st.st_size > 40)
			r = cut_dump(path, ips, e);
		if (r == 0) {
			json_array_append_new(files, json_sprintf("jit/%s", de->d_name));
			n++;
		}
		free(path);
	}
	closedir(d);
	return r < 0 ? -1 : n;
}

void profjit_as_user(struct exec_opts *o, const struct puser *u, struct strvec *env)
{
	const char *path = getenv("PATH");
	sv_pushf(env, "PATH=%s", path && *path ? path : "/usr/bin:/bin");
	sv_pushf(env, "HOME=%s", u->home);
	sv_push(env, "LC_ALL=C");
	o->envp = sv_array(env);
	o->cwd = u->home;
	o->uid = u->uid;
	o->gid = u->gid;
	o->set_user = 1;
}

/* argv to completion (as the user when u): 0, or -1 with what it said */
static int run_perf(char **argv, const char *cwd, const struct puser *u, const char *what, struct kerr *e)
{
	struct exec_opts o;
	memset(&o, 0, sizeof(o));
	o.argv = argv;
	o.envp = environ;
	o.cwd = cwd;
	o.timeout_s = 3600;
	struct strvec env = STRVEC_INIT;
	if (u)
		profjit_as_user(&o, u, &env);
	struct exec_result res;
	int r = exec_run(&o, &res, e);
	if (r == 0) {
		if (!res.exited || res.status)
			r = kerr_set(e, "%s failed: %s", what, sb_str(&res.err));
		exec_result_release(&res);
	}
	sv_clear(&env);
	return r;
}

/*
 * With a benchmark user, the jitdumps perf recorded are in its home, where
 * kiln writes nothing: each of kiln's own (DIR/jit/jit-PID.dump, the
 * runner's marker filled, V8's cut) goes there through the stage folder,
 * copied by the user itself.
 */
static int dumps_to_home(const char *jitdir, const struct puser *u, const char *stage, struct kerr *e)
{
	DIR *d = opendir(jitdir);
	struct dirent *de;
	int r = 0;
	while (r == 0 && d && (de = readdir(d))) {
		if (!dump_pid(de->d_name))
			continue;
		char *st = path_join(stage, de->d_name), *home = path_join(u->home, de->d_name);
		r = sfs_copy_file(jitdir, de->d_name, geteuid(), (off_t)1 << 32, st, 0640, e);
		if (r == 0 && chown(st, (uid_t)-1, u->gid) < 0)
			r = kerr_set(e, "%s: %s", st, strerror(errno));
		char *argv[] = { "cp", "--", st, home, NULL };
		char *cp = find_in_path("cp");
		argv[0] = cp ? cp : "/bin/cp";
		if (r == 0)
			r = run_perf(argv, u->home, u, "cp (as the benchmark user) of kiln's jitdump", e);
		free(cp);
		free(st);
		free(home);
	}
	if (d)
		closedir(d);
	return r < 0 ? -1 : 0;
}

/* "jitted-PID-N.so" */
static int jitted_name(const char *n)
{
	return !strncmp(n, "jitted-", 7) && str_ends_with(n, ".so") && sfs_name_ok(n, 200);
}

/* what the user's perf inject made in its home, into DIR: perf.data and the jitted files */
static int from_home(const struct puser *u, const char *dir, struct kerr *e)
{
	char *pd = path_join(dir, "perf.data"), *jd = path_join(dir, "jit");
	int r = sfs_copy_file(u->home, "perf.jit.data", u->uid, (off_t)1 << 34, pd, 0600, e);
	if (r > 0)
		r = kerr_set(e, "perf inject left no %s/perf.jit.data", u->home);
	int hfd = r == 0 ? open(u->home, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1;
	DIR *d = hfd >= 0 ? fdopendir(hfd) : NULL;
	if (hfd >= 0 && !d)
		close(hfd);
	struct dirent *de;
	size_t n = 0;
	while (r == 0 && d && (de = readdir(d)))
		if (jitted_name(de->d_name)) {
			char *to = path_join(jd, de->d_name);
			struct kerr ce = KERR_INIT;
			if (++n > 100000)
				r = kerr_set(e, "%s: more than 100000 jitted files", u->home);
			else if (sfs_copy_file(u->home, de->d_name, u->uid, (off_t)1 << 28, to, 0644, &ce) < 0)
				kiln_warn("%s", sb_str(&ce.msg)); /* the others are still of use */
			kerr_release(&ce);
			free(to);
		}
	if (d)
		closedir(d);
	free(pd);
	free(jd);
	return r;
}

/* the jitted files' names in DIR/jit, each as FOLDER/NAME, comma-separated, and their count */
static size_t jitted_list(const char *jd, const char *folder, struct strbuf *list)
{
	DIR *d = opendir(jd);
	struct dirent *de;
	size_t n = 0;
	while (d && (de = readdir(d)))
		if (jitted_name(de->d_name)) {
			sb_addf(list, "%s%s/%s", list->len ? "," : "", folder, de->d_name);
			n++;
		}
	if (d)
		closedir(d);
	return n;
}

static int lower_hex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return s[n] == 0;
}

/*
 * DIR/.debug's entry for DIR/jit/NAME of build id BID, laid out as perf
 * buildid-cache lays it: .debug/<abs path>/BID/elf a copy of the file,
 * .debug/.build-id/B[0..2)/B[2..) a link to ../../<abs path>/BID.  kiln
 * writes it from its own copy and a validated id: nothing of the user's is
 * followed.
 */
/* where the build ids go, found once for all of them: DIR, its absolute path, DIR/jit and that folder open */
struct jit_dest {
	const char *dir, *abs, *jd;
	int jfd;
};

static int debug_entry(const struct jit_dest *to, const char *name, const char *bid, struct kerr *e)
{
	const char *dir = to->dir;
	char *rel = xasprintf("%s/jit/%s/%s", to->abs + 1, name, bid);
	char *edir = xasprintf("%s/.debug/%s", dir, rel), *elf = path_join(edir, "elf");
	char *ldir = xasprintf("%s/.debug/.build-id/%.2s", dir, bid), *link = path_join(ldir, bid + 2);
	char *target = xasprintf("../../%s", rel);
	int r = mkdir_p(edir, 0755) < 0 || mkdir_p(ldir, 0755) < 0 ? kerr_set(e, "%s: %s", edir, strerror(errno)) : 0;
	if (r == 0)
		r = sfs_copy_file(to->jd, name, geteuid(), (off_t)1 << 28, elf, 0755, e) != 0 ? -1 : 0;
	if (r == 0 && symlink(target, link) < 0 && errno != EEXIST)
		r = kerr_set(e, "%s: %s", link, strerror(errno));
	free(rel);
	free(edir);
	free(elf);
	free(ldir);
	free(link);
	free(target);
	return r;
}

/* one link of the user's HOME/.debug/.build-id/XX: "../../<path>/NAME/XXREST" read, checked, taken over */
static int user_build_id(int xxfd, const char *xx, const char *rest, const struct jit_dest *to)
{
	char bid[41], target[4096];
	if (strlen(xx) != 2 || strlen(rest) != 38 || !lower_hex(xx, 2) || !lower_hex(rest, 38))
		return 0;
	snprintf(bid, sizeof(bid), "%s%s", xx, rest);
	ssize_t n = readlinkat(xxfd, rest, target, sizeof(target) - 1);
	if (n <= 41)
		return 0;
	target[n] = 0;
	/* ".../NAME/BID": NAME a jitted file kiln holds a copy of */
	char *tail = target + n - 41;
	if (*tail != '/' || strcmp(tail + 1, bid))
		return 0;
	*tail = 0;
	char *slash = strrchr(target, '/');
	const char *name = slash ? slash + 1 : target;
	struct stat st;
	if (!jitted_name(name) || fstatat(to->jfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode))
		return 0;
	struct kerr e = KERR_INIT;
	int r = debug_entry(to, name, bid, &e);
	if (r < 0)
		kiln_warn("%s", sb_str(&e.msg));
	kerr_release(&e);
	return r == 0;
}

/*
 * With a benchmark user, the jitted files are the user's making (perf
 * inject read the benchmark's jitdumps): perf buildid-cache reads them as
 * the user, into HOME/.debug, and kiln takes over only the build ids (the
 * names of HOME/.debug/.build-id's links, and their targets read as text,
 * never followed), making DIR/.debug from its own copies.
 */
static size_t cache_jitted_user(const char *perf, const char *dir, const struct puser *u)
{
	char *jd = path_join(dir, "jit"), *bid = path_join(u->home, ".debug");
	struct strbuf list = STRBUF_INIT;
	size_t n = 0;
	if (jitted_list(jd, u->home, &list)) {
		char *argv[] = { (char *)perf, "--buildid-dir", bid, "buildid-cache", "-a", list.buf, NULL };
		struct kerr e = KERR_INIT;
		if (run_perf(argv, u->home, u, "perf buildid-cache (as the benchmark user)", &e) < 0)
			kiln_warn("%s: %s", u->home, sb_str(&e.msg));
		kerr_release(&e);
	}
	char *abs = realpath(dir, NULL);
	struct jit_dest to = { dir, abs, jd, open(jd, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) };
	int hfd = abs && to.jfd >= 0 ? open(u->home, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1;
	int dfd = hfd >= 0 ? openat(hfd, ".debug", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1;
	int bfd = dfd >= 0 ? openat(dfd, ".build-id", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1;
	DIR *d = bfd >= 0 ? fdopendir(bfd) : NULL;
	struct dirent *de;
	while (d && (de = readdir(d)) && n < 100000) {
		int xfd = strlen(de->d_name) == 2 ? openat(bfd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1;
		DIR *x = xfd >= 0 ? fdopendir(xfd) : NULL;
		if (xfd >= 0 && !x)
			close(xfd);
		struct dirent *le;
		while (x && (le = readdir(x)) && n < 100000)
			n += (size_t)user_build_id(xfd, de->d_name, le->d_name, &to);
		if (x)
			closedir(x);
	}
	if (d)
		closedir(d);
	else if (bfd >= 0)
		close(bfd);
	if (dfd >= 0)
		close(dfd);
	if (hfd >= 0)
		close(hfd);
	if (to.jfd >= 0)
		close(to.jfd);
	free(abs);
	sb_release(&list);
	free(jd);
	free(bid);
	return n;
}

/* the jitted files of DIR/jit into DIR/.debug, where perf report finds them by build id */
static size_t cache_jitted(const char *perf, const char *dir, const struct puser *u)
{
	if (u)
		return cache_jitted_user(perf, dir, u);
	char *jd = path_join(dir, "jit");
	struct strbuf list = STRBUF_INIT;
	size_t n = jitted_list(jd, jd, &list);
	if (n) {
		char *bid = path_join(dir, ".debug");
		char *argv[] = { (char *)perf, "--buildid-dir", bid, "buildid-cache", "-a", list.buf, NULL };
		struct kerr e = KERR_INIT;
		if (run_perf(argv, dir, NULL, "perf buildid-cache", &e) < 0)
			kiln_warn("%s/jit: %s", dir, sb_str(&e.msg));
		kerr_release(&e);
		free(bid);
	}
	sb_release(&list);
	free(jd);
	return n;
}

/*
 * perf inject --jit on PERFDATA into DIR/perf.data: an ELF file
 * jitted-PID-N.so per JIT'd function the dumps name, the samples moved
 * onto them.  perf inject would also copy every binary the samples hit
 * (the VM: 100 MB for node) into its build-id cache; it is given none
 * (/dev/null cannot hold one), and only the jitted files go into
 * DIR/.debug (perf buildid-cache).  Without a benchmark user it reads
 * DIR/jit's dumps and writes there; with one, it runs as the user on the
 * dumps in its home (kiln's put there by the user), and kiln copies what
 * it made into DIR (safefs.h: no link followed, only the user's regular
 * files, bounded).
 */
int profjit_inject(const char *perf, const char *dir, const char *perfdata, const struct puser *u, const char *stage,
		   size_t *jitted, struct kerr *e)
{
	char *out = u ? path_join(u->home, "perf.jit.data") : path_join(dir, "perf.jit.data");
	char *argv[] = { (char *)perf, "--buildid-dir", "/dev/null", "inject", "--jit", "-i", (char *)perfdata, "-o", out, NULL };
	*jitted = 0;
	char *jd = path_join(dir, "jit");
	int r = u ? dumps_to_home(jd, u, stage, e) : 0;
	free(jd);
	if (r == 0)
		r = run_perf(argv, u ? u->home : dir, u, "perf inject --jit", e);
	if (r == 0 && u)
		r = from_home(u, dir, e);
	else if (r == 0) {
		char *pd = path_join(dir, "perf.data");
		if (rename(out, pd) < 0)
			r = kerr_set(e, "%s: %s", pd, strerror(errno));
		free(pd);
	}
	if (r < 0 && !u)
		unlink(out);
	if (r == 0)
		*jitted = cache_jitted(perf, dir, u);
	free(out);
	return r;
}

/* an unnamed frame in JIT'd code (perf found no symbol for it) */
static int unnamed_jit(const struct pscript *ps, uint32_t sym, uint32_t dso)
{
	const char *s = ps_str(ps, sym);
	return dso && prof_is_jit_dso(ps_str(ps, dso)) && (!*s || !strcmp(s, "[unknown]"));
}

size_t profjit_name_samples(struct pscript *ps, size_t from, size_t to, const struct jitcode *jc, size_t *unnamed)
{
	size_t named = 0;
	*unnamed = 0;
	if (!jc->n)
		return 0;
	for (size_t i = from; i < to; i++) {
		struct ps_sample *s = &ps->s[i];
		for (uint32_t f = 0; f < s->nframes; f++) {
			struct ps_frame *fr = &ps->frames[s->frame0 + f];
			if (!unnamed_jit(ps, fr->sym, fr->dso))
				continue;
			const struct jc_entry *x = jitcode_lookup(jc, fr->ip, s->t_ns);
			if (!x) {
				*unnamed += f == 0;
				continue;
			}
			fr->sym = pscript_intern(ps, x->name, strlen(x->name));
			if (f == 0) {
				s->sym = fr->sym;
				named++;
			}
		}
		if (!s->nframes && unnamed_jit(ps, s->sym, s->dso)) {
			const struct jc_entry *x = jitcode_lookup(jc, s->ip, s->t_ns);
			if (x) {
				s->sym = pscript_intern(ps, x->name, strlen(x->name));
				named++;
			} else {
				(*unnamed)++;
			}
		}
	}
	return named;
}
