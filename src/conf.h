/*
 * conf.h - the config's VM and benchmark entries, as plain data: what
 * config.c fills in from the YAML file and what the plugins (plugin.c,
 * plugins/NAME/plugin.c) read to build a pexec's command line.  Apart from
 * config.h so that a plugin needs nothing of the parser, and config.c,
 * which checks each VM against the plugin table, is the only one of the two
 * that knows the other.
 */
#ifndef KILN_CONF_H
#define KILN_CONF_H

#include "gauge.h"
#include "util.h"

struct kiln_plugin;

struct vm_conf {
	char *name;            /* NAME, or NAME[LABEL,...] for one combination of its `vary` */
	char *base;            /* NAME as the config wrote it */
	char *plugin;          /* plugin name ("external" for a config-defined one) */
	const struct kiln_plugin *pl;
	char *path;            /* as written, may be NULL (plugin default) */
	char *resolved;        /* absolute path of the executable */
	struct strvec args;    /* extra VM arguments, before the runner */
	struct strvec env;     /* NAME=VALUE */
	/*
	 * Names (patterns, `*`) of kiln's own environment variables its
	 * processes get: the experiment's pass_env, then the VM's own.
	 */
	struct strvec pass_env;
	long iterations;       /* 0: experiment default */
	int instrument;
	char *variant;         /* default "default-<language>" */
	/* external plugins */
	struct strvec runner;  /* argv template with {placeholders} */
	struct strvec parser;  /* argv of a command printing generic records */
	char *language;        /* benchmarks/<b>/<language> for external plugins */
	char *entry;           /* entry file for external plugins */
	char *stats_from;      /* NULL, "stderr" or "file" (stats parser) */
	struct gauge_conf gauge; /* command plugin: the iteration times its own harness prints (format 0: none) */
	int keep_log;          /* keep raw instrumentation (zstd) */
	int optional;          /* a missing executable skips this VM instead of failing */
	int ignore_exit;       /* a non-zero exit status does not fail the pexec (kept all the same) */
	int missing;           /* optional and not found: none of its keys run */
	char *missing_why;     /* missing although found: why (its variant cannot run), else NULL */
	/*
	 * Its executable is made by its build step (CONFIG_CHECK_AFTER_BUILD):
	 * "FILE:LINE:COL: vms.NAME.path" of the check config_check_built() does
	 * then, else NULL; variant_at: the same for its variant's probe
	 */
	char *built_at, *variant_at;
	/* steps (argv lists flattened with "" after each): build and setup once, prepare per pexec, cleanup once */
	struct strvec build, setup, prepare, cleanup;
	char *cwd;             /* where its processes and steps start (absolute), NULL: the config's folder */
	int line, col;         /* where it was defined, for messages */
};

/* whose entry points a benchmark's sources have: kiln's own, or Krun's (KILN_LAYOUT=krun) */
enum { LAYOUT_DEFAULT, LAYOUT_KILN, LAYOUT_KRUN };

struct bench_conf {
	char *name;            /* the key's part: NAME, or NAME[PARAM] for one of a list or range of params */
	char *source;          /* NAME: its folder under benchmarks_dir (NULL: name) */
	char *suite;           /* the suite it came from, or NULL */
	struct strvec vms;     /* the suite's vms: only these (base names) run it; empty: all */
	int vms_line, vms_col; /* where the suite's vms are, for messages */
	char *param;           /* as a string, passed as KILN_PARAM */
	struct strvec args;    /* command plugin: appended args, {param} substituted */
	/*
	 * Commands around the key's pexecs, argv lists flattened with "" after
	 * each (as pre_execution): build once per benchmark folder, setup once
	 * before its first pexec, prepare before each of its pexecs (untimed),
	 * cleanup once after the last; conclude after each of its pexecs
	 * (untimed; kiln bench's --conclude, no config key).
	 */
	struct strvec build, setup, prepare, cleanup, conclude;
	int layout;            /* LAYOUT_*, LAYOUT_DEFAULT: the experiment's */
	struct gauge_conf gauge; /* its own harness's output, read on command VMs (over the VM's gauge; format 0: none) */
	int gauge_line, gauge_col;
	/*
	 * Its `vars`, one combination of them: NAME=VALUE, each {NAME} in its
	 * command VM's args, its args and its steps given VALUE (and named in
	 * the key: NAME[NAME=VALUE,...])
	 */
	struct strvec vars;
	long iterations;       /* its own count of iterations (over the VM's), 0: none */
	char *cwd;             /* where its processes and steps start (its own or its suite's; over the VM's), NULL: none */
	int line;
};

#endif
