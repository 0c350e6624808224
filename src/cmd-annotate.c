/*
 * cmd-annotate.c - `kiln annotate PROFILE_DIR SYMBOL`: instruction-level
 * sample counts for one JIT'd function, the modern form of the JIT notes'
 * annotate tool.
 *
 *   DIR/jit-*.dump ──jitdump_parse──▶ JIT_CODE_LOAD records named SYMBOL
 *   DIR/perf-script.txt (kiln profile wrote it) ──pscript_parse──▶ sample IPs
 *   each sample in [code_addr, code_addr+size) ──▶ its instruction (capstone)
 *
 * A function compiled several times has several loads; the one with most
 * samples is shown unless --index picks one.  Code addresses are reused
 * after a function dies, so a sample counts for a load only if no later load
 * (by time, before the sample) covers the same address.
 */
#include <capstone/capstone.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "exec.h"
#include "jitdump.h"
#include "profile.h"

static int cmd_annotate(int argc, char **argv);

const struct cmd_entry cmd_annotate_entry = {
	.name = "annotate",
	.usage = "PROFILE_DIR SYMBOL [--index N] [--hot N] [--json]",
	.summary = "instruction-level sample counts of a JIT'd function (jitdump + capstone)",
	.help = "PROFILE_DIR is a `kiln profile -o` directory (perf-script.txt and jit-PID.dump).\n"
		"SYMBOL is the JIT'd function's name as the profile shows it (e.g. 'JS:*advance ...'),\n"
		"or a unique part of it.\n"
		"  --index N    the code load with code_index N (a function recompiled several times)\n"
		"  --hot N      instructions marked hot (default 5)\n"
		"  --json       print JSON\n"
		"The marker column '>' shows the hottest instructions; colour on a terminal only.\n",
	.exec = cmd_annotate,
};

struct cand {
	const struct jd_load *l;
	long samples;
	long *per;   /* per byte offset of the code */
};

/* the samples of the profile, from perf-script.txt (or perf script on perf.data) */
static int load_samples(const char *dir, struct pscript *ps, struct kerr *e)
{
	char *path = path_join(dir, "perf-script.txt");
	struct strbuf b = STRBUF_INIT;
	int r;
	if (file_exists(path)) {
		r = read_file(path, &b, e);
	} else {
		char *data = path_join(dir, "perf.data");
		char *argv[] = { "perf", "script", "-i", data, "-F", "comm,pid,tid,time,event,ip", "--ns", "-G", NULL };
		struct exec_result res;
		r = exec_simple(argv, 3600, &res, e);
		if (r == 0 && (!res.exited || res.status))
			r = kerr_set(e, "%s: no perf-script.txt, and perf script -i %s failed: %s", dir, data, sb_str(&res.err));
		if (r == 0) {
			/* exec_simple bounds its capture; re-run into our buffer only if it all fit */
			sb_add(&b, res.out.buf ? res.out.buf : "", res.out.len);
			if (res.out_bytes != res.out.len)
				r = kerr_set(e, "%s: perf-script.txt missing and perf script output too large to capture", dir);
		}
		if (r == 0 || res.out.buf)
			exec_result_release(&res);
		free(data);
	}
	if (r == 0)
		pscript_parse(ps, sb_str(&b), b.len);
	sb_release(&b);
	free(path);
	return r;
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

static int annotate(const char *dir, const char *symbol, long index, int hot, int json, struct kerr *e)
{
	DIR *d = opendir(dir);
	if (!d)
		return kerr_setc(e, KEXIT_USAGE, "%s: cannot open the profile directory", dir);
	struct strvec dumps = STRVEC_INIT;
	struct dirent *de;
	while ((de = readdir(d)))
		if (star_match("jit-*.dump", de->d_name))
			sv_push(&dumps, de->d_name);
	closedir(d);
	if (!dumps.n) {
		sv_clear(&dumps);
		return kerr_setc(e, KEXIT_CONFIG, "%s: no jit-PID.dump (profile a VM that writes one: node --perf-prof)", dir);
	}
	size_t nd = dumps.n;
	struct strbuf *bufs = xcalloc(nd, sizeof(*bufs));
	struct jitdump *jds = xcalloc(nd, sizeof(*jds));
	struct pscript ps;
	pscript_init(&ps);
	struct cand *c = NULL;
	size_t nc = 0;
	int ret = -1;
	csh cs = 0;
	for (size_t i = 0; i < nd; i++) {
		char *p = path_join(dir, dumps.v[i]);
		if (read_file(p, &bufs[i], e) < 0 || jitdump_parse(bufs[i].buf, bufs[i].len, &jds[i], e) < 0) {
			kerr_wrap(e, "%s", p);
			free(p);
			goto out;
		}
		if (jds[i].truncated)
			kiln_warn("%s: truncated (the JIT was still writing it); the records before the end are used", p);
		free(p);
	}
	/* the loads of SYMBOL: exact name first, else a unique substring match */
	for (int pass = 0; pass < 2 && !nc; pass++) {
		for (size_t i = 0; i < nd; i++)
			for (size_t j = 0; j < jds[i].nloads; j++) {
				const struct jd_load *l = &jds[i].loads[j];
				if (pass == 0 ? strcmp(l->name, symbol) : !strstr(l->name, symbol))
					continue;
				if (index >= 0 && l->code_index != (uint64_t)index)
					continue;
				c = xrealloc(c, (nc + 1) * sizeof(*c));
				c[nc++] = (struct cand){ l, 0, xcalloc(l->code_size ? l->code_size : 1, sizeof(long)) };
			}
		if (pass == 1 && nc > 1)
			for (size_t k = 1; k < nc; k++)
				if (strcmp(c[k].l->name, c[0].l->name)) {
					kerr_setc(e, KEXIT_USAGE, "'%s' matches several functions ('%s', '%s', ...): give the full name",
						  symbol, esc(ESC_TERM, c[0].l->name), esc(ESC_TERM, c[k].l->name));
					goto out;
				}
	}
	if (!nc) {
		kerr_setc(e, KEXIT_USAGE, "%s: no JIT_CODE_LOAD named '%s'%s in %zu jitdump(s)", dir, symbol,
			  index >= 0 ? " with that --index" : "", nd);
		goto out;
	}
	if (load_samples(dir, &ps, e) < 0)
		goto out;

	/* count: for each candidate, the samples in its range not taken by a later load */
	for (size_t k = 0; k < nc; k++) {
		const struct jd_load *l = c[k].l;
		uint64_t lo = l->code_addr, hi = l->code_addr + l->code_size;
		/* the loads that later reuse part of this range */
		const struct jd_load **later = NULL;
		size_t nl = 0;
		for (size_t i = 0; i < nd; i++)
			for (size_t j = 0; j < jds[i].nloads; j++) {
				const struct jd_load *m = &jds[i].loads[j];
				if (m != l && m->pid == l->pid && m->timestamp >= l->timestamp && m->code_addr < hi &&
				    m->code_addr + m->code_size > lo && (m->timestamp > l->timestamp || m->record > l->record)) {
					later = xrealloc(later, (nl + 1) * sizeof(*later));
					later[nl++] = m;
				}
			}
		for (size_t s = 0; s < ps.n; s++) {
			const struct ps_sample *x = &ps.s[s];
			if (x->ip < lo || x->ip >= hi || (x->pid > 0 && (uint32_t)x->pid != l->pid))
				continue;
			if (x->t_ns >= 0 && (uint64_t)x->t_ns < l->timestamp)
				continue; /* before this code existed */
			int taken = 0;
			for (size_t m = 0; m < nl && !taken; m++)
				taken = x->ip >= later[m]->code_addr && x->ip < later[m]->code_addr + later[m]->code_size &&
					(x->t_ns < 0 || (uint64_t)x->t_ns >= later[m]->timestamp);
			if (taken)
				continue;
			c[k].per[x->ip - lo]++;
			c[k].samples++;
		}
		free(later);
	}
	size_t best = 0;
	for (size_t k = 1; k < nc; k++)
		if (c[k].samples > c[best].samples)
			best = k;
	const struct jd_load *l = c[best].l;
	const struct jitdump *jd = NULL;
	for (size_t i = 0; i < nd; i++)
		if (l >= jds[i].loads && l < jds[i].loads + jds[i].nloads)
			jd = &jds[i];
	if (jd->elf_mach != 62) {
		kerr_setc(e, KEXIT_CONFIG, "jitdump machine %u: kiln annotate disassembles x86-64 (62) only", jd->elf_mach);
		goto out;
	}
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK) {
		kerr_set(e, "capstone: cannot open the x86-64 disassembler");
		cs = 0;
		goto out;
	}
	long total = c[best].samples;

	/* the hot threshold: the hot-th largest non-zero instruction count */
	cs_insn *in = cs_malloc(cs);
	size_t ninsn = 0, cap = 0;
	long *icount = NULL;
	{
		const uint8_t *code = l->code;
		size_t size = l->code_size;
		uint64_t addr = l->code_addr;
		while (cs_disasm_iter(cs, &code, &size, &addr, in)) {
			if (ninsn == cap) {
				cap = cap ? cap * 2 : 256;
				icount = xrealloc(icount, cap * sizeof(*icount));
			}
			long n = 0;
			for (size_t b = 0; b < in->size; b++)
				n += c[best].per[in->address - l->code_addr + b];
			icount[ninsn++] = n;
		}
	}
	long thresh = 1;
	if (ninsn) {
		long *sorted = xmalloc(ninsn * sizeof(long));
		memcpy(sorted, icount, ninsn * sizeof(long));
		qsort(sorted, ninsn, sizeof(long), cmp_long_desc);
		thresh = sorted[(size_t)hot - 1 < ninsn ? (size_t)hot - 1 : ninsn - 1];
		if (thresh < 1)
			thresh = 1;
		free(sorted);
	}

	json_t *rep = json_object(), *insns = json_array(), *loads = json_array();
	json_object_set_new(rep, "symbol", json_string(esc(ESC_JSON, l->name))); /* the JIT's name: untrusted */
	json_object_set_new(rep, "pid", json_integer(l->pid));
	json_object_set_new(rep, "code_index", json_integer((json_int_t)l->code_index));
	json_object_set_new(rep, "code_addr", json_integer((json_int_t)l->code_addr));
	json_object_set_new(rep, "code_size", json_integer((json_int_t)l->code_size));
	json_object_set_new(rep, "samples", json_integer(total));
	for (size_t k = 0; k < nc; k++)
		json_array_append_new(loads, json_pack("{s:I,s:I,s:I,s:I}", "code_index", (json_int_t)c[k].l->code_index,
						       "code_addr", (json_int_t)c[k].l->code_addr, "code_size",
						       (json_int_t)c[k].l->code_size, "samples", (json_int_t)c[k].samples));
	json_object_set_new(rep, "loads", loads);

	FILE *f = stdout;
	const char *hotc = kiln_col(f, "\033[1;31m"), *off = kiln_col(f, "\033[0m");
	if (!json) {
		fprintf(f, "%s\n  pid %u, code index %llu at %#llx, %llu bytes: %ld samples\n", esc(ESC_TERM, l->name), l->pid,
			(unsigned long long)l->code_index, (unsigned long long)l->code_addr,
			(unsigned long long)l->code_size, total);
		if (nc > 1) {
			fprintf(f, "  %zu loads of this name:", nc);
			for (size_t k = 0; k < nc; k++)
				fprintf(f, " #%llu %ld%s", (unsigned long long)c[k].l->code_index, c[k].samples,
					k + 1 < nc ? "," : "\n");
		}
		fprintf(f, "\n  %-16s %7s %7s  %s\n", "address", "samples", "%", "instruction");
	}
	{
		const uint8_t *code = l->code;
		size_t size = l->code_size;
		uint64_t addr = l->code_addr;
		size_t k = 0;
		uint64_t nop_addr = 0;
		long nop_n = 0, nop_count = 0, nop_bytes = 0;
		int more = 1;
		while (more) {
			more = cs_disasm_iter(cs, &code, &size, &addr, in) ? 1 : 0;
			int nop = more && is_nop(in);
			if (nop_n && (!nop || !more)) {
				/* a run of nops ends: one line */
				int h = nop_count >= thresh;
				if (json)
					json_array_append_new(insns, json_pack("{s:I,s:I,s:f,s:s,s:I,s:I,s:b}", "addr", (json_int_t)nop_addr,
									       "samples", (json_int_t)nop_count, "percent",
									       total ? 100.0 * (double)nop_count / (double)total : 0.0,
									       "asm", "nop", "nops", (json_int_t)nop_n, "bytes",
									       (json_int_t)nop_bytes, "hot", h));
				else
					fprintf(f, "%c %s%-16llx %7ld %6.2f%%  ... %ld nop%s (%ld bytes)%s\n", h ? '>' : ' ', h ? hotc : "",
						(unsigned long long)nop_addr, nop_count,
						total ? 100.0 * (double)nop_count / (double)total : 0.0, nop_n, nop_n > 1 ? "s" : "",
						nop_bytes, h ? off : "");
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
				continue;
			}
			int h = n >= thresh;
			double p = total ? 100.0 * (double)n / (double)total : 0.0;
			if (json) {
				char *a = xasprintf("%s%s%s", in->mnemonic, *in->op_str ? " " : "", in->op_str);
				json_array_append_new(insns, json_pack("{s:I,s:I,s:f,s:s,s:b}", "addr", (json_int_t)in->address,
								       "samples", (json_int_t)n, "percent", p, "asm", a, "hot", h));
				free(a);
			} else {
				fprintf(f, "%c %s%-16llx %7ld %6.2f%%  %s %s%s\n", h ? '>' : ' ', h ? hotc : "",
					(unsigned long long)in->address, n, p, in->mnemonic, in->op_str, h ? off : "");
			}
		}
		if (size && !json)
			fprintf(f, "  (%zu bytes at %#llx do not disassemble: data or padding)\n", size, (unsigned long long)addr);
		json_object_set_new(rep, "undecoded_bytes", json_integer((json_int_t)size));
	}
	json_object_set_new(rep, "instructions", insns);
	if (json) {
		char *t = json_dumps(rep, JSON_INDENT(2) | JSON_ENSURE_ASCII);
		printf("%s\n", t);
		free(t);
	}
	json_decref(rep);
	cs_free(in, 1);
	free(icount);
	ret = 0;
out:
	if (cs)
		cs_close(&cs);
	for (size_t k = 0; k < nc; k++)
		free(c[k].per);
	free(c);
	pscript_release(&ps);
	for (size_t i = 0; i < nd; i++) {
		jitdump_free(&jds[i]);
		sb_release(&bufs[i]);
	}
	free(jds);
	free(bufs);
	sv_clear(&dumps);
	return ret;
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
	int r = annotate(dir, sym, index, (int)hot, json, &e);
	if (r < 0) {
		kerr_print(&e);
		r = e.code ? e.code : KEXIT_FAIL;
	}
	kerr_release(&e);
	return r;
}
