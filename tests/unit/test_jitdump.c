/*
 * test_jitdump.c - the jitdump parser (src/jitdump.c) on hand-built files:
 * loads with their names and code bytes, other record types skipped, a
 * file that ends inside a record (truncated, earlier loads kept), the other
 * byte order refused, and records whose sizes lie.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "jitdump.h"

static void put32(struct strbuf *b, uint32_t v) { sb_add(b, &v, 4); }
static void put64(struct strbuf *b, uint64_t v) { sb_add(b, &v, 8); }

static void header(struct strbuf *b, uint32_t magic)
{
	put32(b, magic);
	put32(b, 1);        /* version */
	put32(b, 40);       /* total_size */
	put32(b, 62);       /* EM_X86_64 */
	put32(b, 0);        /* pad1 */
	put32(b, 4242);     /* pid */
	put64(b, 1000);     /* timestamp */
	put64(b, 0);        /* flags */
}

static void load(struct strbuf *b, const char *name, uint64_t addr, const void *code, uint64_t size, uint64_t index)
{
	uint32_t total = (uint32_t)(16 + 40 + strlen(name) + 1 + size);
	put32(b, JIT_CODE_LOAD);
	put32(b, total);
	put64(b, 2000 + index);
	put32(b, 4242);
	put32(b, 4243);
	put64(b, addr);
	put64(b, addr);
	put64(b, size);
	put64(b, index);
	sb_add(b, name, strlen(name) + 1);
	sb_add(b, code, size);
}

static void other(struct strbuf *b, uint32_t id, uint32_t body)
{
	put32(b, id);
	put32(b, 16 + body);
	put64(b, 3000);
	for (uint32_t i = 0; i < body; i++)
		sb_addc(b, 'x');
}

static const uint8_t code1[] = { 0x55, 0x48, 0x89, 0xe5, 0x90, 0x90, 0x5d, 0xc3 }; /* push rbp; mov rbp,rsp; nop; nop; pop rbp; ret */

static void test_loads(void **state)
{
	(void)state;
	struct strbuf b = STRBUF_INIT;
	header(&b, JITDUMP_MAGIC);
	load(&b, "JS:*hot a.js:1:1", 0x7fff0000, code1, sizeof(code1), 7);
	other(&b, JIT_CODE_DEBUG_INFO, 24);
	load(&b, "JS:~cold a.js:9:1", 0x7fff1000, code1, 2, 8);
	other(&b, 99, 0); /* an unknown type: skipped by its size */
	struct jitdump jd;
	struct kerr e = KERR_INIT;
	assert_int_equal(jitdump_parse(b.buf, b.len, &jd, &e), 0);
	assert_int_equal(jd.pid, 4242);
	assert_int_equal(jd.elf_mach, 62);
	assert_int_equal(jd.nloads, 2);
	assert_int_equal(jd.nrecords, 4);
	assert_int_equal(jd.skipped, 2);
	assert_false(jd.truncated);
	assert_string_equal(jd.loads[0].name, "JS:*hot a.js:1:1");
	assert_true(jd.loads[0].code_addr == 0x7fff0000);
	assert_int_equal(jd.loads[0].code_size, sizeof(code1));
	assert_memory_equal(jd.loads[0].code, code1, sizeof(code1));
	assert_int_equal(jd.loads[0].code_index, 7);
	assert_int_equal(jd.loads[0].tid, 4243);
	assert_true(jd.loads[0].timestamp == 2007);
	assert_string_equal(jd.loads[1].name, "JS:~cold a.js:9:1");
	assert_int_equal(jd.loads[1].code_size, 2);
	assert_int_equal(jd.loads[1].record, 2);
	jitdump_free(&jd);

	/* cut inside the last load: truncated, the first load stands */
	size_t full = b.len;
	b.len = full - 16 - 10;
	assert_int_equal(jitdump_parse(b.buf, b.len, &jd, &e), 0);
	assert_true(jd.truncated);
	assert_int_equal(jd.nloads, 1);
	jitdump_free(&jd);
	sb_release(&b);
	kerr_release(&e);
}

static void test_refused(void **state)
{
	(void)state;
	struct strbuf b = STRBUF_INIT;
	struct jitdump jd;
	struct kerr e = KERR_INIT;
	header(&b, JITDUMP_MAGIC_SWAPPED);
	assert_int_equal(jitdump_parse(b.buf, b.len, &jd, &e), -1);
	assert_non_null(strstr(sb_str(&e.msg), "other byte order"));
	sb_reset(&b);
	kerr_release(&e);

	assert_int_equal(jitdump_parse("ELF\x7f", 4, &jd, &e), -1);
	assert_non_null(strstr(sb_str(&e.msg), "not a jitdump"));
	kerr_release(&e);

	/* a record claiming fewer bytes than a record header */
	header(&b, JITDUMP_MAGIC);
	put32(&b, JIT_CODE_LOAD);
	put32(&b, 8);
	put64(&b, 0);
	assert_int_equal(jitdump_parse(b.buf, b.len, &jd, &e), -1);
	assert_non_null(strstr(sb_str(&e.msg), "offset 40"));
	kerr_release(&e);

	/* a load whose code_size runs past its record */
	sb_reset(&b);
	header(&b, JITDUMP_MAGIC);
	load(&b, "f", 0x1000, code1, sizeof(code1), 1);
	uint64_t big = 1000;
	memcpy(b.buf + 40 + 16 + 24, &big, 8); /* code_size */
	assert_int_equal(jitdump_parse(b.buf, b.len, &jd, &e), -1);
	assert_non_null(strstr(sb_str(&e.msg), "runs past"));
	kerr_release(&e);

	/* a name without its NUL */
	sb_reset(&b);
	header(&b, JITDUMP_MAGIC);
	put32(&b, JIT_CODE_LOAD);
	put32(&b, 16 + 40 + 3);
	put64(&b, 0);
	for (int i = 0; i < 40; i++)
		sb_addc(&b, 0);
	sb_add(&b, "abc", 3);
	memset(b.buf + 40 + 16 + 32, 0, 8); /* code_size 0 */
	assert_int_equal(jitdump_parse(b.buf, b.len, &jd, &e), -1);
	kerr_release(&e);

	/* header total_size beyond the file */
	sb_reset(&b);
	header(&b, JITDUMP_MAGIC);
	uint32_t hs = 4096;
	memcpy(b.buf + 8, &hs, 4);
	assert_int_equal(jitdump_parse(b.buf, b.len, &jd, &e), -1);
	assert_non_null(strstr(sb_str(&e.msg), "total_size 4096"));
	kerr_release(&e);
	sb_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_loads),
		cmocka_unit_test(test_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
