/*
 * history-speed.c - the analysis of a history of commits at scale (issue
 * 30's incremental targets): 200 commits x 10 benchmarks x 10 pexecs x 200
 * iterations (4 million values), made here synthetically and folded into a
 * history file with kiln track's own functions (history_fold: the results
 * file's rows, and the warmup analysis of each of its keys), then:
 *   - cold: every run's figures made again (history_refigure: each commit's
 *     keys analysed) and the change-point search over every key's series,
 *     as a history analysed from scratch: <= 5 s;
 *   - incremental: one commit more (its results folded in: its keys
 *     analysed, and nothing else) and the change-point search over every
 *     series again, as kiln track does after each commit: <= 0.2 s.
 * The results file a commit's benchmarks wrote is made before the clock
 * starts (measuring is not analysing).  Baseline for both, measured in the
 * same run: the time the history took to build commit by commit, per
 * commit.  The series hold a +5% step and a warm-up that appears, so the
 * search has changes to find; the bench checks that it finds them.
 *
 *   history-speed [COMMITS] [BENCHMARKS]   (default 200 10)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "analysis.h"
#include "dataset.h"
#include "history-detect.h"
#include "history-int.h"
#include "store.h"

#define PEXECS 10
#define ITERS 200

#define BENCH_SEED 0x9E3779B97F4A7C15ULL
#include "bench-util.h"

/*
 * commit c's results: benchmark 3 is 5% slower from commit 120 on, benchmark
 * 5 warms up (its first 10 iterations twice as slow) from commit 80 on
 */
static void make_results(struct dataset *ds, long c, long nb)
{
	for (long b = 0; b < nb; b++) {
		char name[32];
		snprintf(name, sizeof(name), "bench%02ld", b);
		struct ds_key *k = ds_add_key(ds, name, "vm", "default");
		k->iterations = ITERS;
		double base = 0.01 * (1 + (double)b) * (b == 3 && c >= 120 ? 1.05 : 1.0);
		for (long p = 0; p < PEXECS; p++) {
			struct ds_pexec *px = ds_add_pexec(k, p);
			px->n = ITERS;
			px->wall = xmalloc(ITERS * sizeof(double));
			double level = base * (1 + 0.003 * nrand()); /* each process its own level */
			for (long i = 0; i < ITERS; i++)
				px->wall[i] = level * (1 + 0.005 * nrand()) * (b == 5 && c >= 80 && i < 10 ? 2.0 : 1.0);
		}
	}
}

struct bench {
	struct history *h;
	long machine, nb;
	char *dir;
	struct an_opts o;
};

/* commit c: its run begun, its results file written (not timed); the run id */
static long add_commit(struct bench *b, long c, const char *results, struct kerr *e)
{
	char hash[41], parent[41];
	snprintf(hash, sizeof(hash), "%040lx", 0x1000 + c);
	snprintf(parent, sizeof(parent), "%040lx", 0x1000 + c - 1);
	struct hist_commit hc = { 0, hash, c ? parent : NULL, c, 1700000000 + c * 3600, "bench", "a commit" };
	long cid = history_put_commit(b->h, &hc, e);
	long rid = cid < 0 ? -1 : history_begin_run(b->h, cid, b->machine, "track", NULL, "bench", e);
	struct dataset ds = { 0 };
	make_results(&ds, c, b->nb);
	unlink(results);
	int r = store_save_dataset(results, &ds, e);
	ds_free(&ds);
	return rid < 0 || r < 0 ? -1 : rid;
}

/* the commit's results into the history, as kiln track does */
static int fold_commit(struct bench *b, long c, long rid, const char *results, struct kerr *e)
{
	char binary[65];
	snprintf(binary, sizeof(binary), "%064lx", 0xb00 + c);
	return history_fold(b->h, rid, results, &b->o, e) < 0 ||
			       history_end_run(b->h, rid, "ok", 1.0, binary, NULL, e) < 0 ? -1 : 0;
}

/* the change-point search over every key's series; the changes found */
static long detect_all(struct bench *b, long *found_step, long *found_warmup, struct kerr *e)
{
	struct hist_commit *cs = NULL;
	size_t nc = 0;
	struct strvec keys = STRVEC_INIT;
	long total = 0;
	if (history_commits(b->h, &cs, &nc, e) < 0 || history_keys(b->h, b->machine, &keys, e) < 0)
		return -1;
	for (size_t k = 0; k < keys.n; k++) {
		struct hist_series s;
		if (history_series(b->h, b->machine, keys.v[k], cs, nc, &s, e) < 0)
			return -1;
		struct hist_change *ch = NULL;
		size_t n = 0;
		history_detect(&s, NULL, &ch, &n, NULL);
		for (size_t i = 0; i < n; i++) {
			total++;
			if (!strncmp(keys.v[k], "bench03", 7) && ch[i].what == HIST_STEADY)
				*found_step = (long)s.p[ch[i].at].commit;
			if (!strncmp(keys.v[k], "bench05", 7) && ch[i].what == HIST_WARMUP)
				*found_warmup = (long)s.p[ch[i].at].commit;
		}
		free(ch);
		history_series_free(&s);
	}
	history_commits_free(cs, nc);
	sv_clear(&keys);
	return total;
}

int main(int argc, char **argv)
{
	long ncommits = argc > 1 ? atol(argv[1]) : 200, nb = argc > 2 ? atol(argv[2]) : 10;
	struct kerr e = KERR_INIT;
	struct bench b = { NULL, 0, nb, NULL, { 0 } };
	char tmpl[] = "/tmp/kiln-history-speed.XXXXXX";
	b.dir = mkdtemp(tmpl);
	if (!b.dir)
		return 1;
	an_opts_default(&b.o);
	char *path = xasprintf("%s/h.history.db", b.dir), *results = xasprintf("%s/commit.kiln.db", b.dir);
	char *old = NULL;
	if (history_open(path, 1, &b.h, &e) < 0 || (b.machine = history_put_machine(b.h, "bench", "{}", &old, &e)) < 0)
		goto fail;
	free(old);

	/* the history, commit by commit; the fold's time is the baseline */
	double tfold = 0;
	for (long c = 0; c < ncommits; c++) {
		long rid = add_commit(&b, c, results, &e);
		double t0 = now();
		if (rid < 0 || fold_commit(&b, c, rid, results, &e) < 0)
			goto fail;
		tfold += now() - t0;
	}
	double per_commit = tfold / (double)ncommits;

	/* cold: every run's figures again, and the search over every series */
	long step = -1, warm = -1;
	double t0 = now(), c0 = cpu();
	long redone = history_refigure(b.h, &b.o, &e);
	if (redone < 0)
		goto fail;
	long changes = detect_all(&b, &step, &warm, &e);
	if (changes < 0)
		goto fail;
	double tcold = now() - t0, ccold = cpu() - c0;

	/* incremental: one commit more */
	long rid = add_commit(&b, ncommits, results, &e);
	long step2 = -1, warm2 = -1;
	t0 = now();
	c0 = cpu();
	if (rid < 0 || fold_commit(&b, ncommits, rid, results, &e) < 0)
		goto fail;
	double tf = now() - t0;
	long changes2 = detect_all(&b, &step2, &warm2, &e);
	if (changes2 < 0)
		goto fail;
	double tinc = now() - t0, cinc = cpu() - c0;

	printf("history of %ld commits x %ld benchmarks x %d pexecs x %d iterations (%.1f million values)\n", ncommits,
	       nb, PEXECS, ITERS, ncommits * nb * PEXECS * ITERS / 1e6);
	printf("  built commit by commit (fold: rows and analysis): %.3f s a commit\n", per_commit);
	printf("  cold: %ld runs' figures made again and %ld series searched: %.2f s (CPU %.2f s); %ld changes, the "
	       "+5%% step at commit %ld (made at 120), the warm-up at %ld (made at 80)\n", redone, nb, tcold, ccold,
	       changes, step, warm);
	printf("  one commit more: folded (its %ld keys analysed) in %.3f s, every series searched again: %.3f s in all "
	       "(CPU %.3f s); %ld changes\n", nb, tf, tinc, cinc, changes2);
	int found = step >= 118 && step <= 122 && warm >= 78 && warm <= 82;
	printf("ROW\tcold analysis of a history of %ld commits x %ld benchmarks (figures and change points)\t%.2f s\t"
	       "building it, a commit's fold x %ld\t%.2f s\t%.3f\t<= 5 s, changes found\t%s\n", ncommits, nb, tcold,
	       ncommits, per_commit * (double)ncommits, tcold / (per_commit * (double)ncommits),
	       tcold <= 5 && found ? "PASS" : "MISS");
	printf("ROW\tone commit more in that history (its keys analysed, every series searched)\t%.3f s\t"
	       "a commit's fold while building\t%.3f s\t%.3f\t<= 0.2 s\t%s\n", tinc, per_commit, tinc / per_commit,
	       tinc <= 0.2 ? "PASS" : "MISS");
	history_close(b.h);
	unlink(results);
	unlink(path);
	char *wal = xasprintf("%s-wal", path), *shm = xasprintf("%s-shm", path);
	unlink(wal);
	unlink(shm);
	rmdir(b.dir);
	return 0;
fail:
	kerr_print(&e);
	return 1;
}
