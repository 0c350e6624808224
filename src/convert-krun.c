/*
 * convert-krun.c - a Krun configuration (a .krun file) as a kiln config
 * (convert.h).
 *
 * A .krun file is Python that Krun executes.  kiln never runs it: it reads
 * the subset Krun configs are written in, with a small evaluator of its own
 * (no Python parser in C is packaged by Debian): assignments of literals,
 * lists, tuples, dicts and the names bound before, arithmetic, `%` and
 * str.format, the VM-def constructors and EntryPoint calls (kept as they
 * were called), os.path.join, os.getcwd() (the config's folder, where Krun
 * runs), sys.platform ("linux"), platform.node(), if/elif/else on what it
 * can evaluate, .append/.extend/.update of a list or dict, imports and
 * function definitions (a call of one gives a value it cannot know).  Any
 * other statement is refused with FILE:LINE; a value it cannot know is
 * refused only where the kiln config needs it.
 *
 * Then Krun's settings, as its config reader names them: VMS (each vm_def
 * a plugin, its variants the keys' third part, n_iterations), BENCHMARKS,
 * VARIANTS (EntryPoint subdirs), SKIP, N_EXECUTIONS, STACK_LIMIT,
 * HEAP_LIMIT, EXECUTION_TIMEOUT, PRE_/POST_EXECUTION_CMDS (by the shell);
 * the rest is listed as not taken over.
 */
#include "convert.h"

#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#define KR_MAX_DEPTH 100
#define KR_MAX_TOKENS 1000000
/*
 * What evaluating a config may make: a string of at most KR_MAX_STR bytes,
 * a list of at most KR_MAX_LIST items, KR_MAX_MADE bytes and items in all
 * the expressions' values, and KR_MAX_VISITS steps of one comparison.  A
 * few lines doubling a string or a list (S = S + S), a list holding itself
 * or lists sharing their items (A1 = [A0, A0], ...) otherwise ran kiln out
 * of memory or time, or its stack (==).
 */
#define KR_MAX_STR (16L << 20)
#define KR_MAX_LIST 1000000L
#define KR_MAX_MADE (256L << 20)
#define KR_MAX_VISITS 1000000L

enum tk { T_END, T_NEWLINE, T_INDENT, T_DEDENT, T_NAME, T_NUM, T_STR, T_OP };

struct tok {
	enum tk t;
	char *s;               /* NAME, NUM, OP text; STR its value */
	int line;
};

struct kr {
	const char *path;
	char *dir;
	struct tok *tk;
	size_t n, at;
	json_t *env;           /* the names bound */
	json_t *lines;         /* name -> the line it was last bound on */
	struct convert_out *out;
	struct kerr *e;
	int depth;
	size_t made;           /* bytes and items of the values made so far (KR_MAX_MADE) */
};

/* ---- values: JSON, with objects for what Python has beyond it ---- */

static json_t *unknown(const char *fmt, ...) KILN_PRINTF(1, 2);
static json_t *unknown(const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	sb_vaddf(&sb, fmt, ap);
	va_end(ap);
	/* the text may hold the config's own bytes, not UTF-8: kept as they are (notes escape them) */
	json_t *v = json_object();
	json_object_set_new_nocheck(v, "__unknown__", json_string_nocheck(sb.buf));
	sb_release(&sb);
	return v;
}

static int is_tag(const json_t *v, const char *tag)
{
	return json_is_object(v) && json_object_get(v, tag);
}

static int is_unknown(const json_t *v)
{
	return is_tag(v, "__unknown__");
}

static const char *tag_str(const json_t *v, const char *tag)
{
	return json_string_value(json_object_get(v, tag));
}

/* "FILE:LINE" as a value (the file's name may not be UTF-8: kept as it is) */
static json_t *where_now(const struct kr *k, int line)
{
	char *w = xasprintf("%s:%d", k->path, line);
	json_t *v = json_string_nocheck(w);
	free(w);
	return v;
}

/* a float, or a value kiln does not know when it is none (inf, nan: JSON has no such number) */
static json_t *num_real(double d)
{
	return isfinite(d) ? json_real(d) : unknown("a number out of range");
}

static json_t *module(const char *name)
{
	return json_pack("{s:s}", "__module__", name);
}

/* ---- errors ---- */

KILN_PRINTF(3, 4)
static int kr_err(struct kr *k, int line, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	sb_vaddf(&sb, fmt, ap);
	va_end(ap);
	kerr_setc(k->e, KEXIT_CONFIG, "%s:%d: %s", k->path, line, sb.buf);
	sb_release(&sb);
	return -1;
}

/* a note at `where` ("FILE:LINE", NULL: the file) */
KILN_PRINTF(4, 5)
static void note_at(struct kr *k, const char *where, const char *field, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	sb_vaddf(&sb, fmt, ap);
	va_end(ap);
	sv_pushf(&k->out->unmapped, "%s: %s: %s", where ? where : k->path, field, sb.buf);
	sb_release(&sb);
}

#define note(k, line, field, ...) note_line(k, line, field, __VA_ARGS__)
KILN_PRINTF(4, 5)
static void note_line(struct kr *k, int line, const char *field, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	sb_vaddf(&sb, fmt, ap);
	va_end(ap);
	char *where = xasprintf("%s:%d", k->path, line);
	note_at(k, where, field, "%s", sb.buf);
	free(where);
	sb_release(&sb);
}

/* ---- tokens ---- */

static void push(struct kr *k, enum tk t, const char *s, size_t n, int line)
{
	if (k->n % 256 == 0)
		k->tk = xrealloc(k->tk, (k->n + 256) * sizeof(*k->tk));
	k->tk[k->n++] = (struct tok){ t, s ? xstrndup(s, n) : NULL, line };
}

/* a string literal at p (after its prefix): its value into sb; the end, NULL when unterminated */
static const char *string_lit(const char *p, const char *end, int raw, struct strbuf *sb, int *line)
{
	char q = *p;
	int triple = end - p >= 3 && p[1] == q && p[2] == q;
	p += triple ? 3 : 1;
	while (p < end) {
		if (*p == q && (!triple || (end - p >= 3 && p[1] == q && p[2] == q)))
			return p + (triple ? 3 : 1);
		if (*p == '\n') {
			if (!triple)
				return NULL;
			(*line)++;
		}
		if (*p == '\\' && p + 1 < end && !raw) {
			p++;
			switch (*p) {
			case 'n': sb_addc(sb, '\n'); break;
			case 't': sb_addc(sb, '\t'); break;
			case '\\': case '\'': case '"': sb_addc(sb, *p); break;
			case '\n': (*line)++; break;
			default: sb_addc(sb, '\\'); sb_addc(sb, *p);
			}
			p++;
			continue;
		}
		if (*p == '\\' && p + 1 < end && raw) {
			sb_addc(sb, *p++);
		}
		sb_addc(sb, *p++);
	}
	return NULL;
}

/* where the tokenizer is: the text left, the line, the open brackets, the indentation of each open block */
struct lexer {
	const char *p, *end;
	int line, paren, bol;
	int indents[KR_MAX_DEPTH], ni;
};

/*
 * At the start of a line outside brackets: a blank or comment-only line is
 * skipped (1); else its indentation gives INDENT or DEDENTs (0), or an error
 */
static int lex_indent(struct kr *k, struct lexer *x)
{
	int col = 0;
	const char *q = x->p, *end = x->end;
	while (q < end && (*q == ' ' || *q == '\t'))
		col = *q++ == '\t' ? (col / 8 + 1) * 8 : col + 1;
	if (q >= end || *q == '\n' || *q == '#' || *q == '\r') {
		while (q < end && *q != '\n')
			q++;
		x->p = q + (q < end);
		x->line++;
		return 1;
	}
	if (col > x->indents[x->ni - 1]) {
		if (x->ni >= KR_MAX_DEPTH)
			return kr_err(k, x->line, "blocks nested too deep");
		x->indents[x->ni++] = col;
		push(k, T_INDENT, NULL, 0, x->line);
	}
	while (col < x->indents[x->ni - 1]) {
		x->ni--;
		push(k, T_DEDENT, NULL, 0, x->line);
	}
	if (col != x->indents[x->ni - 1])
		return kr_err(k, x->line, "an indentation that matches no outer block");
	x->p = q;
	x->bol = 0;
	return 0;
}

/* a string literal at x->p (after any prefix) as one STR token */
static int lex_string(struct kr *k, struct lexer *x, int raw)
{
	struct strbuf sb = STRBUF_INIT;
	const char *e2 = string_lit(x->p, x->end, raw, &sb, &x->line);
	if (!e2) {
		sb_release(&sb);
		return kr_err(k, x->line, "a string that does not end");
	}
	push(k, T_STR, sb_str(&sb), sb.len, x->line);
	sb_release(&sb);
	x->p = e2;
	return 0;
}

/* a name, or the prefix (r, b, u, rb...) of the string literal right after it */
static int lex_word(struct kr *k, struct lexer *x)
{
	const char *s = x->p, *end = x->end;
	char c = *s;
	while (x->p < end && (isalnum((unsigned char)*x->p) || *x->p == '_'))
		x->p++;
	size_t n = (size_t)(x->p - s);
	int raw = n == 1 && (c == 'r' || c == 'R'), pre = n <= 2;
	for (size_t i = 0; pre && i < n; i++) /* a string's prefix: r, b, u (the text is not NUL-ended here) */
		pre = strchr("rRbBuU", s[i]) != NULL;
	if (x->p < end && (*x->p == '\'' || *x->p == '"') && pre)
		return lex_string(k, x, raw || (n == 2 && (strchr("rR", s[0]) || strchr("rR", s[1]))));
	if (x->p < end && (*x->p == '\'' || *x->p == '"') && n <= 2 && strchr("fF", s[0]))
		return kr_err(k, x->line, "an f-string: not read (kiln evaluates no code inside strings)");
	push(k, T_NAME, s, n, x->line);
	return 0;
}

/* a number's text as it is written (1_000, 0x1f, 1e-3): atom() reads its value */
static void lex_number(struct kr *k, struct lexer *x)
{
	const char *s = x->p, *end = x->end, *p = x->p;
	while (p < end && (isalnum((unsigned char)*p) || *p == '.' || *p == '_' ||
			   ((*p == '-' || *p == '+') && (p[-1] == 'e' || p[-1] == 'E'))))
		p++;
	push(k, T_NUM, s, (size_t)(p - s), x->line);
	x->p = p;
}

/* an operator or bracket of one or two characters; any other character is refused */
static int lex_op(struct kr *k, struct lexer *x)
{
	static const char *const ops[] = { "**", "//", "==", "!=", "<=", ">=", "+=", "-=", "*=", "->", NULL };
	const char *p = x->p;
	char c = *p;
	size_t n = 1;
	for (size_t i = 0; ops[i]; i++)
		if (x->end - p >= 2 && !strncmp(p, ops[i], 2))
			n = 2;
	if (n == 1 && !strchr("()[]{},:.=+-*/%<>@|&~^;", c))
		return kr_err(k, x->line, "'%c': not Python kiln reads", c);
	x->paren += c == '(' || c == '[' || c == '{';
	x->paren -= (c == ')' || c == ']' || c == '}') && x->paren > 0;
	push(k, T_OP, p, n, x->line);
	x->p += n;
	return 0;
}

/* one token at x->p, or what is skipped there (blanks, a comment, a line continued) */
static int lex_token(struct kr *k, struct lexer *x)
{
	const char *p = x->p, *end = x->end;
	char c = *p;
	if (c == '\n') {
		if (!x->paren)
			push(k, T_NEWLINE, NULL, 0, x->line), x->bol = 1;
		x->line++;
		x->p++;
	} else if (c == ' ' || c == '\t' || c == '\r' || c == '\f') {
		x->p++;
	} else if (c == '#') {
		while (x->p < end && *x->p != '\n')
			x->p++;
	} else if (c == '\\' && p + 1 < end && p[1] == '\n') {
		x->p += 2;
		x->line++;
	} else if (isalpha((unsigned char)c) || c == '_') {
		return lex_word(k, x);
	} else if (isdigit((unsigned char)c) || (c == '.' && p + 1 < end && isdigit((unsigned char)p[1]))) {
		lex_number(k, x);
	} else if (c == '\'' || c == '"') {
		return lex_string(k, x, 0);
	} else {
		return lex_op(k, x);
	}
	return 0;
}

/* the text as tokens in k->tk, Python's way: NEWLINE ends a statement outside brackets, INDENT/DEDENT a block */
static int tokenize(struct kr *k, const char *text, size_t len)
{
	struct lexer x = { .p = text, .end = text + len, .line = 1, .bol = 1, .indents = { 0 }, .ni = 1 };
	while (x.p < x.end) {
		if (k->n > KR_MAX_TOKENS)
			return kr_err(k, x.line, "more than %d tokens", KR_MAX_TOKENS);
		if (x.bol && !x.paren) {
			int r = lex_indent(k, &x);
			if (r < 0)
				return -1;
			if (r > 0)
				continue;
		}
		if (lex_token(k, &x) < 0)
			return -1;
	}
	if (!x.bol)
		push(k, T_NEWLINE, NULL, 0, x.line);
	while (x.ni-- > 1)
		push(k, T_DEDENT, NULL, 0, x.line);
	push(k, T_END, NULL, 0, x.line);
	return 0;
}

/* ---- the parser-evaluator ---- */

static struct tok *cur(struct kr *k)
{
	return &k->tk[k->at < k->n ? k->at : k->n - 1];
}

static int is_op(struct kr *k, const char *op)
{
	return cur(k)->t == T_OP && !strcmp(cur(k)->s, op);
}

static int is_name(struct kr *k, const char *name)
{
	return cur(k)->t == T_NAME && !strcmp(cur(k)->s, name);
}

static int expect_op(struct kr *k, const char *op)
{
	if (!is_op(k, op))
		return kr_err(k, cur(k)->line, "'%s' expected", op);
	k->at++;
	return 0;
}

static json_t *expr(struct kr *k);

/* a call's arguments: positional into args, keywords into kw */
static int call_args(struct kr *k, json_t *args, json_t *kw)
{
	while (!is_op(k, ")")) {
		if (cur(k)->t == T_NAME && k->at + 1 < k->n && k->tk[k->at + 1].t == T_OP && !strcmp(k->tk[k->at + 1].s, "=")) {
			const char *name = cur(k)->s;
			k->at += 2;
			json_t *v = expr(k);
			if (!v)
				return -1;
			json_object_set_new_nocheck(kw, name, v);
		} else {
			if (is_op(k, "*") || is_op(k, "**"))
				return kr_err(k, cur(k)->line, "*args in a call: not read");
			json_t *v = expr(k);
			if (!v)
				return -1;
			json_array_append_new(args, v);
		}
		if (!is_op(k, ","))
			break;
		k->at++;
	}
	return expect_op(k, ")");
}

static const char *str_of(const json_t *v)
{
	return json_string_value(v);
}

/* Python's str() of a value, for % and format; NULL when it has none kiln knows */
static char *py_str(const json_t *v)
{
	if (json_is_string(v))
		return xstrdup(json_string_value(v));
	if (json_is_integer(v))
		return xasprintf("%lld", (long long)json_integer_value(v));
	if (json_is_real(v))
		return xasprintf("%.17g", json_real_value(v));
	if (json_is_true(v))
		return xstrdup("True");
	if (json_is_false(v))
		return xstrdup("False");
	if (json_is_null(v))
		return xstrdup("None");
	return NULL;
}

/* "fmt" % args (a tuple as a list, or one value) */
static json_t *percent(const char *fmt, const json_t *args)
{
	struct strbuf sb = STRBUF_INIT;
	size_t ai = 0;
	for (const char *p = fmt; *p; p++) {
		if (*p != '%') {
			sb_addc(&sb, *p);
			continue;
		}
		p++;
		if (*p == '%') {
			sb_addc(&sb, '%');
			continue;
		}
		while (*p && strchr("-+ #0123456789.", *p))
			p++;
		const json_t *a = json_is_array(args) ? json_array_get(args, ai++) : ai++ ? NULL : args;
		char *s = a ? py_str(a) : NULL;
		if (!s || !*p || !strchr("sdirf", *p)) {
			free(s);
			sb_release(&sb);
			return unknown("a %% format kiln does not read");
		}
		sb_adds(&sb, s);
		free(s);
		if (sb.len > (size_t)KR_MAX_STR) {
			sb_release(&sb);
			return unknown("a string longer than %ld bytes", KR_MAX_STR);
		}
	}
	json_t *v = json_string_nocheck(sb_str(&sb));
	sb_release(&sb);
	return v;
}

/* str.format with {} {N} */
static json_t *format(const char *fmt, const json_t *args)
{
	struct strbuf sb = STRBUF_INIT;
	size_t auto_i = 0;
	for (const char *p = fmt; *p; p++) {
		if (*p == '{' && p[1] == '{') {
			sb_addc(&sb, '{');
			p++;
		} else if (*p == '}' && p[1] == '}') {
			sb_addc(&sb, '}');
			p++;
		} else if (*p == '{') {
			const char *close = strchr(p, '}');
			if (!close) {
				sb_release(&sb);
				return unknown("a format string kiln does not read");
			}
			size_t i = auto_i++;
			if (close > p + 1) {
				char *end;
				i = strtoul(p + 1, &end, 10);
				if (end != close) {
					sb_release(&sb);
					return unknown("a format field kiln does not read");
				}
			}
			char *s = py_str(json_array_get(args, i));
			if (!s) {
				sb_release(&sb);
				return unknown("a format argument kiln does not know");
			}
			sb_adds(&sb, s);
			free(s);
			p = close;
			if (sb.len > (size_t)KR_MAX_STR) {
				sb_release(&sb);
				return unknown("a string longer than %ld bytes", KR_MAX_STR);
			}
		} else {
			sb_addc(&sb, *p);
		}
	}
	json_t *v = json_string_nocheck(sb_str(&sb));
	sb_release(&sb);
	return v;
}

/* a method call on a value kiln knows */
static json_t *method(struct kr *k, json_t *self, const char *name, json_t *args, int line)
{
	const char *s = str_of(self);
	const char *a0 = str_of(json_array_get(args, 0));
	if (s && !strcmp(name, "startswith") && a0)
		return json_boolean(!strncmp(s, a0, strlen(a0)));
	if (s && !strcmp(name, "endswith") && a0)
		return json_boolean(str_ends_with(s, a0));
	if (s && (!strcmp(name, "lower") || !strcmp(name, "upper") || !strcmp(name, "strip"))) {
		char *t = xstrdup(s);
		if (name[0] == 's') {
			char *b = t;
			while (isspace((unsigned char)*b))
				b++;
			memmove(t, b, strlen(b) + 1);
			for (size_t n = strlen(t); n && isspace((unsigned char)t[n - 1]);)
				t[--n] = '\0';
		}
		for (char *p = t; name[0] != 's' && *p; p++)
			*p = (char)(name[0] == 'l' ? tolower((unsigned char)*p) : toupper((unsigned char)*p));
		json_t *v = json_string_nocheck(t);
		free(t);
		return v;
	}
	if (s && !strcmp(name, "split") && (a0 || !json_array_size(args))) {
		json_t *l = json_array();
		const char *p = s, *sep = a0 && *a0 ? a0 : " ";
		for (const char *q; (q = strstr(p, sep)); p = q + strlen(sep))
			json_array_append_new(l, json_stringn_nocheck(p, (size_t)(q - p)));
		json_array_append_new(l, json_string_nocheck(p));
		return l;
	}
	if (s && !strcmp(name, "replace") && a0 && str_of(json_array_get(args, 1))) {
		struct strbuf sb = STRBUF_INIT;
		const char *p = s, *rep = str_of(json_array_get(args, 1));
		for (const char *q; *a0 && (q = strstr(p, a0)); p = q + strlen(a0)) {
			sb_add(&sb, p, (size_t)(q - p));
			sb_adds(&sb, rep);
			if (sb.len > (size_t)KR_MAX_STR) {
				sb_release(&sb);
				return unknown("a string longer than %ld bytes", KR_MAX_STR);
			}
		}
		sb_adds(&sb, p);
		json_t *v = json_string_nocheck(sb_str(&sb));
		sb_release(&sb);
		return v;
	}
	if (s && !strcmp(name, "format"))
		return format(s, args);
	if (s && !strcmp(name, "join") && json_is_array(json_array_get(args, 0))) {
		struct strbuf sb = STRBUF_INIT;
		json_t *x;
		size_t i;
		json_array_foreach(json_array_get(args, 0), i, x) {
			if (!str_of(x)) {
				sb_release(&sb);
				return unknown("join of values that are not strings");
			}
			sb_addf(&sb, "%s%s", i ? s : "", str_of(x));
			if (sb.len > (size_t)KR_MAX_STR) {
				sb_release(&sb);
				return unknown("a string longer than %ld bytes", KR_MAX_STR);
			}
		}
		json_t *v = json_string_nocheck(sb_str(&sb));
		sb_release(&sb);
		return v;
	}
	if (json_is_array(self) && (!strcmp(name, "append") || !strcmp(name, "extend"))) {
		size_t more = name[0] == 'a' ? 1 : json_array_size(json_array_get(args, 0));
		if (json_array_size(self) + more > (size_t)KR_MAX_LIST || (k->made += more) > (size_t)KR_MAX_MADE) {
			kr_err(k, line, "a list of more than %ld items, or more values than kiln evaluates", KR_MAX_LIST);
			return NULL;
		}
		if (name[0] == 'a')
			json_array_append(self, json_array_get(args, 0));
		else if (json_is_array(json_array_get(args, 0)))
			json_array_extend(self, json_array_get(args, 0));
		return json_null();
	}
	if (json_is_object(self) && !is_tag(self, "__call__") && !strcmp(name, "update") &&
	    json_is_object(json_array_get(args, 0))) {
		json_object_update(self, json_array_get(args, 0));
		return json_null();
	}
	if (json_is_object(self) && !is_tag(self, "__call__") && !strcmp(name, "get") && a0) {
		json_t *v = json_object_get(self, a0);
		return v ? json_incref(v) : json_array_size(args) > 1 ? json_incref(json_array_get(args, 1)) : json_null();
	}
	(void)k;
	return unknown("line %d: .%s() of a value kiln does not know", line, name);
}

/* a call of a module's function, a builtin or a constructor */
static json_t *call(struct kr *k, json_t *fn, json_t *args, json_t *kw, int line)
{
	const char *mod = tag_str(fn, "__module__"), *f = tag_str(fn, "__func__"), *cls = tag_str(fn, "__class__");
	const char *a0 = str_of(json_array_get(args, 0));
	if (cls) /* a VM def, EntryPoint: kept as called */
		return json_pack("{s:s,s:O,s:O,s:o}", "__call__", cls, "args", args, "kwargs", kw, "where", where_now(k, line));
	if (mod && !strcmp(mod, "os.getcwd"))
		return json_string_nocheck(k->dir);
	if (mod && !strcmp(mod, "os.path.join")) {
		char *p = NULL;
		for (size_t i = 0; i < json_array_size(args); i++) {
			const char *s = str_of(json_array_get(args, i));
			if (!s) {
				free(p);
				return unknown("line %d: os.path.join of a value that is not a string", line);
			}
			char *q = !p || s[0] == '/' ? xstrdup(s) : !*s ? xasprintf("%s/", p) : path_join(p, s);
			free(p);
			p = q;
		}
		json_t *v = json_string_nocheck(p ? p : "");
		free(p);
		return v;
	}
	if (mod && (!strcmp(mod, "os.path.dirname") || !strcmp(mod, "os.path.abspath")) && a0) {
		char *p = mod[8] == 'd' ? path_dirname(a0) : path_join(k->dir, a0);
		json_t *v = json_string_nocheck(p);
		free(p);
		return v;
	}
	if (mod && !strcmp(mod, "platform.node")) {
		struct utsname u;
		return json_string_nocheck(uname(&u) == 0 ? u.nodename : "");
	}
	if (mod && !strcmp(mod, "platform.system"))
		return json_string_nocheck("Linux");
	if (f && !strcmp(f, "find_executable") && a0) {
		char *p = find_in_path(a0);
		json_t *v = p ? json_string_nocheck(p) : json_null();
		free(p);
		return v;
	}
	if (f && !strcmp(f, "len") && (json_is_array(json_array_get(args, 0)) || a0))
		return json_integer(a0 ? (json_int_t)strlen(a0) : (json_int_t)json_array_size(json_array_get(args, 0)));
	if (f && (!strcmp(f, "int") || !strcmp(f, "float") || !strcmp(f, "str"))) {
		json_t *x = json_array_get(args, 0);
		if (f[0] == 's') {
			char *s = x ? py_str(x) : NULL;
			json_t *v = s ? json_string_nocheck(s) : unknown("line %d: str() of a value kiln does not know", line);
			free(s);
			return v;
		}
		double d = json_is_number(x) ? json_number_value(x) : a0 ? strtod(a0, NULL) : 0;
		return f[0] == 'i' ? json_integer((json_int_t)d) : num_real(d);
	}
	return unknown("line %d: a call of %s", line, f ? f : mod ? mod : "a value");
}

/* a number's value, its `_`s dropped: an int when strtoll (base 0) reads all of it, else a float (strtod) */
/*
 * A number as Python reads it: 1_000, 0x1f, 0o17 and 0b101 (Python 3 and
 * 2.6+), 017 (Python 2's octal, as Krun's configs were written for it),
 * 10L (Python 2's long: an integer), 1.5, 1e-3.  A complex number (1j) or
 * an integer beyond 64 bits is refused rather than read as something else.
 */
static json_t *atom_num(struct kr *k, const struct tok *t)
{
	char *clean = xstrdup(t->s), *w = clean;
	for (char *r = clean; *r; r++)
		if (*r != '_')
			*w++ = *r;
	*w = '\0';
	size_t n = strlen(clean);
	int base = 0, off = 0;
	if (n > 2 && clean[0] == '0' && strchr("oObBxX", clean[1]))
		base = strchr("oO", clean[1]) ? 8 : strchr("bB", clean[1]) ? 2 : 16, off = 2;
	if (n > 1 && strchr("lL", clean[n - 1]) && (base == 16 || !strpbrk(clean, ".eE")))
		clean[--n] = '\0'; /* 10L: a long, an integer all the same */
	char *end;
	errno = 0;
	long long v = strtoll(clean + off, &end, base);
	json_t *x = NULL;
	if (!*end && end > clean + off && errno != ERANGE && (base != 16 || !strchr(clean + off, '-')))
		x = json_integer(v);
	else if (!*end && errno == ERANGE)
		kr_err(k, t->line, "%s: an integer beyond 64 bits", t->s);
	else if (!off && strpbrk(clean, ".eE") && (strtod(clean, &end), !*end && end > clean))
		x = num_real(strtod(clean, NULL));
	else
		kr_err(k, t->line, "%s: not a number kiln reads (a complex number, or not Python's)", t->s);
	free(clean);
	return x;
}

/* string literals one after another: "a" "b" is one string */
static json_t *atom_str(struct kr *k)
{
	struct strbuf sb = STRBUF_INIT;
	while (cur(k)->t == T_STR)
		sb_adds(&sb, cur(k)->s), k->at++;
	json_t *v = json_string_nocheck(sb_str(&sb));
	sb_release(&sb);
	return v;
}

/* a name: a constant, one bound before, a module, a constructor or builtin kiln knows, else a value it cannot know */
static json_t *atom_name(struct kr *k, const struct tok *t)
{
	if (!strcmp(t->s, "True") || !strcmp(t->s, "False"))
		return json_boolean(t->s[0] == 'T');
	if (!strcmp(t->s, "None"))
		return json_null();
	json_t *v = json_object_get(k->env, t->s);
	if (v)
		return json_incref(v);
	if (!strcmp(t->s, "sys") || !strcmp(t->s, "os") || !strcmp(t->s, "platform"))
		return module(t->s);
	if (str_ends_with(t->s, "VMDef") || !strcmp(t->s, "EntryPoint"))
		return json_pack("{s:s}", "__class__", t->s);
	static const char *const builtins[] = { "len", "int", "float", "str", "find_executable" };
	for (size_t i = 0; i < ARRAY_SIZE(builtins); i++)
		if (!strcmp(t->s, builtins[i]))
			return json_pack("{s:s}", "__func__", t->s);
	return unknown("line %d: the name %s", t->line, t->s);
}

/* (a, b) or [a, b], both as a list; (x) is x */
static json_t *atom_seq(struct kr *k)
{
	int paren = is_op(k, "(");
	const char *close = paren ? ")" : "]";
	k->at++;
	json_t *l = json_array();
	int comma = 0;
	while (!is_op(k, close)) {
		json_t *v = expr(k);
		if (!v) {
			json_decref(l);
			return NULL;
		}
		json_array_append_new(l, v);
		if (!is_op(k, ","))
			break;
		comma = 1;
		k->at++;
	}
	if (expect_op(k, close) < 0) {
		json_decref(l);
		return NULL;
	}
	if (paren && !comma && json_array_size(l) == 1) { /* (x): x */
		json_t *v = json_incref(json_array_get(l, 0));
		json_decref(l);
		return v;
	}
	return l;
}

/* {key: value, ...}: keys must be strings (JSON's objects) */
static json_t *atom_dict(struct kr *k)
{
	k->at++;
	json_t *d = json_object();
	while (!is_op(k, "}")) {
		int line = cur(k)->line;
		json_t *key = expr(k), *v = key && !expect_op(k, ":") ? expr(k) : NULL;
		if (!v) {
			json_decref(key);
			json_decref(d);
			return NULL;
		}
		if (!json_is_string(key)) {
			json_decref(key);
			json_decref(v);
			json_decref(d);
			kr_err(k, line, "a dict key that is not a string: not read");
			return NULL;
		}
		json_object_set_new_nocheck(d, json_string_value(key), v);
		json_decref(key);
		if (!is_op(k, ","))
			break;
		k->at++;
	}
	if (expect_op(k, "}") < 0) {
		json_decref(d);
		return NULL;
	}
	return d;
}

/* a literal, a name, a bracketed expression, a list or a dict; NULL with k's error set */
static json_t *atom(struct kr *k)
{
	struct tok *t = cur(k);
	if (t->t == T_NUM) {
		k->at++;
		return atom_num(k, t);
	}
	if (t->t == T_STR)
		return atom_str(k);
	if (t->t == T_NAME) {
		k->at++;
		return atom_name(k, t);
	}
	if (is_op(k, "(") || is_op(k, "["))
		return atom_seq(k);
	if (is_op(k, "{"))
		return atom_dict(k);
	kr_err(k, t->line, "'%s': not an expression kiln reads", t->s ? t->s : "end of line");
	return NULL;
}

/* v(args), or v.method(args) with `method`; v taken */
static json_t *call_of(struct kr *k, json_t *v, const char *method_name, int line)
{
	k->at++;
	json_t *args = json_array(), *kw = json_object(), *r = NULL;
	if (call_args(k, args, kw) == 0)
		r = is_unknown(v) ? json_incref(v) : method_name ? method(k, v, method_name, args, line)
							     : call(k, v, args, kw, line);
	json_decref(args);
	json_decref(kw);
	json_decref(v);
	return r;
}

/* an atom and its trailers: .name, (args), [index] */
static json_t *postfix(struct kr *k)
{
	json_t *v = atom(k);
	while (v) {
		int line = cur(k)->line;
		if (is_op(k, ".")) {
			k->at++;
			if (cur(k)->t != T_NAME) {
				json_decref(v);
				kr_err(k, line, "a name expected after '.'");
				return NULL;
			}
			const char *name = cur(k)->s;
			k->at++;
			const char *mod = tag_str(v, "__module__");
			if (mod && !strcmp(mod, "sys") && !strcmp(name, "platform")) {
				json_decref(v);
				v = json_string_nocheck("linux");
			} else if (mod) {
				char *full = xasprintf("%s.%s", mod, name);
				json_decref(v);
				v = module(full);
				free(full);
			} else if (is_op(k, "(")) {
				v = call_of(k, v, name, line);
			} else {
				json_t *r = is_unknown(v) ? json_incref(v) : unknown("line %d: the attribute .%s", line, name);
				json_decref(v);
				v = r;
			}
		} else if (is_op(k, "(")) {
			v = call_of(k, v, NULL, line);
		} else if (is_op(k, "[")) {
			k->at++;
			json_t *i = expr(k), *r = NULL;
			if (i && expect_op(k, "]") == 0) {
				if (json_is_array(v) && json_is_integer(i)) {
					json_int_t n = json_integer_value(i);
					n += n < 0 ? (json_int_t)json_array_size(v) : 0;
					r = json_array_get(v, (size_t)n) ? json_incref(json_array_get(v, (size_t)n))
									 : unknown("line %d: an index out of range", line);
				} else if (json_is_object(v) && json_is_string(i) && !is_unknown(v)) {
					json_t *x = json_object_get(v, json_string_value(i));
					r = x ? json_incref(x) : unknown("line %d: no key '%s'", line, json_string_value(i));
				} else {
					r = unknown("line %d: an index kiln does not know", line);
				}
			}
			json_decref(i);
			json_decref(v);
			v = r;
		} else {
			break;
		}
	}
	return v;
}

/*
 * One more level of the evaluator's recursion (a bracket, a prefix '-', '+'
 * or 'not', a '**'): 0 past KR_MAX_DEPTH, with the error set.  Without it
 * 200,000 of '-' ran the stack out (SIGSEGV).
 */
static int deeper(struct kr *k)
{
	if (++k->depth <= KR_MAX_DEPTH)
		return 1;
	kr_err(k, cur(k)->line, "an expression nested too deep");
	return 0;
}

static json_t *unary(struct kr *k)
{
	if (is_op(k, "-") || is_op(k, "+")) {
		int neg = is_op(k, "-");
		k->at++;
		if (!deeper(k))
			return NULL;
		json_t *v = unary(k);
		k->depth--;
		if (!v || !neg || is_unknown(v))
			return v;
		json_t *r = json_is_integer(v) && json_integer_value(v) != INT64_MIN ? json_integer(-json_integer_value(v))
			    : json_is_real(v) ? num_real(-json_real_value(v))
											    : unknown("a minus of a value that is no number");
		json_decref(v);
		return r;
	}
	json_t *v = postfix(k);
	if (v && is_op(k, "**")) {
		k->at++;
		if (!deeper(k)) {
			json_decref(v);
			return NULL;
		}
		json_t *w = unary(k);
		k->depth--;
		json_t *r = w && json_is_number(v) && json_is_number(w) ? num_real(pow(json_number_value(v), json_number_value(w)))
			    : w ? unknown("a power of values that are no numbers") : NULL;
		json_decref(w);
		json_decref(v);
		return r;
	}
	return v;
}

/* a binary operation of two values kiln knows */
static json_t *binop(const char *op, json_t *a, json_t *b)
{
	if (is_unknown(a))
		return json_incref(a);
	if (is_unknown(b))
		return json_incref(b);
	if (!strcmp(op, "%") && json_is_string(a))
		return percent(json_string_value(a), b);
	if (!strcmp(op, "+") && json_is_string(a) && json_is_string(b)) {
		if (json_string_length(a) + json_string_length(b) > (size_t)KR_MAX_STR)
			return unknown("a string longer than %ld bytes", KR_MAX_STR);
		char *s = xasprintf("%s%s", json_string_value(a), json_string_value(b));
		json_t *v = json_string_nocheck(s);
		free(s);
		return v;
	}
	if (!strcmp(op, "+") && json_is_array(a) && json_is_array(b)) {
		if (json_array_size(a) + json_array_size(b) > (size_t)KR_MAX_LIST)
			return unknown("a list of more than %ld items", KR_MAX_LIST);
		json_t *v = json_copy(a);
		json_array_extend(v, b);
		return v;
	}
	if (!json_is_number(a) || !json_is_number(b))
		return unknown("'%s' of values kiln does not add up", op);
	int ints = json_is_integer(a) && json_is_integer(b);
	double x = json_number_value(a), y = json_number_value(b);
	json_int_t i = json_integer_value(a), j = json_integer_value(b);
	json_int_t z;
	switch (op[0]) {
	case '+': return !ints ? num_real(x + y) : __builtin_add_overflow(i, j, &z) ? unknown("a number out of range") : json_integer(z);
	case '-': return !ints ? num_real(x - y) : __builtin_sub_overflow(i, j, &z) ? unknown("a number out of range") : json_integer(z);
	case '*': return !ints ? num_real(x * y) : __builtin_mul_overflow(i, j, &z) ? unknown("a number out of range") : json_integer(z);
	case '/':
		if (y == 0)
			return unknown("a division by zero");
		if (op[1] == '/' && ints && j == -1 && i == INT64_MIN)
			return unknown("a number out of range");
		return op[1] == '/' && ints ? json_integer(i / j) : num_real(x / y);
	case '%': return ints && j && !(j == -1 && i == INT64_MIN) ? json_integer(i % j) : unknown("'%%' of values kiln does not know");
	}
	return unknown("'%s'", op);
}

static json_t *binary(struct kr *k, int level)
{
	static const char *const levels[2][4] = { { "+", "-", NULL }, { "*", "/", "//", "%" } };
	/* level 0: + and - of level-1 terms; level 1: * / // % of unary factors */
	json_t *v = level == 1 ? unary(k) : binary(k, 1);
	while (v) {
		const char *op = NULL;
		for (size_t i = 0; i < 4 && levels[level][i]; i++)
			if (is_op(k, levels[level][i]))
				op = levels[level][i];
		if (!op)
			break;
		k->at++;
		json_t *w = level == 1 ? unary(k) : binary(k, 1);
		json_t *r = w ? binop(op, v, w) : NULL;
		json_decref(v);
		json_decref(w);
		v = r;
	}
	return v;
}

/*
 * Python's == of two values: 1 or 0; -1 when it takes more than *visits
 * steps or KR_MAX_DEPTH levels (jansson's json_equal has no bound: a list
 * holding itself ran the stack out, lists sharing their items took
 * exponential time).  A value is equal to itself, as Python's lists find.
 */
static int kr_equal(const json_t *a, const json_t *b, long *visits, int depth)
{
	if (a == b)
		return 1;
	if (--*visits < 0 || depth > KR_MAX_DEPTH)
		return -1;
	if (json_is_number(a) && json_is_number(b))
		return json_number_value(a) == json_number_value(b);
	if (json_typeof(a) != json_typeof(b))
		return 0;
	if (json_is_array(a)) {
		if (json_array_size(a) != json_array_size(b))
			return 0;
		for (size_t i = 0; i < json_array_size(a); i++) {
			int eq = kr_equal(json_array_get(a, i), json_array_get(b, i), visits, depth + 1);
			if (eq != 1)
				return eq;
		}
		return 1;
	}
	if (json_is_object(a)) {
		if (json_object_size(a) != json_object_size(b))
			return 0;
		const char *key;
		json_t *v;
		json_object_foreach((json_t *)a, key, v) {
			json_t *w = json_object_get(b, key);
			int eq = w ? kr_equal(v, w, visits, depth + 1) : 0;
			if (eq != 1)
				return eq;
		}
		return 1;
	}
	return json_equal(a, b); /* strings, true, false, null */
}

static json_t *comparison(struct kr *k)
{
	json_t *v = binary(k, 0);
	while (v) {
		const char *op = NULL;
		static const char *const ops[] = { "==", "!=", "<", ">", "<=", ">=" };
		for (size_t i = 0; i < ARRAY_SIZE(ops); i++)
			if (is_op(k, ops[i]))
				op = ops[i];
		int isop = is_name(k, "is"), inop = is_name(k, "in"), notin = is_name(k, "not") && k->at + 1 < k->n &&
			   k->tk[k->at + 1].t == T_NAME && !strcmp(k->tk[k->at + 1].s, "in");
		if (!op && !isop && !inop && !notin)
			break;
		k->at += notin ? 2 : 1;
		int isnot = isop && is_name(k, "not");
		k->at += isnot;
		json_t *w = binary(k, 0), *r = NULL;
		if (!w)
			r = NULL;
		else if (is_unknown(v) || is_unknown(w))
			r = json_incref(is_unknown(v) ? v : w);
		else if (inop || notin) {
			int found = json_is_object(w) && json_is_string(v) ? json_object_get(w, json_string_value(v)) != NULL : 0;
			long visits = KR_MAX_VISITS;
			size_t i;
			json_t *x;
			if (json_is_array(w))
				json_array_foreach(w, i, x) {
					int eq = kr_equal(x, v, &visits, 0);
					if (eq != 0) {
						found = eq;
						break;
					}
				}
			if (json_is_string(w) && json_is_string(v))
				found = strstr(json_string_value(w), json_string_value(v)) != NULL;
			r = found < 0 ? unknown("an 'in' of values too large or nested too deep") : json_boolean(found != notin);
		} else if (isop || !strcmp(op, "==") || !strcmp(op, "!=")) {
			long visits = KR_MAX_VISITS;
			int eq = kr_equal(v, w, &visits, 0);
			r = eq < 0 ? unknown("a comparison of values too large or nested too deep")
				   : json_boolean(eq != (isnot || (op && !strcmp(op, "!="))));
		} else if (json_is_number(v) && json_is_number(w)) {
			double x = json_number_value(v), y = json_number_value(w);
			r = json_boolean(op[0] == '<' ? (op[1] ? x <= y : x < y) : (op[1] ? x >= y : x > y));
		} else {
			r = unknown("a comparison of values kiln does not compare");
		}
		json_decref(v);
		json_decref(w);
		v = r;
	}
	return v;
}

/* Python's truth of a known value; -1 for one kiln does not know */
static int truth(const json_t *v)
{
	if (is_unknown(v))
		return -1;
	if (json_is_boolean(v))
		return json_is_true(v);
	if (json_is_null(v))
		return 0;
	if (json_is_number(v))
		return json_number_value(v) != 0;
	if (json_is_string(v))
		return *json_string_value(v) != 0;
	if (json_is_array(v))
		return json_array_size(v) > 0;
	if (json_is_object(v))
		return is_tag(v, "__call__") || json_object_size(v) > 0;
	return -1;
}

static json_t *not_test(struct kr *k)
{
	if (!is_name(k, "not"))
		return comparison(k);
	k->at++;
	if (!deeper(k))
		return NULL;
	json_t *v = not_test(k);
	k->depth--;
	if (!v)
		return NULL;
	int t = truth(v);
	json_t *r = t < 0 ? json_incref(v) : json_boolean(!t);
	json_decref(v);
	return r;
}

static json_t *and_or(struct kr *k, int or)
{
	json_t *v = or ? and_or(k, 0) : not_test(k);
	while (v && is_name(k, or ? "or" : "and")) {
		k->at++;
		json_t *w = or ? and_or(k, 0) : not_test(k);
		if (!w) {
			json_decref(v);
			return NULL;
		}
		int t = truth(v);
		json_t *r = t < 0 ? json_incref(v) : (or ? t : !t) ? json_incref(v) : json_incref(w);
		json_decref(v);
		json_decref(w);
		v = r;
	}
	return v;
}

/* v, a value an expression made, counted toward KR_MAX_MADE: 0 past it, with the error set */
static int made(struct kr *k, const json_t *v, int line)
{
	size_t n = json_is_string(v) ? json_string_length(v) : json_is_array(v) ? json_array_size(v)
					 : json_is_object(v) ? json_object_size(v) : 1;
	if ((k->made += n) <= (size_t)KR_MAX_MADE)
		return 1;
	kr_err(k, line, "more values made than kiln evaluates (%ld bytes and items)", KR_MAX_MADE);
	return 0;
}

/* an expression, `a if c else b` included */
static json_t *expr(struct kr *k)
{
	if (!deeper(k))
		return NULL;
	json_t *v = and_or(k, 1);
	if (v && is_name(k, "if")) {
		k->at++;
		json_t *c = and_or(k, 1), *o = NULL;
		if (c && is_name(k, "else")) {
			k->at++;
			o = expr(k);
		} else if (c) {
			kr_err(k, cur(k)->line, "'else' expected");
		}
		int t = c ? truth(c) : -1;
		json_t *r = !o ? NULL : t < 0 ? json_incref(is_unknown(c) ? c : v) : json_incref(t ? v : o);
		json_decref(c);
		json_decref(o);
		json_decref(v);
		v = r;
	}
	k->depth--;
	if (v && !made(k, v, cur(k)->line)) {
		json_decref(v);
		return NULL;
	}
	return v;
}

/* an expression, or a tuple of them without parentheses (`a, b`) */
static json_t *expr_list(struct kr *k)
{
	json_t *v = expr(k);
	if (!v || !is_op(k, ","))
		return v;
	json_t *l = json_array();
	json_array_append_new(l, v);
	while (is_op(k, ",")) {
		k->at++;
		if (cur(k)->t == T_NEWLINE)
			break;
		json_t *w = expr(k);
		if (!w) {
			json_decref(l);
			return NULL;
		}
		json_array_append_new(l, w);
	}
	return l;
}

/* ---- statements ---- */

static int block(struct kr *k, int run);

static void skip_line(struct kr *k)
{
	while (cur(k)->t != T_NEWLINE && cur(k)->t != T_END)
		k->at++;
	if (cur(k)->t == T_NEWLINE)
		k->at++;
}

/* after `:` a block (NEWLINE INDENT ... DEDENT) or one simple statement on the line */
static int suite(struct kr *k, int run)
{
	if (expect_op(k, ":") < 0)
		return -1;
	if (cur(k)->t != T_NEWLINE)
		return block(k, run) < 0 ? -1 : 0; /* one statement: block() reads one line when no INDENT follows */
	k->at++;
	if (cur(k)->t != T_INDENT)
		return kr_err(k, cur(k)->line, "an indented block expected");
	k->at++;
	while (cur(k)->t != T_DEDENT && cur(k)->t != T_END)
		if (block(k, run) < 0)
			return -1;
	if (cur(k)->t == T_DEDENT)
		k->at++;
	return 0;
}

static int statement(struct kr *k, int run);

/* if / elif / else: the first branch whose condition holds runs; one kiln cannot decide is refused */
static int if_stmt(struct kr *k, int run)
{
	int taken = 0;
	do {
		int line = cur(k)->line, is_else = is_name(k, "else");
		k->at++;
		int t = 1;
		if (!is_else) {
			json_t *c = expr(k);
			if (!c)
				return -1;
			t = truth(c);
			if (t < 0 && run && !taken) {
				int r = kr_err(k, line, "a condition kiln cannot decide (%s)", tag_str(c, "__unknown__"));
				json_decref(c);
				return r;
			}
			json_decref(c);
		}
		int go = run && !taken && t == 1;
		taken |= go;
		if (suite(k, go) < 0)
			return -1;
	} while (is_name(k, "elif") || is_name(k, "else"));
	return 0;
}

static int assign(struct kr *k, json_t *target_names, json_t *v, int line)
{
	if (json_is_string(target_names)) {
		json_object_set_nocheck(k->env, json_string_value(target_names), v);
		json_object_set_new_nocheck(k->lines, json_string_value(target_names), where_now(k, line));
		return 0;
	}
	if (!json_is_array(v) || json_array_size(v) != json_array_size(target_names))
		return kr_err(k, line, "unpacking into %zu names of a value kiln cannot split", json_array_size(target_names));
	for (size_t i = 0; i < json_array_size(v); i++) {
		json_object_set_nocheck(k->env, json_string_value(json_array_get(target_names, i)), json_array_get(v, i));
		json_object_set_new_nocheck(k->lines, json_string_value(json_array_get(target_names, i)), where_now(k, line));
	}
	return 0;
}

static int kr_run(struct kr *k, const char *text, size_t len);

/* another config file read into the same names, as Krun's execfile(path, globals()) runs it */
static int include(struct kr *k, const char *rel, int line)
{
	if (k->depth > 4)
		return kr_err(k, line, "execfile nested too deep");
	char *p = rel[0] == '/' ? xstrdup(rel) : path_join(k->dir, rel);
	struct strbuf text = STRBUF_INIT;
	struct kerr e = KERR_INIT;
	int r = read_file(p, &text, &e);
	if (r < 0)
		r = kr_err(k, line, "execfile: %s", sb_str(&e.msg));
	struct kr sub = *k;
	sub.path = p;
	sub.tk = NULL;
	sub.n = sub.at = 0;
	sub.depth = k->depth + 1;
	if (r == 0)
		r = kr_run(&sub, text.buf, text.len);
	for (size_t i = 0; i < sub.n; i++)
		free(sub.tk[i].s);
	free(sub.tk);
	kerr_release(&e);
	sb_release(&text);
	free(p);
	return r;
}

/* raise, or assert: when run, the config stops there as Krun would (an assert only of what is false) */
static int raise_stmt(struct kr *k, int run, int line)
{
	int raise = is_name(k, "raise");
	k->at++;
	json_t *v = cur(k)->t == T_NEWLINE ? json_false() : expr(k);
	int t1 = v ? truth(v) : 0;
	json_decref(v);
	skip_line(k);
	if (run && (raise || t1 == 0))
		return kr_err(k, line, "the config %s here: Krun would stop", raise ? "raises an exception" : "asserts what is false");
	return v ? 0 : -1;
}

/* the names a statement starting NAME[, NAME]* may bind: one as a string, several as a list; NULL: no NAME */
static json_t *target_names(struct kr *k)
{
	if (cur(k)->t != T_NAME)
		return NULL;
	json_t *names = json_string_nocheck(cur(k)->s);
	k->at++;
	while (is_op(k, ",") && k->at + 1 < k->n && k->tk[k->at + 1].t == T_NAME) {
		if (json_is_string(names)) {
			json_t *l = json_array();
			json_array_append_new(l, names);
			names = l;
		}
		k->at++;
		json_array_append_new(names, json_string_nocheck(cur(k)->s));
		k->at++;
	}
	return names;
}

/* at `=` or `+=` after the names (taken): the value bound to them, when run */
static int assign_stmt(struct kr *k, json_t *names, int run, int line)
{
	int aug = is_op(k, "+=");
	k->at++;
	json_t *v = expr_list(k);
	if (!v) {
		json_decref(names);
		return -1;
	}
	int r = 0;
	if (run && aug) {
		json_t *old = json_is_string(names) ? json_object_get(k->env, json_string_value(names)) : NULL;
		json_t *sum = old ? binop("+", old, v) : unknown("line %d: += of a name not bound", line);
		r = made(k, sum, line) ? assign(k, names, sum, line) : -1;
		json_decref(sum);
	} else if (run) {
		r = assign(k, names, v, line);
	}
	json_decref(v);
	json_decref(names);
	if (r == 0 && cur(k)->t != T_NEWLINE && cur(k)->t != T_END && !is_op(k, ";"))
		r = kr_err(k, cur(k)->line, "more after an assignment than kiln reads");
	skip_line(k);
	return r;
}

/* whether the statement at t (a NAME) is NAME[...] = ...: an `=` right after the bracket that closes the first */
static int is_item_assign(struct kr *k, const struct tok *t)
{
	if (!(t->t == T_NAME && k->at + 1 < k->n && k->tk[k->at + 1].t == T_OP && !strcmp(k->tk[k->at + 1].s, "[")))
		return 0;
	size_t depth = 0, j = k->at + 1;
	for (; j < k->n && k->tk[j].t != T_NEWLINE; j++) {
		if (k->tk[j].t == T_OP && strchr("([{", k->tk[j].s[0]))
			depth++;
		else if (k->tk[j].t == T_OP && strchr(")]}", k->tk[j].s[0]) && --depth == 0)
			break;
	}
	return j + 1 < k->n && k->tk[j + 1].t == T_OP && !strcmp(k->tk[j + 1].s, "=");
}

/* NAME[INDEX] = value: an entry of a dict, or of a list within its length */
static int item_assign(struct kr *k, const struct tok *t, int run, int line)
{
	json_t *target = json_object_get(k->env, t->s);
	k->at += 2;
	json_t *i = expr(k), *v = i && !expect_op(k, "]") && !expect_op(k, "=") ? expr_list(k) : NULL;
	int r = v ? 0 : -1;
	if (v && run && json_is_object(target) && !is_tag(target, "__call__") && !is_unknown(target) && json_is_string(i))
		json_object_set_nocheck(target, json_string_value(i), v);
	else if (v && run && json_is_array(target) && json_is_integer(i) && json_integer_value(i) >= 0 &&
		 (size_t)json_integer_value(i) < json_array_size(target))
		json_array_set(target, (size_t)json_integer_value(i), v);
	else if (v && run)
		r = kr_err(k, line, "%s[...] = ...: an entry of a value kiln does not know", t->s);
	json_decref(i);
	json_decref(v);
	skip_line(k);
	return r;
}

/* execfile("other.krun", globals()): that file read into the same names (never run); fatal(...): the config stops */
static int execfile_stmt(struct kr *k, int run, int line)
{
	int ex = is_name(k, "execfile");
	k->at++;
	json_t *args = json_array(), *kw = json_object();
	int r = expect_op(k, "(") < 0 || call_args(k, args, kw) < 0 ? -1 : 0;
	const char *a0 = str_of(json_array_get(args, 0));
	if (r == 0 && run && !ex)
		r = kr_err(k, line, "the config stops here, as Krun would (fatal: %s)", a0 ? a0 : "?");
	else if (r == 0 && run && !a0)
		r = kr_err(k, line, "execfile of a path kiln does not know");
	else if (r == 0 && run)
		r = include(k, a0, line);
	json_decref(args);
	json_decref(kw);
	skip_line(k);
	return r;
}

/* a statement of one line: import/from/pass/global (skipped), raise/assert, an assignment, execfile/fatal or an expression */
static int simple(struct kr *k, int run)
{
	struct tok *t = cur(k);
	int line = t->line;
	if (is_name(k, "import") || is_name(k, "from") || is_name(k, "pass") || is_name(k, "global")) {
		skip_line(k);
		return 0;
	}
	if (is_name(k, "raise") || is_name(k, "assert"))
		return raise_stmt(k, run, line);
	/* NAME[, NAME]* (=|+=) expr, or an expression statement */
	size_t save = k->at;
	json_t *names = target_names(k);
	if (names && (is_op(k, "=") || is_op(k, "+=")))
		return assign_stmt(k, names, run, line);
	json_decref(names);
	k->at = save;
	if (is_item_assign(k, t))
		return item_assign(k, t, run, line);
	if (is_name(k, "execfile") || is_name(k, "fatal"))
		return execfile_stmt(k, run, line);
	/* an expression: a method call that changes a list or dict (append, extend, update), a call whose value is unused */
	json_t *v = expr(k);
	if (!v)
		return -1;
	if (run && is_unknown(v))
		note(k, line, "statement", "not evaluated (%s)", tag_str(v, "__unknown__"));
	json_decref(v);
	skip_line(k);
	return 0;
}

/* one statement; `run` 0 reads it without its effects (a branch not taken) */
static int statement(struct kr *k, int run)
{
	int line = cur(k)->line;
	if (is_name(k, "if"))
		return if_stmt(k, run);
	if (is_name(k, "def")) {
		k->at++;
		const char *name = cur(k)->t == T_NAME ? cur(k)->s : NULL;
		while (!is_op(k, ":") && cur(k)->t != T_END)
			k->at++;
		if (run && name)
			json_object_set_new_nocheck(k->env, name, json_pack("{s:s}", "__func__", name));
		return suite(k, 0);
	}
	static const char *const refused[] = { "for", "while", "try", "with", "class", "lambda", "del", "exec", "print",
					       "return", "yield", "async" };
	for (size_t i = 0; i < ARRAY_SIZE(refused); i++)
		if (is_name(k, refused[i]))
			return run ? kr_err(k, line, "a '%s' statement: not read (kiln reads assignments, if/elif/else, "
					    "imports, def and .append/.update calls)", refused[i])
				   : (skip_line(k), 0);
	return simple(k, run);
}

/* one statement of a block, or a nested block */
static int block(struct kr *k, int run)
{
	if (cur(k)->t == T_NEWLINE) {
		k->at++;
		return 0;
	}
	if (cur(k)->t == T_INDENT) {
		k->at++;
		while (cur(k)->t != T_DEDENT && cur(k)->t != T_END)
			if (block(k, run) < 0)
				return -1;
		k->at += cur(k)->t == T_DEDENT;
		return 0;
	}
	return statement(k, run);
}

/* ---- Krun's settings as a kiln config ---- */

/* a Krun VM def's class: the kiln plugin and its default variant's language */
static const char *plugin_of(const char *cls, const char *path)
{
	static const char *const map[][2] = {
		{ "NativeCodeVMDef", "c" }, { "PythonVMDef", "python" }, { "PyPyVMDef", "pypy" }, { "JavaVMDef", "java" },
		{ "PHPVMDef", "php" }, { "RubyVMDef", "ruby" }, { "JRubyVMDef", "jruby" },
		{ "JavascriptVMDef", "node" }, { "V8VMDef", "node" }, { "NodeVMDef", "node" },
	};
	if (!strcmp(cls, "LuaVMDef"))
		return path && strstr(path, "luajit") ? "luajit" : "lua";
	for (size_t i = 0; i < ARRAY_SIZE(map); i++)
		if (!strcmp(cls, map[i][0]))
			return map[i][1];
	return NULL;
}

/* kiln's variant for Krun's: the plugin's default name of that language ("default-javascript" -> "default-js") */
static char *variant_for(const char *plugin, const char *krun_variant)
{
	if (!strcmp(plugin, "ruby") || !strcmp(plugin, "php"))
		return xstrdup("interp");
	if (!strcmp(plugin, "node") && !strcmp(krun_variant, "default-javascript"))
		return xstrdup("default-js");
	return xstrdup(krun_variant);
}

static json_t *setting(struct kr *k, const char *name)
{
	return json_object_get(k->env, name);
}

/* where a setting was bound ("FILE:LINE"), NULL: nowhere */
static const char *where_of(struct kr *k, const char *name)
{
	return json_string_value(json_object_get(k->lines, name));
}

/* Krun's shell commands (PRE_/POST_EXECUTION_CMDS) as kiln's argv lists, each by the shell */
static int emit_cmds(struct kr *k, struct strbuf *y, const char *krun, const char *kiln)
{
	json_t *l = setting(k, krun);
	if (!l || (json_is_array(l) && !json_array_size(l)))
		return 0;
	if (!json_is_array(l))
		return (kerr_setc(k->e, KEXIT_CONFIG, "%s: %s: a list of shell commands expected", where_of(k, krun) ? where_of(k, krun) : k->path, krun), -1);
	sb_addf(y, "%s:\n", kiln);
	size_t i;
	json_t *c;
	json_array_foreach(l, i, c) {
		if (!json_is_string(c)) {
			note_at(k, where_of(k, krun), krun, "command %zu is %s: left out", i, is_unknown(c) ? tag_str(c, "__unknown__") : "not a string");
			continue;
		}
		sb_adds(y, "  - [/bin/sh, -c, ");
		yaml_quote(y, json_string_value(c));
		sb_adds(y, "]\n");
	}
	return 0;
}

/* a VM's environment, as a flow mapping of the strings Krun's env held; what is not one is said */
static void emit_env(struct kr *k, const char *where, const char *vname, struct strbuf *y, json_t *env)
{
	if (env && !json_is_null(env) && (!json_is_object(env) || is_unknown(env))) {
		note_at(k, where, vname, "env is %s: not taken over, its runs get no env of the VM's",
			is_unknown(env) ? tag_str(env, "__unknown__") : "not a dict");
		return;
	}
	if (json_is_object(env) && json_object_size(env)) {
		sb_adds(y, ", env: {");
		const char *ek;
		json_t *ev;
		int first = 1;
		json_object_foreach(env, ek, ev) {
			if (!json_is_string(ev)) {
				note_at(k, where, vname, "env %s is %s: left out", ek,
					is_unknown(ev) ? tag_str(ev, "__unknown__") : "not a string");
				continue;
			}
			sb_adds(y, first ? "" : ", ");
			yaml_quote(y, ek);
			sb_adds(y, ": ");
			yaml_quote(y, json_string_value(ev));
			first = 0;
		}
		sb_adds(y, "}");
	}
}

/*
 * The VMs: one kiln VM per Krun VM and variant.  renames gets the
 * "VM:krun-variant" -> "VM:kiln-variant" pairs SKIP needs, names the kiln
 * VMs written
 */
static void emit_vms(struct kr *k, struct strbuf *y, json_t *vms, json_t *variants, struct strvec *renames,
		     struct strvec *names)
{
	sb_adds(y, "vms:\n");
	const char *vname;
	json_t *vm;
	json_object_foreach(vms, vname, vm) {
		json_t *def = json_object_get(vm, "vm_def"), *vl = json_object_get(vm, "variants");
		json_t *n = json_object_get(vm, "n_iterations");
		const char *cls = tag_str(def, "__call__");
		json_t *args = json_object_get(def, "args"), *kw = json_object_get(def, "kwargs");
		const char *path = json_string_value(json_array_get(args, 0));
		const char *where = tag_str(def, "where");
		const char *pl = cls ? plugin_of(cls, path) : NULL;
		if (!pl) {
			note_at(k, where, vname, "%s: kiln has no plugin for it; the VM is left out", cls ? cls : "a vm_def kiln does not know");
			continue;
		}
		if (!strcmp(cls, "V8VMDef"))
			note_at(k, where, vname, "Krun ran d8 (%s); kiln's node plugin runs node (path as given)", path ? path : "?");
		/*
		 * Krun's VM defs take (vm_path, env=None, instrument=False), the
		 * native one (env=None, instrument=False): an env given by position
		 * is the env; any other argument is said, not dropped
		 */
		size_t has_path = strcmp(pl, "c") != 0, env_at = has_path;
		json_t *env = json_object_get(kw, "env");
		if (!env && json_is_object(json_array_get(args, env_at)) && !is_unknown(json_array_get(args, env_at)))
			env = json_array_get(args, env_at);
		size_t ai;
		json_t *av;
		json_array_foreach(args, ai, av)
			if (!(has_path && ai == 0) && !(ai == env_at && env == av))
				note_at(k, where, vname, "%s's argument %zu (%s) is not taken over", cls, ai + 1,
					is_unknown(av) ? tag_str(av, "__unknown__") : json_is_string(av) ? json_string_value(av) : "a value");
		const char *kwn;
		json_t *kwv;
		json_object_foreach(kw, kwn, kwv)
			if (strcmp(kwn, "env") && strcmp(kwn, "instrument"))
				note_at(k, where, vname, "%s's %s= is not taken over", cls, kwn);
		if (n && !json_is_null(n) && !json_is_integer(n))
			note_at(k, where, vname, "n_iterations is %s: not taken over (the experiment's iterations are used)",
				is_unknown(n) ? tag_str(n, "__unknown__") : "not an integer");
		json_object_foreach(vm, kwn, kwv)
			if (strcmp(kwn, "vm_def") && strcmp(kwn, "variants") && strcmp(kwn, "n_iterations"))
				note_at(k, where, vname, "'%s' is not taken over", kwn);
		size_t vi;
		json_t *var;
		json_array_foreach(vl, vi, var) {
			const char *kv = json_string_value(var);
			if (!kv) {
				note_at(k, where, vname, "variant %zu is %s: left out", vi + 1,
					is_unknown(var) ? tag_str(var, "__unknown__") : "not a string");
				continue;
			}
			char *kiln_var = variant_for(pl, kv);
			char *name = vi ? xasprintf("%s.%s", vname, kv) : xstrdup(vname);
			if (strcmp(kiln_var, kv))
				sv_pushf(renames, "%s:%s\t%s:%s", vname, kv, name, kiln_var);
			else if (vi)
				sv_pushf(renames, "%s:%s\t%s:%s", vname, kv, name, kiln_var);
			sv_push(names, name);
			sb_adds(y, "  ");
			yaml_quote(y, name);
			sb_addf(y, ": {plugin: %s", pl);
			if (path && strcmp(pl, "c")) {
				sb_adds(y, ", path: ");
				yaml_quote(y, path);
			}
			if (strcmp(pl, "ruby") && strcmp(pl, "php")) {
				sb_adds(y, ", variant: ");
				yaml_quote(y, kiln_var);
			}
			if (json_is_integer(n))
				sb_addf(y, ", iterations: %lld", (long long)json_integer_value(n));
			emit_env(k, where, name, y, env);
			if (json_is_true(json_object_get(kw, "instrument")))
				sb_adds(y, ", instrument: true");
			sb_adds(y, "}\n");
			json_t *ep = json_object_get(variants, kv);
			const char *sub = json_string_value(json_object_get(json_object_get(ep, "kwargs"), "subdir"));
			if (sub && strcmp(sub, pl) && !(!strcmp(pl, "node") && !strcmp(sub, "javascript")) &&
			    !(!strcmp(pl, "luajit") && !strcmp(sub, "lua")) && !(!strcmp(pl, "pypy") && !strcmp(sub, "python")))
				note_at(k, where, name, "variant %s's sources are in %s/; kiln's %s plugin reads its language's folder", kv,
				     sub, pl);
			free(kiln_var);
			free(name);
		}
	}
}

/* the benchmarks and their params */
static void emit_benchmarks(struct kr *k, struct strbuf *y, json_t *benchs)
{
	sb_adds(y, "benchmarks:\n");
	const char *bname;
	json_t *param;
	json_object_foreach(benchs, bname, param) {
		char *p = py_str(param);
		sb_adds(y, "  ");
		yaml_quote(y, bname);
		sb_adds(y, ": ");
		yaml_quote(y, p ? p : "0");
		sb_addc(y, '\n');
		if (!p)
			note_at(k, where_of(k, "BENCHMARKS"), bname, "its param is a value kiln does not know: 0 written");
		free(p);
	}
}

/* SKIP: Krun's patterns are kiln's, the variants named as kiln names them */
static void emit_skip(struct kr *k, struct strbuf *y, const struct strvec *renames, const struct strvec *names)
{
	json_t *skip = setting(k, "SKIP");
	if (json_is_array(skip) && json_array_size(skip)) {
		sb_adds(y, "skip: [");
		size_t i;
		json_t *s;
		int written = 0;
		json_array_foreach(skip, i, s) {
			const char *pat = json_string_value(s);
			if (!pat) {
				note_at(k, where_of(k, "SKIP"), "SKIP", "entry %zu is %s: left out (the keys it would skip run)",
					i + 1, is_unknown(s) ? tag_str(s, "__unknown__") : "not a string");
				continue;
			}
			/* a pattern of a VM left out matches nothing: kiln refuses such a pattern */
			const char *c1 = strchr(pat, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
			int vm_here = !c1 || !c2;
			for (size_t v = 0; !vm_here && v < names->n; v++) {
				char *vp = xstrndup(c1 + 1, (size_t)(c2 - c1 - 1));
				vm_here = star_match(vp, names->v[v]);
				free(vp);
			}
			if (!vm_here) {
				note_at(k, where_of(k, "SKIP"), "SKIP", "'%s': its VM is left out", pat);
				continue;
			}
			char *out = xstrdup(pat);
			for (size_t r = 0; r < renames->n; r++) {
				const char *tab = strchr(renames->v[r], '\t');
				size_t fl = (size_t)(tab - renames->v[r]);
				const char *c = strchr(pat, ':');
				if (c && !strncmp(c + 1, renames->v[r], fl) && c[1 + fl] == '\0') {
					free(out);
					out = xasprintf("%.*s:%s", (int)(c - pat), pat, tab + 1);
				}
			}
			sb_adds(y, written++ ? ", " : "");
			yaml_quote(y, out);
			free(out);
		}
		sb_adds(y, "]\n");
	}
}

/* the settings kiln does not take over, as notes and as comments at the end of the config */
static void emit_unmapped(struct kr *k, struct strbuf *y)
{
	static const struct { const char *name, *why; } others[] = {
		{ "AMPERF_RATIO_BOUNDS", "kiln's machine checks have no APERF/MPERF bound (platform.counters records them)" },
		{ "AMPERF_BUSY_THRESHOLD", "as AMPERF_RATIO_BOUNDS" },
		{ "MAIL_TO", "kiln mails nobody: platform.notify runs a command on failure and completion" },
		{ "MAX_MAILS", "as MAIL_TO" },
		{ "ENABLE_PINNING", "platform.pin_cpus pins the benchmark's processes" },
		{ "TEMP_READ_PAUSE", "platform.temp_wait_max_s is how long kiln waits for the temperature" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(others); i++)
		if (setting(k, others[i].name) && !json_is_null(setting(k, others[i].name)))
			note_at(k, where_of(k, others[i].name), others[i].name, "not taken over (%s)", others[i].why);
	sv_pushf(&k->out->unmapped, "%s: reboots: Krun's --hardware-reboots is `kiln run --reboot`", k->path);
	if (k->out->unmapped.n) {
		sb_adds(y, "# not taken over:\n");
		for (size_t i = 0; i < k->out->unmapped.n; i++) {
			sb_adds(y, "#   ");
			esc_add(y, ESC_TERM, k->out->unmapped.v[i]);
			sb_addc(y, '\n');
		}
	}
}

static int emit(struct kr *k)
{
	struct strbuf *y = &k->out->yaml;
	json_t *vms = setting(k, "VMS"), *benchs = setting(k, "BENCHMARKS"), *variants = setting(k, "VARIANTS");
	if (!json_is_object(vms) || is_tag(vms, "__unknown__") || !json_object_size(vms))
		return kerr_setc(k->e, KEXIT_CONFIG, "%s: VMS: a dict of VMs expected (%s)", where_of(k, "VMS") ? where_of(k, "VMS") : k->path,
				 vms ? tag_str(vms, "__unknown__") ? tag_str(vms, "__unknown__") : "another value" : "not set"), -1;
	if (!json_is_object(benchs) || is_tag(benchs, "__unknown__") || !json_object_size(benchs))
		return kerr_setc(k->e, KEXIT_CONFIG, "%s: BENCHMARKS: a dict of benchmark: param expected", where_of(k, "BENCHMARKS") ? where_of(k, "BENCHMARKS") : k->path), -1;
	/* the file's name is not ours: a newline in it would end the comment and start a line of config (ESC_TERM shows it) */
	sb_adds(y, "# kiln's reading of the Krun configuration ");
	esc_add(y, ESC_TERM, k->path);
	sb_adds(y, ", by `kiln convert`\n");
	const char *base = strrchr(k->path, '/') ? strrchr(k->path, '/') + 1 : k->path;
	char *stem = xstrndup(base, str_ends_with(base, ".krun") ? strlen(base) - 5 : strlen(base));
	sb_adds(y, "name: ");
	yaml_quote(y, stem);
	free(stem);
	json_t *nx = setting(k, "N_EXECUTIONS");
	sb_addf(y, "\npexecs: %lld\n", json_is_integer(nx) && json_integer_value(nx) > 0 ? (long long)json_integer_value(nx) : 1);
	/* a setting that is there but not a value kiln can use is said, not dropped */
	static const struct { const char *name, *as; int integer; } nums[] = {
		{ "N_EXECUTIONS", "pexecs: 1 written", 1 },
		{ "STACK_LIMIT", "no stack limit written", 1 },
		{ "EXECUTION_TIMEOUT", "no timeout written", 0 },
	};
	for (size_t i = 0; i < ARRAY_SIZE(nums); i++) {
		json_t *v = setting(k, nums[i].name);
		if (!v || json_is_null(v))
			continue;
		int ok = nums[i].integer ? json_is_integer(v) : json_is_number(v);
		if (!ok || json_number_value(v) <= 0)
			note_at(k, where_of(k, nums[i].name), nums[i].name, "not a positive %s (%s): %s",
				nums[i].integer ? "integer" : "number",
				is_unknown(v) ? tag_str(v, "__unknown__") : ok ? "zero or less" : "another value", nums[i].as);
	}
	/* Krun runs benchmarks/<name>/<subdir>/ beside its config, its entry points its own */
	sb_adds(y, "benchmarks_dir: benchmarks\nlayout: krun\n");
	json_t *stack = setting(k, "STACK_LIMIT"), *heap = setting(k, "HEAP_LIMIT"), *to = setting(k, "EXECUTION_TIMEOUT");
	int lim = 0;
	if (json_is_integer(stack) && json_integer_value(stack) > 0)
		sb_addf(y, "limits: {stack_mb: %lld", (long long)(json_integer_value(stack) + 1023) / 1024), lim = 1;
	if (json_is_number(to) && json_number_value(to) > 0)
		sb_addf(y, "%stimeout: %g", lim ? ", " : "limits: {", json_number_value(to)), lim = 1;
	if (lim)
		sb_adds(y, "}\n");
	if (json_is_integer(heap))
		note_at(k, where_of(k, "HEAP_LIMIT"), "HEAP_LIMIT", "%lld KiB of `ulimit -d` (RLIMIT_DATA): kiln has no such limit "
		     "(limits.address_space_mb is RLIMIT_AS, the whole address space, which JITs reserve far more of)",
		     (long long)json_integer_value(heap));
	if (emit_cmds(k, y, "PRE_EXECUTION_CMDS", "pre_execution") < 0 || emit_cmds(k, y, "POST_EXECUTION_CMDS", "post_execution") < 0)
		return -1;
	struct strvec renames = STRVEC_INIT, names = STRVEC_INIT;
	emit_vms(k, y, vms, variants, &renames, &names);
	emit_benchmarks(k, y, benchs);
	emit_skip(k, y, &renames, &names);
	sv_clear(&renames);
	sv_clear(&names);
	emit_unmapped(k, y);
	return 0;
}

/* a file's statements, run into k's names */
static int kr_run(struct kr *k, const char *text, size_t len)
{
	int r = memchr(text, '\0', len) ? kr_err(k, 1, "a NUL byte: not a Krun config") : tokenize(k, text, len);
	while (r == 0 && cur(k)->t != T_END)
		r = block(k, 1);
	return r;
}

/*
 * Every list and dict the run made, emptied: a config may make a list
 * hold itself (X.append(Y) with Y holding X, X[0] = X, D.update({"d": D}))
 * and jansson's reference counts never free a cycle.  Each container's
 * items are held on a stack of our own before it is emptied, so a cycle
 * is cut where it is first met, and a container met again is empty: the
 * work is the number of items, whatever shares them.
 */
static void kr_break_cycles(json_t *root)
{
	json_t **st = xmalloc(sizeof(json_t *));
	size_t n = 0, cap = 1;
	st[n++] = json_incref(root);
	while (n) {
		json_t *v = st[--n];
		size_t more = json_is_array(v) ? json_array_size(v) : json_is_object(v) ? json_object_size(v) : 0;
		if (n + more > cap) {
			cap = 2 * (n + more);
			st = xrealloc(st, cap * sizeof(json_t *));
		}
		if (json_is_array(v)) {
			for (size_t i = 0; i < more; i++)
				st[n++] = json_incref(json_array_get(v, i));
			json_array_clear(v);
		} else if (json_is_object(v)) {
			const char *key;
			json_t *w;
			json_object_foreach(v, key, w)
				st[n++] = json_incref(w);
			json_object_clear(v);
		}
		json_decref(v);
	}
	free(st);
}

int convert_krun_sniff(const char *path)
{
	return str_ends_with(path, ".krun");
}

int convert_krun(const char *path, const char *text, size_t len, struct convert_out *out, struct kerr *e)
{
	struct kr k;
	memset(&k, 0, sizeof(k));
	k.path = path;
	k.out = out;
	k.e = e;
	char *abs = abspath(path);
	k.dir = path_dirname(abs);
	free(abs);
	k.env = json_object();
	k.lines = json_object();
	int r = kr_run(&k, text, len);
	if (r == 0)
		r = emit(&k);
	for (size_t i = 0; i < k.n; i++)
		free(k.tk[i].s);
	free(k.tk);
	kr_break_cycles(k.env);
	json_decref(k.env);
	json_decref(k.lines);
	free(k.dir);
	return r;
}
