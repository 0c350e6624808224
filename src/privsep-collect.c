/*
 * privsep-collect.c - the unprivileged side (see privsep.h): the collector
 * child that reads a pexec's instrumentation folder as the benchmark user.
 *
 * It starts as a fork of kiln, drops to the benchmark user (when there is
 * one), bounds itself (memory, CPU, descriptors), dies with kiln, and then
 * does everything that touches the benchmark's files: lists the folder,
 * opens each file only through instr_open() (no links, no FIFOs, only the
 * user's own regular files, within the byte budget), runs the parsers, the
 * external parser command and the log compressor, and writes each record,
 * error and log chunk to the monitor as one message.  Whatever it does, the
 * monitor checks again: this side is trusted for nothing.
 */
#include "privsep.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "exec.h"
#include "isolate.h"
#include "plugin.h"
#include "safefs.h"

/* ---- writing messages ---- */

struct ps_out {
	int fd;
	struct strbuf buf; /* messages not yet written */
	int broken;        /* the monitor is gone or refused us */
};

static void out_flush(struct ps_out *o)
{
	size_t at = 0;
	while (!o->broken && at < o->buf.len) {
		ssize_t n = write(o->fd, o->buf.buf + at, o->buf.len - at);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			o->broken = 1;
		else
			at += (size_t)n;
	}
	sb_reset(&o->buf);
}

static void put_u32(struct strbuf *b, uint32_t v)
{
	unsigned char c[4] = { (unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
			       (unsigned char)(v >> 24) };
	sb_add(b, c, 4);
}

static void put_u64(struct strbuf *b, uint64_t v)
{
	put_u32(b, (uint32_t)v);
	put_u32(b, (uint32_t)(v >> 32));
}

static void put_f64(struct strbuf *b, double d)
{
	uint64_t u;
	memcpy(&u, &d, sizeof(u));
	put_u64(b, u);
}

static void put_str(struct strbuf *b, const char *s, size_t max)
{
	size_t n = s ? strlen(s) : 0;
	if (n > max)
		n = max + 1; /* too long: the monitor refuses it, visibly */
	unsigned char c[2] = { (unsigned char)n, (unsigned char)(n >> 8) };
	sb_add(b, c, 2);
	sb_add(b, s ? s : "", n);
}

/* one message: header, then the payload built in p */
static void out_msg(struct ps_out *o, enum ps_type type, const struct strbuf *p)
{
	put_u32(&o->buf, (uint32_t)type);
	put_u32(&o->buf, (uint32_t)(p ? p->len : 0));
	if (p)
		sb_add(&o->buf, p->buf ? p->buf : "", p->len);
	if (o->buf.len >= 32768)
		out_flush(o);
}

static void out_error(struct ps_out *o, const char *text)
{
	struct strbuf p = STRBUF_INIT;
	put_str(&p, text, PS_TEXT_MAX);
	out_msg(o, PS_ERROR, &p);
	sb_release(&p);
}

static int wire_emit(void *ctx, const struct kiln_rec *r)
{
	struct ps_out *o = ctx;
	struct strbuf p = STRBUF_INIT;
	enum ps_type t;
	if (r->kind == REC_ITER) {
		t = PS_ITER;
		put_u64(&p, (uint64_t)(int64_t)r->iter);
		put_f64(&p, r->value);
		put_str(&p, r->name, PS_NAME_MAX);
		put_str(&p, r->unit, PS_UNIT_MAX);
	} else if (r->kind == REC_PEXEC) {
		t = PS_SCALAR;
		put_f64(&p, r->value);
		put_str(&p, r->name, PS_NAME_MAX);
		put_str(&p, r->unit, PS_UNIT_MAX);
	} else {
		t = PS_EVENT;
		put_u64(&p, (uint64_t)r->start_ns);
		put_u64(&p, (uint64_t)r->end_ns);
		put_str(&p, r->name, PS_NAME_MAX);
	}
	out_msg(o, t, &p);
	sb_release(&p);
	return o->broken; /* the monitor stopped listening: stop parsing */
}

/* ---- becoming unprivileged ---- */

/*
 * No controlling terminal: a fork of kiln has kiln's, and a parser could
 * open /dev/tty and push input into it (TIOCSTI) for root's shell.  The
 * collector stays in kiln's process group, so that the terminal's
 * interrupt still reaches it; only the session leader may take a terminal
 * again, which it is not.
 */
static void no_tty(void)
{
	int fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return;
	ioctl(fd, TIOCNOTTY);
	close(fd);
}

static int drop(const struct ps_request *rq, struct strbuf *why)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	no_tty();
	/* the pexec's machine: its instrumentation folder is there */
	for (const int *ns = rq->join_ns; ns && *ns >= 0; ns++)
		if (setns(*ns, 0) < 0) {
			sb_addf(why, "cannot join the pexec's machine: %s", strerror(errno));
			return -1;
		}
	if (rq->set_user) {
		if (setgroups(0, NULL) < 0 || setgid(rq->gid) < 0 || setuid(rq->uid) < 0) {
			sb_addf(why, "cannot become uid %ld: %s", (long)rq->uid, strerror(errno));
			return -1;
		}
		if (setuid(0) == 0 || getuid() != rq->uid || geteuid() != rq->uid) {
			sb_addf(why, "the drop to uid %ld did not hold", (long)rq->uid);
			return -1;
		}
		/* a changed uid clears the parent-death signal: set it again */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		/* a parser command it runs gains nothing from a setuid or file-capability program */
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
			sb_addf(why, "cannot set PR_SET_NO_NEW_PRIVS: %s", strerror(errno));
			return -1;
		}
		/* not kiln's session keyring, which it would possess (privsep-keys.c) */
		if (isolate_own_keyring() < 0) {
			sb_addf(why, "cannot make a session keyring of its own: %s", strerror(errno));
			return -1;
		}
	}
	prctl(PR_SET_DUMPABLE, 0);
	struct rlimit rl = { 0, 0 };
	setrlimit(RLIMIT_CORE, &rl);
	rl.rlim_cur = rl.rlim_max = (rlim_t)(rq->b.timeout_s > 0 ? rq->b.timeout_s + 1 : 3600);
	setrlimit(RLIMIT_CPU, &rl);
#if !defined(__SANITIZE_ADDRESS__)
	/* parsers stream: 1 GiB of address space plus what a read file needs */
	rl.rlim_cur = rl.rlim_max = (rlim_t)((1ULL << 30) + 2 * rq->b.bytes);
	setrlimit(RLIMIT_AS, &rl);
#endif
	return 0;
}

/*
 * What the fork brought of kiln that a parser must not reach, since a
 * memory bug in one (the PYPYLOG, stats or JSON parsers read the
 * benchmark's files) must not become a write to the results: every shared
 * writable mapping (SQLite's -shm index of the results file) and every
 * descriptor but the pipe to the monitor (the results database and its
 * lock, the logs folder, the machine's, what kiln's caller left open);
 * stdio becomes /dev/null.  After the drop: the machine's namespaces are
 * joined through descriptors closed here.
 */
static int shed(int wfd, struct strbuf *why)
{
	enum { MAPS_MAX = 256 };
	uintptr_t lo[MAPS_MAX], hi[MAPS_MAX];
	size_t n = 0;
	FILE *f = fopen("/proc/self/maps", "re");
	if (!f)
		return sb_addf(why, "/proc/self/maps: %s", strerror(errno)), -1;
	char line[512], perm[8];
	unsigned long a, b;
	while (n < MAPS_MAX && fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx-%lx %7s", &a, &b, perm) == 3 && perm[1] == 'w' && perm[3] == 's')
			lo[n] = a, hi[n++] = b;
	int over = n == MAPS_MAX && fgets(line, sizeof(line), f);
	fclose(f);
	if (over)
		return sb_addf(why, "more than %d shared writable mappings", MAPS_MAX), -1;
	for (size_t i = 0; i < n; i++)
		munmap((void *)lo[i], hi[i] - lo[i]); /* (a tool's own, under valgrind, may refuse: not kiln's) */
	int nul = open("/dev/null", O_RDWR | O_CLOEXEC);
	for (int fd = 0; fd < 3; fd++)
		if (nul < 0 || (fd != wfd && dup2(nul, fd) < 0))
			return sb_addf(why, "/dev/null: %s", strerror(errno)), -1;
	if (exec_close_inherited(3, wfd) < 0)
		return sb_addf(why, "close_range: %s", strerror(errno)), -1;
	exec_forget_fds();
	return 0;
}

/* ---- the folder ---- */

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* the folder's file names, sorted, dot-files left out; bounded */
static int list_dir(int dfd, struct strvec *names, struct strbuf *why)
{
	int fd = dup(dfd);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		if (fd >= 0)
			close(fd);
		sb_addf(why, "cannot list the folder: %s", strerror(errno));
		return -1;
	}
	struct dirent *de;
	int r = 0;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (names->n >= PS_FILES_MAX) {
			sb_addf(why, "more than %d files in the folder: the rest is ignored", PS_FILES_MAX);
			r = -1;
			break;
		}
		sv_push(names, de->d_name);
	}
	closedir(d);
	if (names->n)
		qsort(names->v, names->n, sizeof(char *), cmp_names);
	return r;
}

/* which parser takes this file, NULL: none */
static instr_parse_fn parser_for(const struct ps_request *rq, const char *name)
{
	if (star_match("*.kiln.jsonl", name))
		return rec_parse_jsonl_file;
	if (rq->pl && rq->pl->parse && rq->pl->parse_glob && star_match(rq->pl->parse_glob, name))
		return rq->pl->parse;
	const struct kiln_plugin *st = plugin_find("stats");
	if (rq->stats_files && st && star_match(st->parse_glob, name))
		return st->parse;
	return NULL;
}

/* send the first error of a parser, once per collection (the monitor keeps the first) */
static void parse_files(const struct ps_request *rq, int dfd, const struct strvec *names, uint64_t *budget,
			struct ps_out *o)
{
	struct rec_sink sink = { wire_emit, o };
	for (size_t i = 0; i < names->n && !o->broken; i++) {
		instr_parse_fn parse = parser_for(rq, names->v[i]);
		if (!parse)
			continue;
		struct instr_file f = { dfd, rq->dir, names->v[i], geteuid(), 0, budget };
		struct kerr e = KERR_INIT;
		if (parse(&f, &sink, &e) < 0)
			out_error(o, sb_str(&e.msg));
		kerr_release(&e);
	}
}

/* the external parser command: run as this (unprivileged) process's user */
static void run_parser(const struct ps_request *rq, struct ps_out *o)
{
	struct exec_opts eo;
	exec_opts_plain(&eo, rq->parser_argv, rq->parser_envp, rq->b.timeout_s);
	eo.search = 1;
	eo.cwd = rq->dir;
	size_t cap = rq->b.bytes / 2 > PS_MSG_MAX ? (size_t)(rq->b.bytes / 2) : PS_MSG_MAX;
	eo.capture_bytes = cap;
	struct exec_result r;
	struct kerr e = KERR_INIT;
	struct strbuf msg = STRBUF_INIT;
	if (exec_run(&eo, &r, &e) < 0) {
		sb_addf(&msg, "parser: %s", sb_str(&e.msg));
	} else {
		if (!r.exited || r.status)
			sb_addf(&msg, "parser `%s` failed: %s", rq->parser_argv[0], sb_str(&r.err));
		if (r.out_bytes > 2 * (uint64_t)cap) {
			if (!msg.len)
				sb_addf(&msg, "parser `%s` printed %llu bytes, over limits.instr_mb: its records are not used",
					rq->parser_argv[0], (unsigned long long)r.out_bytes);
		} else {
			struct rec_sink sink = { wire_emit, o };
			struct kerr pe = KERR_INIT;
			if (rec_parse_jsonl(rq->parser_argv[0], sb_str(&r.out), r.out.len, &sink, &pe) < 0 && !msg.len)
				sb_addf(&msg, "%s", sb_str(&pe.msg));
			kerr_release(&pe);
		}
		exec_result_release(&r);
	}
	if (msg.len)
		out_error(o, msg.buf);
	sb_release(&msg);
	kerr_release(&e);
}

/* ---- keep_log: each file compressed (small ones as they are) into messages ---- */

static void log_error(struct ps_out *o, const char *text)
{
	struct strbuf p = STRBUF_INIT;
	put_str(&p, text, PS_TEXT_MAX);
	out_msg(o, PS_LOG_ERROR, &p);
	sb_release(&p);
}

/*
 * One kept log: PS_LOG_OPEN, its bytes, PS_LOG_END; a failure on the way
 * ends it with PS_LOG_ERROR instead (the monitor discards the part it has).
 */
static void send_log(int dfd, const char *dir, const char *name, struct ps_out *o)
{
	off_t size;
	struct kerr e = KERR_INIT;
	struct strbuf why = STRBUF_INIT;
	int fd = sfs_open_file_at(dfd, dir, name, geteuid(), &size, &e);
	if (fd < 0) {
		log_error(o, sb_str(&e.msg));
		kerr_release(&e);
		return;
	}
	int small = size < 4096; /* small files (calibration, records) stay readable as they are */
	struct strbuf p = STRBUF_INIT;
	sb_addc(&p, small ? 0 : 1);
	put_str(&p, name, PS_FILE_MAX);
	out_msg(o, PS_LOG_OPEN, &p);
	ZSTD_CCtx *c = small ? NULL : ZSTD_createCCtx();
	if (c) {
		ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, 3);
		ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1);
	}
	static char ib[131072], ob[PS_MSG_MAX];
	int r = 0;
	for (;;) {
		ssize_t n = read(fd, ib, sizeof(ib));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			sb_addf(&why, "%s/%s: %s", dir, name, strerror(errno));
			r = -1;
			break;
		}
		if (small) {
			if (n == 0)
				break;
			sb_reset(&p);
			sb_add(&p, ib, (size_t)n);
			out_msg(o, PS_LOG_DATA, &p);
			continue;
		}
		ZSTD_EndDirective mode = n == 0 ? ZSTD_e_end : ZSTD_e_continue;
		ZSTD_inBuffer zi = { ib, (size_t)n, 0 };
		size_t left;
		do {
			ZSTD_outBuffer zo = { ob, sizeof(ob), 0 };
			left = ZSTD_compressStream2(c, &zo, &zi, mode);
			if (ZSTD_isError(left)) {
				sb_addf(&why, "%s/%s: zstd: %s", dir, name, ZSTD_getErrorName(left));
				r = -1;
				break;
			}
			if (zo.pos) {
				sb_reset(&p);
				sb_add(&p, ob, zo.pos);
				out_msg(o, PS_LOG_DATA, &p);
			}
		} while (!o->broken && (mode == ZSTD_e_end ? left != 0 : zi.pos < zi.size));
		if (n == 0 || r < 0 || o->broken)
			break;
	}
	if (r < 0)
		log_error(o, why.buf);
	else
		out_msg(o, PS_LOG_END, NULL);
	ZSTD_freeCCtx(c);
	sb_release(&p);
	sb_release(&why);
	close(fd);
}

KILN_NORETURN void ps_collector_main(const struct ps_request *rq, int wfd)
{
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	struct ps_out o = { wfd, STRBUF_INIT, 0 };
	struct strbuf why = STRBUF_INIT;
	if (drop(rq, &why) < 0 || shed(wfd, &why) < 0) {
		out_error(&o, why.buf);
		out_flush(&o);
		_exit(1);
	}
	uint64_t budget = rq->b.bytes;
	int dfd = -1;
	struct strvec names = STRVEC_INIT;
	if (rq->dir) {
		dfd = open(rq->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (dfd < 0)
			sb_addf(&why, "%s: %s", rq->dir, strerror(errno));
		else
			list_dir(dfd, &names, &why);
		if (why.len)
			out_error(&o, why.buf);
		sb_reset(&why);
	}
	if (dfd >= 0)
		parse_files(rq, dfd, &names, &budget, &o);
	const struct kiln_plugin *st = plugin_find("stats");
	if (rq->stats_text && rq->stats_len && st && st->parse_mem) {
		struct rec_sink sink = { wire_emit, &o };
		struct kerr e = KERR_INIT;
		if (st->parse_mem("stderr", rq->stats_text, rq->stats_len, &sink, &e) < 0) {
			sb_addf(&why, "stats from stderr: %s", sb_str(&e.msg));
			out_error(&o, why.buf);
			sb_reset(&why);
		}
		kerr_release(&e);
	}
	if (rq->parser_argv && !o.broken)
		run_parser(rq, &o);
	if (rq->keep_log && dfd >= 0) {
		for (size_t i = 0; i < names.n && !o.broken; i++) {
			if (star_match("*.zst", names.v[i]))
				continue;
			send_log(dfd, rq->dir, names.v[i], &o);
		}
	}
	out_msg(&o, PS_DONE, NULL);
	out_flush(&o);
	_exit(o.broken ? 1 : 0);
}
