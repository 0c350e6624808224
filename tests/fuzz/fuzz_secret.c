/*
 * fuzz_secret.c - libFuzzer target for what hides credentials (src/secret.c)
 * and compares program descriptions (src/provenance.c, prov_diff): any text
 * is masked without a crash or a read past its end (both forms), a URL
 * password planted after it never survives, and a description never
 * differs from itself.  (Masking twice may hide more than once: a hidden
 * word can make what follows read as a URL's password.)
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "provenance.h"
#include "secret.h"

static char *mask(const char *text, int var)
{
	struct strbuf sb = STRBUF_INIT;
	if (var)
		secret_mask_var(&sb, text);
	else
		secret_mask(&sb, text);
	return sb_detach(&sb);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = xstrndup((const char *)data, size);
	for (int var = 0; var < 2; var++) {
		char *once = mask(text, var);
		if (strlen(once) > 8 * strlen(text) + 64)
			abort();
		free(once);
	}
	/* (a password the input itself holds may stay where the input has it) */
	char *planted = xasprintf("%s postgres://u:Zq9Xw7Vt5@h/x", text);
	char *m = mask(planted, 0);
	if (!strstr(text, "Zq9Xw7Vt5") && strstr(m, "Zq9Xw7Vt5"))
		abort();
	free(m);
	free(planted);
	/* two halves as descriptions */
	size_t half = strlen(text) / 2;
	char *b = xstrdup(text + half);
	text[half] = '\0';
	struct strvec d = STRVEC_INIT;
	if (prov_diff(text, text, 8, &d) || d.n)
		abort();
	prov_diff(text, b, 8, &d);
	if (d.n > 9)
		abort();
	sv_clear(&d);
	free(b);
	free(text);
	return 0;
}
