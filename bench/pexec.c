/*
 * bench/pexec.c - kiln's own per-pexec overhead and memory.
 *
 * The command plugin runs /bin/true N times, each pexec committed durably
 * (and again with `durability: crash`, no flush per pexec), against the
 * floor measured in the same run: a plain posix_spawn + waitpid loop over
 * the same program, and the least a durable runner does, that loop with a
 * 4 KiB overwrite and fdatasync on the results' disk after each process
 * (issue 17's target: a durable pexec, the pexec log's folds counted in,
 * within 1.05 x that).  Also kiln's RSS while benchmarks run, beside
 * `python3 -c pass`'s, and `hyperfine -N` when it is installed.
 *
 * Interleaved, finely: this virtual machine's spawn time moves by 10-15%
 * between blocks of 200 processes (0.15 s), so a kiln run and a floor
 * loop run one after the other differ by the machine's moment as much as
 * by kiln.  So one long kiln run is stopped (SIGSTOP) every CHUNK_MS, and
 * while it stands the bench runs FLOOR_CYCLES floor cycles, bare and
 * durable in turn, then lets kiln go on (SIGCONT).  kiln's cycles are its
 * pexecs' start-to-start times as stored (wall_start_ns); a cycle a stop
 * fell into is left out, as are the floor cycles of a stop until kiln's
 * benchmark in flight has ended.  Both sides then see the same moments of
 * the machine, and the figures are pooled medians.  kiln's folds of its
 * pexec log land in a few long cycles, which a median leaves out, so their
 * time (kiln's KILN_DEBUG_LOG line) is added per pexec, as a run of
 * FOLD_RUN pexecs left alone folds (undisturbed_folds: a stop folds too).
 *
 *   build/bench/pexec [N]        (default 10000 pexecs per kiln run)
 * KILN_BENCH_DIR=DIR puts the results on DIR's filesystem (default /tmp).
 * Prints one "ROW" line per figure for bench/run.sh.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "util.h"

extern char **environ;

static double now_s(void)
{
	return (double)mono_ns() / 1e9;
}

/* a field (KiB) of /proc/PID/status: VmHWM, VmRSS */
static long status_kb(pid_t pid, const char *field)
{
	char path[64], line[256];
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "r");
	long v = 0;
	size_t fl = strlen(field);
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, field, fl) && line[fl] == ':')
			v = atol(line + fl + 1);
	fclose(f);
	return v;
}

/* pid's children, as /proc lists them ("PID PID ..."), into buf; 0 when it has none */
static size_t children_of(pid_t pid, char *buf, size_t size)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)pid, (int)pid);
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(buf, 1, size - 1, f) : 0;
	if (f)
		fclose(f);
	buf[n] = '\0';
	return n;
}

/* is the benchmark (/bin/true) running right now as a child of pid? */
static int has_child(pid_t pid)
{
	char path[64], buf[64];
	if (!children_of(pid, buf, sizeof(buf)))
		return 0;
	/* the benchmark, not the audit's `/bin/true --version` */
	snprintf(path, sizeof(path), "/proc/%ld/cmdline", atol(buf));
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	return n == sizeof("/bin/true") && !memcmp(buf, "/bin/true", sizeof("/bin/true"));
}

/* run argv (output to /dev/null when quiet), wait; wall seconds, -1 if it failed.  *maxrss_kb: wait4's */
static double run_cmd(char *const argv[], long *maxrss_kb, int quiet)
{
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	if (quiet) {
		posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
		posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	}
	double t0 = now_s();
	pid_t pid;
	int st;
	struct rusage ru;
	if (posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ) != 0) {
		posix_spawn_file_actions_destroy(&fa);
		return -1;
	}
	wait4(pid, &st, 0, &ru);
	double t = now_s() - t0;
	posix_spawn_file_actions_destroy(&fa);
	if (maxrss_kb)
		*maxrss_kb = ru.ru_maxrss;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? t : -1;
}

/* DIR/NAME: 256 blocks of 4 KiB written and flushed, so that overwriting one changes no metadata; blk filled */
static int written_file(const char *dir, const char *name, char blk[4096])
{
	char *path = xasprintf("%s/%s", dir, name);
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	free(path);
	if (fd < 0)
		return -1;
	memset(blk, 'k', 4096);
	for (int i = 0; i < 256; i++)
		if (pwrite(fd, blk, 4096, (off_t)i * 4096) != 4096)
			return close(fd), -1;
	fsync(fd);
	return fd;
}

/*
 * One durable 4 KiB write on the filesystem of `dir`, timed in a tight
 * loop of its own: overwrite a block of a written file, fdatasync.  Median
 * (us) of `n`; *flush_only: fdatasync with nothing to write.
 */
static double disk_flush_us(const char *dir, int n, double *flush_only)
{
	char blk[4096];
	int fd = written_file(dir, "flush.dat", blk);
	if (fd < 0)
		return -1;
	double *v = xmalloc(sizeof(double) * (size_t)n), *w = xmalloc(sizeof(double) * (size_t)n);
	for (int i = 0; i < n; i++) {
		double t0 = now_s();
		if (pwrite(fd, blk, sizeof(blk), (off_t)(i % 256) * 4096) < 0 || fdatasync(fd) < 0)
			return close(fd), free(v), free(w), -1;
		v[i] = (now_s() - t0) * 1e6;
		t0 = now_s();
		fdatasync(fd);
		w[i] = (now_s() - t0) * 1e6;
	}
	close(fd);
	sort_doubles(v, (size_t)n);
	sort_doubles(w, (size_t)n);
	double r = v[n / 2];
	*flush_only = w[n / 2];
	free(v);
	free(w);
	return r;
}

/* a config of n pexecs of /bin/true under the command plugin */
static char *write_config(const char *dir, const char *name, long n, const char *durability)
{
	char *cfg = xasprintf("%s/%s.yaml", dir, name);
	FILE *f = fopen(cfg, "w");
	fprintf(f, "pexecs: %ld\niterations: 1\ndurability: %s\nvms:\n  t: {plugin: command, path: /bin/true}\n"
		   "benchmarks:\n  noop: 0\n", n, durability);
	fclose(f);
	return cfg;
}

/* a growing array of seconds */
struct samples {
	double *v;
	size_t n, cap;
};

static void push(struct samples *s, double x)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 4096;
		s->v = xrealloc(s->v, sizeof(double) * s->cap);
	}
	s->v[s->n++] = x;
}

/* the q-quantile (0..1) of s, sorting it in place; 0 when empty */
static double quantile(struct samples *s, double q)
{
	if (!s->n)
		return 0;
	sort_doubles(s->v, s->n);
	return s->v[(size_t)(q * (double)(s->n - 1) + 0.5)];
}

static double median(struct samples *s)
{
	return quantile(s, 0.5);
}

/* the floors, measured in kiln's stops, in turn */
enum { FLOOR_BARE, FLOOR_DURABLE, NFLOORS };

/*
 * One floor cycle: posix_spawn+waitpid of /bin/true and, for the durable
 * floor, one 4 KiB overwrite + fdatasync of the written file fd, as a
 * runner that makes each process durable before the next one starts.
 */
static int floor_cycle(int kind, int fd, const char *blk, long i, double *s)
{
	double t0 = now_s();
	if (run_cmd((char *[]){ "/bin/true", NULL }, NULL, 0) < 0)
		return -1;
	if (kind == FLOOR_DURABLE && (pwrite(fd, blk, 4096, (off_t)(i % 256) * 4096) < 0 || fdatasync(fd) < 0))
		return -1;
	*s = now_s() - t0;
	return 0;
}

/* a kiln run standing: from just before its SIGSTOP to just after its SIGCONT (wall clock, ns) */
struct window {
	int64_t from, to;
};

/* one kiln run, stopped every CHUNK_MS for FLOOR_CYCLES floor cycles */
struct interleaved {
	struct samples cycle, own;      /* kiln's start-to-start cycles and the part outside the process's lifetime */
	struct samples floor[NFLOORS];
	struct window *win;
	size_t nwin, left_out;
	long recs, folds;
	double fold_ms, wall_s;
	long rss_kb, hwm_kb;            /* max VmRSS at a stop while kiln had its benchmark; peak VmHWM */
};

enum { CHUNK_MS = 50, FLOOR_CYCLES = 50 };

/* the pexec log's folds, per pexec logged (us) */
static double fold_us(const struct interleaved *r)
{
	return r->recs ? r->fold_ms * 1e3 / (double)r->recs : 0;
}

/* is a child of pid still running (not yet a zombie)? */
static int child_running(pid_t pid)
{
	char path[64], buf[512], st[600];
	children_of(pid, buf, sizeof(buf));
	char *p = buf, *end;
	for (long c; (c = strtol(p, &end, 10)) > 0; p = end) {
		snprintf(path, sizeof(path), "/proc/%ld/stat", c);
		FILE *f = fopen(path, "r");
		if (!f)
			continue;
		size_t n = fread(st, 1, sizeof(st) - 1, f);
		fclose(f);
		st[n] = '\0';
		const char *rp = strrchr(st, ')');
		if (rp && rp[1] == ' ' && rp[2] != 'Z' && rp[2] != 'X')
			return 1;
	}
	return 0;
}

/*
 * Stop kiln, note its memory, let its benchmark in flight end (at most
 * 100 ms), run one chunk of floor cycles, let kiln go on.  0: done; 1:
 * kiln had ended; -1: a floor cycle failed.
 */
static int one_stop(struct interleaved *r, pid_t pid, int kind, int fd, const char *blk, long *i, int *st)
{
	int64_t from = wall_ns();
	kill(pid, SIGSTOP);
	if (waitpid(pid, st, WUNTRACED) == pid && !WIFSTOPPED(*st))
		return 1;
	if (has_child(pid)) {
		long v = status_kb(pid, "VmRSS");
		r->rss_kb = v > r->rss_kb ? v : r->rss_kb;
	}
	long hwm = status_kb(pid, "VmHWM");
	r->hwm_kb = hwm > r->hwm_kb ? hwm : r->hwm_kb;
	for (int k = 0; k < 1000 && child_running(pid); k++)
		usleep(100);
	for (int k = 0; k < FLOOR_CYCLES; k++) {
		double s;
		if (floor_cycle(kind, fd, blk, (*i)++, &s) < 0)
			return kill(pid, SIGCONT), -1;
		push(&r->floor[kind], s);
	}
	kill(pid, SIGCONT);
	r->win = xrealloc(r->win, sizeof(*r->win) * (r->nwin + 1));
	r->win[r->nwin++] = (struct window){ from, wall_ns() };
	return 0;
}

/* kiln's cycles from its results, leaving out those a stop fell into */
static int read_cycles(const char *db, struct interleaved *r)
{
	sqlite3 *h;
	sqlite3_stmt *st;
	if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(h, "SELECT wall_start_ns, duration_s FROM pexecs WHERE wall_start_ns IS NOT NULL "
			       "ORDER BY seq", -1, &st, NULL) != SQLITE_OK) {
		fprintf(stderr, "bench/pexec: cannot read %s: %s\n", db, sqlite3_errmsg(h));
		sqlite3_close(h);
		return -1;
	}
	int64_t prev = -1;
	double prev_d = 0;
	size_t w = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		int64_t t = sqlite3_column_int64(st, 0);
		if (prev >= 0) {
			while (w < r->nwin && r->win[w].to <= prev)
				w++;
			if (w < r->nwin && r->win[w].from < t) {
				r->left_out++;
			} else {
				push(&r->cycle, (double)(t - prev) / 1e9);
				push(&r->own, (double)(t - prev) / 1e9 - prev_d);
			}
		}
		prev = t;
		prev_d = sqlite3_column_double(st, 1);
	}
	sqlite3_finalize(st);
	sqlite3_close(h);
	return 0;
}

/* kiln's KILN_DEBUG_LOG line: its pexec log's records, folds and their time */
static void read_folds(const char *err, struct interleaved *r)
{
	struct strbuf sb = STRBUF_INIT;
	struct kerr e = KERR_INIT;
	const char *at = read_file(err, &sb, &e) == 0 ? strstr(sb_str(&sb), "pexec log: ") : NULL;
	if (!at || sscanf(at, "pexec log: %ld records, %ld folds, %lf ms", &r->recs, &r->folds, &r->fold_ms) != 3)
		r->recs = r->folds = 0, r->fold_ms = 0;
	sb_release(&sb);
	kerr_release(&e);
}

/* start `kiln run -q cfg`, its stderr into err (kiln's KILN_DEBUG_LOG line); 0 or -1 */
static int spawn_kiln(const char *kiln, const char *cfg, const char *err, pid_t *pid)
{
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	int rc = posix_spawn(pid, kiln, &fa, NULL, (char *[]){ (char *)kiln, "run", "-q", (char *)cfg, NULL }, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc)
		fprintf(stderr, "bench/pexec: cannot run %s: %s\n", kiln, strerror(rc));
	return rc ? -1 : 0;
}

/*
 * The folds' time per pexec in a kiln run left alone.  In an interleaved
 * run a stop that falls into a benchmark's run taints that pexec (kiln's
 * clock ran on while it stood), and a tainted pexec goes to the results
 * file directly, after a fold of the log: a fold per stop, not one a
 * second.  So the folds are counted from a run of their own, long enough
 * (FOLD_RUN pexecs, a few fold intervals) to fold as a long run does.
 */
enum { FOLD_RUN = 3000 };

static int undisturbed_folds(const char *kiln, const char *dir, struct interleaved *r)
{
	char *cfg = write_config(dir, "folds", FOLD_RUN, "power"), *db = xasprintf("%s/folds.kiln.db", dir);
	char *err = xasprintf("%s/folds.stderr", dir);
	unlink(db);
	memset(r, 0, sizeof(*r));
	pid_t pid;
	int st = -1;
	if (spawn_kiln(kiln, cfg, err, &pid) == 0)
		waitpid(pid, &st, 0);
	int ok = st == 0;
	if (ok)
		read_folds(err, r);
	free(cfg);
	free(db);
	free(err);
	return ok && r->recs ? 0 : -1;
}

/* one kiln run of cfg into DIR/NAME.kiln.db, interleaved with the floors */
static int interleaved_run(const char *kiln, const char *dir, const char *name, const char *cfg, int fd,
			   const char *blk, struct interleaved *r)
{
	char *db = xasprintf("%s/%s.kiln.db", dir, name), *err = xasprintf("%s/%s.stderr", dir, name);
	unlink(db);
	memset(r, 0, sizeof(*r));
	double t0 = now_s();
	pid_t pid;
	int st = 0, rc = -1, ended = 0;
	long i = 0;
	if (spawn_kiln(kiln, cfg, err, &pid) < 0)
		goto out;
	for (size_t k = 0; !ended; k++) {
		nanosleep(&(struct timespec){ 0, CHUNK_MS * 1000000L }, NULL);
		if (waitpid(pid, &st, WNOHANG) == pid)
			break;
		ended = one_stop(r, pid, (int)(k % NFLOORS), fd, blk, &i, &st);
		if (ended < 0) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			fprintf(stderr, "bench/pexec: a floor cycle failed\n");
			goto out;
		}
	}
	r->wall_s = now_s() - t0;
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		fprintf(stderr, "bench/pexec: %s run failed (see %s)\n", kiln, err);
		goto out;
	}
	read_folds(err, r);
	rc = read_cycles(db, r);
	printf("  %s: kiln run of %.1f s, stopped %zu times for %zu + %zu floor cycles; %zu of its cycles used, %zu "
	       "a stop fell into left out; %ld pexecs logged, %ld folds of the log taking %.3f ms (%.1f us per pexec)\n",
	       name, r->wall_s, r->nwin, r->floor[0].n, r->floor[1].n, r->cycle.n, r->left_out, r->recs, r->folds,
	       r->fold_ms, fold_us(r));
out:
	free(db);
	free(err);
	return rc;
}

static void row(const char *name, double v, const char *unit, const char *base, double bv, const char *target, int pass)
{
	printf("ROW\t%s\t%.4g %s\t%s\t%.4g %s\t%.3f\t%s\t%s\n", name, v, unit, base, bv, unit, bv > 0 ? v / bv : 0,
	       target, pass ? "PASS" : "MISS");
}

/* "median (p10/p90)" of s, in us */
static void print_dist(const char *what, struct samples *s)
{
	printf("  %-44s %8.1f us (p10/p90 %.1f/%.1f, %zu cycles)\n", what, median(s) * 1e6, quantile(s, 0.1) * 1e6,
	       quantile(s, 0.9) * 1e6, s->n);
}

/* the figures of the durable and the crash run */
static void report(struct interleaved *pw, struct interleaved *cr, const struct interleaved *folds, const char *dir)
{
	double fb = median(&pw->floor[FLOOR_BARE]), fd = median(&pw->floor[FLOOR_DURABLE]);
	double kp = median(&pw->cycle), kc = median(&cr->cycle), cfb = median(&cr->floor[FLOOR_BARE]);
	double kpf = kp + fold_us(folds) / 1e6, own = median(&pw->own), own2 = median(&cr->own);
	double flush_only = 0, flush_us = disk_flush_us(dir, 300, &flush_only);
	printf("kiln per-pexec time, command plugin, /bin/true, each kiln run stopped every %d ms for %d floor cycles\n",
	       CHUNK_MS, FLOOR_CYCLES);
	print_dist("posix_spawn+waitpid (durable run's stops):", &pw->floor[FLOOR_BARE]);
	print_dist("  the same, 4 KiB overwrite + fdatasync after:", &pw->floor[FLOOR_DURABLE]);
	print_dist("kiln run, durable commit, start to start:", &pw->cycle);
	print_dist("posix_spawn+waitpid (crash run's stops):", &cr->floor[FLOOR_BARE]);
	print_dist("kiln run, durability: crash:", &cr->cycle);
	printf("  kiln's own work per pexec, outside the process's lifetime (median): %.1f us durable, %.1f us with "
	       "durability: crash (%.1f%% and %.1f%% of the floor)\n", own * 1e6, own2 * 1e6, own / fb * 100,
	       own2 / cfb * 100);
	printf("  the pexec log's folds: %.1f us per pexec in a run of %d left alone (%ld folds of %ld records); %.1f us "
	       "in the interleaved run, a fold per stop that tainted a pexec\n", fold_us(folds), FOLD_RUN, folds->folds,
	       folds->recs, fold_us(pw));
	if (flush_us > 0)
		printf("  this disk, in a tight loop: a 4 KiB overwrite + fdatasync %.1f us, fdatasync alone %.1f us\n",
		       flush_us, flush_only);
	printf("  durable pexec, folds included, against the minimal durable runner: %.3f (target 1.05 leaves %.1f us a "
	       "pexec for all kiln does besides)\n", kpf / fd, fd * 0.05 * 1e6);
	row("per-pexec time, durable commit, folds included", kpf * 1e6, "us",
	    "posix_spawn+waitpid then one durable 4 KiB write, interleaved", fd * 1e6, "<= 1.05x", kpf / fd <= 1.05);
	row("per-pexec time, kiln run /bin/true, durable commit", kp * 1e6, "us", "posix_spawn+waitpid, interleaved",
	    fb * 1e6, "-", 1);
	row("per-pexec time, durability: crash (no flush)", kc * 1e6, "us", "posix_spawn+waitpid, interleaved",
	    cfb * 1e6, "-", 1);
	row("kiln's own work per pexec (outside the process), durable commit", own * 1e6, "us",
	    "posix_spawn+waitpid, interleaved", fb * 1e6, "-", 1);
	row("kiln's own work per pexec (outside the process), durability: crash", own2 * 1e6, "us",
	    "posix_spawn+waitpid, interleaved", cfb * 1e6, "-", 1);
	if (flush_us > 0)
		row("one durable 4 KiB write on the results' disk, tight loop (no kiln)", flush_us, "us",
		    "posix_spawn+waitpid, interleaved", fb * 1e6, "-", 1);
}

/* hyperfine -N's wall per run of /bin/true, n runs, beside kiln's durable cycle */
static void hyperfine_row(const char *dir, long n, double kiln_us)
{
	char *hf = find_in_path("hyperfine");
	if (!hf)
		return;
	char *json = xasprintf("%s/hf.json", dir);
	char runs[32];
	snprintf(runs, sizeof(runs), "%ld", n);
	double ht = run_cmd((char *[]){ hf, "-N", "--runs", runs, "--export-json", json, "/bin/true", NULL }, NULL, 1);
	struct strbuf sb = STRBUF_INIT;
	struct kerr e = KERR_INIT;
	if (ht > 0 && read_file(json, &sb, &e) == 0) {
		char *m = strstr(sb.buf, "\"mean\":");
		printf("  hyperfine -N mean:   %8.1f us per run (%.1f us per run including hyperfine's own work)\n",
		       m ? atof(m + 7) * 1e6 : 0, ht / (double)n * 1e6);
		row("per-pexec time, kiln run /bin/true, durable commit", kiln_us, "us", "hyperfine -N (wall per run)",
		    ht / (double)n * 1e6, "-", 1);
	}
	sb_release(&sb);
	kerr_release(&e);
	free(json);
	free(hf);
}

static void memory_rows(const struct interleaved *pw, const struct interleaved *cr)
{
	long prss = 0, rss = pw->rss_kb > cr->rss_kb ? pw->rss_kb : cr->rss_kb;
	long hwm = pw->hwm_kb > cr->hwm_kb ? pw->hwm_kb : cr->hwm_kb;
	char *py = find_in_path("python3");
	if (py) {
		run_cmd((char *[]){ py, "-c", "pass", NULL }, &prss, 0);
		free(py);
	}
	printf("  kiln RSS while a benchmark runs: %ld KiB (max VmRSS of kiln alone, at its stops while it had one)\n",
	       rss);
	printf("  kiln peak RSS:       %8ld KiB (VmHWM, start-up included: config, audit, schedule)\n", hwm);
	printf("  python3 -c pass RSS: %8ld KiB\n", prss);
	row("kiln RSS while a benchmark runs", (double)rss, "KiB", "python3 -c pass", (double)prss, "<= 4096 KiB",
	    rss > 0 && rss <= 4096);
	row("kiln peak RSS, start-up included", (double)hwm, "KiB", "python3 -c pass", (double)prss, "-", 1);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 10000;
	const char *O = getenv("O") ? getenv("O") : "build";
	char *kiln = xasprintf("%s/kiln", O);
	/* KILN_BENCH_DIR: the filesystem that holds the results (default /tmp) */
	char *dir = xasprintf("%s/kiln-bench.XXXXXX", getenv("KILN_BENCH_DIR") ? getenv("KILN_BENCH_DIR") : "/tmp");
	if (!mkdtemp(dir)) {
		fprintf(stderr, "bench/pexec: %s: %s\n", dir, strerror(errno));
		return 1;
	}
	printf("results in %s\n", dir);
	char blk[4096];
	int fd = written_file(dir, "floor-durable.dat", blk);
	char *cfg = write_config(dir, "power", n, "power"), *cfg2 = write_config(dir, "crash", n, "crash");
	/* kiln's stderr carries its pexec log's figures (folds: count and time) */
	setenv("KILN_DEBUG_LOG", "1", 1);
	for (int i = 0; i < 50; i++) /* warm up the spawn path's caches */
		run_cmd((char *[]){ "/bin/true", NULL }, NULL, 0);
	struct interleaved pw, cr, folds;
	if (fd < 0 || undisturbed_folds(kiln, dir, &folds) < 0 || interleaved_run(kiln, dir, "power", cfg, fd, blk, &pw) < 0 ||
	    interleaved_run(kiln, dir, "crash", cfg2, fd, blk, &cr) < 0 || !pw.cycle.n || !cr.cycle.n ||
	    !pw.floor[FLOOR_DURABLE].n || !cr.floor[FLOOR_BARE].n) {
		fprintf(stderr, "bench/pexec: no figures (results kept in %s)\n", dir);
		return 1;
	}
	close(fd);
	report(&pw, &cr, &folds, dir);
	hyperfine_row(dir, n, median(&pw.cycle) * 1e6);
	memory_rows(&pw, &cr);
	rm_rf(dir);
	free(dir);
	free(cfg);
	free(cfg2);
	free(kiln);
	return 0;
}
