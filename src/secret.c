/*
 * secret.c - credentials found by name and by value, and hidden (see
 * secret.h).  The text is walked once, left to right: private key blocks,
 * URLs with a user's password, NAME=VALUE and NAME: VALUE pairs whose name
 * suggests a credential, and token-like words; everything else is copied.
 */
#include "secret.h"

#include <ctype.h>
#include <math.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>

#define HIDDEN "(hidden)"

static int has_word(const char *s, size_t n, const char *w)
{
	size_t wl = strlen(w);
	for (size_t i = 0; i + wl <= n; i++)
		if (!strncasecmp(s + i, w, wl))
			return 1;
	return 0;
}

/* a part of the name between _ - . (GH_PAT, DB_PASS) */
static int has_part(const char *s, size_t n, const char *w)
{
	size_t wl = strlen(w);
	for (size_t i = 0; i + wl <= n; i++)
		if ((i == 0 || strchr("_-.", s[i - 1])) && !strncasecmp(s + i, w, wl) &&
		    (i + wl == n || strchr("_-.", s[i + wl])))
			return 1;
	return 0;
}

int secret_name(const char *name, size_t n)
{
	static const char *const words[] = { "TOKEN", "SECRET", "PASSW", "PASSPHRASE", "CREDENTIAL", "PRIVATE",
					     "APIKEY", "ACCESSKEY", "AUTHORIZATION", "COOKIE" };
	/* whole parts only: a benchmark "monkey" or an "author" is not a key */
	static const char *const parts[] = { "KEY", "AUTH", "SESSION", "PAT", "PASS", "PW", "DSN" };
	/* kiln's own protocol variables (KILN_KEY is a benchmark's key) */
	if (n >= 5 && !strncmp(name, "KILN_", 5))
		return 0;
	for (size_t i = 0; i < ARRAY_SIZE(words); i++)
		if (has_word(name, n, words[i]))
			return 1;
	for (size_t i = 0; i < ARRAY_SIZE(parts); i++)
		if (has_part(name, n, parts[i]))
			return 1;
	return 0;
}

/* bits per character of the word's own distribution */
static double entropy(const char *w, size_t n)
{
	unsigned cnt[256] = { 0 };
	for (size_t i = 0; i < n; i++)
		cnt[(unsigned char)w[i]]++;
	double h = 0;
	for (int c = 0; c < 256; c++)
		if (cnt[c]) {
			double p = (double)cnt[c] / (double)n;
			h -= p * log2(p);
		}
	return h;
}

/* the issuers' own prefixes: GitHub, GitLab, Slack, AWS, Stripe, npm, PyPI, Hugging Face, Google... */
static int known_prefix(const char *w, size_t n)
{
	static const char *const pfx[] = { "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-", "gldt-",
					   "glsa_", "xoxb-", "xoxp-", "xoxa-", "xoxr-", "xoxs-", "xapp-", "sk-",
					   "sk_live_", "sk_test_", "rk_live_", "npm_", "pypi-", "hf_", "AIza", "AKIA",
					   "ASIA", "dop_v1_", "shpat_", "SG." };
	for (size_t i = 0; i < ARRAY_SIZE(pfx); i++) {
		size_t pl = strlen(pfx[i]);
		if (n >= pl + 12 && !strncmp(w, pfx[i], pl))
			return 1;
	}
	return 0;
}

int secret_word(const char *w, size_t n)
{
	while (n && w[n - 1] == '=')
		n--;
	if (known_prefix(w, n))
		return 1;
	/* a JSON Web Token: base64url header "{"..., payload, signature */
	if (n >= 30 && !strncmp(w, "eyJ", 3) && memchr(w, '.', n)) {
		size_t dots = 0;
		for (size_t i = 0; i < n; i++)
			dots += w[i] == '.';
		if (dots == 2)
			return 1;
	}
	/* paths, file names and versions are not tokens */
	if (n < 24 || strchr("/.~", w[0]) || memchr(w, '.', n))
		return 0;
	int up = 0, lo = 0, dig = 0, hex = 1;
	size_t nh = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)w[i];
		up |= isupper(c) != 0;
		lo |= islower(c) != 0;
		dig |= isdigit(c) != 0;
		if (c == '-')
			continue;
		if (isxdigit(c))
			nh++;
		else
			hex = 0;
	}
	/* a long hex string (an API key, a UUID-shaped token) */
	if (hex && nh >= 32 && dig && (up || lo) && entropy(w, n) >= 3.0)
		return 1;
	return up && lo && dig && entropy(w, n) >= 3.5;
}

static int word_char(char c)
{
	return isalnum((unsigned char)c) || (c && strchr("_+/=.~-", c));
}

static int name_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '-' || c == '.';
}

/* the end of a value after NAME= or NAME: */
static size_t value_end(const char *s)
{
	size_t i = 0;
	while (s[i] && !isspace((unsigned char)s[i]) && !strchr("&;,\"'()[]{}<>`", s[i]))
		i++;
	return i;
}

/* -----BEGIN ... PRIVATE KEY----- ... -----END ...-----: the length to hide, 0 if not one */
static size_t pem_block(const char *s)
{
	if (strncmp(s, "-----BEGIN ", 11))
		return 0;
	const char *eol = s + strcspn(s, "\n");
	const char *pk = strstr(s, "PRIVATE KEY-----");
	const char *end = strstr(s, "-----END ");
	if (!pk || pk > eol || !end)
		return 0;
	const char *close = strstr(end + 9, "-----");
	return close ? (size_t)(close + 5 - s) : 0;
}

static int all_word_chars(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!word_char(s[i]))
			return 0;
	return 1;
}

/* after "://": user:password@ hidden to user:(hidden)@, a token as user to (hidden)@; bytes used */
static size_t url_userinfo(struct strbuf *out, const char *s)
{
	size_t j = 0;
	while (s[j] && !strchr("/?#@ \t\r\n\"'<>", s[j]))
		j++;
	if (s[j] != '@' || !j)
		return 0;
	const char *colon = memchr(s, ':', j);
	if (colon) {
		sb_add(out, s, (size_t)(colon - s));
		sb_adds(out, ":" HIDDEN "@");
	} else if (all_word_chars(s, j) && secret_word(s, j)) {
		sb_adds(out, HIDDEN "@");
	} else {
		return 0;
	}
	return j + 1;
}

/* a word: NAME=VALUE with a secret name, a token, or itself */
static void mask_word(struct strbuf *out, const char *w, size_t n)
{
	const char *eq = memchr(w, '=', n);
	size_t pad = 0;
	while (pad < n && w[n - 1 - pad] == '=')
		pad++;
	/* NAME=VALUE, not base64's padding */
	if (eq && eq > w && (size_t)(eq - w) + 1 < n - pad) {
		size_t nl = (size_t)(eq - w);
		if (secret_word(w, nl))
			sb_adds(out, HIDDEN "=");
		else
			sb_add(out, w, nl + 1);
		if (secret_name(w, nl) || secret_word(eq + 1, n - nl - 1))
			sb_adds(out, HIDDEN);
		else
			sb_add(out, eq + 1, n - nl - 1);
		return;
	}
	if (secret_word(w, n))
		sb_adds(out, HIDDEN);
	else
		sb_add(out, w, n);
}

/* NAME: VALUE or "NAME": "VALUE" after a secret name (YAML, JSON, headers); bytes used */
static size_t colon_value(struct strbuf *out, const char *s)
{
	size_t i = 0;
	if (s[i] == '"')
		i++;
	if (s[i] != ':' || s[i + 1] == '/')
		return 0;
	i++;
	while (s[i] == ' ' || s[i] == '\t')
		i++;
	size_t q = s[i] == '"' || s[i] == '\'' ? 1 : 0;
	size_t v = value_end(s + i + q);
	if (!v)
		return 0;
	sb_add(out, s, i + q);
	sb_adds(out, HIDDEN);
	return i + q + v;
}

void secret_mask(struct strbuf *out, const char *text)
{
	const char *p = text ? text : "";
	int after_secret_name = 0;
	sb_grow(out, strlen(p));
	while (*p) {
		size_t n;
		if ((n = pem_block(p))) {
			sb_adds(out, "(hidden private key)");
			p += n;
		} else if (!strncmp(p, "://", 3)) {
			sb_adds(out, "://");
			p += 3;
			p += url_userinfo(out, p);
		} else if (after_secret_name && (n = colon_value(out, p))) {
			p += n;
		} else if (word_char(*p)) {
			for (n = 0; word_char(p[n]); n++)
				;
			size_t nl = 0;
			while (nl < n && name_char(p[nl]))
				nl++;
			mask_word(out, p, n);
			after_secret_name = nl == n && secret_name(p, n);
			p += n;
			continue;
		} else {
			sb_addc(out, *p++);
		}
		after_secret_name = 0;
	}
	if (!out->buf)
		sb_adds(out, "");
}

void secret_mask_var(struct strbuf *out, const char *var)
{
	const char *eq = strchr(var, '=');
	if (!eq) {
		secret_mask(out, var);
		return;
	}
	size_t nl = (size_t)(eq - var);
	sb_add(out, var, nl + 1);
	if (secret_name(var, nl) && eq[1])
		sb_adds(out, HIDDEN);
	else
		secret_mask(out, eq + 1);
}

/* a member named for a hash, commit or version (krun_version, sha256, ...) */
static int hash_name(const char *k)
{
	static const char *const parts[] = { "version", "hash", "sha", "sha1", "sha256", "commit", "checksum", "md5" };
	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
		if (has_part(k, strlen(k), parts[i]))
			return 1;
	return 0;
}

/* one word of lowercase hex (a commit, a digest), as git and sha256sum print them */
static int hex_word(const char *s)
{
	size_t n = strspn(s, "0123456789abcdef");
	return n >= 7 && n <= 128 && !s[n];
}

static void mask_json_string(json_t *v, int by_name)
{
	if (by_name) {
		json_string_set(v, HIDDEN);
		return;
	}
	struct strbuf sb = STRBUF_INIT;
	secret_mask(&sb, json_string_value(v));
	if (strcmp(sb.buf, json_string_value(v)))
		json_string_set(v, esc(ESC_JSON, sb.buf));
	sb_release(&sb);
}

/* depth-bounded: an input's nesting is bounded by jansson's parser (2048) already */
static void mask_json(json_t *v, int by_name)
{
	const char *k;
	json_t *x;
	size_t i;
	if (json_is_string(v))
		mask_json_string(v, by_name);
	else if (json_is_object(v))
		json_object_foreach(v, k, x) {
			/* a digest under its own name is what it says (the long-hex rule would hide it) */
			if (!by_name && json_is_string(x) && hash_name(k) && hex_word(json_string_value(x)))
				continue;
			mask_json(x, by_name || secret_name(k, strlen(k)));
		}
	else if (json_is_array(v))
		json_array_foreach(v, i, x)
			mask_json(x, by_name);
}

void secret_mask_json(json_t *v)
{
	mask_json(v, 0);
}
