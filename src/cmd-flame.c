/*
 * cmd-flame.c - `kiln flame PROFILE_DIR`: views of a kiln profile's call
 * stacks (flame.c): an interactive flame graph of a phase, an iteration
 * range or a pexec, the folded format, speedscope's and the Firefox
 * Profiler's files; with --diff, the differential top list and flame graph
 * of two profiles (before/after a VM change) or of one profile's warmup
 * against its steady state.
 */
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "flame.h"

static int cmd_flame(int argc, char **argv);

const struct cmd_entry cmd_flame_entry = {
	.name = "flame",
	.usage = "PROFILE_DIR [--diff [OTHER_DIR]] [-o FILE] [--format html|folded|speedscope|firefox] "
		 "[--phase all|warmup|steady|outside] [--iterations A-B] [--pexec K] [--top N] [--json]",
	.summary = "flame graphs, differences and exports of a kiln profile",
	.help = "PROFILE_DIR is a `kiln profile -o` directory (its profile.json).\n"
		"  -o, --output FILE    write the view there (kiln profile already wrote DIR/flame.html,\n"
		"                       DIR/profile.speedscope.json and DIR/profile.firefox.json)\n"
		"  --format F           html (an interactive flame graph, the default), folded\n"
		"                       (flamegraph.pl's input), speedscope, firefox (the Gecko\n"
		"                       profile format profiler.firefox.com imports)\n"
		"  --phase P            all, warmup (before the steady state), steady, outside\n"
		"                       (start-up and teardown)\n"
		"  --iterations A-B     iterations A to B (1-based) only\n"
		"  --pexec K            pexec K only (a profile of several)\n"
		"  --diff [OTHER_DIR]   the difference from PROFILE_DIR to OTHER_DIR (same selection on\n"
		"                       both), or, without OTHER_DIR, from PROFILE_DIR's warmup to its\n"
		"                       steady state: the differential top list (self time by symbol,\n"
		"                       largest changes first) on stdout, and with -o the differential\n"
		"                       flame graph (widths from the second, red where it grew, blue\n"
		"                       where it shrank)\n"
		"  --top N              symbols in the differential top list (default 20)\n"
		"  --json               the differential top list as JSON\n",
	.exec = cmd_flame,
};

static int parse_range(const char *s, long *lo, long *hi)
{
	char *dash = strchr(s, '-');
	if (!dash)
		return parse_long(s, lo) || *lo < 1 ? -1 : (*hi = *lo, 0);
	char *a = xstrndup(s, (size_t)(dash - s));
	int r = parse_long(a, lo) || parse_long(dash + 1, hi) || *lo < 1 || *hi < *lo ? -1 : 0;
	free(a);
	return r;
}

struct flame_args {
	const char *dir, *other, *out, *format;
	int diff, json;
	long top;
	struct flame_sel sel;
};

static int run(const struct flame_args *a, struct kerr *e)
{
	json_t *d = flame_load_dir(a->dir, e), *o = NULL;
	if (!d)
		return -1;
	if (a->other && !(o = flame_load_dir(a->other, e))) {
		json_decref(d);
		return -1;
	}
	int r = 0;
	if (a->diff) {
		struct flame_sel sa = a->sel, sb = a->sel;
		if (!o)
			sa.phase = 0, sb.phase = 1;
		json_t *top = flame_diff_top(d, &sa, o ? o : d, &sb, (int)a->top);
		if (a->json) {
			char *t = json_dumps(top, JSON_INDENT(2) | JSON_ENSURE_ASCII);
			printf("%s\n", t);
			free(t);
		} else {
			flame_print_diff(stdout, top);
		}
		json_decref(top);
		if (a->out)
			r = flame_write_html(a->out, d, o ? o : d, &a->sel, e);
	} else if (!strcmp(a->format, "html")) {
		r = flame_write_html(a->out, d, NULL, &a->sel, e);
	} else if (!strcmp(a->format, "folded")) {
		r = flame_write_folded(a->out, d, &a->sel, e);
	} else if (!strcmp(a->format, "speedscope")) {
		r = flame_write_speedscope(a->out, d, &a->sel, e);
	} else {
		r = flame_write_gecko(a->out, d, &a->sel, e);
	}
	json_decref(d);
	json_decref(o);
	return r;
}

static int cmd_flame(int argc, char **argv)
{
	const struct cmd_entry *c = &cmd_flame_entry;
	if (cmd_wants_help(c, argc, argv))
		return 0;
	struct flame_args a = { .format = "html", .top = 20 };
	flame_sel_all(&a.sel);
	for (int i = 1; i < argc; i++) {
		const char *s = argv[i];
		int more = i + 1 < argc;
		if ((!strcmp(s, "-o") || !strcmp(s, "--output")) && more)
			a.out = argv[++i];
		else if (!strcmp(s, "--format") && more) {
			a.format = argv[++i];
			if (strcmp(a.format, "html") && strcmp(a.format, "folded") && strcmp(a.format, "speedscope") &&
			    strcmp(a.format, "firefox"))
				return cmd_usage_error(c, "--format: '%s' is not html, folded, speedscope or firefox", a.format);
		} else if (!strcmp(s, "--phase") && more) {
			if (flame_parse_phase(argv[++i], &a.sel.phase) < 0)
				return cmd_usage_error(c, "--phase: '%s' is not all, warmup, steady or outside", argv[i]);
		} else if (!strcmp(s, "--iterations") && more) {
			if (parse_range(argv[++i], &a.sel.it_lo, &a.sel.it_hi) < 0)
				return cmd_usage_error(c, "--iterations: '%s' is not A-B (1-based, A <= B)", argv[i]);
		} else if (!strcmp(s, "--pexec") && more) {
			if (parse_long(argv[++i], &a.sel.pexec) || a.sel.pexec < 0)
				return cmd_usage_error(c, "--pexec: '%s' is not a pexec number", argv[i]);
		} else if (!strcmp(s, "--top") && more) {
			if (parse_long(argv[++i], &a.top) || a.top < 1 || a.top > 100000)
				return cmd_usage_error(c, "--top: '%s' is not a positive number", argv[i]);
		} else if (!strcmp(s, "--diff")) {
			a.diff = 1;
			if (more && argv[i + 1][0] != '-' && a.dir)
				a.other = argv[++i];
		} else if (!strcmp(s, "--json"))
			a.json = 1;
		else if (s[0] == '-' && s[1])
			return cmd_usage_error(c, "unknown option '%s'", s);
		else if (!a.dir)
			a.dir = s;
		else if (a.diff && !a.other)
			a.other = s;
		else
			return cmd_usage_error(c, "unexpected argument '%s'", s);
	}
	if (!a.dir)
		return cmd_usage_error(c, "no PROFILE_DIR given");
	if (!a.diff && !a.out)
		return cmd_usage_error(c, "-o FILE is needed (or --diff for the differential top list)");
	if (a.diff && a.sel.phase >= 0 && !a.other)
		return cmd_usage_error(c, "--diff of one profile compares its phases: --phase does not apply");
	struct kerr e = KERR_INIT;
	int r = run(&a, &e);
	if (r < 0) {
		kerr_print(&e);
		r = e.code ? e.code : KEXIT_FAIL;
	}
	kerr_release(&e);
	return r;
}
