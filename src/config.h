/*
 * config.h - an experiment, as read from its YAML file.
 *
 * config.c parses the file with libfyaml and checks everything that can be
 * checked before anything runs (unknown keys, types, benchmark sources, VM
 * executables), reporting FILE:LINE:COL and the field.  The structs below
 * are plain data: the rest of kiln never sees YAML.
 */
#ifndef KILN_CONFIG_H
#define KILN_CONFIG_H

#include "conf.h"
#include "util.h"

struct limits_conf {
	double timeout_s;      /* per pexec, 0: none */
	long address_space_mb; /* RLIMIT_AS (limits.address_space_mb, once heap_mb), 0: unlimited */
	int address_space_mb_set;
	long stack_mb;         /* RLIMIT_STACK, 0: inherited */
	long output_kb;        /* captured stdout/stderr kept per stream (head+tail) */
	/* what one pexec's instrumentation may cost kiln (docs/security.md) */
	long instr_mb;         /* bytes read from KILN_INSTR_DIR */
	long instr_records;    /* records accepted */
	long instr_names;      /* distinct record names */
	double instr_timeout_s; /* reading and parsing it */
	long log_mb;           /* keep_log: compressed bytes kept */
	/* the benchmark's resources and its machine (isolate.h, docs/security.md#bounds) */
	long processes;        /* pids cgroup, and RLIMIT_NPROC of a benchmark user; 0: none */
	long file_mb;          /* RLIMIT_FSIZE; 0: none */
	long disk_mb;          /* the machine's tmpfs; 0: the machine's default (isolate_default_disk_mb) */
	long memory_mb;        /* memory cgroup; 0: none; -1: the default (isolate_default_memory_mb) */
	int isolate;           /* ISOLATE_*: a fresh machine per pexec */
};
enum { ISOLATE_AUTO, ISOLATE_ON, ISOLATE_OFF };

/* platform: policy (issue 6 extends this) */
enum check_mode { CHECK_OFF, CHECK_WARN, CHECK_REQUIRE };
enum aslr_mode { ASLR_SYSTEM, ASLR_OFF, ASLR_ON };

struct platform_conf {
	enum aslr_mode aslr;
	enum check_mode temperature, load, kmsg, governor;
	double temp_tolerance_c;   /* wait until within ±N °C of start */
	double temp_wait_max_s;    /* give up after */
	double load_max;           /* 1-minute load average threshold */
	double settle_s;           /* sleep before each pexec */
	int sync;                  /* sync(2) before each pexec */
	int rerun_tainted;
	struct strvec kmsg_allow;  /* extra allow-list regexes */
	char *user;                /* run benchmarks as this user (root only) */
	struct strvec pin_cpus;    /* cpu list items, e.g. "1" or "2-3" */
	int nice;
	int has_nice;
	struct strvec notify;      /* argv run on failure/taint/completion */
	struct strvec counters;    /* KILN_COUNTERS for runners */
	struct strvec reboot_command; /* --reboot: argv (default systemctl reboot) */
	long max_reboots;          /* --reboot: bound (0: planned pexecs + 10) */
	/*
	 * Where each setting was written: "NAME=LINE:COL" (NAME as "user" or
	 * "pin_cpus[1]"), for the error of a machine that cannot meet it.
	 */
	struct strvec where;
};
/* the defaults, also where there is no config (doctor without CONFIG, tests) */
void platform_conf_defaults(struct platform_conf *c);

/* bounds checked at parse time: a schedule's pexecs, a key's pexecs and a pexec's iterations */
#define CONFIG_MAX_SCHEDULE 100000000L
#define CONFIG_MAX_PEXECS 10000000L
#define CONFIG_MAX_ITERATIONS 100000000L
/* nodes of the document once its aliases are expanded (an alias bomb is refused before it is) */
#define CONFIG_MAX_NODES 200000L
/* keys of an experiment (benchmarks x VMs, their params and variable sets expanded) */
#define CONFIG_MAX_KEYS 100000L

struct experiment {
	char *path;            /* the config file */
	char *text;            /* its text, stored in the results */
	char hash[65];
	char *name;
	long pexecs;
	long iterations;
	int iterations_set;    /* `iterations` is written in the file (a gauge's count is then checked) */
	long warmup_pexecs;    /* per key, run before its measured pexecs: kept, never analysed */
	long warmup_iterations; /* per pexec, its first: kept, never analysed */
	unsigned long seed;
	char *results;         /* absolute path */
	char *benchmarks_dir;  /* absolute path */
	char *bundled_dir;     /* the bundled suite, searched after a benchmarks/ found beside the config (NULL: not) */
	struct vm_conf *vms;
	size_t nvms;
	struct bench_conf *benchs;
	size_t nbenchs;
	struct strvec skip;    /* bench:vm:variant patterns */
	struct strvec keys_only; /* when not empty: only these bench:vm:variant keys run (kiln bench) */
	struct limits_conf limits;
	struct strvec pre_exec, post_exec;
	struct strvec pass_env; /* the experiment's pass_env (every VM's starts with it) */
	int durable_power;     /* durability: power (1, default) or crash (0) */
	int layout;            /* the benchmarks' LAYOUT_* (LAYOUT_DEFAULT: kiln's) */
	struct platform_conf platform;
	/*
	 * What the check found odd but not wrong ("FILE:LINE:COL: field: ..."),
	 * said by kiln run and --dry-run: a `{name}` in a command's args that
	 * is no placeholder, passed on as it is
	 */
	struct strvec warnings;
};

/*
 * Parse and check a config file.  `datadir` is kiln's share dir (the bundled
 * benchmarks); `check_vms` 0 skips the VM-executable check (report, export),
 * 1 checks the VMs' executables (and probes their variants) when the config
 * is read, with FILE:LINE; CONFIG_CHECK_AFTER_BUILD (kiln run)
 * leaves a VM whose path is not there yet and which has a build step to
 * config_check_built(), after the builds.
 */
#define CONFIG_CHECK_AFTER_BUILD 2
int config_load(const char *path, const char *datadir, int check_vms,
		struct experiment *ex, struct kerr *e);
/* the same from text (fuzzing, tests); `path` names it in messages.  On
 * failure ex is left empty (config_free is harmless but not needed). */
int config_parse(const char *path, const char *text, size_t len, const char *datadir,
		 int check_vms, struct experiment *ex, struct kerr *e);
void config_free(struct experiment *ex);
/*
 * Does ex differ from the experiment of old_text (a stored config) only by
 * what an experiment may grow by: more pexecs, more benchmarks (top-level
 * or in suites), every old benchmark as it was and every other setting as
 * it was (comments and layout aside)?  1: yes; 0: no, why says what differs.
 */
int config_grows(const struct experiment *ex, const char *old_text, const char *datadir, struct strbuf *why);
/*
 * Does the changed config ex run every key of `ran` ("bench:vm:variant",
 * the keys some pexec of which ran) as the stored config old_text did,
 * with the same settings of every key?  Keys none of whose pexecs ran may
 * change freely.  1: yes; 0: no, why says what differs.
 */
int config_keeps_keys(const struct experiment *ex, const char *old_text, const char *datadir, const struct strvec *ran,
		      struct strbuf *why);
/*
 * Another YAML file (a ReBench config) read as kiln reads its own: its
 * text checked, aliases and merge keys resolved within kiln's bounds,
 * errors as FILE:LINE:COL.  The document, NULL with e set; free y (also
 * after NULL) with config_yaml_free.
 */
struct fy_document;
struct config_yaml;
struct fy_document *config_yaml_load(const char *path, const char *text, size_t len, struct config_yaml **y,
				     struct kerr *e);
void config_yaml_free(struct config_yaml *y);
/* an experiment with every default a config file would get (kiln bench builds on it) */
void config_defaults(struct experiment *ex);

/* the folder of a benchmark's sources under benchmarks_dir */
const char *config_bench_source(const struct bench_conf *b);
/* the benchmark of ex named name, NULL when none is */
const struct bench_conf *config_bench_named(const struct experiment *ex, const char *name);
/*
 * The gauge of benchmark b (NULL: the VM's alone) on a VM: the
 * benchmark's, else the VM's, on command VMs; NULL when there is none
 */
const struct gauge_conf *config_gauge(const struct vm_conf *vm, const struct bench_conf *b);
/*
 * iterations for a VM (its own or the experiment's); for a key with a
 * gauge (config_gauge) whose count is not set (config_counts_set), the
 * gauge's max_iterations
 */
long config_iterations(const struct experiment *ex, const struct vm_conf *vm, const struct bench_conf *b);
/* is a key's count of iterations written in the config (the benchmark's, the VM's or the experiment's; b may be NULL)? */
int config_counts_set(const struct experiment *ex, const struct vm_conf *vm, const struct bench_conf *b);
/* where the key's processes and steps start: the benchmark's cwd, else the VM's, else NULL (the config's folder) */
const char *config_cwd(const struct vm_conf *vm, const struct bench_conf *b);
/*
 * A benchmark var's value as it names a key (NAME[VAR=LABEL]): the
 * characters that separate a key's parts (':', '/', '[', ']', ',') made
 * '_', an empty value '' (malloc'd)
 */
char *config_var_label(const char *value);
/* the value of the benchmark's variable `name` (n bytes), NULL when it has none such */
const char *config_bench_var(const struct bench_conf *b, const char *name, size_t n);
/* does each pexec of b on the VM have one iteration, its process (the command plugin without a gauge)? */
int config_one_iteration(const struct vm_conf *vm, const struct bench_conf *b);
/*
 * The folder of a benchmark's sources for a VM (malloc'd):
 * benchmarks_dir/<bench>/<language>, or Krun's name for that language's
 * folder (the plugin's krun_language: javascript/ for js/) when only that
 * one has the entry file; a benchmark that a benchmarks/ folder found
 * beside the config lacks is the bundled suite's (bundled_dir)
 */
char *config_bench_dir(const struct experiment *ex, const struct bench_conf *b, const struct vm_conf *vm);
/*
 * The benchmark's entry file for the VM (malloc'd; NULL: the VM has none):
 * in config_bench_dir(), the plugin's entry, or its krun_entry when only
 * that one is there (Java's KrunEntry.java)
 */
char *config_entry_path(const struct experiment *ex, const struct bench_conf *b, const struct vm_conf *vm);
/* the VMs left for after their build: each executable there (and its variant able to run), else an error at its line */
int config_check_built(const struct experiment *ex, struct kerr *e);
/* the same for one VM */
int config_check_built_vm(const struct vm_conf *vm, struct kerr *e);
/* are the benchmark's sources in Krun's layout (its layout, else the experiment's)? */
int config_krun_layout(const struct experiment *ex, const struct bench_conf *b);
/* is bench:vm:variant skipped? */
int config_skipped(const struct experiment *ex, const char *key);
/* does bench x vm run: the VM is there and no skip pattern matches the key? */
int config_runs(const struct experiment *ex, const struct bench_conf *b, const struct vm_conf *vm);

#endif
