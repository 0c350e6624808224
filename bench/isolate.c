/*
 * bench/isolate.c - what a fresh machine per pexec and the default bounds
 * (isolate.h) cost a pexec, against the same run without them.
 *
 * Two kiln runs of the command plugin over /bin/true, alike but for
 * `limits: {isolate: ...}` and the bounds: one isolated (a mount namespace
 * with its tmpfs, a new IPC namespace per pexec, the pids and memory
 * cgroup, RLIMIT_NPROC/FSIZE, oom_score_adj), one with all of it off.
 * They take turns on the machine: every CHUNK_MS one is stopped (SIGSTOP)
 * and the other continued, so both see the same moments of a machine whose
 * spawn time drifts by 10-15% between blocks of a few hundred processes
 * (bench/pexec.c's observation).  A pexec a stop of its run fell into is
 * left out, and so is a start-to-start cycle that spans one.
 *
 * Two figures, medians pooled over the run:
 *   - the pexec's lifetime as kiln times it (pexecs.duration_s: from before
 *     the fork to the reaping), which is what a whole-process benchmark
 *     measures: the joining of the namespaces, the limits and the
 *     oom_score_adj are inside it.  Target: no measurable cost, <= 1.02x.
 *   - kiln's start-to-start cycle: what the isolation adds to kiln's own
 *     work between pexecs (emptying the machine, a new IPC namespace),
 *     outside any measurement.  Said, no target.
 *
 *   build/bench/isolate [N]      (N pexecs per run, default 4000; root for
 *                                 the namespaces and cgroups)
 * Prints one "ROW" line per figure for bench/run.sh.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "util.h"

extern char **environ;

enum { CHUNK_MS = 40, RUNS = 2 };

struct stop {
	int64_t from, to; /* wall ns */
};

struct run {
	const char *name;
	char *cfg, *db, *err;
	pid_t pid;
	int done, status;
	struct stop *stops;
	size_t nstops;
	double *life, *cycle;
	size_t nlife, ncycle, left_out;
};

static char *write_cfg(const char *dir, const char *name, long n, int isolated)
{
	char *path = xasprintf("%s/%s.yaml", dir, name);
	FILE *f = fopen(path, "w");
	if (!f)
		return NULL;
	fprintf(f, "pexecs: %ld\niterations: 1\ndurability: crash\nvms:\n  t: {plugin: command, path: /bin/true}\n"
		   "benchmarks:\n  noop: 0\nplatform: {kmsg: off, temperature: off, governor: off}\n", n);
	if (isolated)
		fprintf(f, "limits: {%s}\n", getenv("KILN_BENCH_ISOLATED") ? getenv("KILN_BENCH_ISOLATED") : "isolate: true");
	else
		fprintf(f, "limits: {isolate: false, processes: 0, memory_mb: 0, file_mb: 0}\n");
	fclose(f);
	return path;
}

static int start(struct run *r, const char *kiln)
{
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, r->err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	int rc = posix_spawn(&r->pid, kiln, &fa, NULL,
			     (char *[]){ (char *)kiln, "run", "-q", r->cfg, "--results", r->db, NULL }, environ);
	posix_spawn_file_actions_destroy(&fa);
	return rc ? -1 : 0;
}

/* stop r (it goes on later), noting from when; 1 when it had ended */
static int stop_run(struct run *r)
{
	if (r->done)
		return 1;
	kill(r->pid, SIGSTOP);
	int st;
	if (waitpid(r->pid, &st, WUNTRACED) == r->pid && !WIFSTOPPED(st)) {
		r->done = 1;
		r->status = st;
		return 1;
	}
	r->stops = xrealloc(r->stops, (r->nstops + 1) * sizeof(*r->stops));
	r->stops[r->nstops++] = (struct stop){ wall_ns(), 0 };
	return 0;
}

static void cont_run(struct run *r)
{
	if (r->done)
		return;
	if (r->nstops)
		r->stops[r->nstops - 1].to = wall_ns();
	kill(r->pid, SIGCONT);
}

/* did one of r's stops fall into [a, b]? */
static int stopped_in(const struct run *r, int64_t a, int64_t b)
{
	for (size_t i = 0; i < r->nstops; i++)
		if (r->stops[i].from <= b && (r->stops[i].to ? r->stops[i].to : INT64_MAX) >= a)
			return 1;
	return 0;
}

static void push(double **v, size_t *n, double x)
{
	if (!(*n & (*n + 1)) || !*v)
		*v = xrealloc(*v, (2 * *n + 2) * sizeof(double));
	(*v)[(*n)++] = x;
}

static int read_db(struct run *r)
{
	sqlite3 *h;
	sqlite3_stmt *st;
	if (sqlite3_open_v2(r->db, &h, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(h, "SELECT wall_start_ns, duration_s FROM pexecs WHERE status='ok' ORDER BY seq", -1, &st,
			       NULL) != SQLITE_OK) {
		fprintf(stderr, "bench/isolate: %s: %s\n", r->db, sqlite3_errmsg(h));
		sqlite3_close(h);
		return -1;
	}
	int64_t prev = -1;
	while (sqlite3_step(st) == SQLITE_ROW) {
		int64_t t = sqlite3_column_int64(st, 0), end = t + (int64_t)(sqlite3_column_double(st, 1) * 1e9);
		if (stopped_in(r, t, end))
			r->left_out++;
		else
			push(&r->life, &r->nlife, sqlite3_column_double(st, 1));
		if (prev >= 0 && !stopped_in(r, prev, t))
			push(&r->cycle, &r->ncycle, (double)(t - prev) / 1e9);
		prev = t;
	}
	sqlite3_finalize(st);
	sqlite3_close(h);
	return 0;
}

static double median(double *v, size_t n)
{
	if (!n)
		return 0;
	sort_doubles(v, n);
	return v[n / 2];
}

static void row(const char *name, double v, const char *base, double bv, const char *target, int pass)
{
	printf("ROW\t%s\t%.4g us\t%s\t%.4g us\t%.3f\t%s\t%s\n", name, v * 1e6, base, bv * 1e6, bv > 0 ? v / bv : 0, target,
	       pass ? "PASS" : "MISS");
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 4000;
	const char *O = getenv("O") ? getenv("O") : "build";
	char *kiln = xasprintf("%s/kiln", O);
	char *dir = xasprintf("%s/kiln-isolate.XXXXXX", getenv("KILN_BENCH_DIR") ? getenv("KILN_BENCH_DIR") : "/var/tmp");
	if (!mkdtemp(dir)) {
		fprintf(stderr, "bench/isolate: %s: %s\n", dir, strerror(errno));
		return 1;
	}
	if (geteuid() != 0)
		printf("  (not root: the machine is a user namespace and no cgroup bounds it)\n");
	struct run r[RUNS] = { { .name = "isolated" }, { .name = "not isolated" } };
	for (int i = 0; i < RUNS; i++) {
		r[i].cfg = write_cfg(dir, i ? "off" : "on", n, !i);
		r[i].db = xasprintf("%s/%s.kiln.db", dir, i ? "off" : "on");
		r[i].err = xasprintf("%s/%s.stderr", dir, i ? "off" : "on");
		if (!r[i].cfg || start(&r[i], kiln) < 0) {
			fprintf(stderr, "bench/isolate: cannot start %s\n", kiln);
			return 1;
		}
		stop_run(&r[i]);
	}
	/* take turns, one stopped while the other runs */
	for (int k = 0; !(r[0].done && r[1].done); k ^= 1) {
		cont_run(&r[k]);
		nanosleep(&(struct timespec){ 0, CHUNK_MS * 1000000L }, NULL);
		stop_run(&r[k]);
	}
	for (int i = 0; i < RUNS; i++)
		if (!WIFEXITED(r[i].status) || WEXITSTATUS(r[i].status) != 0 || read_db(&r[i]) < 0) {
			fprintf(stderr, "bench/isolate: the %s run failed (results kept in %s)\n", r[i].name, dir);
			return 1;
		}
	double life[RUNS], cyc[RUNS];
	for (int i = 0; i < RUNS; i++) {
		life[i] = median(r[i].life, r[i].nlife);
		cyc[i] = median(r[i].cycle, r[i].ncycle);
		printf("  %-13s %zu pexecs timed (%zu a stop fell into left out), lifetime median %.1f us, start to start "
		       "%.1f us over %zu cycles\n", r[i].name, r[i].nlife, r[i].left_out, life[i] * 1e6, cyc[i] * 1e6,
		       r[i].ncycle);
	}
	printf("  what the isolation adds to kiln's own work per pexec (start to start): %+.1f us\n",
	       (cyc[0] - cyc[1]) * 1e6);
	row("pexec lifetime (fork to reaping) of /bin/true, isolated machine and bounds", life[0],
	    "the same run without them, interleaved", life[1], "<= 1.02x", life[0] <= 1.02 * life[1]);
	row("kiln's start-to-start cycle per pexec, isolated", cyc[0], "the same run without, interleaved", cyc[1], "-",
	    1);
	rm_rf(dir);
	return 0;
}
