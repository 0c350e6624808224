/*
 * cmd-annotate.c - `kiln annotate PROFILE_DIR SYMBOL`: instruction-level
 * sample counts for one JIT'd function, the modern form of the JIT notes'
 * annotate tool.
 *
 *   DIR/jit/jit-*.dump (the VM's, or the one kiln wrote from PyPy's or
 *     LuaJIT's log) ──jitdump_parse──▶ JIT_CODE_LOAD records named SYMBOL
 *   DIR/perf-script-leaf.txt (kiln profile wrote it) ──pscript_parse──▶ sample IPs
 *   each sample in [code_addr, code_addr+size) ──▶ its instruction (capstone)
 *
 * A function compiled several times has several loads; the one with most
 * samples is shown unless --index picks one.  Code addresses are reused
 * after a function dies, so a sample counts for a load only if no later load
 * (by time, before the sample) covers the same address.
 *
 * The profile folder may come from elsewhere: every input is bounded (files
 * read, loads compared, code disassembled, the comparisons' work), and a
 * jitdump past a bound is refused with the bound's name
 * (docs/security.md#bounds).
 */
#include <capstone/capstone.h>
#include <dirent.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "annotate.h"
#include "cmd.h"
#include "exec.h"
#include "jitdump.h"
#include "perfscript.h"

static int cmd_annotate(int argc, char **argv);

const struct cmd_entry cmd_annotate_entry = {
	.name = "annotate",
	.usage = "PROFILE_DIR SYMBOL [--index N] [--hot N] [--json]",
	.summary = "instruction-level sample counts of a JIT'd function (jitdump + capstone)",
	.help = "PROFILE_DIR is a `kiln profile -o` directory (or, for a profile of several pexecs,\n"
		"one of its pexec-K folders): its jit/jit-PID.dump and perf-script-leaf.txt.\n"
		"SYMBOL is the JIT'd function's name as the profile shows it (e.g. 'JS:*advance ...',\n"
		"'pypy:Loop 4 (...)', 'luajit:trace 1 (...)'), or a unique part of it.\n"
		"  --index N    the code load with code_index N (a function recompiled several times)\n"
		"  --hot N      instructions marked hot (default 5)\n"
		"  --json       print JSON\n"
		"The marker column '>' shows the hottest instructions; colour on a terminal only.\n",
	.exec = cmd_annotate,
};

#define ANN_MAX_DUMPS 4096            /* jitdumps in a profile folder */
#define ANN_MAX_DUMP_MB 2048L         /* bytes of one jitdump */
#define ANN_MAX_SCRIPT_MB 4096L       /* bytes of perf-script-leaf.txt */
#define ANN_MAX_LOADS 4096            /* code loads of the symbol compared */
#define ANN_MAX_CODE_MB 16            /* bytes of code of one load (JIT'd functions are KiBs) */
#define ANN_MAX_WORK 100000000LL      /* loads and samples looked at while counting */

struct cand {
	const struct jd_load *l;
	const struct jitdump *jd;
	long samples;
	long *per;   /* per byte offset of the code */
};

/* everything one annotation reads */
struct ann {
	const char *dir;
	struct strvec dumps;     /* paths of the jitdumps */
	struct strbuf *bufs;     /* their bytes (the loads point into them) */
	struct jitdump *jds;
	size_t nd;
	struct pscript ps;
	struct cand *c;
	size_t nc, cap;
};

/* the samples of the profile: perf-script-leaf.txt (every sample's IP), perf-script.txt, or perf script */
static int load_samples(const char *dir, struct pscript *ps, struct kerr *e)
{
	static const char *const names[] = { "perf-script-leaf.txt", "perf-script.txt" };
	struct strbuf b = STRBUF_INIT;
	int r = 1;
	for (size_t i = 0; i < ARRAY_SIZE(names) && r == 1; i++) {
		char *path = path_join(dir, names[i]);
		if (file_exists(path))
			r = read_file_zst(path, (size_t)ANN_MAX_SCRIPT_MB << 20, &b, e);
		free(path);
	}
	if (r == 1) {
		char *data = path_join(dir, "perf.data");
		char *argv[] = { "perf", "script", "-i", data, "-F", "comm,pid,tid,time,event,ip", "--ns", "-G", NULL };
		struct exec_result res;
		r = exec_simple(argv, 3600, &res, e);
		if (r == 0 && (!res.exited || res.status))
			r = kerr_set(e, "%s: no perf-script-leaf.txt, and perf script -i %s failed: %s", dir, data,
				     sb_str(&res.err));
		if (r == 0) {
			sb_add(&b, res.out.buf ? res.out.buf : "", res.out.len);
			if (res.out_bytes != res.out.len)
				r = kerr_set(e, "%s: perf-script-leaf.txt missing and perf script output too large to capture", dir);
		}
		if (r == 0 || res.out.buf)
			exec_result_release(&res);
		free(data);
	}
	if (r == 0)
		pscript_parse(ps, sb_str(&b), b.len);
	sb_release(&b);
	return r;
}

/* the jitdumps of DIR/jit (and, from older profiles, DIR), parsed */
static int ann_read_dumps(struct ann *a, struct kerr *e)
{
	char *sub = path_join(a->dir, "jit");
	const char *where[] = { sub, a->dir };
	int pexecs = 0;
	for (size_t w = 0; w < ARRAY_SIZE(where); w++) {
		DIR *d = opendir(where[w]);
		struct dirent *de;
		while (d && (de = readdir(d))) {
			if (star_match("jit-*.dump", de->d_name) && a->dumps.n < ANN_MAX_DUMPS) {
				char *p = path_join(where[w], de->d_name);
				sv_push(&a->dumps, p);
				free(p);
			}
			pexecs += star_match("pexec-*", de->d_name);
		}
		if (d)
			closedir(d);
	}
	free(sub);
	if (!a->dumps.n && pexecs)
		return kerr_setc(e, KEXIT_USAGE, "%s: a profile of several pexecs: annotate one of its pexec-K folders", a->dir);
	if (!a->dumps.n)
		return kerr_setc(e, KEXIT_CONFIG, "%s: no jit/jit-PID.dump (profile a VM that writes one, or PyPy or LuaJIT)",
				 a->dir);
	a->nd = a->dumps.n;
	a->bufs = xcalloc(a->nd, sizeof(*a->bufs));
	a->jds = xcalloc(a->nd, sizeof(*a->jds));
	for (size_t i = 0; i < a->nd; i++) {
		const char *p = a->dumps.v[i];
		if (read_file_zst(p, (size_t)ANN_MAX_DUMP_MB << 20, &a->bufs[i], e) < 0 ||
		    jitdump_parse(a->bufs[i].buf, a->bufs[i].len, &a->jds[i], e) < 0)
			return kerr_wrap(e, "%s", p);
		if (a->jds[i].truncated)
			kiln_warn("%s: truncated (the JIT was still writing it); the records before the end are used", p);
	}
	return 0;
}

/* the loads of SYMBOL: exact name first, else a unique substring match */
static int ann_find(struct ann *a, const char *symbol, long index, struct kerr *e)
{
	for (int pass = 0; pass < 2 && !a->nc; pass++) {
		for (size_t i = 0; i < a->nd; i++)
			for (size_t j = 0; j < a->jds[i].nloads; j++) {
				const struct jd_load *l = &a->jds[i].loads[j];
				if (pass == 0 ? strcmp(l->name, symbol) : !strstr(l->name, symbol))
					continue;
				if (index >= 0 && l->code_index != (uint64_t)index)
					continue;
				if (a->nc >= ANN_MAX_LOADS)
					return kerr_setc(e, KEXIT_USAGE, "'%s' has more than %d code loads (ANN_MAX_LOADS): pick one "
							 "with --index", esc(ESC_TERM, symbol), ANN_MAX_LOADS);
				if (l->code_size > (uint64_t)ANN_MAX_CODE_MB << 20)
					return kerr_setc(e, KEXIT_CONFIG, "%s: code load %llu of '%s' holds %llu bytes, more than "
							 "%d MiB of JIT'd code (ANN_MAX_CODE_MB)", a->dumps.v[i],
							 (unsigned long long)l->code_index, esc(ESC_TERM, l->name),
							 (unsigned long long)l->code_size, ANN_MAX_CODE_MB);
				if (a->nc == a->cap) { /* doubled: see ann_count */
					a->cap = a->cap ? a->cap * 2 : 16;
					a->c = xrealloc(a->c, a->cap * sizeof(*a->c));
				}
				a->c[a->nc++] = (struct cand){ l, &a->jds[i], 0, xcalloc(l->code_size ? l->code_size : 1, sizeof(long)) };
			}
		for (size_t k = 1; pass == 1 && k < a->nc; k++)
			if (strcmp(a->c[k].l->name, a->c[0].l->name))
				return kerr_setc(e, KEXIT_USAGE, "'%s' matches several functions ('%s', '%s', ...): give the full name",
						 esc(ESC_TERM, symbol), esc(ESC_TERM, a->c[0].l->name), esc(ESC_TERM, a->c[k].l->name));
	}
	if (!a->nc)
		return kerr_setc(e, KEXIT_USAGE, "%s: no JIT_CODE_LOAD named '%s'%s in %zu jitdump(s)", a->dir,
				 esc(ESC_TERM, symbol), index >= 0 ? " with that --index" : "", a->nd);
	return 0;
}

/* candidate k: the samples in its range not taken by a later load; -1 past ANN_MAX_WORK */
static int ann_count(struct ann *a, size_t k, long long *work, struct kerr *e)
{
	const struct jd_load *l = a->c[k].l;
	uint64_t lo = l->code_addr, hi = l->code_addr + l->code_size;
	/* the loads that later reuse part of this range */
	const struct jd_load **later = NULL;
	size_t nl = 0, cap = 0;
	for (size_t i = 0; i < a->nd; i++)
		*work += (long long)a->jds[i].nloads;
	*work += (long long)a->ps.n;
	if (*work > ANN_MAX_WORK)
		return kerr_setc(e, KEXIT_CONFIG, "%s: more loads and samples than kiln annotate compares (%lld, "
				 "ANN_MAX_WORK): pick one load with --index", a->dir, ANN_MAX_WORK);
	for (size_t i = 0; i < a->nd; i++)
		for (size_t j = 0; j < a->jds[i].nloads; j++) {
			const struct jd_load *m = &a->jds[i].loads[j];
			if (m != l && m->pid == l->pid && m->timestamp >= l->timestamp && m->code_addr < hi &&
			    m->code_addr + m->code_size > lo && (m->timestamp > l->timestamp || m->record > l->record)) {
				if (nl == cap) { /* grown by doubling: one realloc per load is quadratic copying under ASan */
					cap = cap ? cap * 2 : 64;
					later = xrealloc(later, cap * sizeof(*later));
				}
				later[nl++] = m;
			}
		}
	for (size_t s = 0; s < a->ps.n; s++) {
		const struct ps_sample *x = &a->ps.s[s];
		if (x->ip < lo || x->ip >= hi || (x->pid > 0 && (uint32_t)x->pid != l->pid))
			continue;
		if (x->t_ns >= 0 && (uint64_t)x->t_ns < l->timestamp)
			continue; /* before this code existed */
		if (*work > ANN_MAX_WORK) {
			free(later);
			return kerr_setc(e, KEXIT_CONFIG, "%s: %zu later code loads overlap '%s': more than kiln annotate "
					 "compares (ANN_MAX_WORK); pick one load with --index", a->dir, nl,
					 esc(ESC_TERM, l->name));
		}
		int taken = 0;
		size_t m = 0;
		for (; m < nl && !taken; m++)
			taken = x->ip >= later[m]->code_addr && x->ip < later[m]->code_addr + later[m]->code_size &&
				(x->t_ns < 0 || (uint64_t)x->t_ns >= later[m]->timestamp);
		*work += (long long)m;
		if (taken)
			continue;
		a->c[k].per[x->ip - lo]++;
		a->c[k].samples++;
	}
	free(later);
	return 0;
}

static int is_nop(const cs_insn *in)
{
	return !strncmp(in->mnemonic, "nop", 3) || (!strcmp(in->mnemonic, "xchg") && !strcmp(in->op_str, "ax, ax"));
}

static int cmp_long_desc(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;
	return x < y ? 1 : x > y ? -1 : 0;
}

/* the samples of each instruction of a candidate, and the count from which one is hot */
static long *insn_counts(csh cs, cs_insn *in, const struct cand *c, int hot, size_t *ninsn, long *thresh)
{
	const struct jd_load *l = c->l;
	const uint8_t *code = l->code;
	size_t size = l->code_size, cap = 0;
	uint64_t addr = l->code_addr;
	long *icount = NULL;
	*ninsn = 0;
	while (cs_disasm_iter(cs, &code, &size, &addr, in)) {
		if (*ninsn == cap) {
			cap = cap ? cap * 2 : 256;
			icount = xrealloc(icount, cap * sizeof(*icount));
		}
		long n = 0;
		for (size_t b = 0; b < in->size; b++)
			n += c->per[in->address - l->code_addr + b];
		icount[(*ninsn)++] = n;
	}
	/* the hot threshold: the hot-th largest non-zero instruction count */
	*thresh = 1;
	if (*ninsn) {
		long *sorted = xmalloc(*ninsn * sizeof(long));
		memcpy(sorted, icount, *ninsn * sizeof(long));
		qsort(sorted, *ninsn, sizeof(long), cmp_long_desc);
		*thresh = sorted[(size_t)hot - 1 < *ninsn ? (size_t)hot - 1 : *ninsn - 1];
		if (*thresh < 1)
			*thresh = 1;
		free(sorted);
	}
	return icount;
}

/* what is printed: one line per instruction, a run of nops as one line */
struct ann_out {
	FILE *f;
	int json;
	json_t *insns;
	long total, thresh;
	const char *hotc, *off;
};

static double share(long n, long total)
{
	return total ? 100.0 * (double)n / (double)total : 0.0;
}

static void out_nops(struct ann_out *o, uint64_t addr, long n, long count, long bytes)
{
	int h = count >= o->thresh;
	if (o->json)
		json_array_append_new(o->insns, json_pack("{s:I,s:I,s:f,s:s,s:I,s:I,s:b}", "addr", (json_int_t)addr, "samples",
							  (json_int_t)count, "percent", share(count, o->total), "asm", "nop",
							  "nops", (json_int_t)n, "bytes", (json_int_t)bytes, "hot", h));
	else
		fprintf(o->f, "%c %s%-16llx %7ld %6.2f%%  ... %ld nop%s (%ld bytes)%s\n", h ? '>' : ' ', h ? o->hotc : "",
			(unsigned long long)addr, count, share(count, o->total), n, n > 1 ? "s" : "", bytes, h ? o->off : "");
}

static void out_insn(struct ann_out *o, const cs_insn *in, long n)
{
	int h = n >= o->thresh;
	if (o->json) {
		char *a = xasprintf("%s%s%s", in->mnemonic, *in->op_str ? " " : "", in->op_str);
		json_array_append_new(o->insns, json_pack("{s:I,s:I,s:f,s:s,s:b}", "addr", (json_int_t)in->address, "samples",
							  (json_int_t)n, "percent", share(n, o->total), "asm", a, "hot", h));
		free(a);
	} else {
		fprintf(o->f, "%c %s%-16llx %7ld %6.2f%%  %s %s%s\n", h ? '>' : ' ', h ? o->hotc : "",
			(unsigned long long)in->address, n, share(n, o->total), in->mnemonic, in->op_str, h ? o->off : "");
	}
}

/* the disassembly with the counts; returns the bytes left undecoded */
static size_t out_listing(struct ann_out *o, csh cs, cs_insn *in, const struct jd_load *l, const long *icount)
{
	const uint8_t *code = l->code;
	size_t size = l->code_size, k = 0;
	uint64_t addr = l->code_addr, nop_addr = 0;
	long nop_n = 0, nop_count = 0, nop_bytes = 0;
	for (int more = 1; more;) {
		more = cs_disasm_iter(cs, &code, &size, &addr, in) ? 1 : 0;
		int nop = more && is_nop(in);
		if (nop_n && (!nop || !more)) {
			out_nops(o, nop_addr, nop_n, nop_count, nop_bytes);
			nop_n = nop_count = nop_bytes = 0;
		}
		if (!more)
			break;
		long n = icount[k++];
		if (nop) {
			if (!nop_n)
				nop_addr = in->address;
			nop_n++;
			nop_count += n;
			nop_bytes += in->size;
		} else {
			out_insn(o, in, n);
		}
	}
	if (size && !o->json)
		fprintf(o->f, "  (%zu bytes at %#llx do not disassemble: data or padding)\n", size, (unsigned long long)addr);
	return size;
}

static json_t *ann_header_json(const struct ann *a, const struct jd_load *l, long total)
{
	json_t *rep = json_object(), *loads = json_array();
	json_object_set_new(rep, "symbol", json_string(esc(ESC_JSON, l->name))); /* the JIT's name: untrusted */
	json_object_set_new(rep, "pid", json_integer(l->pid));
	json_object_set_new(rep, "code_index", json_integer((json_int_t)l->code_index));
	json_object_set_new(rep, "code_addr", json_integer((json_int_t)l->code_addr));
	json_object_set_new(rep, "code_size", json_integer((json_int_t)l->code_size));
	json_object_set_new(rep, "samples", json_integer(total));
	for (size_t k = 0; k < a->nc; k++)
		json_array_append_new(loads, json_pack("{s:I,s:I,s:I,s:I}", "code_index", (json_int_t)a->c[k].l->code_index,
						       "code_addr", (json_int_t)a->c[k].l->code_addr, "code_size",
						       (json_int_t)a->c[k].l->code_size, "samples", (json_int_t)a->c[k].samples));
	json_object_set_new(rep, "loads", loads);
	return rep;
}

static void ann_header_text(FILE *f, const struct ann *a, const struct jd_load *l, long total)
{
	fprintf(f, "%s\n  pid %u, code index %llu at %#llx, %llu bytes: %ld samples\n", esc(ESC_TERM, l->name), l->pid,
		(unsigned long long)l->code_index, (unsigned long long)l->code_addr, (unsigned long long)l->code_size, total);
	if (a->nc > 1) {
		fprintf(f, "  %zu loads of this name:", a->nc);
		for (size_t k = 0; k < a->nc; k++)
			fprintf(f, " #%llu %ld%s", (unsigned long long)a->c[k].l->code_index, a->c[k].samples,
				k + 1 < a->nc ? "," : "\n");
	}
	fprintf(f, "\n  %-16s %7s %7s  %s\n", "address", "samples", "%", "instruction");
}

/* the candidate with most samples, disassembled with its counts */
static int ann_show(struct ann *a, int hot, int json, struct kerr *e)
{
	size_t best = 0;
	for (size_t k = 1; k < a->nc; k++)
		if (a->c[k].samples > a->c[best].samples)
			best = k;
	const struct cand *c = &a->c[best];
	if (c->jd->elf_mach != 62)
		return kerr_setc(e, KEXIT_CONFIG, "jitdump machine %u: kiln annotate disassembles x86-64 (62) only",
				 c->jd->elf_mach);
	csh cs;
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK)
		return kerr_set(e, "capstone: cannot open the x86-64 disassembler");
	cs_insn *in = cs_malloc(cs);
	size_t ninsn;
	struct ann_out o = { stdout, json, json_array(), c->samples, 1, kiln_col(stdout, "\033[1;31m"),
			     kiln_col(stdout, "\033[0m") };
	long *icount = insn_counts(cs, in, c, hot, &ninsn, &o.thresh);
	json_t *rep = ann_header_json(a, c->l, c->samples);
	if (!json)
		ann_header_text(stdout, a, c->l, c->samples);
	size_t undecoded = out_listing(&o, cs, in, c->l, icount);
	json_object_set_new(rep, "undecoded_bytes", json_integer((json_int_t)undecoded));
	json_object_set_new(rep, "instructions", o.insns);
	if (json) {
		char *t = json_dumps(rep, JSON_INDENT(2) | JSON_ENSURE_ASCII);
		printf("%s\n", t);
		free(t);
	}
	json_decref(rep);
	free(icount);
	cs_free(in, 1);
	cs_close(&cs);
	return 0;
}

static void ann_release(struct ann *a)
{
	for (size_t k = 0; k < a->nc; k++)
		free(a->c[k].per);
	free(a->c);
	pscript_release(&a->ps);
	for (size_t i = 0; i < a->nd; i++) {
		jitdump_free(&a->jds[i]);
		sb_release(&a->bufs[i]);
	}
	free(a->jds);
	free(a->bufs);
	sv_clear(&a->dumps);
}

int annotate_profile(const char *dir, const char *symbol, long index, int hot, int json, struct kerr *e)
{
	DIR *d = opendir(dir);
	if (!d)
		return kerr_setc(e, KEXIT_USAGE, "%s: cannot open the profile directory", dir);
	closedir(d);
	struct ann a;
	memset(&a, 0, sizeof(a));
	a.dir = dir;
	pscript_init(&a.ps);
	int r = ann_read_dumps(&a, e);
	if (r == 0)
		r = ann_find(&a, symbol, index, e);
	if (r == 0)
		r = load_samples(dir, &a.ps, e);
	long long work = 0;
	for (size_t k = 0; r == 0 && k < a.nc; k++)
		r = ann_count(&a, k, &work, e);
	if (r == 0)
		r = ann_show(&a, hot, json, e);
	ann_release(&a);
	return r;
}

static int cmd_annotate(int argc, char **argv)
{
	const struct cmd_entry *c = &cmd_annotate_entry;
	if (cmd_wants_help(c, argc, argv))
		return 0;
	const char *dir = NULL, *sym = NULL;
	long index = -1, hot = 5;
	int json = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--index") && i + 1 < argc) {
			if (parse_long(argv[++i], &index) || index < 0)
				return cmd_usage_error(c, "--index: '%s' is not a code index", argv[i]);
		} else if (!strcmp(a, "--hot") && i + 1 < argc) {
			if (parse_long(argv[++i], &hot) || hot < 1 || hot > 100000)
				return cmd_usage_error(c, "--hot: '%s' is not a positive number", argv[i]);
		} else if (!strcmp(a, "--json"))
			json = 1;
		else if (a[0] == '-' && a[1] && !dir)
			return cmd_usage_error(c, "unknown option '%s'", a);
		else if (!dir)
			dir = a;
		else if (!sym)
			sym = a;
		else
			return cmd_usage_error(c, "unexpected argument '%s'", a);
	}
	if (!dir || !sym)
		return cmd_usage_error(c, "PROFILE_DIR and SYMBOL are required");
	struct kerr e = KERR_INIT;
	int r = annotate_profile(dir, sym, index, (int)hot, json, &e);
	if (r < 0) {
		kerr_print(&e);
		r = e.code ? e.code : KEXIT_FAIL;
	}
	kerr_release(&e);
	return r;
}
