/*
 * config-yaml.c - a config's text to a YAML document (libfyaml), within
 * bounds, before config.c walks it: printable UTF-8 only, aliases expanded
 * within CONFIG_MAX_NODES ("billion laughs"), libfyaml's diagnostics
 * collected rather than printed and reworded as FILE:LINE:COL: YAML:
 * MESSAGE.  Also config_yaml_load, the same for other YAML kiln reads
 * (ReBench's configs).
 */
#include "config.h"
#include "config-int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct pos config_node_pos(struct fy_node *n, struct pos fallback)
{
	struct fy_token *t = n ? fy_node_get_scalar_token(n) : NULL;
	const struct fy_mark *m = t ? fy_token_start_mark(t) : NULL;
	if (!m)
		return fallback;
	return (struct pos){ m->line + 1, m->column + 1 };
}

/*
 * YAML allows only printable Unicode (plus tab, CR, LF) in UTF-8.  Checking
 * that before libfyaml sees the text gives a precise message, and keeps
 * libfyaml 0.7.12 away from inputs it loops on (a directive followed by an
 * invalid UTF-8 byte, found by fuzzing: tests/fuzz/regressions/config).
 */
int config_check_text(const char *path, const char *text, size_t len, struct kerr *e)
{
	const unsigned char *p = (const unsigned char *)text, *end = p + len;
	int line = 1, col = 1;
	while (p < end) {
		unsigned char c = *p;
		size_t n = utf8_len(p, end);
		if (!n)
			return kerr_setc(e, KEXIT_CONFIG, "%s:%d:%d: YAML: not valid UTF-8 (byte 0x%02x)", path, line, col, c);
		if (n == 1 && c < 0x20 && c != '\t' && c != '\n' && c != '\r')
			return kerr_setc(e, KEXIT_CONFIG, "%s:%d:%d: YAML: control character 0x%02x is not allowed", path,
					 line, col, c);
		if (n == 1 && c == 0x7f)
			return kerr_setc(e, KEXIT_CONFIG, "%s:%d:%d: YAML: control character 0x7f is not allowed", path, line, col);
		if (c == '\n')
			line++, col = 1;
		else
			col++;
		p += n;
	}
	return 0;
}

static void yaml_error(const char *path, const char *diag, struct kerr *e);
static int collected_error(const char *path, struct fy_diag *diag, struct kerr *e);

/*
 * The nodes the document has once its aliases are expanded, counted on the
 * unexpanded one and stopped at `*budget`: a few lines of anchors can stand
 * for billions of nodes ("billion laughs"), which fy_document_resolve would
 * build.  An alias whose anchor is missing or contains it is left to
 * fy_document_resolve, which says so.  *at: where the budget ran out.
 */
static int count_nodes(struct fy_node *n, long *budget, int depth, struct pos *at)
{
	if (!n)
		return 0;
	if (--*budget < 0 || depth > 1000) {
		*at = config_node_pos(n, *at);
		return -1;
	}
	if (fy_node_is_alias(n)) {
		struct fy_node *t = fy_node_resolve_alias(n);
		if (t && count_nodes(t, budget, depth + 1, at) < 0) {
			if (at->line == 0)
				*at = config_node_pos(n, *at);
			return -1;
		}
		return 0;
	}
	void *it = NULL;
	if (fy_node_is_sequence(n)) {
		struct fy_node *item;
		while ((item = fy_node_sequence_iterate(n, &it)))
			if (count_nodes(item, budget, depth + 1, at) < 0)
				return -1;
	} else if (fy_node_is_mapping(n)) {
		struct fy_node_pair *pr;
		while ((pr = fy_node_mapping_iterate(n, &it)))
			if (count_nodes(fy_node_pair_key(pr), budget, depth + 1, at) < 0 ||
			    count_nodes(fy_node_pair_value(pr), budget, depth + 1, at) < 0)
				return -1;
	}
	return 0;
}

/*
 * Anchors, aliases and merge keys (<<), replaced by what they stand for,
 * within CONFIG_MAX_NODES.  A value that came from an alias carries the
 * position of the anchored text.
 */
static int resolve_aliases(const char *path, struct fy_document *doc, struct strbuf *diag, struct kerr *e)
{
	long budget = CONFIG_MAX_NODES;
	struct pos at = { 0, 0 };
	if (count_nodes(fy_document_root(doc), &budget, 0, &at) < 0)
		return kerr_setc(e, KEXIT_CONFIG, "%s:%d:%d: YAML: the aliases expand to more than %ld nodes, or nest "
				 "deeper than 1000", path, at.line, at.col, CONFIG_MAX_NODES);
	sb_reset(diag);
	if (fy_document_resolve(doc) < 0) {
		struct fy_diag *d = fy_document_get_diag(doc);
		if (!collected_error(path, d, e))
			yaml_error(path, sb_str(diag), e);
		if (d)
			fy_diag_unref(d);
		return -1;
	}
	return 0;
}

/*
 * Blank lines and comments only?  libfyaml 0.7.12 fails such a document
 * with an internal error ("fy_parse_load_document() failed") and no
 * position, so kiln says what it is first.
 */
int config_only_comments(const char *text, size_t len)
{
	size_t i = 0;
	while (i < len) {
		while (i < len && strchr(" \t\r", text[i]))
			i++;
		if (i < len && text[i] != '\n' && text[i] != '#')
			return 0;
		while (i < len && text[i] != '\n')
			i++;
		i++;
	}
	return 1;
}

/* libfyaml's diagnostics arrive as text: keep them to reword the first */
static void diag_out(struct fy_diag *diag, void *user, const char *buf, size_t len)
{
	(void)diag;
	sb_add(user, buf, len);
}

/* "<memory-...>:2:1: error: wrongly indented flow mapping" -> "FILE:2:1: YAML: ..." */
static void yaml_error(const char *path, const char *diag, struct kerr *e)
{
	const char *m = strstr(diag, ": error: ");
	int line = 0, col = 0;
	if (m) {
		const char *p = m;
		int colons = 0;
		while (p > diag && colons < 2) {
			p--;
			if (*p == ':')
				colons++;
		}
		if (colons == 2 && sscanf(p, ":%d:%d:", &line, &col) == 2) {
			const char *msg = m + 9, *nl = strchr(msg, '\n');
			kerr_setc(e, KEXIT_CONFIG, "%s:%d:%d: YAML: %.*s", path, line, col,
				  (int)(nl ? nl - msg : (long)strlen(msg)), msg);
			return;
		}
	}
	kerr_setc(e, KEXIT_CONFIG, "%s: not valid YAML%s%s", path, *diag ? ": " : "", diag);
}

/*
 * A diag for libfyaml's parser whose text goes to *out and whose errors
 * are collected, not printed: printing one shows its source line, and
 * libfyaml 0.7.12's fy_diag_error_atom_display reads out of bounds on a
 * scalar whose line passes 80 columns of tabs when the output is not a
 * terminal (make fuzz found it: SEGV, a 239-byte config)
 */
static struct fy_diag *yaml_diag(struct strbuf *out)
{
	struct fy_diag_cfg dcfg;
	fy_diag_cfg_default(&dcfg);
	dcfg.fp = NULL;
	dcfg.output_fn = diag_out;
	dcfg.user = out;
	dcfg.colorize = false;
	dcfg.level = FYET_ERROR;
	struct fy_diag *diag = fy_diag_create(&dcfg);
	if (diag)
		fy_diag_set_collect_errors(diag, true);
	return diag;
}

/* the diag outlives the parse (the document keeps it): its text no longer goes to the caller's strbuf */
static void yaml_diag_detach(struct fy_diag *diag)
{
	if (!diag)
		return;
	struct fy_diag_cfg dcfg = *fy_diag_get_cfg(diag);
	dcfg.output_fn = NULL; /* no fp, no function: libfyaml writes nowhere */
	dcfg.user = NULL;
	fy_diag_set_cfg(diag, &dcfg);
}

/* our reference to a yaml_diag: the errors it collected are freed only when collecting stops */
void config_diag_release(struct fy_diag *diag)
{
	fy_diag_set_collect_errors(diag, false);
	fy_diag_unref(diag);
}

/* the first error libfyaml collected, as FILE:LINE:COL: YAML: MESSAGE; 0 when it collected none */
static int collected_error(const char *path, struct fy_diag *diag, struct kerr *e)
{
	void *it = NULL;
	struct fy_diag_error *de;
	while (diag && (de = fy_diag_errors_iterate(diag, &it)) != NULL) {
		if (de->type != FYET_ERROR || !de->msg)
			continue;
		const char *nl = strchr(de->msg, '\n');
		int n = (int)(nl ? nl - de->msg : (long)strlen(de->msg));
		if (de->line > 0 && de->column > 0)
			kerr_setc(e, KEXIT_CONFIG, "%s:%d:%d: YAML: %.*s", path, de->line, de->column, n, de->msg);
		else
			kerr_setc(e, KEXIT_CONFIG, "%s: not valid YAML: %.*s", path, n, de->msg);
		return 1;
	}
	return 0;
}

/*
 * The YAML document of the config's text, aliases expanded (within
 * bounds); NULL with the error, libfyaml's first diagnostic reworded as
 * FILE:LINE:COL.  *diagp is kept for the caller to free with the document.
 */
struct fy_document *config_load_yaml(const char *path, const char *text, size_t len, struct fy_diag **diagp,
				     struct kerr *e)
{
	struct strbuf diagout = STRBUF_INIT;
	struct fy_diag *diag = yaml_diag(&diagout);
	struct fy_parse_cfg pcfg = { .flags = FYPCF_QUIET | FYPCF_COLLECT_DIAG, .diag = diag };
	struct fy_document *doc = diag ? fy_document_build_from_string(&pcfg, text, len) : NULL;
	if (!doc) {
		if (!collected_error(path, diag, e))
			yaml_error(path, sb_str(&diagout), e);
	} else if (resolve_aliases(path, doc, &diagout, e) < 0) {
		fy_document_destroy(doc);
		doc = NULL;
	}
	yaml_diag_detach(diag);
	sb_release(&diagout);
	*diagp = diag;
	return doc;
}

struct config_yaml {
	struct fy_document *doc;
	struct fy_diag *diag;
};

struct fy_document *config_yaml_load(const char *path, const char *text, size_t len, struct config_yaml **y,
				     struct kerr *e)
{
	*y = xcalloc(1, sizeof(**y));
	if (config_check_text(path, text, len, e) < 0)
		return NULL;
	(*y)->doc = config_load_yaml(path, text, len, &(*y)->diag, e);
	return (*y)->doc;
}

void config_yaml_free(struct config_yaml *y)
{
	if (!y)
		return;
	if (y->doc)
		fy_document_destroy(y->doc);
	if (y->diag)
		config_diag_release(y->diag);
	free(y);
}
