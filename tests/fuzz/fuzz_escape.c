/*
 * fuzz_escape.c - libFuzzer target for the escaping helpers (src/util.c,
 * esc_add): any bytes, for every target, must come out as valid UTF-8
 * with nothing the target would interpret: no control character (but the
 * newlines and tabs ESC_LINES keeps), no lone quote in a gnuplot string,
 * no raw markup in HTML, no unescaped TeX special (& % $ # _; [ ] * only
 * in braces); the visible form of the visible form is itself (it is what
 * every target builds on).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static int valid_utf8(const unsigned char *s, size_t n, int c1_ok)
{
	for (size_t i = 0; i < n;) {
		unsigned char c = s[i];
		size_t len = c < 0x80 ? 1 : c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
		if (!len || i + len > n)
			return 0;
		for (size_t k = 1; k < len; k++)
			if ((s[i + k] & 0xc0) != 0x80)
				return 0;
		if ((c == 0xe0 && s[i + 1] < 0xa0) || (c == 0xed && s[i + 1] > 0x9f) || (c == 0xf0 && s[i + 1] < 0x90) ||
		    (c == 0xf4 && s[i + 1] > 0x8f))
			return 0;
		/* C1 controls (U+0080-U+009F) are never shown raw */
		if (!c1_ok && c == 0xc2 && s[i + 1] < 0xa0)
			return 0;
		i += len;
	}
	return 1;
}

static void check(enum esc_to to, const uint8_t *data, size_t size)
{
	struct strbuf sb = STRBUF_INIT;
	esc_addn(&sb, to, data, size);
	const unsigned char *o = (const unsigned char *)sb_str(&sb);
	if (strlen((const char *)o) != sb.len)
		abort(); /* a NUL inside */
	if (!valid_utf8(o, sb.len, to == ESC_JSON))
		abort();
	for (size_t i = 0; i < sb.len; i++) {
		unsigned char c = o[i];
		if (to != ESC_JSON && (c < 0x20 || c == 0x7f) && !(to == ESC_LINES && (c == '\n' || c == '\t')))
			abort();
		if (to == ESC_HTML && strchr("<>\"'", c))
			abort();
		if (to == ESC_GP && c == '\'' && (i + 1 >= sb.len || o[++i] != '\''))
			abort();
		if (to == ESC_TEX && strchr("&%$#_", c) && (!i || o[i - 1] != '\\'))
			abort();
		/* [ ] * only as {[} {]} {*}: after \midrule or \\ they would be read as an argument */
		if (to == ESC_TEX && strchr("[]*", c) && (!i || o[i - 1] != '{' || i + 1 >= sb.len || o[i + 1] != '}'))
			abort();
	}
	if (to == ESC_TERM) {
		struct strbuf again = STRBUF_INIT;
		esc_addn(&again, ESC_TERM, sb.buf, sb.len);
		if (again.len != sb.len || memcmp(again.buf, sb.buf, sb.len))
			abort();
		sb_release(&again);
	}
	sb_release(&sb);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum esc_to all[] = { ESC_TERM, ESC_LINES, ESC_HTML, ESC_TEX, ESC_GP,
					   ESC_CSV,  ESC_MD,    ESC_MDCODE, ESC_JSON };
	for (size_t t = 0; t < ARRAY_SIZE(all); t++)
		check(all[t], data, size);
	return 0;
}
