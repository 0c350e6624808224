/*
 * fmt.c - the table of other tools' file formats (fmt.h) and what they
 * share: reading an input whole and decompressed (gzip: pyperf's .json.gz;
 * bzip2: Krun's .json.bz2), writing one (compressed by its name), the
 * cheap look at a JSON file's first key that tells hyperfine's from
 * pyperf's from Krun's, and keys for what comes from outside.
 */
#include "fmt.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <bzlib.h>
#include <jansson.h>
#include <zlib.h>

#include "import-input.h"

const struct kiln_format *const kiln_formats[] = {
	&fmt_krun, &fmt_csv, &fmt_pyperf, &fmt_hyperfine, &fmt_hyperfine_md, &fmt_hyperfine_csv, &fmt_hyperfine_adoc, &fmt_hyperfine_org, &fmt_rebench, NULL,
};

const struct kiln_format *fmt_find(const char *name)
{
	for (size_t i = 0; kiln_formats[i]; i++)
		if (!strcmp(kiln_formats[i]->name, name))
			return kiln_formats[i];
	return NULL;
}

void fmt_names(int writers, struct strbuf *out)
{
	int n = 0;
	for (size_t i = 0; kiln_formats[i]; i++)
		if (writers ? kiln_formats[i]->write != NULL : kiln_formats[i]->read != NULL)
			sb_addf(out, "%s%s", n++ ? ", " : "", kiln_formats[i]->name);
}

/* ---- reading ---- */

/* gzip (or zlib) data into out, bounded against decompression bombs */
static int gunzip(const char *name, const char *data, size_t len, struct strbuf *out, struct kerr *e)
{
	/* the bounds of bzip2 inputs (import.h), the same environment variables */
	struct imp_bounds b;
	if (imp_bounds(&b, e) < 0)
		return -1;
	size_t limit = imp_inflate_limit(&b, len);
	z_stream z;
	memset(&z, 0, sizeof(z));
	if (inflateInit2(&z, 15 + 32) != Z_OK)
		return kerr_setc(e, KEXIT_CONFIG, "%s: cannot start gzip decompression", name);
	sb_reset(out);
	z.next_in = (unsigned char *)data;
	z.avail_in = len > 0x40000000u ? 0x40000000u : (unsigned)len;
	size_t fed = z.avail_in;
	int rc = Z_OK;
	while (rc != Z_STREAM_END) {
		sb_grow(out, 1 << 20);
		z.next_out = (unsigned char *)out->buf + out->len;
		z.avail_out = (unsigned)(out->alloc - out->len - 1);
		unsigned before = z.avail_out;
		rc = inflate(&z, Z_NO_FLUSH);
		out->len += before - z.avail_out;
		out->buf[out->len] = '\0';
		if (!z.avail_in && fed < len) {
			size_t n = len - fed > 0x40000000u ? 0x40000000u : len - fed;
			z.next_in = (unsigned char *)data + fed;
			z.avail_in = (unsigned)n;
			fed += n;
		}
		if (out->len > limit) {
			inflateEnd(&z);
			return kerr_setc(e, KEXIT_CONFIG, "%s: more than %zu MiB once decompressed (%zu bytes compressed): "
					 "refused as a decompression bomb; KILN_INFLATE_RATIO, KILN_INFLATE_FLOOR_MB and "
					 "KILN_INPUT_MAX_MB raise the bound (docs/security.md#input-files)", name, limit >> 20, len);
		}
		if (rc == Z_BUF_ERROR && !z.avail_in) {
			inflateEnd(&z);
			return kerr_setc(e, KEXIT_CONFIG, "%s: truncated gzip data", name);
		}
		if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR) {
			inflateEnd(&z);
			return kerr_setc(e, KEXIT_CONFIG, "%s: corrupt gzip data (%s)", name, z.msg ? z.msg : "error");
		}
	}
	inflateEnd(&z);
	return 0;
}

int fmt_read_input(const char *path, struct strbuf *out, struct kerr *e)
{
	struct strbuf raw = STRBUF_INIT;
	if (imp_read_input(path, &raw, e) < 0) {
		sb_release(&raw);
		e->code = KEXIT_CONFIG;
		return -1;
	}
	int r = 0;
	if (raw.len >= 2 && (unsigned char)raw.buf[0] == 0x1f && (unsigned char)raw.buf[1] == 0x8b)
		r = gunzip(path, raw.buf, raw.len, out, e);
	else if (raw.len >= 3 && !memcmp(raw.buf, "BZh", 3))
		r = imp_bunzip(path, raw.buf, raw.len, out, e);
	else {
		sb_release(out);
		*out = raw;
		return 0;
	}
	sb_release(&raw);
	return r;
}

#define FMT_HEAD 65536 /* what sniffing looks at */

/* up to FMT_HEAD bytes of a gzip or bzip2 stream's start, decompressed, into head */
static size_t inflate_head(const unsigned char *raw, size_t n, int gz, char *head)
{
	size_t got = 0;
	if (gz) {
		z_stream z;
		memset(&z, 0, sizeof(z));
		if (inflateInit2(&z, 15 + 32) != Z_OK)
			return 0;
		z.next_in = (unsigned char *)raw;
		z.avail_in = (unsigned)n;
		z.next_out = (unsigned char *)head;
		z.avail_out = FMT_HEAD;
		inflate(&z, Z_SYNC_FLUSH);
		got = FMT_HEAD - z.avail_out;
		inflateEnd(&z);
	} else {
		bz_stream bz;
		memset(&bz, 0, sizeof(bz));
		if (BZ2_bzDecompressInit(&bz, 0, 0) != BZ_OK)
			return 0;
		bz.next_in = (char *)raw;
		bz.avail_in = (unsigned)n;
		bz.next_out = head;
		bz.avail_out = FMT_HEAD;
		BZ2_bzDecompress(&bz);
		got = FMT_HEAD - bz.avail_out;
		BZ2_bzDecompressEnd(&bz);
	}
	return got;
}

const struct kiln_format *fmt_sniff(const char *path)
{
	static unsigned char raw[1 << 20];
	static char head[FMT_HEAD];
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t n = fread(raw, 1, sizeof(raw), f);
	fclose(f);
	const char *text = (const char *)raw;
	size_t len = n < FMT_HEAD ? n : FMT_HEAD;
	if (n >= 2 && raw[0] == 0x1f && raw[1] == 0x8b)
		len = inflate_head(raw, n, 1, head), text = head;
	else if (n >= 3 && !memcmp(raw, "BZh", 3))
		len = inflate_head(raw, n, 0, head), text = head;
	for (size_t i = 0; kiln_formats[i]; i++)
		if (kiln_formats[i]->sniff && kiln_formats[i]->read && kiln_formats[i]->sniff(text, len))
			return kiln_formats[i];
	return NULL;
}

int fmt_load(const char *path, struct dataset *ds, struct kerr *e)
{
	const struct kiln_format *f = fmt_sniff(path);
	if (!f)
		return 1;
	struct strbuf text = STRBUF_INIT;
	int r = fmt_read_input(path, &text, e);
	if (r == 0)
		r = f->read(path, sb_str(&text), text.len, ds, e);
	sb_release(&text);
	return r < 0 ? -1 : 0;
}

/* ---- writing ---- */

static int gzip_buf(const char *data, size_t len, struct strbuf *out, struct kerr *e)
{
	z_stream z;
	memset(&z, 0, sizeof(z));
	if (deflateInit2(&z, 9, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return kerr_set(e, "gzip: cannot start compression");
	uLong bound = deflateBound(&z, (uLong)len);
	sb_reset(out);
	sb_grow(out, bound + 1);
	z.next_in = (unsigned char *)data;
	z.avail_in = (uInt)len;
	z.next_out = (unsigned char *)out->buf;
	z.avail_out = (uInt)bound;
	int rc = deflate(&z, Z_FINISH);
	out->len = bound - z.avail_out;
	out->buf[out->len] = '\0';
	deflateEnd(&z);
	return rc == Z_STREAM_END ? 0 : kerr_set(e, "gzip compression failed (%d)", rc);
}

int fmt_write_text(const char *path, const char *text, size_t len, struct kerr *e)
{
	if (len > 0x7fffffff && (str_ends_with(path, ".gz") || str_ends_with(path, ".bz2")))
		return kerr_set(e, "%s: %zu bytes is too much to compress in one piece", path, len);
	struct strbuf z = STRBUF_INIT;
	int r;
	if (str_ends_with(path, ".gz"))
		r = gzip_buf(text, len, &z, e);
	else if (str_ends_with(path, ".bz2"))
		r = imp_bzip(text, len, &z, e);
	else
		return write_file(path, text, len, e);
	if (r == 0)
		r = write_file(path, z.buf, z.len, e);
	sb_release(&z);
	return r;
}

int fmt_write_file(const struct kiln_format *f, const struct dataset *ds, const struct fmt_extra *x,
		   const char *path, struct kerr *e)
{
	struct strbuf out = STRBUF_INIT;
	static const struct fmt_extra none;
	int r = f->write(ds, x ? x : &none, &out, e);
	if (r == 0)
		r = fmt_write_text(path, sb_str(&out), out.len, e);
	sb_release(&out);
	if (r == 0 && f->write_beside)
		r = f->write_beside(ds, path, e);
	return r;
}

/* ---- shared ---- */

json_t *fmt_json_load(const char *name, const char *text, size_t len, struct kerr *e)
{
	json_error_t je;
	json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
	if (!root)
		kerr_setc(e, KEXIT_CONFIG, "%s:%d:%d: not valid JSON: %s", name, je.line, je.column, esc(ESC_TERM, je.text));
	else if (!json_is_object(root)) {
		kerr_setc(e, KEXIT_CONFIG, "%s: the top level is not an object", name);
		json_decref(root);
		root = NULL;
	}
	return root;
}

int fmt_json_first_key(const char *text, size_t len, char *key, size_t keylen)
{
	size_t i = 0;
	if (len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3))
		i = 3;
	while (i < len && strchr(" \t\r\n", text[i]))
		i++;
	if (i >= len || text[i++] != '{')
		return -1;
	while (i < len && strchr(" \t\r\n", text[i]))
		i++;
	if (i >= len || text[i++] != '"')
		return -1;
	size_t k = 0;
	while (i < len && text[i] != '"' && text[i] != '\\' && k + 1 < keylen)
		key[k++] = text[i++];
	key[k] = '\0';
	return i < len && text[i] == '"' ? 0 : -1;
}

struct ds_key *fmt_key(struct dataset *ds, const char *bench, const char *vm, const char *variant)
{
	if (!*bench || !*vm || !*variant)
		return NULL;
	char *full = xasprintf("%s:%s:%s", bench, vm, variant);
	struct ds_key *k = ds_find_key(ds, full);
	free(full);
	return k ? k : ds_add_key(ds, bench, vm, variant);
}

static char *no_colons(const char *s, size_t n)
{
	char *c = xstrndup(s, n);
	for (char *p = c; *p; p++)
		if (*p == ':')
			*p = '_';
	return c;
}

void fmt_command_names(const char *command, const char *name, char **bench, char **vm)
{
	const char *shown = name && *name ? name : command;
	*bench = no_colons(shown, strlen(shown));
	const char *w = command;
	while (*w == ' ' || *w == '\t')
		w++;
	size_t n = strcspn(w, " \t");
	const char *base = w;
	for (size_t i = 0; i < n; i++)
		if (w[i] == '/')
			base = w + i + 1;
	n -= (size_t)(base - w);
	*vm = n ? no_colons(base, n) : xstrdup("command");
}

struct ds_key *fmt_command_key(struct dataset *ds, const char *command, const char *name)
{
	char *bench, *vm;
	fmt_command_names(command, name, &bench, &vm);
	struct ds_key *k = NULL;
	for (int i = 1; !k && i < 1000; i++) {
		char *b = i == 1 ? xstrdup(bench) : xasprintf("%s (%d)", bench, i);
		char *full = xasprintf("%s:%s:default-command", b, vm);
		if (*b && !ds_find_key(ds, full))
			k = ds_add_key(ds, b, vm, "default-command");
		free(full);
		free(b);
	}
	free(bench);
	free(vm);
	return k;
}

double fmt_scalar(const struct ds_pexec *p, const char *name)
{
	return ds_scalar(p, name);
}

void fmt_seconds(struct strbuf *sb, double s)
{
	double ns = s * 1e9;
	if (isfinite(s) && fabs(ns) < 9e15 && (double)(int64_t)llround(ns) / 1e9 == s) {
		int64_t n = llround(ns);
		char frac[16];
		if (n < 0) {
			sb_addc(sb, '-');
			n = -n;
		}
		snprintf(frac, sizeof(frac), "%09lld", (long long)(n % 1000000000));
		size_t l = strlen(frac);
		while (l && frac[l - 1] == '0')
			frac[--l] = '\0';
		sb_addf(sb, "%lld%s%s", (long long)(n / 1000000000), l ? "." : "", frac);
		return;
	}
	for (int prec = 15; prec <= 17; prec++) {
		char buf[64];
		snprintf(buf, sizeof(buf), "%.*g", prec, s);
		if (prec == 17 || strtod(buf, NULL) == s) {
			sb_adds(sb, buf);
			return;
		}
	}
}
