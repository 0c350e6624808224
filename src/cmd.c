/*
 * cmd.c - what every subcommand shares: --help handling, usage errors, and
 * loading results for analysis (where kiln's own files are: paths.c).
 */
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis-cache.h"
#include "cmd.h"
#include "dataset.h"
#include "import.h"
#include "util.h"

void cmd_usage(const struct cmd_entry *c, FILE *f)
{
	fprintf(f, "usage: kiln %s %s\n\n%s\n", c->name, c->usage, c->summary);
	if (c->help && *c->help)
		fprintf(f, "\n%s", c->help);
	fprintf(f, "\nSee docs/kiln-%s.md (or man kiln-%s) for details.\n", c->name, c->name);
}

int cmd_wants_help(const struct cmd_entry *c, int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			break;
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			cmd_usage(c, stdout);
			return 1;
		}
	}
	return 0;
}

int cmd_usage_error(const struct cmd_entry *c, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	sb_vaddf(&sb, fmt, ap);
	va_end(ap);
	kiln_error("%s", sb.buf);
	fprintf(stderr, "usage: kiln %s %s\n", c->name, c->usage);
	sb_release(&sb);
	return KEXIT_USAGE;
}

void cmd_an_args_release(struct cmd_an_args *a)
{
	sv_clear(&a->keys);
}

static int an_args(const struct cmd_entry *c, int argc, char **argv, struct an_opts *o, int ninputs,
		   const char *what, int json_ok, struct cmd_an_args *a, cmd_own_opt own, void *ctx)
{
	int n = 0;
	memset(a, 0, sizeof(*a));
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];
		struct kerr e = KERR_INIT;
		int r = an_opts_parse(o, argc, argv, &i, &e);
		if (r < 0) {
			cmd_usage_error(c, "%s", sb_str(&e.msg));
			kerr_release(&e);
			return KEXIT_USAGE;
		}
		kerr_release(&e);
		if (r > 0)
			continue;
		if ((!strcmp(arg, "--key") || !strcmp(arg, "-k")) && i + 1 < argc) {
			sv_push(&a->keys, argv[++i]);
			continue;
		}
		if (json_ok && !strcmp(arg, "--json")) {
			a->json = 1;
			continue;
		}
		if (!strcmp(arg, "--pool-machines")) {
			a->pool = 1;
			continue;
		}
		if (own && (r = own(ctx, c, argc, argv, &i)) != 0) {
			if (r != 1)
				return KEXIT_USAGE;
			continue;
		}
		if (arg[0] == '-' && arg[1])
			return cmd_usage_error(c, "unknown option '%s' (or missing value)", arg);
		if (n == ninputs)
			return ninputs == 1 ? cmd_usage_error(c, "one %s only ('%s' is extra)", what, arg)
					    : cmd_usage_error(c, "two inputs only ('%s' is extra)", arg);
		a->inputs[n++] = arg;
	}
	if (n < ninputs)
		return ninputs == 1 ? cmd_usage_error(c, "%s is missing", what)
				    : cmd_usage_error(c, "needs two inputs, A and B");
	return 0;
}

int cmd_an_args(const struct cmd_entry *c, int argc, char **argv, struct an_opts *o, int ninputs, const char *what,
		int json_ok, struct cmd_an_args *a, cmd_own_opt own, void *ctx)
{
	int r = an_args(c, argc, argv, o, ninputs, what, json_ok, a, own, ctx);
	if (r)
		cmd_an_args_release(a);
	return r;
}

int cmd_load_input(const char *input, const struct cmd_an_args *a, struct dataset *ds)
{
	struct kerr e = KERR_INIT;
	if (imp_load(input, ds, &e) < 0) {
		kerr_print(&e);
		int code = e.code;
		kerr_release(&e);
		ds_free(ds);
		return code;
	}
	kerr_release(&e);
	size_t machines = ds_split_machines(ds, a->pool);
	if (machines > 1 && a->pool)
		kiln_note("%s: the pexecs of %zu machines (%s) are pooled in each key", input, machines, ds->machine);
	if (a->keys.n)
		ds_keep_keys(ds, &a->keys);
	return 0;
}

int cmd_no_key_matches(const char *input, const struct strvec *keys)
{
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < keys->n; i++)
		sb_addf(&sb, "%s'%s'", i ? " or " : "", keys->v[i]);
	kiln_error("%s: no key matches %s (keys are bench:vm:variant; bench or bench:vm match every variant; "
		   "kiln report lists them)", input, sb.buf);
	sb_release(&sb);
	return KEXIT_USAGE;
}

int cmd_load_analysed(const char *input, const struct cmd_an_args *a, const struct an_opts *o, struct dataset *ds,
		      struct an_result *r)
{
	memset(r, 0, sizeof(*r));
	int loaded = cmd_load_input(input, a, ds);
	if (loaded)
		return loaded;
	struct kerr e = KERR_INIT;
	if (an_analyse_input(input, ds, o, r, &e) < 0) {
		kerr_print(&e);
		int code = e.code ? e.code : KEXIT_FAIL;
		kerr_release(&e);
		an_result_free(r);
		ds_free(ds);
		return code;
	}
	return 0;
}

int cmd_load_matched(const char *input, const struct cmd_an_args *a, const struct an_opts *o, struct dataset *ds,
		     struct an_result *r)
{
	int loaded = cmd_load_analysed(input, a, o, ds, r);
	if (!loaded && a->keys.n && !ds->nkeys) {
		an_result_free(r);
		ds_free(ds);
		loaded = cmd_no_key_matches(input, &a->keys);
	}
	return loaded;
}
