/*
 * store-log.c - the pexec log (see store-log.h for the format and why).
 *
 * This file knows records and the file that holds them; which statements
 * a record holds, and when the log is folded into the results, is
 * store.c's business.
 */
#include "store-log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

static const char magic[4] = { 'K', 'L', 'G', '1' };

static void put_u32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static void put_u64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static uint32_t get_u32(const unsigned char *p)
{
	uint32_t v = 0;
	for (int i = 3; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static uint64_t get_u64(const unsigned char *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static uint32_t crc(const void *p, size_t n)
{
	uLong c = crc32(0L, Z_NULL, 0);
	const unsigned char *b = p;
	/* zlib takes a uInt length */
	while (n) {
		uInt k = n > 1u << 30 ? 1u << 30 : (uInt)n;
		c = crc32(c, b, k);
		b += k;
		n -= k;
	}
	return (uint32_t)c;
}

/* ---- writing a record ---- */

void plog_rec_start(struct plog_rec *r, int64_t pexec_id)
{
	sb_reset(&r->b);
	sb_grow(&r->b, PLOG_BLOCK);
	unsigned char h[PLOG_HDR] = { 0 };
	put_u64(h + 24, (uint64_t)pexec_id);
	sb_add(&r->b, h, sizeof(h));
	r->count_at = 0;
	r->len = 0;
}

void plog_rec_op(struct plog_rec *r, int stmt)
{
	sb_addc(&r->b, (char)stmt);
	sb_addc(&r->b, 0);
	r->count_at = r->b.len - 1;
}

/* one more value in the current op: its type byte */
static void value(struct plog_rec *r, int type)
{
	unsigned char *count = (unsigned char *)r->b.buf + r->count_at;
	if (!r->count_at || *count >= PLOG_MAXVALS)
		kiln_die(KEXIT_FAIL, "pexec log: a value outside an op, or more than %d in one", PLOG_MAXVALS);
	(*count)++;
	sb_addc(&r->b, (char)type);
}

static void add_u64(struct plog_rec *r, uint64_t v)
{
	unsigned char b[8];
	put_u64(b, v);
	sb_add(&r->b, b, sizeof(b));
}

void plog_rec_int(struct plog_rec *r, int64_t v)
{
	value(r, 1);
	add_u64(r, (uint64_t)v);
}

void plog_rec_real(struct plog_rec *r, double v)
{
	uint64_t u;
	memcpy(&u, &v, sizeof(u));
	value(r, 2);
	add_u64(r, u);
}

static void bytes(struct plog_rec *r, int type, const void *p, size_t n)
{
	if (n > UINT32_MAX)
		kiln_die(KEXIT_FAIL, "pexec log: a value of %zu bytes", n);
	unsigned char b[4];
	value(r, type);
	put_u32(b, (uint32_t)n);
	sb_add(&r->b, b, sizeof(b));
	sb_add(&r->b, p, n);
}

void plog_rec_text(struct plog_rec *r, const char *s)
{
	if (s)
		bytes(r, 3, s, strlen(s));
	else
		value(r, 5);
}

void plog_rec_blob(struct plog_rec *r, const void *p, size_t n)
{
	if (p)
		bytes(r, 4, p, n);
	else
		value(r, 5);
}

void plog_rec_finish(struct plog_rec *r, uint64_t gen, uint64_t num, uint32_t table)
{
	unsigned char *h = (unsigned char *)r->b.buf;
	size_t len = r->b.len - PLOG_HDR;
	r->len = len;
	memcpy(h, magic, sizeof(magic));
	put_u64(h + 8, gen);
	put_u64(h + 16, num);
	put_u32(h + 32, table);
	put_u32(h + 36, (uint32_t)len);
	put_u32(h + 4, crc(h + 8, r->b.len - 8));
	size_t pad = (PLOG_BLOCK - r->b.len % PLOG_BLOCK) % PLOG_BLOCK;
	sb_grow(&r->b, pad);
	memset(r->b.buf + r->b.len, 0, pad);
	r->b.len += pad;
	r->b.buf[r->b.len] = '\0';
}

void plog_rec_release(struct plog_rec *r)
{
	sb_release(&r->b);
	r->count_at = 0;
	r->len = 0;
}

/* ---- reading one back ---- */

int plog_next_op(const unsigned char **cur, const unsigned char *end, struct plog_op *op)
{
	const unsigned char *p = *cur;
	if (p == end)
		return 0;
	if (end - p < 2)
		return -1;
	op->stmt = p[0];
	op->n = p[1];
	p += 2;
	if (op->n > PLOG_MAXVALS)
		return -1;
	for (int i = 0; i < op->n; i++) {
		struct plog_val *v = &op->v[i];
		memset(v, 0, sizeof(*v));
		if (p == end)
			return -1;
		v->type = *p++;
		if (v->type == 1 || v->type == 2) {
			if (end - p < 8)
				return -1;
			uint64_t u = get_u64(p);
			p += 8;
			if (v->type == 1)
				v->i = (int64_t)u;
			else
				memcpy(&v->d, &u, sizeof(u));
		} else if (v->type == 3 || v->type == 4) {
			if (end - p < 4)
				return -1;
			v->n = get_u32(p);
			p += 4;
			if ((size_t)(end - p) < v->n)
				return -1;
			v->p = p;
			p += v->n;
		} else if (v->type != 5) {
			return -1;
		}
	}
	*cur = p;
	return 1;
}

/* n bytes at `at`, whole, or -1 (a short read: the file ends) */
static int read_at(int fd, void *buf, size_t n, off_t at)
{
	size_t got = 0;
	while (got < n) {
		ssize_t k = pread(fd, (char *)buf + got, n - got, at + (off_t)got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return k < 0 ? -1 : 0;
		got += (size_t)k;
	}
	return 1;
}

/*
 * The record whose first bytes are at p (avail bytes of the file there,
 * at least a block; left: bytes to the file's end) if it is record num of
 * generation gen: 1 and *h, 0 when not, 2 when it runs past avail (its
 * size in h->size).
 */
static int parse_rec(const unsigned char *p, size_t avail, off_t left, uint64_t gen, uint64_t num, struct plog_hdr *h)
{
	if (memcmp(p, magic, sizeof(magic)) || get_u64(p + 8) != gen || get_u64(p + 16) != num)
		return 0;
	uint64_t len = get_u32(p + 36);
	if (len > PLOG_REC_MAX - PLOG_HDR)
		return 0;
	off_t size = (off_t)((PLOG_HDR + len + PLOG_BLOCK - 1) / PLOG_BLOCK * PLOG_BLOCK);
	if (size > left)
		return 0;
	h->size = size;
	if ((size_t)size > avail)
		return 2;
	if (crc(p + 8, PLOG_HDR - 8 + len) != get_u32(p + 4))
		return 0;
	h->pexec_id = (int64_t)get_u64(p + 24);
	h->table = get_u32(p + 32);
	h->payload = p + PLOG_HDR;
	h->len = (size_t)len;
	return 1;
}

/* bytes [at, at + n) of the file (n cut at its end) into the reader's buffer: 1, 0 past the end, -1 */
static int window(struct plog_reader *rd, off_t at, size_t n)
{
	if ((off_t)n > rd->limit - at)
		n = (size_t)(rd->limit - at);
	sb_reset(rd->buf);
	sb_grow(rd->buf, n);
	int r = read_at(rd->fd, rd->buf->buf, n, at);
	if (r <= 0)
		return r;
	rd->buf->len = n;
	rd->at = at;
	return 1;
}

int plog_read_next(struct plog_reader *rd, off_t at, uint64_t gen, uint64_t num, struct plog_hdr *h)
{
	if (at < 0 || rd->limit - at < PLOG_BLOCK)
		return 0;
	size_t ahead = rd->ahead > PLOG_BLOCK ? rd->ahead : PLOG_BLOCK;
	if (!(rd->buf->len && at >= rd->at && at - rd->at + PLOG_BLOCK <= (off_t)rd->buf->len)) {
		int w = window(rd, at, ahead);
		if (w <= 0)
			return w;
	}
	size_t off = (size_t)(at - rd->at);
	int r = parse_rec((const unsigned char *)rd->buf->buf + off, rd->buf->len - off, rd->limit - at, gen, num, h);
	if (r != 2)
		return r;
	/* it runs past the window: a window from it, as long as it is */
	int w = window(rd, at, (size_t)h->size > ahead ? (size_t)h->size : ahead);
	if (w <= 0)
		return w;
	r = parse_rec((const unsigned char *)rd->buf->buf, rd->buf->len, rd->limit - at, gen, num, h);
	return r == 1 ? 1 : 0;
}

int plog_read(int fd, off_t at, off_t limit, uint64_t gen, uint64_t num, struct strbuf *buf, struct plog_hdr *h)
{
	struct plog_reader rd = { fd, limit, 0, PLOG_BLOCK, buf };
	sb_reset(buf);
	return plog_read_next(&rd, at, gen, num, h);
}

/* ---- the file ---- */

static int io_error(const struct plog *l, struct kerr *e, const char *what)
{
	if (errno == ENOSPC)
		return kerr_setc(e, KEXIT_STORE, "%s: %s: the disk is full", l->path, what);
	return kerr_setc(e, KEXIT_STORE, "%s: %s: %s", l->path, what, strerror(errno));
}

/*
 * The file grown to `want` bytes with zeros, flushed when `flush` (so
 * that a record's own flush later carries no block allocation), or left
 * as it was.
 */
static int grow(struct plog *l, off_t want, int flush)
{
	for (off_t at = l->size; at < want;) {
		ssize_t k = pwrite_zeros(l->fd, at, (size_t)(want - at < 65536 ? want - at : 65536));
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			int err = k < 0 ? errno : ENOSPC;
			/* give the space back: the zeros would only take room from the results */
			if (ftruncate(l->fd, l->size) < 0) {
				/* they stay; records are written into them all the same */
			}
			errno = err;
			return -1;
		}
		at += k;
	}
	if (flush && fdatasync(l->fd) < 0)
		return -1;
	l->size = want;
	return 0;
}

/* the folder of path flushed: a new file's name survives a power loss too */
static int flush_folder(const char *path)
{
	char *dir = path_dirname(path);
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	free(dir);
	if (fd < 0)
		return -1;
	int r = fsync(fd);
	close(fd);
	return r;
}

int plog_open(struct plog *l, const char *path, mode_t mode, off_t reserve, struct kerr *e)
{
	l->path = xstrdup(path);
	int created = 1;
	/* O_NONBLOCK: a FIFO put there must not hang kiln; it is refused below */
	l->fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, mode);
	if (l->fd < 0 && errno == EEXIST) {
		created = 0;
		l->fd = open(path, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	}
	struct stat sb;
	if (l->fd < 0 && errno == ELOOP) {
		kerr_setc(e, KEXIT_STORE, "%s: a symbolic link (not followed): not kiln's pexec log; move it away", path);
		plog_close(l, 0);
		return -1;
	}
	if (l->fd < 0 || fstat(l->fd, &sb) < 0) {
		int r = io_error(l, e, "cannot open");
		plog_close(l, 0);
		return r;
	}
	if (!S_ISREG(sb.st_mode) || sb.st_uid != geteuid() || sb.st_nlink != 1) {
		kerr_setc(e, KEXIT_STORE, "%s: %s: not kiln's pexec log; move it away", path,
			  !S_ISREG(sb.st_mode) ? "not a regular file" : sb.st_uid != geteuid() ? "owned by another user"
			  : "a file with another name too (a hard link)");
		plog_close(l, 0);
		return -1;
	}
	/* readers see a writer at work (store.c); the writer's own lock on the results excludes other writers */
	if (flock(l->fd, LOCK_EX) < 0 || (created && flush_folder(path) < 0)) {
		int r = io_error(l, e, "cannot lock");
		plog_close(l, created);
		return r;
	}
	l->size = sb.st_size / PLOG_BLOCK * PLOG_BLOCK;
	l->end = 0;
	l->num = 0;
	reserve = (reserve + PLOG_BLOCK - 1) / PLOG_BLOCK * PLOG_BLOCK;
	if (l->size < reserve && grow(l, reserve, 1) < 0) {
		int r = io_error(l, e, "cannot reserve its space");
		plog_close(l, created);
		return r;
	}
	return 0;
}

int plog_room(const struct plog *l, size_t len)
{
	return l->end + (off_t)len <= PLOG_CAP;
}

int plog_append(struct plog *l, const struct plog_rec *r, int durable, struct kerr *e)
{
	off_t need = l->end + (off_t)r->b.len;
	if (need > l->size) {
		off_t want = l->size * 2 > need ? l->size * 2 : need;
		if (want > PLOG_CAP && need <= PLOG_CAP)
			want = PLOG_CAP;
		if (grow(l, want, durable) < 0 && (want == need || grow(l, need, durable) < 0))
			return io_error(l, e, "cannot grow");
	}
	for (size_t done = 0; done < r->b.len;) {
		ssize_t k = pwrite(l->fd, r->b.buf + done, r->b.len - done, l->end + (off_t)done);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return io_error(l, e, "cannot write a record");
		done += (size_t)k;
	}
	if (durable && fdatasync(l->fd) < 0)
		return io_error(l, e, "cannot flush a record");
	l->end = need;
	l->num++;
	return 0;
}

void plog_trim(struct plog *l)
{
	if (l->fd >= 0 && l->size > l->end && ftruncate(l->fd, l->end) == 0)
		l->size = l->end;
}

void plog_restart(struct plog *l, uint64_t gen)
{
	l->gen = gen;
	l->num = 0;
	l->end = 0;
}

void plog_close(struct plog *l, int remove)
{
	if (l->fd >= 0) {
		if (remove && l->path)
			unlink(l->path);
		close(l->fd);
	}
	l->fd = -1;
	free(l->path);
	l->path = NULL;
}

long plog_count(const char *path, uint64_t gen)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat sb;
	if (fd < 0)
		return 0;
	if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode) || sb.st_nlink != 1) {
		close(fd);
		return 0;
	}
	if (flock(fd, LOCK_SH | LOCK_NB) < 0) {
		close(fd);
		return -1;
	}
	struct strbuf buf = STRBUF_INIT;
	struct plog_hdr h;
	long n = 0;
	for (off_t at = 0; plog_read(fd, at, sb.st_size, gen, (uint64_t)n, &buf, &h) == 1; at += h.size)
		n++;
	sb_release(&buf);
	close(fd);
	return n;
}

char *plog_path(const char *results)
{
	return xasprintf("%s-log", results);
}

uint32_t plog_table_id(const char *const *sql, size_t n)
{
	uLong c = crc32(0L, Z_NULL, 0);
	for (size_t i = 0; i < n; i++)
		c = crc32(c, (const Bytef *)sql[i], (uInt)strlen(sql[i]) + 1);
	return (uint32_t)c;
}
