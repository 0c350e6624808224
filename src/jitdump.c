/*
 * jitdump.c - the jitdump parser jitdump.h describes.  Every length in the
 * file is checked against the buffer before it is used: a record that runs
 * past the end stops the walk (the file is `truncated`, the loads before it
 * stand); a record whose own size cannot hold its body is an error naming
 * its offset.
 */
#include "jitdump.h"

#include <stdlib.h>
#include <string.h>

static uint32_t rd32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}

static uint64_t rd64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

int jitdump_parse(const void *buf, size_t n, struct jitdump *jd, struct kerr *e)
{
	const uint8_t *b = buf;
	memset(jd, 0, sizeof(*jd));
	if (n < 4)
		return kerr_setc(e, KEXIT_CONFIG, "not a jitdump: %zu bytes", n);
	uint32_t magic = rd32(b);
	if (magic == JITDUMP_MAGIC_SWAPPED)
		return kerr_setc(e, KEXIT_CONFIG, "jitdump written with the other byte order (magic %#x): "
				 "annotate it on a machine of that endianness", magic);
	if (magic != JITDUMP_MAGIC)
		return kerr_setc(e, KEXIT_CONFIG, "not a jitdump: magic %#x, expected %#x", magic, JITDUMP_MAGIC);
	if (n < 40)
		return kerr_setc(e, KEXIT_CONFIG, "jitdump header truncated: %zu of 40 bytes", n);
	jd->version = rd32(b + 4);
	uint32_t hsize = rd32(b + 8);
	jd->elf_mach = rd32(b + 12);
	jd->pid = rd32(b + 20);
	jd->timestamp = rd64(b + 24);
	jd->flags = rd64(b + 32);
	if (hsize < 40 || hsize > n)
		return kerr_setc(e, KEXIT_CONFIG, "jitdump header: total_size %u (file has %zu bytes)", hsize, n);
	size_t off = hsize, alloc = 0;
	while (off < n) {
		if (n - off < 16) {
			jd->truncated = 1;
			break;
		}
		uint32_t id = rd32(b + off), size = rd32(b + off + 4);
		if (size < 16) {
			jitdump_free(jd);
			return kerr_setc(e, KEXIT_CONFIG, "jitdump record at offset %zu: total_size %u is too small", off, size);
		}
		if (size > n - off) {
			jd->truncated = 1;
			break;
		}
		jd->nrecords++;
		if (id == JIT_CODE_LOAD) {
			const uint8_t *r = b + off, *end = b + off + size;
			if (size < 16 + 40 + 1) {
				jitdump_free(jd);
				return kerr_setc(e, KEXIT_CONFIG, "jitdump JIT_CODE_LOAD at offset %zu: %u bytes cannot hold its body", off, size);
			}
			struct jd_load l;
			l.timestamp = rd64(r + 8);
			l.pid = rd32(r + 16);
			l.tid = rd32(r + 20);
			l.vma = rd64(r + 24);
			l.code_addr = rd64(r + 32);
			l.code_size = rd64(r + 40);
			l.code_index = rd64(r + 48);
			const uint8_t *name = r + 56;
			const uint8_t *nul = memchr(name, '\0', (size_t)(end - name));
			if (!nul || l.code_size > (uint64_t)(end - (nul + 1))) {
				jitdump_free(jd);
				return kerr_setc(e, KEXIT_CONFIG, "jitdump JIT_CODE_LOAD at offset %zu: name or code (%llu bytes) "
						 "runs past the record's %u bytes", off, (unsigned long long)l.code_size, size);
			}
			l.name = (const char *)name;
			l.code = nul + 1;
			l.record = jd->nrecords - 1;
			if (jd->nloads == alloc) {
				alloc = alloc ? alloc * 2 : 256;
				jd->loads = xrealloc(jd->loads, alloc * sizeof(*jd->loads));
			}
			jd->loads[jd->nloads++] = l;
		} else {
			jd->skipped++;
		}
		off += size;
	}
	return 0;
}

void jitdump_free(struct jitdump *jd)
{
	free(jd->loads);
	jd->loads = NULL;
	jd->nloads = 0;
}

int jitdump_write_kept(const void *buf, size_t n, const struct jitdump *jd, const unsigned char *keep, const char *path,
		       struct kerr *e)
{
	const uint8_t *b = buf;
	uint32_t hsize = rd32(b + 8);
	struct strbuf out = STRBUF_INIT;
	sb_add(&out, b, hsize);
	size_t k = 0;
	for (size_t off = hsize, r = 0; off + 16 <= n && r < jd->nrecords; r++) {
		uint32_t id = rd32(b + off), size = rd32(b + off + 4);
		if (id != JIT_CODE_LOAD || (k < jd->nloads && keep[k]))
			sb_add(&out, b + off, size);
		k += id == JIT_CODE_LOAD;
		off += size;
	}
	int ret = write_file(path, out.buf, out.len, e);
	sb_release(&out);
	return ret;
}
