/*
 * plugin.h - what a plugin is.
 *
 * A plugin is an iteration runner (a program in the VM's language, in
 * plugins/<name>/) plus, optionally, a parser of what the VM writes into
 * KILN_INSTR_DIR.  Each built-in plugin exports one `const struct kiln_plugin`
 * from plugins/<name>/plugin.c; plugin.c in src/ gathers them in one table,
 * the way tmux gathers its commands.  External plugins come from the config
 * (struct vm_conf's `runner` template and `parser` command) and are wrapped in
 * the same struct at run time.
 */
#ifndef KILN_PLUGIN_H
#define KILN_PLUGIN_H

#include "record.h"
#include "util.h"

struct vm_conf;
struct bench_conf;

/* everything a plugin may use to build one pexec's command */
struct plugin_ctx {
	const struct vm_conf *vm;
	const struct bench_conf *bench;
	const char *vm_path;     /* resolved VM executable (absolute) */
	const char *bench_dir;   /* <benchmarks_dir>/<bench>/<language> */
	const char *entry_path;  /* bench_dir/<entry> */
	const char *plugin_dir;  /* <datadir>/plugins/<name> (runner files) */
	const char *libexec_dir; /* where compiled runners live (kiln-runner-c) */
	const char *param;
	long iterations;
	const char *instr_dir;   /* KILN_INSTR_DIR of this pexec */
	int instrument;          /* vm `instrument: true` */
	int profile;             /* turn on JIT symbol output (perf maps, jitdump) */
};

/*
 * A named way of running the VM, chosen with a VM's `variant:` (the third
 * part of the key): the switches it puts before the VM's own args, and a
 * probe that says whether this VM executable can run it at all (CRuby
 * without YJIT, PHP without opcache).
 */
struct plugin_variant {
	const char *name;
	const char *summary;            /* one line for `kiln plugins` */
	const char *const *args;        /* VM switches, NULL-terminated; NULL: none */
	/*
	 * argv after the VM and the variant's switches: exits 0 when the
	 * variant really runs, else prints why on stderr; NULL: always runs
	 */
	const char *const *probe;
};

struct kiln_plugin {
	const char *name;
	const char *language;    /* folder under benchmarks/<bench>/ */
	const char *krun_language; /* Krun's name of that folder, when another (javascript): also accepted */
	const char *entry;       /* benchmark entry file in that folder, NULL: none */
	const char *krun_entry;  /* Krun's entry file, when another (KrunEntry.java): used when entry is not there */
	const char *vm_default;  /* VM executable when the config gives no path */
	const char *summary;     /* one line for `kiln plugins` */
	const char *records;     /* what instrumentation it records */
	int whole_process;       /* 1: one process is one iteration (command) */
	int needs_path;          /* 1: the VM's `path` is required (no default VM) */
	/*
	 * NULL: `variant` is a free label.  Otherwise the variants a config may
	 * name (terminated by a NULL name); the first is the default.
	 */
	const struct plugin_variant *variants;
	/*
	 * Fill argv (argv[0] is the program) and add the plugin's own variables
	 * to env (the KILN_* protocol variables are already there).
	 */
	int (*build)(const struct plugin_ctx *c, struct strvec *argv, struct strvec *env,
		     struct kerr *e);
	/*
	 * Optional, once per key before anything runs: make sure the benchmark
	 * is ready (compile a C benchmark's bench.so, Java classes) so that a
	 * missing compiler or a broken source is found before the first pexec.
	 */
	int (*prepare)(const struct plugin_ctx *c, struct kerr *e);
	/* files of KILN_INSTR_DIR this parser takes ("*" pattern), NULL: none */
	const char *parse_glob;
	/*
	 * Turn one instrumentation file into records; NULL: no parser.  The
	 * file is f->name in f's folder, opened only through instr_open().
	 */
	int (*parse)(const struct instr_file *f, struct rec_sink *sink, struct kerr *e);
	/* the same parser on text in memory (stats_from: stderr), NULL: none */
	int (*parse_mem)(const char *name, const char *buf, size_t len, struct rec_sink *sink, struct kerr *e);
	/*
	 * 1: the runner knows KILN_PROBE=1 (docs/protocol.md): it loads and
	 * checks the benchmark, writes one probe line and exits, so that a
	 * benchmark that cannot run is found before the first pexec.
	 */
	int probe;
	/*
	 * Optional: what defines the key's program beyond its files and argv,
	 * as "name value" lines for its provenance (provenance.h): a compiler
	 * and its flags.
	 */
	void (*describe)(const struct plugin_ctx *c, struct strvec *lines);
};

const struct kiln_plugin *plugin_find(const char *name);
/*
 * Build one pexec's argv and env: the built-in plugin's build(), or, for a
 * VM with `plugin: external`, its runner template with {placeholders}
 * ({benchmark} {vm} {variant} {iterations} {param} {entry} {bench_dir}
 * {instr_dir} {pexec} {vm_path}) substituted.
 */
int plugin_build(const struct plugin_ctx *c, const char *pexec_label, struct strvec *argv,
		 struct strvec *env, struct kerr *e);
/*
 * The usual runner command of a VM plugin: the VM, the switches of the
 * VM's variant (when the plugin has variants), its switches for
 * profiling (`profile_flags`, NULL-terminated, used when c->profile), the
 * VM's configured args, the runner `runner` from the plugin's folder, and
 * the benchmark's entry file; KILN_INSTRUMENT=1 when instrumenting.
 */
int plugin_build_script(const struct plugin_ctx *c, const char *runner, const char *const *profile_flags,
			struct strvec *argv, struct strvec *env, struct kerr *e);
/* the plugin's variant of that name, NULL if it has none such */
const struct plugin_variant *plugin_variant_find(const struct kiln_plugin *p, const char *name);
/* "interp, yjit": the variants' names, for messages */
void plugin_variant_names(const struct kiln_plugin *p, struct strbuf *out);
/*
 * Can vm_path (with the VM's args) run this variant?  Runs its probe: 0 yes;
 * -1 no, with why (the probe's first line of output, or how it ended) in
 * `why`.
 */
int plugin_variant_probe(const struct plugin_variant *v, const char *vm_path, const struct strvec *vm_args,
			 struct strbuf *why);
/* substitute the same placeholders in one template word */
void plugin_subst(const struct plugin_ctx *c, const char *pexec_label, const char *tmpl, struct strbuf *out);
/*
 * The first `{name}` in a template word (a name of letters, digits and '_')
 * that is no placeholder, e.g. a misspelt `{entyr}`, with its length; NULL
 * when there is none.  Other text in braces (`{}`, `{"a": 1}`) is text.
 */
const char *plugin_unknown_placeholder(const char *tmpl, size_t *len);
/* "{benchmark}, {vm}, ...": the placeholders, for messages */
void plugin_placeholder_names(struct strbuf *out);
/*
 * A command VM's arg (its VM's or its benchmark's): {benchmark} (the
 * benchmark's name as written, without a [param]), {vm}, {variant},
 * {iterations}, {param} and the benchmark's vars substituted
 */
void plugin_subst_args(const struct plugin_ctx *c, const char *arg, struct strbuf *out);
/* the next `{name}` in s (a name of letters, digits and '_'), NULL: none */
const char *plugin_next_name(const char *s);
/* is `name` (n bytes, without braces) a placeholder of runner templates? of command args? */
int plugin_is_placeholder(const char *name, size_t n);
int plugin_is_command_placeholder(const char *name, size_t n);
/* the placeholders of runner templates (PLACEHOLDERS_ALL) or of command args, for messages */
enum { PLACEHOLDERS_ALL, PLACEHOLDERS_COMMAND };
void plugin_placeholder_names_of(int which, struct strbuf *out);
/* the table, NULL-terminated */
extern const struct kiln_plugin *const kiln_plugins[];

#endif
