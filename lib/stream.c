/*
 * stream.c - the writer of the result stream, runner protocol v1.
 *
 * A header line, one line per iteration, and {"done":true}.  Lines are
 * formatted into a fixed buffer with snprintf and written with one write(2)
 * each, after the iteration's clock has stopped; nothing here allocates per
 * iteration.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "kiln.h"

struct kiln_stream {
	int fd;
	int ncounters;
};

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* append a JSON string (names of counters are plain ASCII, escaped anyway) */
static size_t put_str(char *buf, size_t at, size_t cap, const char *s)
{
	if (at < cap)
		buf[at] = '"';
	at++;
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\') {
			if (at + 1 < cap)
				buf[at] = '\\', buf[at + 1] = (char)c;
			at += 2;
		} else if (c < 0x20) {
			if (at + 6 < cap)
				snprintf(buf + at, 7, "\\u%04x", c);
			at += 6;
		} else {
			if (at < cap)
				buf[at] = (char)c;
			at++;
		}
	}
	if (at < cap)
		buf[at] = '"';
	return at + 1;
}

struct kiln_stream *kiln_stream_open(int fd, const struct kiln_counters *counters)
{
	if (fd < 0) {
		const char *v = getenv("KILN_RESULT_FD");
		char *end;
		if (!v || !*v) {
			errno = EBADF;
			return NULL;
		}
		long l = strtol(v, &end, 10);
		if (*end || l < 0) {
			errno = EBADF;
			return NULL;
		}
		fd = (int)l;
	}
	struct kiln_stream *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->fd = fd;
	s->ncounters = counters ? kiln_counters_count(counters) : 0;

	char buf[4096];
	size_t at = (size_t)snprintf(buf, sizeof(buf), "{\"kiln\":%d,\"clock\":\"monotonic_raw\",\"counters\":[", KILN_PROTOCOL);
	for (int i = 0; i < s->ncounters; i++) {
		if (i && at < sizeof(buf))
			buf[at] = ',';
		at += i ? 1 : 0;
		at = put_str(buf, at, sizeof(buf), kiln_counters_name(counters, i));
	}
	int nu = counters ? kiln_counters_unavailable_count(counters) : 0;
	if (nu) {
		at += (size_t)snprintf(buf + at, at < sizeof(buf) ? sizeof(buf) - at : 0, "],\"unavailable\":[");
		for (int i = 0; i < nu; i++) {
			if (i && at < sizeof(buf))
				buf[at] = ',';
			at += i ? 1 : 0;
			at = put_str(buf, at, sizeof(buf), kiln_counters_unavailable_name(counters, i));
		}
	}
	at += (size_t)snprintf(buf + at, at < sizeof(buf) ? sizeof(buf) - at : 0, "]}\n");
	if (at >= sizeof(buf) || write_all(fd, buf, at) < 0) {
		free(s);
		errno = at >= sizeof(buf) ? E2BIG : errno;
		return NULL;
	}
	return s;
}

/* one iteration line; with_window: start/end given, cpu_ns < 0: not measured */
static int iter_line(struct kiln_stream *s, long i, uint64_t wall_ns, int with_window, uint64_t start_ns,
		     uint64_t end_ns, int64_t cpu_ns, const uint64_t *counters)
{
	char buf[160 + 24 * 32];
	int n = snprintf(buf, sizeof(buf), "{\"i\":%ld,\"wall_ns\":%" PRIu64, i, wall_ns);
	if (with_window)
		n += snprintf(buf + n, sizeof(buf) - (size_t)n, ",\"start_ns\":%" PRIu64 ",\"end_ns\":%" PRIu64,
			      start_ns, end_ns);
	if (cpu_ns >= 0)
		n += snprintf(buf + n, sizeof(buf) - (size_t)n, ",\"cpu_ns\":%" PRId64, cpu_ns);
	if (s->ncounters && counters) {
		n += snprintf(buf + n, sizeof(buf) - (size_t)n, ",\"counters\":[");
		for (int k = 0; k < s->ncounters && k < 32; k++)
			n += snprintf(buf + n, sizeof(buf) - (size_t)n, "%s%" PRIu64, k ? "," : "", counters[k]);
		n += snprintf(buf + n, sizeof(buf) - (size_t)n, "]");
	}
	n += snprintf(buf + n, sizeof(buf) - (size_t)n, "}\n");
	return write_all(s->fd, buf, (size_t)n);
}

int kiln_stream_iter(struct kiln_stream *s, long i, uint64_t wall_ns, const uint64_t *counters)
{
	return iter_line(s, i, wall_ns, 0, 0, 0, -1, counters);
}

int kiln_stream_iter_at(struct kiln_stream *s, long i, uint64_t start_ns, uint64_t end_ns, int64_t cpu_ns,
			const uint64_t *counters)
{
	if (end_ns < start_ns) {
		errno = EINVAL;
		return -1;
	}
	return iter_line(s, i, end_ns - start_ns, 1, start_ns, end_ns, cpu_ns, counters);
}

int kiln_stream_done(struct kiln_stream *s)
{
	static const char done[] = "{\"done\":true}\n";
	int r = write_all(s->fd, done, sizeof(done) - 1);
	if (close(s->fd) < 0)
		r = -1;
	free(s);
	return r;
}
