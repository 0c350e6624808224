/*
 * cmd-profile.c - `kiln profile CONFIG --key BENCH:VM[:VARIANT]`: option
 * parsing; the work is in profile.c.
 */
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "profile.h"

static int cmd_profile(int argc, char **argv);

const struct cmd_entry cmd_profile_entry = {
	.name = "profile",
	.usage = "CONFIG --key BENCH:VM[:VARIANT] [--pexecs P] [--iterations N] [--split K] [-o DIR]\n"
		 "          [-e EVENT] [-F HZ] [-g fp|dwarf|lbr] [--top N] [--json]",
	.summary = "run pexecs under perf record and split their samples by iteration",
	.help = "  -k, --key KEY        the key to profile (bench:vm[:variant]) (required)\n"
		"  -p, --pexecs P       pexecs to profile, one after another (default 1); with\n"
		"                       several, each has its folder DIR/pexec-K\n"
		"  -n, --iterations N   iterations of each pexec (default: the config's)\n"
		"  --split K            phases are iterations 1..K and the rest (default: before\n"
		"                       and after the steady state the analysis finds)\n"
		"  -o, --output DIR     where perf.data, the jitdump, perf map, profile.json and\n"
		"                       profile.svg go (default: kiln-profile)\n"
		"  -e, --event EVENT    perf event (default: cycles where the machine counts them,\n"
		"                       cpu-clock otherwise)\n"
		"  -F, --freq HZ        sampling frequency (default: perf's)\n"
		"  -g, --call-graph HOW how perf unwinds call chains: fp (frame pointers, the\n"
		"                       default), dwarf[,SIZE] (copies SIZE bytes of stack per\n"
		"                       sample: code without frame pointers, CPython's -X perf\n"
		"                       frames; large files), lbr (Intel, hardware)\n"
		"  --top N              symbols listed (default 20)\n"
		"  --json               print the report as JSON\n"
		"\nThe child runs with ASLR off and the plugin's JIT-symbol switches on. The report\n"
		"is also stored in the config's results file (cache kind 'profile'), whose lock\n"
		"kiln profile holds while it measures: beside a kiln run of the experiment it\n"
		"exits 4 without starting the VM.\n",
	.exec = cmd_profile,
};

/* fp, lbr, dwarf, dwarf,SIZE (SIZE bytes of stack, 8..65528 as perf takes it) */
static int call_graph_ok(const char *s)
{
	long v;
	if (!strcmp(s, "fp") || !strcmp(s, "lbr") || !strcmp(s, "dwarf"))
		return 1;
	return !strncmp(s, "dwarf,", 6) && !parse_long(s + 6, &v) && v >= 8 && v <= 65528;
}

static int cmd_profile(int argc, char **argv)
{
	const struct cmd_entry *c = &cmd_profile_entry;
	if (cmd_wants_help(c, argc, argv))
		return 0;
	struct profile_opts o;
	memset(&o, 0, sizeof(o));
	o.dir = "kiln-profile";
	o.top = 20;
	o.pexecs = 1;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		int more = i + 1 < argc;
		long v;
		if ((!strcmp(a, "--key") || !strcmp(a, "-k")) && more)
			o.key = argv[++i];
		else if ((!strcmp(a, "--pexecs") || !strcmp(a, "-p")) && more) {
			if (parse_long(argv[++i], &o.pexecs) || o.pexecs < 1 || o.pexecs > 1000)
				return cmd_usage_error(c, "--pexecs: '%s' is not a number from 1 to 1000", argv[i]);
		} else if ((!strcmp(a, "--iterations") || !strcmp(a, "-n")) && more) {
			if (parse_long(argv[++i], &o.iterations) || o.iterations < 1)
				return cmd_usage_error(c, "--iterations: '%s' is not a positive number", argv[i]);
		} else if (!strcmp(a, "--split") && more) {
			if (parse_long(argv[++i], &o.split) || o.split < 1)
				return cmd_usage_error(c, "--split: '%s' is not a positive number", argv[i]);
		} else if ((!strcmp(a, "-o") || !strcmp(a, "--output")) && more)
			o.dir = argv[++i];
		else if ((!strcmp(a, "-e") || !strcmp(a, "--event")) && more)
			o.event = argv[++i];
		else if ((!strcmp(a, "-F") || !strcmp(a, "--freq")) && more) {
			if (parse_long(argv[++i], &v) || v < 1 || v > 1000000)
				return cmd_usage_error(c, "--freq: '%s' is not a frequency in Hz", argv[i]);
			o.freq = (int)v;
		} else if ((!strcmp(a, "-g") || !strcmp(a, "--call-graph")) && more) {
			o.call_graph = argv[++i];
			if (!call_graph_ok(o.call_graph))
				return cmd_usage_error(c, "--call-graph: '%s' is not fp, dwarf, dwarf,SIZE or lbr", o.call_graph);
		} else if (!strcmp(a, "--top") && more) {
			if (parse_long(argv[++i], &v) || v < 1 || v > 100000)
				return cmd_usage_error(c, "--top: '%s' is not a positive number", argv[i]);
			o.top = (int)v;
		} else if (!strcmp(a, "--json"))
			o.json = 1;
		else if (a[0] == '-' && a[1])
			return cmd_usage_error(c, "unknown option '%s'", a);
		else if (!o.config)
			o.config = a;
		else
			return cmd_usage_error(c, "unexpected argument '%s'", a);
	}
	if (!o.config)
		return cmd_usage_error(c, "no CONFIG given");
	if (!o.key)
		return cmd_usage_error(c, "--key BENCH:VM[:VARIANT] is required");
	if (o.split && o.iterations && o.split >= o.iterations)
		return cmd_usage_error(c, "--split %ld leaves no iterations after it (of %ld)", o.split, o.iterations);
	struct kerr e = KERR_INIT;
	int r = profile_run(&o, &e);
	if (r < 0) {
		kerr_print(&e);
		r = e.code ? e.code : KEXIT_FAIL;
	}
	kerr_release(&e);
	return r;
}
