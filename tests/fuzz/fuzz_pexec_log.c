/*
 * fuzz_pexec_log.c - libFuzzer target for the pexec log's reader
 * (src/store-log.c): a log beside a results file may come from anywhere, and
 * its last record may be torn.  An input whose first byte is odd is a
 * record's payload, walked op by op (the CRC keeps mutations of a whole
 * file from reaching it); otherwise its next 8 bytes are the generation the
 * reader expects and the rest the log file's bytes (in a memfd).  Records
 * are read in order as the fold reads them; each one's ops are walked to
 * their end or their first fault, and every value must lie inside its
 * record's payload.  A record that reads back is then rebuilt from its ops
 * with the writer's calls and must read back the same (the format is the
 * writer's and the reader's alike).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "store-log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int walk(const unsigned char *p, size_t len, struct plog_rec *copy)
{
	const unsigned char *cur = p, *end = p + len;
	struct plog_op op;
	int r, ops = 0;
	while ((r = plog_next_op(&cur, end, &op)) == 1) {
		if (cur < p || cur > end || op.n < 0 || op.n > PLOG_MAXVALS)
			abort();
		if (copy)
			plog_rec_op(copy, op.stmt);
		for (int i = 0; i < op.n; i++) {
			const struct plog_val *v = &op.v[i];
			if ((v->type == 3 || v->type == 4) &&
			    (v->n && ((const unsigned char *)v->p < p || (const unsigned char *)v->p + v->n > end)))
				abort();
			if (!copy)
				continue;
			switch (v->type) {
			case 1: plog_rec_int(copy, v->i); break;
			case 2: plog_rec_real(copy, v->d); break;
			case 3: {
				char *s = strndup(v->p ? v->p : "", v->n);
				if (strlen(s) == v->n)
					plog_rec_text(copy, s);
				else
					plog_rec_blob(copy, v->p, v->n);
				free(s);
				break;
			}
			case 4: plog_rec_blob(copy, v->p ? v->p : "", v->n); break;
			default: plog_rec_text(copy, NULL); break;
			}
		}
		ops++;
	}
	return r < 0 ? -1 : ops;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || size > (4u << 20))
		return 0;
	if (data[0] & 1) {
		walk(data + 1, size - 1, NULL);
		return 0;
	}
	data++;
	size--;
	if (size < 8)
		return 0;
	uint64_t gen;
	memcpy(&gen, data, 8);
	int fd = memfd_create("fuzz-plog", 0);
	if (fd < 0)
		return 0;
	if (size > 8 && write(fd, data + 8, size - 8) != (ssize_t)(size - 8)) {
		close(fd);
		return 0;
	}
	off_t at = 0, limit = (off_t)(size - 8);
	struct strbuf buf = STRBUF_INIT;
	for (uint64_t num = 0; num < 1024; num++) {
		struct plog_hdr h;
		if (plog_read(fd, at, limit, gen, num, &buf, &h) != 1)
			break;
		if (h.size <= 0 || at + h.size > limit + PLOG_BLOCK || h.len > PLOG_REC_MAX)
			abort();
		struct plog_rec copy = { STRBUF_INIT, 0, 0 };
		plog_rec_start(&copy, h.pexec_id);
		if (walk(h.payload, h.len, &copy) >= 0) {
			/* the writer's record of the same ops reads back as the same ops */
			plog_rec_finish(&copy, gen, 0, h.table);
			int fd2 = memfd_create("fuzz-plog-copy", 0);
			if (fd2 >= 0 && write(fd2, copy.b.buf, copy.b.len) == (ssize_t)copy.b.len) {
				struct strbuf b2 = STRBUF_INIT;
				struct plog_hdr h2;
				if (plog_read(fd2, 0, (off_t)copy.b.len, gen, 0, &b2, &h2) != 1 || h2.pexec_id != h.pexec_id ||
				    h2.table != h.table || walk(h2.payload, h2.len, NULL) < 0)
					abort();
				sb_release(&b2);
			}
			if (fd2 >= 0)
				close(fd2);
		}
		plog_rec_release(&copy);
		at += h.size;
	}
	sb_release(&buf);
	close(fd);
	return 0;
}
