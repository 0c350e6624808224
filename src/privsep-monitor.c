/*
 * privsep-monitor.c - the privileged side (see privsep.h): start the
 * collector, and accept from it only what the table below allows.
 *
 * Every message is checked against mon_table (its type known, allowed in
 * this state and for this request, its payload within bounds), then field
 * by field (names and units well-formed UTF-8 without control characters,
 * values finite, an iteration inside the pexec, an event's end after its
 * start), then against the pexec's budget (records, distinct names, kept
 * bytes).  The first violation ends the collection: the collector is
 * killed, what was accepted before stands, and the pexec's instr_error
 * says what happened.  The monitor writes only into the rec_list and, for
 * keep_log, into files it creates itself inside the logs folder it was
 * given (O_CREAT|O_EXCL|O_NOFOLLOW, names it has checked).
 */
#include "privsep.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "config.h"
#include "safefs.h"

struct monitor {
	const struct ps_request *rq;
	struct ps_result *r;
	struct rec_sink sink;
	int logs_dirfd;
	int log_fd;            /* the kept log being written, -1: none */
	char log_name[PS_FILE_MAX + 8];
	int in_log;            /* between PS_LOG_OPEN and its end */
	size_t logs;           /* PS_LOG_OPENs seen: at most PS_FILES_MAX, as the folder's files */
	uint64_t log_charge;   /* bytes kept and PS_LOG_FILE_BYTES a file made, against limits.log_mb */
	int log_over;          /* limits.log_mb reached: said once, nothing more kept */
	int done, stop;        /* PS_DONE seen; a violation: read no more */
	struct strbuf pend;    /* bytes of an incomplete message */
};

/* a message's payload, read field by field */
struct msg {
	const unsigned char *p;
	size_t len, at;
	int bad;
};

static uint64_t get_u64(struct msg *m)
{
	if (m->len - m->at < 8) {
		m->bad = 1;
		return 0;
	}
	uint64_t v = 0;
	for (int k = 7; k >= 0; k--)
		v = v << 8 | m->p[m->at + (size_t)k];
	m->at += 8;
	return v;
}

static double get_f64(struct msg *m)
{
	uint64_t u = get_u64(m);
	double d;
	memcpy(&d, &u, sizeof(d));
	return d;
}

static unsigned get_u8(struct msg *m)
{
	if (m->len - m->at < 1) {
		m->bad = 1;
		return 0;
	}
	return m->p[m->at++];
}

/* a string of at most max bytes into out (NUL-terminated); -1 when it is not one */
static int get_str(struct msg *m, char *out, size_t max)
{
	if (m->len - m->at < 2) {
		m->bad = 1;
		return -1;
	}
	size_t n = (size_t)m->p[m->at] | (size_t)m->p[m->at + 1] << 8;
	m->at += 2;
	if (n > max || m->len - m->at < n) {
		m->bad = 1;
		return -1;
	}
	memcpy(out, m->p + m->at, n);
	out[n] = '\0';
	m->at += n;
	return (int)n;
}

/* well-formed UTF-8 without control characters (names, units, file names) */
static int text_ok(const char *s)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + strlen(s);
	while (p < end) {
		size_t n = utf8_len(p, end);
		if (!n || (n == 1 && (*p < 0x20 || *p == 0x7f)))
			return 0;
		p += n;
	}
	return 1;
}

/* outside text shown later (errors): control characters and bad bytes become '?' */
static void text_clean(char *s)
{
	unsigned char *p = (unsigned char *)s, *end = p + strlen(s);
	while (p < end) {
		size_t n = utf8_len(p, end);
		if (!n || (n == 1 && (*p < 0x20 || *p == 0x7f)) || (n == 2 && p[0] == 0xc2 && p[1] < 0xa0)) {
			for (size_t k = 0; k < (n ? n : 1); k++)
				p[k] = '?';
			n = n ? n : 1;
		}
		p += n;
	}
}

KILN_PRINTF(2, 3)
static int violation(struct monitor *m, const char *fmt, ...)
{
	if (!m->r->error.len) {
		va_list ap;
		va_start(ap, fmt);
		sb_adds(&m->r->error, "instrumentation: ");
		sb_vaddf(&m->r->error, fmt, ap);
		sb_adds(&m->r->error, "; nothing after it was read");
		va_end(ap);
	}
	m->stop = 1;
	return -1;
}

/* ---- records ---- */

static int accept_rec(struct monitor *m, struct kiln_rec *x)
{
	const struct ps_bounds *b = &m->rq->b;
	struct rec_list *l = &m->r->recs;
	if (!*x->name || !text_ok(x->name))
		return violation(m, "a record name that is empty, not UTF-8 or has control characters");
	if (x->unit && !text_ok(x->unit))
		return violation(m, "record '%s': a unit that is not UTF-8 or has control characters", x->name);
	if (l->n >= b->records)
		return violation(m, "more than %zu records (limits.instr_records)", b->records);
	if (l->names.n >= b->names && strmap_find(&l->names, x->name) < 0)
		return violation(m, "more than %zu distinct record names (limits.instr_names)", b->names);
	if (x->unit && !*x->unit)
		x->unit = NULL;
	return m->sink.emit(m->sink.ctx, x) ? violation(m, "record '%s' was not accepted", x->name) : 0;
}

/* value, name and unit: the common part of PS_ITER and PS_SCALAR (buffers of PS_*_MAX + 1) */
static int get_valued(struct monitor *m, struct msg *g, struct kiln_rec *x, char *name, char *unit)
{
	x->value = get_f64(g);
	get_str(g, name, PS_NAME_MAX);
	get_str(g, unit, PS_UNIT_MAX);
	if (g->bad)
		return violation(m, "a malformed record");
	x->name = name;
	x->unit = unit;
	if (!isfinite(x->value))
		return violation(m, "record '%s': value not finite", name);
	return 0;
}

static int h_iter(struct monitor *m, struct msg *g)
{
	char name[PS_NAME_MAX + 1], unit[PS_UNIT_MAX + 1];
	struct kiln_rec x = { .kind = REC_ITER };
	int64_t i = (int64_t)get_u64(g);
	if (get_valued(m, g, &x, name, unit) < 0)
		return -1;
	if (i < 0 || i >= m->rq->b.iterations)
		return violation(m, "record '%s' for iteration %lld of a pexec of %ld iterations", name, (long long)i,
				 m->rq->b.iterations);
	x.iter = (long)i;
	return accept_rec(m, &x);
}

static int h_scalar(struct monitor *m, struct msg *g)
{
	char name[PS_NAME_MAX + 1], unit[PS_UNIT_MAX + 1];
	struct kiln_rec x = { .kind = REC_PEXEC };
	return get_valued(m, g, &x, name, unit) < 0 ? -1 : accept_rec(m, &x);
}

static int h_event(struct monitor *m, struct msg *g)
{
	char name[PS_NAME_MAX + 1];
	struct kiln_rec x = { .kind = REC_EVENT };
	x.start_ns = (int64_t)get_u64(g);
	x.end_ns = (int64_t)get_u64(g);
	get_str(g, name, PS_NAME_MAX);
	if (g->bad)
		return violation(m, "a malformed event");
	x.name = name;
	if (x.start_ns < 0 || x.end_ns < x.start_ns)
		return violation(m, "event '%s': end before start or a negative time", name);
	return accept_rec(m, &x);
}

static int h_error(struct monitor *m, struct msg *g)
{
	char text[PS_TEXT_MAX + 1];
	if (get_str(g, text, PS_TEXT_MAX) < 0)
		return violation(m, "a malformed error message");
	text_clean(text);
	if (!m->r->error.len)
		sb_adds(&m->r->error, text);
	return 0;
}

/* ---- kept logs ---- */

static void log_discard(struct monitor *m)
{
	if (m->log_fd >= 0) {
		close(m->log_fd);
		unlinkat(m->logs_dirfd, m->log_name, 0);
	}
	m->log_fd = -1;
}

static void log_warn(struct monitor *m, const char *text)
{
	if (m->r->log_error.len)
		sb_adds(&m->r->log_error, "; ");
	sb_adds(&m->r->log_error, text);
}

/* limits.log_mb reached: said once */
static void log_over(struct monitor *m)
{
	if (!m->log_over)
		log_warn(m, "keep_log: over limits.log_mb: the rest of this pexec's logs is not kept");
	m->log_over = 1;
}

static int h_log_open(struct monitor *m, struct msg *g)
{
	char name[PS_FILE_MAX + 1];
	unsigned zst = get_u8(g);
	get_str(g, name, PS_FILE_MAX);
	if (g->bad || zst > 1)
		return violation(m, "a malformed log header");
	/* an honest collector keeps at most the folder's PS_FILES_MAX; empty files cost a disk block and an fsync each */
	if (++m->logs > PS_FILES_MAX)
		return violation(m, "more kept logs than an instrumentation folder's files");
	m->in_log = 1;
	m->log_fd = -1;
	if (m->log_over || m->log_charge + PS_LOG_FILE_BYTES > m->rq->b.log_bytes) {
		log_over(m);
		return 0;
	}
	m->log_charge += PS_LOG_FILE_BYTES;
	if (!sfs_name_ok(name, PS_FILE_MAX)) {
		text_clean(name);
		struct strbuf w = STRBUF_INIT;
		sb_addf(&w, "keep_log: '%s' is not a file name kiln keeps ([A-Za-z0-9._+-], no leading dot)", name);
		log_warn(m, w.buf);
		sb_release(&w);
		return 0;
	}
	snprintf(m->log_name, sizeof(m->log_name), "%s%s", name, zst ? ".zst" : "");
	unlinkat(m->logs_dirfd, m->log_name, 0); /* an earlier attempt's */
	m->log_fd = openat(m->logs_dirfd, m->log_name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (m->log_fd < 0) {
		struct strbuf w = STRBUF_INIT;
		sb_addf(&w, "keep_log: %s: %s", m->log_name, strerror(errno));
		log_warn(m, w.buf);
		sb_release(&w);
	}
	return 0;
}

static int h_log_data(struct monitor *m, struct msg *g)
{
	if (m->log_fd < 0)
		return 0; /* this log is not kept: its bytes are dropped */
	if (m->log_charge + g->len > m->rq->b.log_bytes) {
		log_discard(m);
		log_over(m);
		return 0;
	}
	for (size_t at = 0; at < g->len;) {
		ssize_t n = write(m->log_fd, g->p + at, g->len - at);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			struct strbuf w = STRBUF_INIT;
			sb_addf(&w, "keep_log: %s: %s", m->log_name, strerror(errno));
			log_discard(m);
			log_warn(m, w.buf);
			sb_release(&w);
			return 0;
		}
		at += (size_t)n;
	}
	m->r->log_bytes += g->len;
	m->log_charge += g->len;
	return 0;
}

static int h_log_end(struct monitor *m, struct msg *g)
{
	(void)g;
	if (m->log_fd >= 0 && (fdatasync(m->log_fd) < 0 || close(m->log_fd) < 0)) {
		struct strbuf w = STRBUF_INIT;
		sb_addf(&w, "keep_log: %s: %s", m->log_name, strerror(errno));
		unlinkat(m->logs_dirfd, m->log_name, 0);
		log_warn(m, w.buf);
		sb_release(&w);
	}
	m->log_fd = -1;
	m->in_log = 0;
	return 0;
}

static int h_log_error(struct monitor *m, struct msg *g)
{
	char text[PS_TEXT_MAX + 1];
	if (get_str(g, text, PS_TEXT_MAX) < 0)
		return violation(m, "a malformed log error");
	text_clean(text);
	log_discard(m);
	m->in_log = 0;
	struct strbuf w = STRBUF_INIT;
	sb_addf(&w, "keep_log: %s", text);
	log_warn(m, w.buf);
	sb_release(&w);
	return 0;
}

static int h_done(struct monitor *m, struct msg *g)
{
	(void)g;
	m->done = 1;
	return 0;
}

/* ---- the table ---- */

enum {
	MON_KEEPLOG = 1,  /* only when keep_log was asked for */
	MON_IN_LOG = 2,   /* only between PS_LOG_OPEN and its end */
	MON_OUT_LOG = 4,  /* never inside a log */
};

static const struct mon_entry {
	enum ps_type type;
	const char *name;
	unsigned flags;
	uint32_t min, max;  /* payload bytes */
	int (*handle)(struct monitor *m, struct msg *g);
} mon_table[] = {
	{ PS_ITER, "iteration record", MON_OUT_LOG, 8 + 8 + 2 + 1 + 2, 8 + 8 + 2 + PS_NAME_MAX + 2 + PS_UNIT_MAX, h_iter },
	{ PS_SCALAR, "pexec record", MON_OUT_LOG, 8 + 2 + 1 + 2, 8 + 2 + PS_NAME_MAX + 2 + PS_UNIT_MAX, h_scalar },
	{ PS_EVENT, "event", MON_OUT_LOG, 8 + 8 + 2 + 1, 8 + 8 + 2 + PS_NAME_MAX, h_event },
	{ PS_ERROR, "error", MON_OUT_LOG, 2, 2 + PS_TEXT_MAX, h_error },
	{ PS_LOG_OPEN, "log header", MON_KEEPLOG | MON_OUT_LOG, 1 + 2 + 1, 1 + 2 + PS_FILE_MAX, h_log_open },
	{ PS_LOG_DATA, "log data", MON_KEEPLOG | MON_IN_LOG, 1, PS_MSG_MAX, h_log_data },
	{ PS_LOG_END, "log end", MON_KEEPLOG | MON_IN_LOG, 0, 0, h_log_end },
	{ PS_LOG_ERROR, "log error", MON_KEEPLOG, 2, 2 + PS_TEXT_MAX, h_log_error },
	{ PS_DONE, "end", MON_OUT_LOG, 0, 0, h_done },
};

static int dispatch(struct monitor *m, uint32_t type, const unsigned char *p, uint32_t len)
{
	const struct mon_entry *t = NULL;
	for (size_t i = 0; i < ARRAY_SIZE(mon_table); i++)
		if (mon_table[i].type == type)
			t = &mon_table[i];
	if (!t)
		return violation(m, "unknown message type %u", type);
	if (m->done)
		return violation(m, "a %s after the end", t->name);
	if ((t->flags & MON_KEEPLOG) && (!m->rq->keep_log || m->logs_dirfd < 0))
		return violation(m, "a %s, but no log is kept", t->name);
	if ((t->flags & MON_IN_LOG) && !m->in_log)
		return violation(m, "a %s outside a log", t->name);
	if ((t->flags & MON_OUT_LOG) && m->in_log)
		return violation(m, "a %s inside a log", t->name);
	if (len < t->min || len > t->max)
		return violation(m, "a %s of %u bytes", t->name, len);
	struct msg g = { p, len, 0, 0 };
	if (t->handle(m, &g) < 0)
		return -1;
	if (g.at != g.len && t->type != PS_LOG_DATA)
		return violation(m, "a %s with %zu bytes too many", t->name, g.len - g.at);
	return 0;
}

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* take the complete messages of pend + buf; keep an incomplete tail */
static void feed(struct monitor *m, const void *buf, size_t n)
{
	sb_add(&m->pend, buf, n);
	size_t at = 0;
	const unsigned char *p = (const unsigned char *)sb_str(&m->pend);
	while (!m->stop && m->pend.len - at >= 8) {
		uint32_t type = le32(p + at), len = le32(p + at + 4);
		if (len > PS_MSG_MAX) {
			violation(m, "a message of %u bytes (at most %d)", len, PS_MSG_MAX);
			break;
		}
		if (m->pend.len - at - 8 < len)
			break;
		dispatch(m, type, p + at + 8, len);
		at += 8 + (size_t)len;
	}
	if (at) {
		memmove(m->pend.buf, m->pend.buf + at, m->pend.len - at);
		m->pend.len -= at;
		m->pend.buf[m->pend.len] = '\0';
	}
}

static void mon_init(struct monitor *m, const struct ps_request *rq, int logs_dirfd, struct ps_result *r)
{
	memset(r, 0, sizeof(*r));
	memset(m, 0, sizeof(*m));
	m->rq = rq;
	m->r = r;
	m->sink = rec_list_sink(&r->recs);
	m->logs_dirfd = logs_dirfd;
	m->log_fd = -1;
}

static void mon_end(struct monitor *m)
{
	log_discard(m); /* a log left open was not finished: not kept */
	if (!m->done && !m->r->error.len)
		sb_adds(&m->r->error, "instrumentation: the collector ended before it had finished");
	sb_release(&m->pend);
}

int ps_monitor_feed(const struct ps_request *rq, int logs_dirfd, const void *buf, size_t len, struct ps_result *r)
{
	struct monitor m;
	mon_init(&m, rq, logs_dirfd, r);
	feed(&m, buf, len);
	int ok = m.done && !m.stop;
	mon_end(&m);
	return ok ? 0 : -1;
}

/* read the collector until it is done, violates, or runs out of time */
static void mon_read(struct monitor *m, int fd, pid_t pid)
{
	int64_t deadline = mono_ns() + (int64_t)(m->rq->b.timeout_s * 1e9);
	static char buf[PS_MSG_MAX + 8];
	while (!m->stop) {
		int64_t left = deadline - mono_ns();
		if (left <= 0) {
			violation(m, "reading the folder took over limits.instr_timeout (%g s)", m->rq->b.timeout_s);
			break;
		}
		struct pollfd pf = { fd, POLLIN, 0 };
		int pr = poll(&pf, 1, (int)(left / 1000000) + 1);
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr <= 0)
			continue;
		ssize_t n = read(fd, buf, sizeof(buf));
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0)
			break;
		feed(m, buf, (size_t)n);
	}
	if (m->stop)
		kill(pid, SIGKILL);
}

void ps_bounds_of(struct ps_bounds *b, const struct limits_conf *l, long iterations)
{
	b->bytes = (uint64_t)l->instr_mb << 20;
	b->log_bytes = (uint64_t)l->log_mb << 20;
	b->records = (size_t)l->instr_records;
	b->names = (size_t)l->instr_names;
	b->iterations = iterations;
	b->timeout_s = l->instr_timeout_s;
}

int ps_collect(const struct ps_request *rq, int logs_dirfd, struct ps_result *r, struct kerr *e)
{
	int p[2];
	memset(r, 0, sizeof(*r));
	if (pipe2(p, O_CLOEXEC) < 0)
		return kerr_set(e, "collecting instrumentation: pipe: %s", strerror(errno));
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return kerr_set(e, "collecting instrumentation: fork: %s", strerror(errno));
	}
	if (pid == 0) {
		close(p[0]);
		ps_collector_main(rq, p[1]);
	}
	close(p[1]);
	struct monitor m;
	mon_init(&m, rq, logs_dirfd, r);
	mon_read(&m, p[0], pid);
	close(p[0]);
	int st = 0;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (!m.done && !m.stop && !r->error.len) {
		if (WIFSIGNALED(st))
			sb_addf(&r->error, "instrumentation: the collector was killed by signal %d (%s)", WTERMSIG(st),
				strsignal(WTERMSIG(st)));
		else
			sb_addf(&r->error, "instrumentation: the collector exited with status %d before it had finished",
				WEXITSTATUS(st));
	}
	mon_end(&m);
	return 0;
}

void ps_result_release(struct ps_result *r)
{
	rec_list_clear(&r->recs);
	sb_release(&r->error);
	sb_release(&r->log_error);
}
