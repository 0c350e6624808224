/*
 * publish-report.c - the per-commit pages of a site: kiln's own HTML
 * report (report.c, with its gnuplot plots of pexecs) of one key of one
 * commit's run, read back from the history (history_load_run) and analysed
 * as `kiln report` would.  Which commits get one: each side of every
 * change and each key's newest commit (--reports changes), every commit
 * (all), or none; a run's reports are made from one load of it, the runs
 * shared among forked workers, one per CPU.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "analysis.h"
#include "dataset.h"
#include "exec.h"
#include "plot.h"
#include "publish-int.h"
#include "report.h"

/* one report to make: key ki's point pi, whose run is run */
struct job {
	long run;
	size_t ki, pi;
};

static int job_cmp(const void *a, const void *b)
{
	const struct job *x = a, *y = b;
	if (x->run != y->run)
		return x->run < y->run ? -1 : 1;
	return x->ki < y->ki ? -1 : x->ki > y->ki;
}

/* point pi of k wanted, when it has a run with pexecs */
static void want(char *mark, const struct pub_key *k, size_t pi)
{
	if (pi < k->s.n && k->s.p[pi].built && k->s.p[pi].n && k->s.p[pi].run_id > 0)
		mark[pi] = 1;
}

/* the reports the options ask for, by run (a run's reports are made from one load of it) */
static size_t plan(const struct pub_site *s, struct job **out)
{
	struct job *j = NULL;
	size_t n = 0, cap = 0;
	for (size_t ki = 0; ki < s->nk && s->o->reports != PUB_REPORTS_NONE; ki++) {
		const struct pub_key *k = &s->k[ki];
		char *mark = xcalloc(k->s.n + 1, 1);
		for (size_t i = 0; i < k->s.n && s->o->reports == PUB_REPORTS_ALL; i++)
			want(mark, k, i);
		for (size_t c = 0; c < k->nch; c++) {
			if (k->ch[c].at)
				want(mark, k, k->ch[c].at - 1);
			want(mark, k, k->ch[c].at);
		}
		for (size_t i = k->s.n; i-- > 0;)
			if (k->s.p[i].built && k->s.p[i].n) {
				want(mark, k, i);
				break;
			}
		for (size_t i = 0; i < k->s.n; i++)
			if (mark[i]) {
				if (n == cap)
					j = xrealloc(j, (cap = cap ? 2 * cap : 64) * sizeof(*j));
				j[n++] = (struct job){ k->s.p[i].run_id, ki, i };
			}
		free(mark);
	}
	if (n)
		qsort(j, n, sizeof(*j), job_cmp);
	*out = j;
	return n;
}

/* r/HASH-NAME.html: the commit's hash and the key page's name */
static char *report_name(const struct pub_site *s, const struct pub_key *k, size_t pi)
{
	char h[16];
	size_t c = k->s.p[pi].commit;
	pub_short(c < s->nc ? s->c[c].hash : NULL, h);
	return xasprintf("r/%s-%s", h, k->page + 2);
}

static char *report_title(const struct pub_site *s, const struct pub_key *k, size_t pi)
{
	size_t c = k->s.p[pi].commit;
	const struct hist_commit *hc = c < s->nc ? &s->c[c] : NULL;
	char h[16];
	struct strbuf t = STRBUF_INIT;
	sb_addf(&t, "%s at %.10s on %s", k->key, pub_short(hc ? hc->hash : NULL, h), s->m[k->machine].name);
	if (hc && hc->subject) {
		size_t bytes;
		display_cut(hc->subject, 80, &bytes);
		sb_adds(&t, ": ");
		sb_add(&t, hc->subject, bytes);
	}
	return sb_detach(&t);
}

/* kiln report's HTML page of key k in dataset ds, written (pub_reports counts it) */
static int one_report(struct pub_site *s, const struct dataset *ds, struct ds_key *dk, const struct job *j,
		      int plots, struct kerr *e)
{
	struct pub_key *k = &s->k[j->ki];
	struct an_result res;
	memset(&res, 0, sizeof(res));
	an_opts_default(&res.opts);
	res.keys = xcalloc(1, sizeof(*res.keys));
	res.nkeys = 1;
	an_analyse_key(dk, &res.opts, &res.keys[0]);
	struct dataset view = *ds;
	view.keys = dk;
	view.nkeys = 1;
	struct rep_opts ro;
	memset(&ro, 0, sizeof(ro));
	ro.plots_per_key = plots;
	char *title = report_title(s, k, j->pi);
	ro.title = title;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int r = f ? rep_write(f, REP_HTML, &view, &res, &ro, e) : kerr_set(e, "out of memory");
	if (f && fclose(f) != 0 && r == 0)
		r = kerr_set(e, "out of memory");
	char *name = report_name(s, k, j->pi);
	if (r == 0) {
		struct strbuf sb = { buf, len, len + 1 };
		r = pub_write(s, name, &sb, e);
		buf = NULL;
		sb_release(&sb);
	}
	free(buf);
	free(name);
	free(title);
	an_result_free(&res);
	return r;
}

/* the dataset's key of that name (a run's dataset holds one machine's keys) */
static struct ds_key *find_key(struct dataset *ds, const char *key)
{
	for (size_t i = 0; i < ds->nkeys; i++)
		if (ds->keys[i].key && !strcmp(ds->keys[i].key, key))
			return &ds->keys[i];
	return NULL;
}

static void progress(const struct pub_site *s, size_t done, size_t n, int64_t t0, int64_t *last)
{
	if (s->o->quiet)
		return;
	int64_t now = mono_ns();
	int tty = isatty(2);
	if (done < n && now - *last < (tty ? 200000000LL : 5000000000LL))
		return;
	*last = now;
	struct strbuf eta = STRBUF_INIT;
	if (done)
		fmt_duration(&eta, (double)(now - t0) / 1e9 / (double)done * (double)(n - done));
	fprintf(stderr, "%skiln publish: reports %zu/%zu%s%s%s", tty ? "\r\033[K" : "", done, n, eta.len ? "  ETA " : "",
		sb_str(&eta), tty && done < n ? "" : "\n");
	fflush(stderr);
	sb_release(&eta);
}

/*
 * Worker w of nw: the reports of every nw-th run from the w-th, through its
 * own connection to the history; one byte to fd per report done.
 */
static int work(struct pub_site *s, const struct job *j, size_t n, size_t w, size_t nw, int plots, int fd,
		struct kerr *e)
{
	struct history *h;
	if (history_open(s->o->history, 0, &h, e) < 0)
		return -1;
	int r = 0;
	for (size_t a = 0, g = 0; a < n && r == 0; g++) {
		size_t b = a;
		while (b < n && j[b].run == j[a].run)
			b++;
		struct dataset ds;
		if (exec_interrupted)
			r = kerr_setc(e, KEXIT_INTERRUPTED, "interrupted");
		else if (g % nw == w && (r = history_load_run(h, j[a].run, &ds, e)) == 0) {
			for (size_t q = a; q < b && r == 0; q++) {
				struct ds_key *dk = find_key(&ds, s->k[j[q].ki].key);
				if (dk)
					r = one_report(s, &ds, dk, &j[q], plots, e);
				if (write(fd, "r", 1) < 0) /* the parent stopped listening: it was interrupted */
					r = kerr_setc(e, KEXIT_INTERRUPTED, "the report workers' pipe: %s", strerror(errno));
			}
			ds_free(&ds);
		}
		a = b;
	}
	history_close(h);
	return r;
}

/* as many workers as CPUs kiln may use (at most 8), as many as runs at most */
static size_t workers(const struct job *j, size_t n)
{
	size_t runs = 0;
	for (size_t q = 0; q < n; q++)
		runs += !q || j[q].run != j[q - 1].run;
	cpu_set_t set;
	long cpus = sched_getaffinity(0, sizeof(set), &set) == 0 ? CPU_COUNT(&set) : sysconf(_SC_NPROCESSORS_ONLN);
	size_t w = cpus < 1 ? 1 : cpus > 8 ? 8 : (size_t)cpus;
	return w < runs ? w : runs;
}

/*
 * The reports, made by forked workers in parallel (each a copy of kiln with
 * its own connection to the history, none sharing the parent's), their
 * progress read from a pipe; then the parent records those written
 */
static int run_workers(struct pub_site *s, const struct job *j, size_t n, int plots, struct kerr *e)
{
	size_t nw = workers(j, n);
	int p[2];
	if (pipe2(p, O_CLOEXEC) < 0)
		return kerr_set(e, "pipe: %s", strerror(errno));
	fflush(NULL);
	pid_t *pid = xcalloc(nw, sizeof(pid_t));
	size_t started = 0;
	for (; started < nw; started++) {
		pid[started] = fork();
		if (pid[started] < 0)
			break;
		if (pid[started] == 0) {
			close(p[0]);
			struct kerr ce = KERR_INIT;
			int r = work(s, j, n, started, nw, plots, p[1], &ce);
			if (r < 0 && ce.code != KEXIT_INTERRUPTED) /* the parent says that one */
				kerr_print(&ce);
			fflush(NULL);
			_exit(r < 0 ? 1 : 0);
		}
	}
	close(p[1]);
	int64_t t0 = mono_ns(), last = t0;
	size_t done = 0;
	char buf[64];
	ssize_t got;
	struct pollfd pf = { p[0], POLLIN, 0 };
	while (!exec_interrupted) {
		int ready = poll(&pf, 1, 200); /* and a look at exec_interrupted every 0.2 s */
		if (ready <= 0) {
			if (ready < 0 && errno != EINTR)
				break;
			continue;
		}
		if ((got = read(p[0], buf, sizeof(buf))) == 0 || (got < 0 && errno != EINTR))
			break;
		done += got > 0 ? (size_t)got : 0;
		progress(s, done, n, t0, &last);
	}
	close(p[0]);
	int failed = started < nw;
	for (size_t w = 0; w < started; w++) {
		int st = 0;
		if (exec_interrupted)
			kill(pid[w], SIGTERM);
		while (waitpid(pid[w], &st, 0) < 0 && errno == EINTR)
			;
		failed |= !WIFEXITED(st) || WEXITSTATUS(st) != 0;
	}
	free(pid);
	if (exec_interrupted)
		return kerr_setc(e, KEXIT_INTERRUPTED, "interrupted: the site was not written");
	if (failed)
		return kerr_set(e, "the per-commit reports could not all be made (--reports none does without)");
	return 0;
}

/* the reports the workers wrote: linked from their keys' pages, counted */
static void record(struct pub_site *s, const struct job *j, size_t n)
{
	for (size_t q = 0; q < n; q++) {
		struct pub_key *k = &s->k[j[q].ki];
		char *name = report_name(s, k, j[q].pi), *path = path_join(s->dir, name);
		struct stat st;
		if (stat(path, &st) == 0) {
			k->report[j[q].pi] = name;
			s->sum.reports++;
			s->sum.files++;
			s->sum.bytes += (uint64_t)st.st_size;
		} else {
			free(name);
		}
		free(path);
	}
}

int pub_reports(struct pub_site *s, struct kerr *e)
{
	struct job *j;
	size_t n = plan(s, &j);
	int plots = s->o->plots;
	char *gp = plots > 0 && n ? plot_gnuplot_path() : NULL;
	if (plots > 0 && n && !gp) {
		kiln_warn("gnuplot not found: the per-commit reports have no plots");
		plots = 0;
	}
	free(gp);
	int r = n ? run_workers(s, j, n, plots, e) : 0;
	if (r == 0)
		record(s, j, n);
	free(j);
	return r;
}
