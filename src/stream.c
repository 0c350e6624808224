/*
 * stream.c - the reader and checker of result streams (see stream.h).
 *
 * Lines are split incrementally (a line may arrive over several reads),
 * bounded by STREAM_MAX_LINE, and each is parsed with jansson.  The first
 * violation is kept in s->error with its line number; after it, nothing
 * more is taken, so the iterations kept are exactly those before the fault.
 */
#include "stream.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

void stream_init(struct stream *s, long expected)
{
	memset(s, 0, sizeof(*s));
	s->expected = expected;
	s->windows = -1;
}

clockid_t stream_clock_id(const char *name)
{
	static const struct { const char *name; clockid_t id; } clocks[] = {
		{ "monotonic", CLOCK_MONOTONIC }, { "monotonic_raw", CLOCK_MONOTONIC_RAW },
		{ "boottime", CLOCK_BOOTTIME }, { "realtime", CLOCK_REALTIME }, { "tai", CLOCK_TAI },
	};
	for (size_t i = 0; name && i < ARRAY_SIZE(clocks); i++)
		if (!strcmp(name, clocks[i].name))
			return clocks[i].id;
	return -1;
}

void stream_release(struct stream *s)
{
	free(s->clock);
	for (size_t i = 0; i < s->ncounters; i++)
		free(s->counter_names[i]);
	sv_clear(&s->unavailable);
	free(s->wall);
	free(s->counters);
	free(s->start);
	free(s->end);
	free(s->cpu);
	sb_release(&s->line);
	sb_release(&s->error);
	memset(s, 0, sizeof(*s));
}

KILN_PRINTF(2, 3)
static int bad(struct stream *s, const char *fmt, ...)
{
	if (s->error.len)
		return -1;
	va_list ap;
	sb_addf(&s->error, "result stream line %ld: ", s->lineno);
	va_start(ap, fmt);
	sb_vaddf(&s->error, fmt, ap);
	va_end(ap);
	return -1;
}

static int header(struct stream *s, json_t *o)
{
	json_t *v = json_object_get(o, "kiln");
	if (!v)
		return bad(s, "expected the header {\"kiln\":1,...} first");
	if (!json_is_integer(v) || json_integer_value(v) != 1)
		return bad(s, "field 'kiln': protocol version 1 expected");
	json_t *c = json_object_get(o, "clock");
	if (c && !json_is_string(c))
		return bad(s, "field 'clock': a string expected");
	s->clock = xstrdup(c ? json_string_value(c) : "unknown");
	json_t *ctr = json_object_get(o, "counters");
	if (ctr) {
		if (!json_is_array(ctr))
			return bad(s, "field 'counters': a list of names expected");
		if (json_array_size(ctr) > STREAM_MAX_COUNTERS)
			return bad(s, "field 'counters': at most %d counters", STREAM_MAX_COUNTERS);
		size_t i;
		json_t *x;
		json_array_foreach(ctr, i, x) {
			if (!json_is_string(x) || !*json_string_value(x) || strchr(json_string_value(x), ','))
				return bad(s, "field 'counters[%zu]': a name expected", i);
			s->counter_names[s->ncounters++] = xstrdup(json_string_value(x));
		}
	}
	json_t *un = json_object_get(o, "unavailable");
	if (un) {
		if (!json_is_array(un))
			return bad(s, "field 'unavailable': a list of names expected");
		size_t i;
		json_t *x;
		json_array_foreach(un, i, x) {
			if (!json_is_string(x))
				return bad(s, "field 'unavailable[%zu]': a name expected", i);
			sv_push(&s->unavailable, json_string_value(x));
		}
	}
	s->have_header = 1;
	return 0;
}

/* a non-negative integer field: 1 present, 0 absent, -1 anything else */
static int nonneg(json_t *o, const char *name, int64_t *v)
{
	json_t *x = json_object_get(o, name);
	if (!x)
		return 0;
	if (!json_is_integer(x) || json_integer_value(x) < 0)
		return -1;
	*v = json_integer_value(x);
	return 1;
}

/*
 * The optional window of an iteration in the runner's clock: start_ns and
 * end_ns, the same two clock reads as wall_ns, given on every line or on
 * none, one iteration after another.
 */
static int window(struct stream *s, json_t *o, int64_t wall, int64_t *start, int64_t *end)
{
	int hs = nonneg(o, "start_ns", start), he = nonneg(o, "end_ns", end);
	if (hs < 0)
		return bad(s, "field 'start_ns': a non-negative integer expected");
	if (he < 0)
		return bad(s, "field 'end_ns': a non-negative integer expected");
	if (hs != he)
		return bad(s, "field '%s': missing (%s is given)", hs ? "end_ns" : "start_ns", hs ? "start_ns" : "end_ns");
	if (s->windows < 0 && hs && stream_clock_id(s->clock) < 0)
		return bad(s, "field 'start_ns': the header's clock '%s' is not one perf can record with "
			      "(monotonic, monotonic_raw, boottime, realtime, tai)", s->clock);
	if (s->windows < 0)
		s->windows = hs;
	if (s->windows != hs)
		return bad(s, "field 'start_ns': %s (iteration 0 had %s)", hs ? "given" : "missing", hs ? "none" : "one");
	if (!hs)
		return 0;
	if (*end - *start != wall)
		return bad(s, "field 'end_ns': end_ns - start_ns is %lld but wall_ns is %lld (the same two clock reads "
			      "expected)", (long long)(*end - *start), (long long)wall);
	if (s->n && *start < s->end[s->n - 1])
		return bad(s, "field 'start_ns': iteration %zu starts before iteration %zu ended", s->n, s->n - 1);
	return 0;
}

static void grow(struct stream *s)
{
	if (s->n < s->alloc)
		return;
	s->alloc = s->alloc ? s->alloc * 2 : 256;
	s->wall = xrealloc(s->wall, s->alloc * sizeof(*s->wall));
	s->cpu = xrealloc(s->cpu, s->alloc * sizeof(*s->cpu));
	s->start = xrealloc(s->start, s->alloc * sizeof(*s->start));
	s->end = xrealloc(s->end, s->alloc * sizeof(*s->end));
	if (s->ncounters)
		s->counters = xrealloc(s->counters, s->alloc * s->ncounters * sizeof(*s->counters));
}

static int iteration(struct stream *s, json_t *o)
{
	json_t *i = json_object_get(o, "i"), *w = json_object_get(o, "wall_ns");
	if (!json_is_integer(i))
		return bad(s, "field 'i': an integer iteration index expected");
	if (json_integer_value(i) != (json_int_t)s->n)
		return bad(s, "field 'i': iteration %lld where %zu was expected", (long long)json_integer_value(i), s->n);
	if ((long)s->n >= s->expected)
		return bad(s, "more iterations than the %ld asked for", s->expected);
	if (!json_is_integer(w) || json_integer_value(w) < 0)
		return bad(s, "field 'wall_ns': a non-negative integer expected");
	json_t *c = json_object_get(o, "counters");
	size_t nc = c ? json_array_size(c) : 0;
	if (c && (!json_is_array(c) || nc != s->ncounters))
		return bad(s, "field 'counters': %zu values expected (one per header counter)", s->ncounters);
	if (!c && s->ncounters)
		return bad(s, "field 'counters': missing (the header names %zu)", s->ncounters);
	grow(s);
	int64_t start = 0, end = 0, cpu = INT64_MIN;
	if (window(s, o, json_integer_value(w), &start, &end) < 0)
		return -1;
	json_t *cj = json_object_get(o, "cpu_ns");
	if (cj && !json_is_null(cj) && nonneg(o, "cpu_ns", &cpu) < 0)
		return bad(s, "field 'cpu_ns': a non-negative integer or null expected");
	for (size_t k = 0; k < nc; k++) {
		json_t *x = json_array_get(c, k);
		int64_t v;
		if (json_is_null(x))
			v = INT64_MIN; /* absent, never zero */
		else if (json_is_integer(x) && json_integer_value(x) >= 0)
			v = json_integer_value(x);
		else
			return bad(s, "field 'counters[%zu]': a non-negative integer or null expected", k);
		s->counters[s->n * s->ncounters + k] = v;
	}
	s->start[s->n] = start;
	s->end[s->n] = end;
	s->cpu[s->n] = cpu;
	s->wall[s->n++] = json_integer_value(w);
	return 0;
}

static int one_line(struct stream *s, const char *p, size_t n)
{
	s->lineno++;
	while (n && (p[n - 1] == '\r' || p[n - 1] == ' '))
		n--;
	if (!n)
		return 0;
	if (s->done)
		return bad(s, "data after {\"done\":true}");
	json_error_t je;
	json_t *o = json_loadb(p, n, JSON_REJECT_DUPLICATES, &je);
	if (!o)
		return bad(s, "not JSON (%s)", je.text);
	int r;
	if (!json_is_object(o))
		r = bad(s, "a JSON object expected");
	else if (!s->have_header)
		r = header(s, o);
	else if (json_object_get(o, "done")) {
		if (!json_is_true(json_object_get(o, "done")))
			r = bad(s, "field 'done': true expected");
		else
			s->done = 1, r = 0;
	} else
		r = iteration(s, o);
	json_decref(o);
	return r;
}

static int line_cb(void *ctx, const char *p, size_t n)
{
	return one_line(ctx, p, n);
}

int stream_feed(struct stream *s, const char *data, size_t n)
{
	if (s->error.len)
		return -1;
	int r = line_split(&s->line, STREAM_MAX_LINE, data, n, line_cb, s);
	if (r == LINE_TOO_LONG) {
		s->lineno++;
		return bad(s, "a line longer than %d bytes", STREAM_MAX_LINE);
	}
	return r;
}

int stream_finish(struct stream *s)
{
	if (s->error.len)
		return -1;
	if (line_split_end(&s->line, line_cb, s) < 0)
		return -1;
	if (!s->have_header) {
		sb_reset(&s->error);
		sb_adds(&s->error, "no result stream (the runner wrote nothing to KILN_RESULT_FD)");
		return -1;
	}
	if (!s->done)
		return bad(s, "the stream ended after %zu of %ld iterations without {\"done\":true}", s->n, s->expected);
	if ((long)s->n != s->expected)
		return bad(s, "%zu iterations where %ld were asked for", s->n, s->expected);
	return 0;
}
