/*
 * convert.c - what the converters of other tools' configs share
 * (convert.h): the choice of converter, YAML quoting, the output.
 */
#include "convert.h"

#include <string.h>

void convert_out_release(struct convert_out *o)
{
	sb_release(&o->yaml);
	sv_clear(&o->unmapped);
}

void yaml_quote(struct strbuf *sb, const char *s)
{
	sb_addc(sb, '"');
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			sb_addf(sb, "\\%c", *p);
		else if (*p == '\n')
			sb_adds(sb, "\\n");
		else if (*p == '\t')
			sb_adds(sb, "\\t");
		else if (*p < 0x20 || *p == 0x7f)
			sb_addf(sb, "\\x%02x", *p);
		else
			sb_addc(sb, (char)*p);
	}
	sb_addc(sb, '"');
}

int convert_any(const char *path, const char *text, size_t len, const char *experiment, struct convert_out *out,
		struct kerr *e)
{
	if (convert_krun_sniff(path))
		return convert_krun(path, text, len, out, e) < 0 ? -1 : 0;
	if (convert_rebench_sniff(text, len))
		return convert_rebench(path, text, len, experiment, out, e) < 0 ? -1 : 0;
	return 1;
}
