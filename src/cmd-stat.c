/*
 * cmd-stat.c - `kiln stat CONFIG --key BENCH:VM[:VARIANT]`: perf stat-like
 * counters of one whole pexec, built as `kiln run` builds it (pexec.c).
 *
 * Why `perf stat` around the pexec rather than libkiln's counters in the
 * runner: it counts every thread and child of the VM (JIT compiler and GC
 * threads included) for every plugin, external ones too, without the runner's
 * cooperation, and it says for itself when an event is not supported or not
 * counted.  libkiln's counters stay the per-iteration tool (issue 5 item 2).
 *
 * perf writes its CSV to a file of ours (-o), so the benchmark's own stderr
 * cannot mix into it; fields are tab-separated because event specs may hold
 * commas (cpu/event=0x3c,umask=0/).  "<not supported>" and "<not counted>"
 * become unavailable values, never zeros.  The result is stored in the
 * results file's cache table (kind 'stat'), under the results file's lock,
 * taken before the pexec starts: never beside a kiln run of the experiment.
 */
#include <ctype.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "cmd.h"
#include "config.h"
#include "exec.h"
#include "pexec.h"
#include "store.h"
#include "stream.h"

static int cmd_stat(int argc, char **argv);

#define STAT_DEFAULT_EVENTS "task-clock,context-switches,cpu-migrations,page-faults,cycles,instructions,branches,branch-misses"

const struct cmd_entry cmd_stat_entry = {
	.name = "stat",
	.usage = "CONFIG --key BENCH:VM[:VARIANT] [--events LIST] [--iterations N] [--json]",
	.summary = "perf stat counters of one whole pexec (software everywhere, hardware where present)",
	.help = "  -k, --key KEY        the key (bench:vm[:variant]) (required)\n"
		"  -e, --events LIST    perf events, comma-separated (default:\n"
		"                       " STAT_DEFAULT_EVENTS ")\n"
		"  -n, --iterations N   iterations of the pexec (default: the config's)\n"
		"  --json               print JSON\n"
		"Events the machine cannot count are reported as not supported, never as zero.\n"
		"The result is stored in the config's results file (cache kind 'stat'), whose\n"
		"lock kiln stat holds while it measures: beside a kiln run of the experiment it\n"
		"exits 4 without starting the VM.\n",
	.exec = cmd_stat,
};

struct stat_ev {
	char *name, *unit, *why;  /* why: NULL when counted */
	double value;
	double running;           /* % of the time the counter ran (multiplexing), -1 unknown */
};

/* split a line on one separator character into at most max fields (in place) */
static int split_fields(char *line, char sep, char **f, int max)
{
	int n = 0;
	f[n++] = line;
	for (char *p = line; *p && n < max; p++)
		if (*p == sep) {
			*p = '\0';
			f[n++] = p + 1;
		}
	return n;
}

/*
 * perf stat -x'\t' output: "VALUE\tUNIT\tEVENT\tRUNTIME\tPCT\t..." per
 * line, comments (#) and blank lines between.  Returns the events parsed.
 */
static size_t parse_perf_stat(char *text, struct stat_ev **out)
{
	struct stat_ev *ev = NULL;
	size_t n = 0;
	char *save = NULL;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		while (*line == ' ')
			line++;
		if (!*line || *line == '#')
			continue;
		char *f[8];
		int nf = split_fields(line, '\t', f, 8);
		if (nf < 3 || !*f[2])
			continue;
		struct stat_ev e = { xstrdup(f[2]), xstrdup(f[1]), NULL, 0, -1 };
		if (f[0][0] == '<') {
			char *end = strchr(f[0], '>');
			e.why = end ? xstrndup(f[0] + 1, (size_t)(end - f[0] - 1)) : xstrdup(f[0] + 1);
		} else {
			char *end;
			e.value = strtod(f[0], &end);
			if (end == f[0] || *end)
				e.why = xasprintf("unreadable value '%s'", f[0]);
		}
		if (nf >= 5 && *f[4]) {
			char *end;
			double p = strtod(f[4], &end);
			if (end != f[4] && !*end)
				e.running = p;
		}
		ev = xrealloc(ev, (n + 1) * sizeof(*ev));
		ev[n++] = e;
	}
	*out = ev;
	return n;
}

static int stat_stream_cb(void *ctx, const char *data, size_t n)
{
	stream_feed(ctx, data, n);
	return 0;
}


/* one kiln stat measurement: the pexec, what perf wrote, what came of it */
struct stat_job {
	struct pexec_spec px;
	struct stream s;
	struct exec_result res;
	int have_res;
	char out[32];             /* perf's -o file */
	struct stat_ev *ev;
	size_t nev;
};

static void stat_events_free(struct stat_ev *ev, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(ev[i].name);
		free(ev[i].unit);
		free(ev[i].why);
	}
	free(ev);
}

/* the pexec under `perf stat -x TAB -o OUT -e EVENTS`, to its end; its counts parsed into j->ev */
static int stat_measure(struct stat_job *j, const char *perf, const char *events, struct kerr *e)
{
	struct strvec argv = STRVEC_INIT;
	sv_push(&argv, perf);
	sv_push(&argv, "stat");
	sv_push(&argv, "-x");
	sv_push(&argv, "\t");
	sv_push(&argv, "-o");
	sv_push(&argv, j->out);
	sv_push(&argv, "-e");
	sv_push(&argv, events);
	if (pexec_under(&j->px, &argv, e) < 0)
		return -1;
	j->px.eo.on_stream = stat_stream_cb;
	j->px.eo.stream_ctx = &j->s;
	if (exec_run(&j->px.eo, &j->res, e) < 0)
		return -1;
	j->have_res = 1;
	if (!j->res.exited || j->res.status) {
		struct strbuf pe = STRBUF_INIT;
		read_file(j->out, &pe, NULL);
		kerr_set(e, "%s under perf stat %s %d:\n%s%s", j->px.k.key,
			 j->res.exited ? "exited with status" : "killed by signal",
			 j->res.exited ? j->res.status : j->res.signal, sb_str(&j->res.err), pe.len ? pe.buf : "");
		sb_release(&pe);
		return -1;
	}
	if (!j->px.k.whole && stream_finish(&j->s) < 0)
		kiln_warn("%s: the result stream is incomplete: %s", j->px.k.key, sb_str(&j->s.error));
	struct strbuf text = STRBUF_INIT;
	int r = read_file(j->out, &text, e);
	if (r == 0)
		j->nev = text.len ? parse_perf_stat(text.buf, &j->ev) : 0;
	sb_release(&text);
	if (r == 0 && !j->nev)
		r = kerr_set(e, "perf stat printed no counts (events '%s')", events);
	return r;
}

/* the measurement as kiln stat --json prints it and the cache keeps it */
static json_t *stat_json(const struct stat_job *j, const char *id, const char *ts)
{
	const struct exec_result *res = &j->res;
	json_t *rep = json_pack("{s:s,s:s,s:s,s:I,s:f,s:f,s:f,s:I}", "id", id, "key", j->px.k.key, "time", ts,
				"iterations", (json_int_t)(j->px.k.whole ? 1 : (long)j->s.n),
				"elapsed_s", (double)(res->end_ns - res->start_ns) / 1e9, "user_s", res->user_s,
				"sys_s", res->sys_s, "maxrss_kb", (json_int_t)res->maxrss_kb);
	json_t *arr = json_array();
	for (size_t i = 0; i < j->nev; i++) {
		const struct stat_ev *ev = &j->ev[i];
		json_t *o = json_pack("{s:s,s:s,s:b}", "name", ev->name, "unit", ev->unit, "available", !ev->why);
		json_object_set_new(o, "value", ev->why ? json_null() : json_real(ev->value));
		if (ev->why)
			json_object_set_new(o, "reason", json_string(ev->why));
		if (ev->running >= 0)
			json_object_set_new(o, "running_pct", json_real(ev->running));
		json_array_append_new(arr, o);
	}
	json_object_set_new(rep, "events", arr);
	return rep;
}

/* the measurement as perf stat prints it */
static void stat_print(const struct stat_job *j)
{
	const struct exec_result *res = &j->res;
	printf("%s: one pexec, %zu iterations, %.3f s elapsed, %.3f s user, %.3f s sys, max RSS %ld KiB\n\n",
	       esc(ESC_TERM, j->px.k.key), j->px.k.whole ? (size_t)1 : j->s.n, (double)(res->end_ns - res->start_ns) / 1e9,
	       res->user_s, res->sys_s, res->maxrss_kb);
	for (size_t i = 0; i < j->nev; i++) {
		const struct stat_ev *ev = &j->ev[i];
		if (ev->why)
			printf("%20s %-6s %s\n", esc(ESC_TERM, ev->why), "", esc(ESC_TERM, ev->name));
		else if (ev->value == (double)(long long)ev->value)
			printf("%20lld %-6s %s", (long long)ev->value, esc(ESC_TERM, ev->unit), esc(ESC_TERM, ev->name));
		else
			printf("%20.2f %-6s %s", ev->value, esc(ESC_TERM, ev->unit), esc(ESC_TERM, ev->name));
		if (!ev->why && ev->running >= 0 && ev->running < 100)
			printf("  (counted %.1f%% of the time, scaled)", ev->running);
		if (!ev->why)
			putchar('\n');
	}
}

/* the measurement into the results file's cache (a failure there is a warning), then printed */
static void stat_keep(const struct stat_job *j, struct store *st, int json)
{
	char ts[32];
	iso_time(wall_ns(), ts, sizeof(ts));
	char *id = xasprintf("%s@%s#%d", j->px.k.key, ts, (int)j->res.pid);
	json_t *rep = stat_json(j, id, ts);
	char *txt = json_dumps(rep, JSON_INDENT(2) | JSON_ENSURE_ASCII);
	struct kerr se = KERR_INIT;
	if (st && store_cache_put(st, "stat", id, txt, &se) < 0)
		kiln_warn("%s", sb_str(&se.msg));
	kerr_release(&se);
	if (json)
		printf("%s\n", txt);
	else
		stat_print(j);
	free(txt);
	free(id);
	json_decref(rep);
}

static int stat_run(const char *config, const char *key, const char *events, long iterations, int json, struct kerr *e)
{
	struct experiment ex;
	if (config_load(config, kiln_datadir(), 1, &ex, e) < 0)
		return -1;
	const struct vm_conf *vm;
	const struct bench_conf *b;
	struct stat_job j;
	memset(&j, 0, sizeof(j));
	stream_init(&j.s, 0);
	snprintf(j.out, sizeof(j.out), "/tmp/kiln-stat.XXXXXX");
	int ret = -1, ofd = -1;
	char *perf = NULL;
	struct store *st = NULL;
	if (pexec_find_key(&ex, key, &vm, &b, e) < 0 || pexec_build(&j.px, &ex, vm, b, iterations, 0, "0", e) < 0 ||
	    store_hold(ex.results, "stat", &st, e) < 0)
		goto out;
	if (!(perf = find_in_path("perf"))) {
		kerr_set(e, "perf is not installed (Debian: linux-perf)");
		goto out;
	}
	if ((ofd = mkstemp(j.out)) < 0) {
		kerr_set(e, "mkstemp: %m");
		goto out;
	}
	stream_release(&j.s);
	stream_init(&j.s, j.px.k.pc.iterations);
	if (stat_measure(&j, perf, events, e) == 0) {
		stat_keep(&j, st, json);
		ret = 0;
	}
out:
	if (st)
		store_close(st);
	if (ofd >= 0) {
		close(ofd);
		unlink(j.out);
	}
	stat_events_free(j.ev, j.nev);
	if (j.have_res)
		exec_result_release(&j.res);
	stream_release(&j.s);
	free(perf);
	pexec_release(&j.px);
	config_free(&ex);
	return ret;
}

static int cmd_stat(int argc, char **argv)
{
	const struct cmd_entry *c = &cmd_stat_entry;
	if (cmd_wants_help(c, argc, argv))
		return 0;
	const char *config = NULL, *key = NULL, *events = STAT_DEFAULT_EVENTS;
	long iterations = 0;
	int json = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if ((!strcmp(a, "--key") || !strcmp(a, "-k")) && i + 1 < argc)
			key = argv[++i];
		else if ((!strcmp(a, "--events") || !strcmp(a, "-e")) && i + 1 < argc) {
			events = argv[++i];
			if (!*events || strchr(events, '\t') || strchr(events, '\n'))
				return cmd_usage_error(c, "--events: '%s' is not an event list", events);
		} else if ((!strcmp(a, "--iterations") || !strcmp(a, "-n")) && i + 1 < argc) {
			if (parse_long(argv[++i], &iterations) || iterations < 1)
				return cmd_usage_error(c, "--iterations: '%s' is not a positive number", argv[i]);
		} else if (!strcmp(a, "--json"))
			json = 1;
		else if (a[0] == '-' && a[1])
			return cmd_usage_error(c, "unknown option '%s'", a);
		else if (!config)
			config = a;
		else
			return cmd_usage_error(c, "unexpected argument '%s'", a);
	}
	if (!config)
		return cmd_usage_error(c, "no CONFIG given");
	if (!key)
		return cmd_usage_error(c, "--key BENCH:VM[:VARIANT] is required");
	struct kerr e = KERR_INIT;
	int r = stat_run(config, key, events, iterations, json, &e);
	if (r < 0) {
		kerr_print(&e);
		r = e.code ? e.code : KEXIT_FAIL;
	}
	kerr_release(&e);
	return r;
}
