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
	.usage = "CONFIG --key BENCH:VM[:VARIANT] [--iterations N] [--split K] [-o DIR] [--json]",
	.summary = "run one pexec under perf record and split its samples by iteration",
	.help = "  -k, --key KEY        the key to profile (bench:vm[:variant]) (required)\n"
		"  -n, --iterations N   iterations of the pexec (default: the config's)\n"
		"  --split K            phases are iterations 1..K and the rest (default: before\n"
		"                       and after the steady state the analysis finds)\n"
		"  -o, --output DIR     where perf.data, the jitdump, perf map, profile.json and\n"
		"                       profile.svg go (default: kiln-profile)\n"
		"  -e, --event EVENT    perf event (default: cycles where the machine counts them,\n"
		"                       cpu-clock otherwise)\n"
		"  -F, --freq HZ        sampling frequency (default: perf's)\n"
		"  --top N              symbols listed (default 20)\n"
		"  --json               print the report as JSON\n"
		"\nThe child runs with ASLR off and the plugin's JIT-symbol switches on. The report\n"
		"is also stored in the config's results file (cache kind 'profile').\n",
	.exec = cmd_profile,
};

static int cmd_profile(int argc, char **argv)
{
	const struct cmd_entry *c = &cmd_profile_entry;
	if (cmd_wants_help(c, argc, argv))
		return 0;
	struct profile_opts o;
	memset(&o, 0, sizeof(o));
	o.dir = "kiln-profile";
	o.top = 20;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		int more = i + 1 < argc;
		long v;
		if ((!strcmp(a, "--key") || !strcmp(a, "-k")) && more)
			o.key = argv[++i];
		else if ((!strcmp(a, "--iterations") || !strcmp(a, "-n")) && more) {
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
