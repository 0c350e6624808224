/*
 * jitdump.h - reading perf's jitdump format (/tmp/jit-PID.dump, written by
 * `node --perf-prof` and other JITs): a header, then records; kiln needs the
 * JIT_CODE_LOAD ones (name, address, size and the code bytes themselves) for
 * `kiln annotate`.  The parser takes a memory buffer (fuzzed by
 * tests/fuzz/fuzz_jitdump.c) and points into it: keep the buffer alive.
 *
 * Layout (host endianness; a byte-swapped magic is refused):
 *   header: u32 magic 0x4A695444 'JiTD', u32 version, u32 total_size,
 *           u32 elf_mach, u32 pad1, u32 pid, u64 timestamp, u64 flags
 *   record: u32 id, u32 total_size, u64 timestamp, then the body
 *   JIT_CODE_LOAD (id 0) body: u32 pid, u32 tid, u64 vma, u64 code_addr,
 *           u64 code_size, u64 code_index, NUL-terminated name, code bytes
 */
#ifndef KILN_JITDUMP_H
#define KILN_JITDUMP_H

#include <stddef.h>
#include <stdint.h>
#include "util.h"

#define JITDUMP_MAGIC 0x4A695444u
#define JITDUMP_MAGIC_SWAPPED 0x4454694Au
enum { JIT_CODE_LOAD = 0, JIT_CODE_MOVE = 1, JIT_CODE_DEBUG_INFO = 2, JIT_CODE_CLOSE = 3,
       JIT_CODE_UNWINDING_INFO = 4 };

struct jd_load {
	uint32_t pid, tid;
	uint64_t timestamp;
	uint64_t vma, code_addr, code_size, code_index;
	const char *name;        /* NUL-terminated, inside the buffer */
	const uint8_t *code;     /* code_size bytes, inside the buffer */
	size_t record;           /* ordinal of the record in the file */
};

struct jitdump {
	uint32_t version, elf_mach, pid;
	uint64_t timestamp, flags;
	struct jd_load *loads;
	size_t nloads;
	size_t nrecords;         /* all records read, loads included */
	size_t skipped;          /* records of other types */
	int truncated;           /* the file ends inside a record (a JIT still writing, a crash) */
};

/* parse buf[0..n); -1 with e set when it is not a usable jitdump */
int jitdump_parse(const void *buf, size_t n, struct jitdump *jd, struct kerr *e);
void jitdump_free(struct jitdump *jd);
/*
 * Write buf (parsed into jd) to path with only the loads whose keep[i] is
 * set (i in jd->loads order); the header and every other record as they are.
 */
int jitdump_write_kept(const void *buf, size_t n, const struct jitdump *jd, const unsigned char *keep, const char *path,
		       struct kerr *e);

#endif
