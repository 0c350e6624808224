/*
 * bench/pexec.c - kiln's own per-pexec overhead and memory.
 *
 * The command plugin runs /bin/true N times (N pexecs, each committed
 * durably; and again with `durability: crash`, no flush per pexec),
 * compared in the same run with the physical floor, a plain posix_spawn +
 * waitpid loop over the same program, and with `hyperfine -N` when it is
 * installed.  Beside them, what one durable write costs on the disk that
 * holds the results (a 4 KiB overwrite and fdatasync, kiln not involved):
 * the part of a durable commit that no program can take away; the target
 * (issue 17) is a durable pexec, its share of the pexec log's folds
 * (kiln's KILN_DEBUG_LOG line) counted in, within 1.05 x the floor plus
 * that write.  Also
 * reports kiln's peak RSS during the runs and, as the floor of a harness
 * written in Python, the RSS of `python3 -c pass`.
 *
 *   build/bench/pexec [N]        (default 10000 pexecs per figure, in 10 rounds)
 * Rounds of 1000: each kiln run then lasts about a second, kiln's fold
 * interval, so its folds weigh per pexec what they weigh in a longer run
 * (in rounds of 100, each 0.1 s run ended with a fold of its 100 records,
 * the fold's fixed cost, its commit and flush, spread over 100 pexecs
 * instead of about 1000).
 * KILN_BENCH_DIR=DIR puts the results on DIR's filesystem (default /tmp).
 * Prints one "ROW" line per figure for bench/run.sh.
 */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sqlite3.h>

#include "util.h"

extern char **environ;

static int cmp_double(const void *a, const void *b);

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

/* is the benchmark (/bin/true) running right now as a child of pid? */
static int has_child(pid_t pid)
{
	char path[64], buf[64];
	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)pid, (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	if (!n)
		return 0;
	buf[n] = '\0';
	/* the benchmark, not the audit's `/bin/true --version` */
	snprintf(path, sizeof(path), "/proc/%ld/cmdline", atol(buf));
	f = fopen(path, "r");
	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	return n == sizeof("/bin/true") && !memcmp(buf, "/bin/true", sizeof("/bin/true"));
}

static long rss_running_kb; /* max VmRSS sampled while a benchmark ran */
static const char *stderr_to;  /* quiet runs: stderr into this file (kiln's KILN_DEBUG_LOG line) */

/*
 * Run argv, wait, return wall seconds.  *maxrss_kb: with `own_rss` the peak
 * RSS of that process alone, sampled from /proc while it runs (wait4's
 * figure would include its children: the benchmarks); else wait4's.
 */
static double run_cmd_rss(char *const argv[], long *maxrss_kb, int quiet, int own_rss)
{
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	if (quiet) {
		posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
		posix_spawn_file_actions_addopen(&fa, 2, stderr_to ? stderr_to : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC,
						 0644);
	}
	double t0 = now_s();
	pid_t pid;
	if (posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ) != 0) {
		posix_spawn_file_actions_destroy(&fa);
		return -1;
	}
	int st;
	struct rusage ru;
	long peak = 0;
	if (own_rss) {
		while (wait4(pid, &st, WNOHANG, &ru) == 0) {
			long v = status_kb(pid, "VmHWM");
			if (v > peak)
				peak = v;
			if (has_child(pid)) {
				long r = status_kb(pid, "VmRSS");
				if (r > rss_running_kb)
					rss_running_kb = r;
			}
			usleep(2000);
		}
	} else {
		wait4(pid, &st, 0, &ru);
		peak = ru.ru_maxrss;
	}
	double t = now_s() - t0;
	posix_spawn_file_actions_destroy(&fa);
	if (maxrss_kb)
		*maxrss_kb = peak;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? t : -1;
}

static double run_cmd(char *const argv[], long *maxrss_kb, int quiet)
{
	return run_cmd_rss(argv, maxrss_kb, quiet, 0);
}

/*
 * One durable 4 KiB write on the filesystem of `dir`, as a database commit
 * does it at least: overwrite a block of an existing file, fdatasync.  The
 * file is written and flushed first, so no metadata changes.  Median (us)
 * of `n`; *flush_only: fdatasync with nothing to write (the device's flush
 * alone).
 */
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
	qsort(v, (size_t)n, sizeof(double), cmp_double);
	qsort(w, (size_t)n, sizeof(double), cmp_double);
	double r = v[n / 2];
	*flush_only = w[n / 2];
	free(v);
	free(w);
	return r;
}

/*
 * The least a runner that makes each pexec durable before the next starts
 * can do, measured: posix_spawn+waitpid of /bin/true, then one 4 KiB
 * overwrite and fdatasync of an existing file on the results' disk, in one
 * loop, as kiln interleaves them.  (The same write timed in a tight loop
 * of its own is cheaper on a virtual disk than between process starts.)
 * Each cycle's seconds into out[*n].
 */
static int spawn_durable(const char *dir, long per, double *out, size_t *n)
{
	char blk[4096];
	int fd = written_file(dir, "floor-durable.dat", blk);
	if (fd < 0)
		return -1;
	for (long i = 0; i < per; i++) {
		double t0 = now_s();
		run_cmd((char *[]){ "/bin/true", NULL }, NULL, 0);
		if (pwrite(fd, blk, sizeof(blk), (off_t)(i % 256) * 4096) < 0 || fdatasync(fd) < 0)
			return close(fd), -1;
		out[(*n)++] = now_s() - t0;
	}
	close(fd);
	return 0;
}

/* the median of n values (copied, v stays as it is) */
static double median_of(const double *v, size_t n)
{
	double *c = xmalloc(sizeof(double) * (n ? n : 1));
	memcpy(c, v, sizeof(double) * n);
	qsort(c, n, sizeof(double), cmp_double);
	double m = n ? (n % 2 ? c[n / 2] : (c[n / 2 - 1] + c[n / 2]) / 2) : 0;
	free(c);
	return m;
}

static char *write_config(const char *dir, const char *name, long n, const char *durability)
{
	char *cfg = xasprintf("%s/%s.yaml", dir, name);
	FILE *f = fopen(cfg, "w");
	fprintf(f, "pexecs: %ld\niterations: 1\ndurability: %s\nvms:\n  t: {plugin: command, path: /bin/true}\n"
		   "benchmarks:\n  noop: 0\n", n, durability);
	fclose(f);
	return cfg;
}

/* one kiln run of cfg; appends its start-to-start pexec cycles (s) to out */
/*
 * One kiln run of cfg.  Appends to `out` each start-to-start pexec cycle
 * (s) and to `own` the part of it outside the process's lifetime as kiln
 * measured it (from just before vfork to the reaping): kiln's own work
 * around a pexec, which the machine's drift between runs cannot blur.
 */
/*
 * *fold_s gets the time kiln spent folding its pexec log into the results
 * file (between pexecs and at the end: KILN_DEBUG_LOG), per pexec.
 */
static int kiln_cycles(const char *kiln, const char *dir, const char *name, const char *cfg, double *out, double *own,
		       size_t *n, long *rss, double *fold_s)
{
	char *db = xasprintf("%s/%s.kiln.db", dir, name);
	char *err = xasprintf("%s/%s.stderr", dir, name);
	unlink(db);
	long r1 = 0;
	stderr_to = err;
	double kt = run_cmd_rss((char *[]){ (char *)kiln, "run", "-q", (char *)cfg, NULL }, &r1, 1, 1);
	stderr_to = NULL;
	struct strbuf sb = STRBUF_INIT;
	struct kerr e = KERR_INIT;
	long recs = 0, folds = 0;
	double ms = 0;
	const char *at = read_file(err, &sb, &e) == 0 ? strstr(sb_str(&sb), "pexec log: ") : NULL;
	if (at && sscanf(at, "pexec log: %ld records, %ld folds, %lf ms", &recs, &folds, &ms) == 3 && recs > 0)
		*fold_s = ms / 1e3 / (double)recs;
	else
		*fold_s = 0;
	sb_release(&sb);
	kerr_release(&e);
	free(err);
	if (kt < 0) {
		fprintf(stderr, "bench/pexec: %s run failed\n", kiln);
		free(db);
		return -1;
	}
	*rss = r1 > *rss ? r1 : *rss;
	sqlite3 *h;
	sqlite3_stmt *st;
	if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(h, "SELECT wall_start_ns, duration_s FROM pexecs ORDER BY seq", -1, &st, NULL) != SQLITE_OK) {
		fprintf(stderr, "bench/pexec: cannot read %s\n", db);
		free(db);
		return -1;
	}
	int64_t prev = -1;
	double prev_d = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		int64_t w = sqlite3_column_int64(st, 0);
		if (prev >= 0) {
			out[*n] = (double)(w - prev) / 1e9;
			own[(*n)++] = (double)(w - prev) / 1e9 - prev_d;
		}
		prev = w;
		prev_d = sqlite3_column_double(st, 1);
	}
	sqlite3_finalize(st);
	sqlite3_close(h);
	printf("  %s: kiln run took %.3f s in all (start-up included); %ld pexecs logged, %ld folds of the log "
	       "taking %.3f ms (%.1f us per pexec)\n", name, kt, recs, folds, ms, *fold_s * 1e6);
	free(db);
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static void row(const char *name, double v, const char *unit, const char *base, double bv, const char *target, int pass)
{
	printf("ROW\t%s\t%.4g %s\t%s\t%.4g %s\t%.3f\t%s\t%s\n", name, v, unit, base, bv, unit, bv > 0 ? v / bv : 0,
	       target, pass ? "PASS" : "MISS");
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
	/*
	 * kiln's start (config, audit of the machine, schedule) is paid once per
	 * experiment and left out: kiln's per-pexec figure is the time from one
	 * pexec's start to the next one's, as stored in the results
	 * (wall_start_ns), which includes everything kiln does per pexec:
	 * bookkeeping, spawn, wait, the commit and, by default, its flush to the
	 * disk.  The floor times each posix_spawn+waitpid on its own.  A VM
	 * drifts between a fast and a slow state over seconds, so ten rounds
	 * alternate floor, kiln and kiln without the flush; each round gives a
	 * ratio of medians, and the figure is the median of those ratios (the
	 * pooled medians are printed too).
	 */
	enum { ROUNDS = 10 };
	long per = n / ROUNDS > 1 ? n / ROUNDS : 2;
	char *cfg = write_config(dir, "power", per, "power"), *cfg2 = write_config(dir, "crash", per, "crash");

	/* warm up caches of both paths */
	for (int i = 0; i < 50; i++)
		run_cmd((char *[]){ "/bin/true", NULL }, NULL, 0);

	double *fl = xmalloc(sizeof(double) * (size_t)per * ROUNDS), *kc = xmalloc(sizeof(double) * (size_t)per * ROUNDS);
	double *kc2 = xmalloc(sizeof(double) * (size_t)per * ROUNDS);
	double *ko = xmalloc(sizeof(double) * (size_t)per * ROUNDS), *ko2 = xmalloc(sizeof(double) * (size_t)per * ROUNDS);
	size_t nf = 0, nk = 0, nk2 = 0;
	long rss = 0;
	double ratio[ROUNDS], ratio2[ROUNDS], ratio_t[ROUNDS], fold_r[ROUNDS], fm_r[ROUNDS], km_r[ROUNDS];
	double ratio_d[ROUNDS], *fd_all = xmalloc(sizeof(double) * (size_t)per * ROUNDS);
	size_t nfd = 0;
	/* kiln's stderr carries its pexec log's figures (folds: count and time) */
	setenv("KILN_DEBUG_LOG", "1", 1);
	for (int r = 0; r < ROUNDS; r++) {
		size_t f0 = nf, k0 = nk, k20 = nk2;
		for (long i = 0; i < per; i++) {
			double t0 = now_s();
			run_cmd((char *[]){ "/bin/true", NULL }, NULL, 0);
			fl[nf++] = now_s() - t0;
		}
		size_t d0 = nfd;
		if (spawn_durable(dir, per, fd_all, &nfd) < 0)
			return 1;
		double fold2;
		if (kiln_cycles(kiln, dir, "power", cfg, kc, ko, &nk, &rss, &fold_r[r]) < 0 ||
		    kiln_cycles(kiln, dir, "crash", cfg2, kc2, ko2, &nk2, &rss, &fold2) < 0)
			return 1;
		double fm = median_of(fl + f0, nf - f0), km = median_of(kc + k0, nk - k0);
		ratio[r] = km / fm;
		ratio2[r] = median_of(kc2 + k20, nk2 - k20) / fm;
		fm_r[r] = fm;
		km_r[r] = km + fold_r[r];
		ratio_d[r] = km_r[r] / median_of(fd_all + d0, nfd - d0);
	}
	qsort(ratio_d, ROUNDS, sizeof(double), cmp_double);
	double rmed_d = (ratio_d[ROUNDS / 2 - 1] + ratio_d[ROUNDS / 2]) / 2;
	qsort(fd_all, nfd, sizeof(double), cmp_double);
	double floor_d = fd_all[nfd / 2];
	free(fd_all);
	double fold_s = median_of(fold_r, ROUNDS);
	qsort(ratio, ROUNDS, sizeof(double), cmp_double);
	qsort(ratio2, ROUNDS, sizeof(double), cmp_double);
	double rmed = (ratio[ROUNDS / 2 - 1] + ratio[ROUNDS / 2]) / 2, rmed2 = (ratio2[ROUNDS / 2 - 1] + ratio2[ROUNDS / 2]) / 2;
	qsort(fl, nf, sizeof(double), cmp_double);
	qsort(kc, nk, sizeof(double), cmp_double);
	qsort(kc2, nk2, sizeof(double), cmp_double);
	double floor_s = fl[nf / 2], kiln_s = kc[nk / 2], kiln2_s = kc2[nk2 / 2];
	double flush_only = 0, flush_us = disk_flush_us(dir, 300, &flush_only);
	/*
	 * The target (issue 17): a durable pexec, its share of the folds of the
	 * pexec log counted in, against the floor plus one durable 4 KiB write
	 * (the least that makes a pexec durable before the next one starts);
	 * per round, the write as measured just after the rounds.
	 */
	for (int r = 0; r < ROUNDS; r++)
		ratio_t[r] = km_r[r] / (fm_r[r] + (flush_us > 0 ? flush_us / 1e6 : 0));
	qsort(ratio_t, ROUNDS, sizeof(double), cmp_double);
	double rmed_t = (ratio_t[ROUNDS / 2 - 1] + ratio_t[ROUNDS / 2]) / 2;
	printf("kiln per-pexec overhead, command plugin, /bin/true x %ld (%d rounds of %ld)\n", per * ROUNDS, ROUNDS, per);
	printf("  posix_spawn+waitpid:        %8.1f us per run (median; p10/p90 %.1f/%.1f)\n", floor_s * 1e6,
	       fl[nf / 10] * 1e6, fl[nf * 9 / 10] * 1e6);
	printf("  kiln run (durable commit):  %8.1f us per pexec, start to start (median; p10/p90 %.1f/%.1f)\n",
	       kiln_s * 1e6, kc[nk / 10] * 1e6, kc[nk * 9 / 10] * 1e6);
	printf("  kiln run, durability: crash: %7.1f us per pexec (no flush per pexec; p10/p90 %.1f/%.1f)\n",
	       kiln2_s * 1e6, kc2[nk2 / 10] * 1e6, kc2[nk2 * 9 / 10] * 1e6);
	double own = median_of(ko, nk), own2 = median_of(ko2, nk2);
	printf("  kiln's own work per pexec, outside the process's lifetime (median): %.1f us durable, %.1f us with "
	       "durability: crash = %.1f%% and %.1f%% of the floor\n",
	       own * 1e6, own2 * 1e6, own / floor_s * 100, own2 / floor_s * 100);
	printf("  per-round ratios to the floor: durable %.3f (rounds %.3f-%.3f); durability: crash %.3f (rounds %.3f-%.3f)\n",
	       rmed, ratio[0], ratio[ROUNDS - 1], rmed2, ratio2[0], ratio2[ROUNDS - 1]);
	if (flush_us > 0)
		printf("  this disk: a 4 KiB overwrite + fdatasync takes %.1f us (fdatasync alone %.1f us) = %.1f%% of the "
		       "floor\n", flush_us, flush_only, flush_us / (floor_s * 1e6) * 100);
	free(fl);
	free(kc);
	free(kc2);
	free(ko);
	free(ko2);
	printf("  the pexec log's folds into the results file: %.1f us per pexec (median of the rounds)\n", fold_s * 1e6);
	printf("  durable pexec, folds included, against the floor + one durable 4 KiB write: %.3f (rounds %.3f-%.3f)\n",
	       rmed_t, ratio_t[0], ratio_t[ROUNDS - 1]);
	printf("  a minimal durable runner (posix_spawn+waitpid, then a 4 KiB overwrite + fdatasync, in one loop): "
	       "%.1f us per cycle; kiln durable, folds included, against it: %.3f (rounds %.3f-%.3f); the 1.05x "
	       "target leaves %.1f us a pexec for all kiln does besides\n",
	       floor_d * 1e6, rmed_d, ratio_d[0], ratio_d[ROUNDS - 1], floor_d * 0.05 * 1e6);
	/* the ratio column: the median of the per-round ratios */
	row("per-pexec time, durable commit, folds included", (kiln_s + fold_s) * 1e6, "us",
	    "posix_spawn+waitpid then one durable 4 KiB write, one loop", (kiln_s + fold_s) * 1e6 / rmed_d, "<= 1.05x",
	    rmed_d <= 1.05);
	row("per-pexec time, durable commit, folds included", (kiln_s + fold_s) * 1e6, "us",
	    "posix_spawn+waitpid + one durable 4 KiB write, timed apart", (kiln_s + fold_s) * 1e6 / rmed_t, "-", 1);
	row("per-pexec time, kiln run /bin/true, durable commit", kiln_s * 1e6, "us", "posix_spawn+waitpid loop",
	    kiln_s * 1e6 / rmed, "<= 1.10x", rmed <= 1.10);
	row("per-pexec time, durability: crash (no flush)", kiln2_s * 1e6, "us", "posix_spawn+waitpid loop",
	    kiln2_s * 1e6 / rmed2, "-", 1);
	row("kiln's own work per pexec (outside the process), durable commit", own * 1e6, "us",
	    "posix_spawn+waitpid loop", floor_s * 1e6, "-", 1);
	row("kiln's own work per pexec (outside the process), durability: crash", own2 * 1e6, "us",
	    "posix_spawn+waitpid loop", floor_s * 1e6, "-", 1);
	if (flush_us > 0)
		row("one durable 4 KiB write on the results' disk (no kiln)", flush_us, "us", "posix_spawn+waitpid loop",
		    floor_s * 1e6, "-", 1);

	char *hf = find_in_path("hyperfine");
	if (hf) {
		char *json = xasprintf("%s/hf.json", dir);
		char runs[32];
		snprintf(runs, sizeof(runs), "%ld", n);
		double ht = run_cmd((char *[]){ hf, "-N", "--runs", runs, "--export-json", json, "/bin/true", NULL }, NULL, 1);
		struct strbuf sb = STRBUF_INIT;
		struct kerr e = KERR_INIT;
		if (ht > 0 && read_file(json, &sb, &e) == 0) {
			char *m = strstr(sb.buf, "\"mean\":");
			double mean = m ? atof(m + 7) : 0;
			printf("  hyperfine -N mean:   %8.1f us per run (%.1f us per run including hyperfine's own work)\n",
			       mean * 1e6, ht / (double)n * 1e6);
			row("per-pexec time, kiln run /bin/true, durable commit", kiln_s * 1e6, "us",
			    "hyperfine -N (wall per run)", ht / (double)n * 1e6, "-", 1);
		}
		sb_release(&sb);
		kerr_release(&e);
		free(json);
		free(hf);
	}
	long prss = 0;
	char *py = find_in_path("python3");
	if (py) {
		run_cmd((char *[]){ py, "-c", "pass", NULL }, &prss, 0);
		free(py);
	}
	printf("  kiln RSS while a benchmark runs: %ld KiB (max VmRSS of kiln alone, sampled while it had a child)\n",
	       rss_running_kb);
	printf("  kiln peak RSS:       %8ld KiB (VmHWM, start-up included: config, audit, schedule)\n", rss);
	printf("  python3 -c pass RSS: %8ld KiB\n", prss);
	row("kiln RSS while a benchmark runs", (double)rss_running_kb, "KiB", "python3 -c pass", (double)prss,
	    "<= 4096 KiB", rss_running_kb > 0 && rss_running_kb <= 4096);
	row("kiln peak RSS, start-up included", (double)rss, "KiB", "python3 -c pass", (double)prss, "-", 1);

	rm_rf(dir);
	free(dir);
	free(cfg);
	free(cfg2);
	free(kiln);
	return 0;
}
