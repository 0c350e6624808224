/*
 * convert-krun.c - a Krun configuration (a .krun file, Python) as a kiln
 * config (convert.h).
 */
#include "convert.h"

#include <string.h>

int convert_krun_sniff(const char *path)
{
	return str_ends_with(path, ".krun");
}

int convert_krun(const char *path, const char *text, size_t len, struct convert_out *out, struct kerr *e)
{
	(void)text;
	(void)len;
	(void)out;
	return kerr_setc(e, KEXIT_CONFIG, "%s: Krun configs are not read yet", path);
}
