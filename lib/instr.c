/*
 * instr.c - the writer of generic instrumentation records
 * (KILN_INSTR_DIR/<name>.kiln.jsonl), the same JSON Lines that plugin
 * parsers produce from VM-native logs.  Buffered through stdio; the runner
 * writes records outside its timed regions.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kiln.h"

struct kiln_instr {
	FILE *f;
};

static void put_name(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

struct kiln_instr *kiln_instr_open(const char *name)
{
	const char *dir = getenv("KILN_INSTR_DIR");
	if (!dir || !*dir || !name || strchr(name, '/'))
		return NULL;
	size_t n = strlen(dir) + strlen(name) + 16;
	char *path = malloc(n);
	if (!path)
		return NULL;
	snprintf(path, n, "%s/%s.kiln.jsonl", dir, name);
	FILE *f = fopen(path, "we");
	free(path);
	if (!f)
		return NULL;
	struct kiln_instr *w = calloc(1, sizeof(*w));
	if (!w) {
		fclose(f);
		return NULL;
	}
	w->f = f;
	return w;
}

static void put_value(FILE *f, double v, const char *unit)
{
	fprintf(f, ",\"value\":%.17g", v);
	if (unit && *unit) {
		fputs(",\"unit\":", f);
		put_name(f, unit);
	}
	fputs("}\n", f);
}

int kiln_instr_iter(struct kiln_instr *w, long i, const char *name, double value, const char *unit)
{
	if (!w)
		return -1;
	fprintf(w->f, "{\"i\":%ld,\"name\":", i);
	put_name(w->f, name);
	put_value(w->f, value, unit);
	return ferror(w->f) ? -1 : 0;
}

int kiln_instr_pexec(struct kiln_instr *w, const char *name, double value, const char *unit)
{
	if (!w)
		return -1;
	fputs("{\"name\":", w->f);
	put_name(w->f, name);
	put_value(w->f, value, unit);
	return ferror(w->f) ? -1 : 0;
}

int kiln_instr_event(struct kiln_instr *w, const char *name, uint64_t start_ns, uint64_t end_ns)
{
	if (!w)
		return -1;
	fputs("{\"name\":", w->f);
	put_name(w->f, name);
	fprintf(w->f, ",\"start_ns\":%" PRIu64 ",\"end_ns\":%" PRIu64 "}\n", start_ns, end_ns);
	return ferror(w->f) ? -1 : 0;
}

int kiln_instr_close(struct kiln_instr *w)
{
	if (!w)
		return -1;
	int r = fclose(w->f);
	free(w);
	return r ? -1 : 0;
}
