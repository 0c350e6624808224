/*
 * plugins/java/plugin.c - the `java` plugin: HotSpot.
 *
 * A benchmark is benchmarks/<b>/java/Bench.java, class Bench implementing
 * KilnBenchmark (plugins/java/KilnBenchmark.java).  The Makefile compiles
 * both into .class files beside their sources; prepare() recompiles a stale
 * or missing Bench.class with the javac beside the java executable (or on
 * PATH), so a user's own benchmark folder works without make.  The runner,
 * KilnRunner, gets CLASSPATH=<plugin dir>:<benchmark dir> and reads the JMX
 * beans around each iteration when `instrument: true` (java.kiln.jsonl).
 * With profiling on: a perf map at exit and frame pointers.
 *
 * Krun's layout (the warmup experiment's benchmarks): a folder without
 * Bench.java whose KrunEntry.java has class KrunEntry implementing
 * BaseKrunEntry (plugins/java/BaseKrunEntry.java, Krun's interface) with
 * run_iter(int).  prepare() compiles the folder's .java files together, as
 * the warmup experiment's Makefile does (its trace_*.java left out), when a
 * class file is missing or older than any of them.
 */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "exec.h"
#include "idcache.h"
#include "plugin.h"

/* javac beside the java that runs the benchmarks, so the versions agree */
static char *find_javac(const char *java)
{
	if (java) {
		char *real = realpath(java, NULL);
		if (real) {
			char *dir = path_dirname(real);
			char *javac = path_join(dir, "javac");
			free(dir);
			free(real);
			if (is_executable(javac))
				return javac;
			free(javac);
		}
	}
	return find_in_path("javac");
}

/* javac the sources srcs (their first named in messages) into outdir, the plugin's classes on the classpath */
static int javac_all(const struct plugin_ctx *c, const struct strvec *srcs, const char *outdir, struct kerr *e)
{
	char *jc = find_javac(c->vm_path);
	if (!jc)
		return kerr_setc(e, KEXIT_CONFIG, "java: %s needs compiling and no javac was found", srcs->v[0]);
	struct strvec argv = STRVEC_INIT;
	sv_push(&argv, jc);
	sv_push(&argv, "-nowarn");
	sv_push(&argv, "-d");
	sv_push(&argv, outdir);
	sv_push(&argv, "-cp");
	sv_push(&argv, c->plugin_dir);
	for (size_t i = 0; i < srcs->n; i++)
		sv_push(&argv, srcs->v[i]);
	struct exec_result res;
	int r = 0;
	if (exec_simple(sv_array(&argv), 300, &res, e) < 0)
		r = -1;
	else if (!res.exited || res.status)
		r = kerr_setc(e, KEXIT_CONFIG, "java: compiling %s failed:\n%s", srcs->v[0], sb_str(&res.err));
	exec_result_release(&res);
	sv_clear(&argv);
	free(jc);
	return r;
}

static int javac(const struct plugin_ctx *c, const char *src, const char *outdir, struct kerr *e)
{
	struct strvec one = STRVEC_INIT;
	sv_push(&one, src);
	int r = javac_all(c, &one, outdir, e);
	sv_clear(&one);
	return r;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* a Krun benchmark's sources: dir's *.java but trace_*.java (the warmup experiment's tracing builds), sorted */
static void krun_sources(const char *dir, struct strvec *out)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	while (d && (de = readdir(d))) {
		size_t n = strlen(de->d_name);
		if (n > 5 && !strcmp(de->d_name + n - 5, ".java") && strncmp(de->d_name, "trace_", 6)) {
			char *p = path_join(dir, de->d_name);
			sv_push(out, p);
			free(p);
		}
	}
	if (d)
		closedir(d);
	if (out->n > 1)
		qsort(out->v, out->n, sizeof(*out->v), by_name);
}

/* Krun's layout: every source compiled together when KrunEntry.class is missing or older than one of them */
static int krun_compile(const struct plugin_ctx *c, struct kerr *e)
{
	struct strvec srcs = STRVEC_INIT;
	krun_sources(c->bench_dir, &srcs);
	char *cls = path_join(c->bench_dir, "KrunEntry.class");
	int stale = 0, r = 0;
	for (size_t i = 0; i < srcs.n; i++)
		stale |= !file_up_to_date(cls, srcs.v[i]);
	if (stale && access(c->bench_dir, W_OK) != 0)
		r = kerr_setc(e, KEXIT_CONFIG, "java: %s is missing or stale and %s is not writable", cls, c->bench_dir);
	else if (stale)
		r = javac_all(c, &srcs, c->bench_dir, e);
	free(cls);
	sv_clear(&srcs);
	return r;
}

static int java_prepare(const struct plugin_ctx *c, struct kerr *e)
{
	static const char *const plugin_classes[] = { "KilnBenchmark", "BaseKrunEntry", "KilnRunner" };
	int r = 0;
	for (size_t i = 0; i < ARRAY_SIZE(plugin_classes) && r == 0; i++) {
		char *src = xasprintf("%s/%s.java", c->plugin_dir, plugin_classes[i]);
		char *cls = xasprintf("%s/%s.class", c->plugin_dir, plugin_classes[i]);
		if (!file_up_to_date(cls, src))
			r = javac(c, src, c->plugin_dir, e);
		free(src);
		free(cls);
	}
	char *src = path_join(c->bench_dir, "Bench.java");
	char *cls = path_join(c->bench_dir, "Bench.class");
	char *krun = path_join(c->bench_dir, "KrunEntry.java");
	if (r == 0 && !file_exists(src) && file_exists(krun))
		r = krun_compile(c, e);
	else if (r == 0 && !file_up_to_date(cls, src)) {
		if (access(c->bench_dir, W_OK) != 0)
			r = kerr_setc(e, KEXIT_CONFIG, "java: %s is missing or stale and %s is not writable",
				      cls, c->bench_dir);
		else
			r = javac(c, src, c->bench_dir, e);
	}
	free(krun);
	free(src);
	free(cls);
	return r;
}

/* the javac that compiles Bench.class (its file's SHA-256) */
static void java_describe(const struct plugin_ctx *c, struct strvec *lines)
{
	char *jc = find_javac(c->vm_path);
	char sha[65];
	struct kerr e = KERR_INIT;
	if (jc && idc_sha256(jc, sha, &e) == 0)
		sv_pushf(lines, "build.javac %s sha256:%s", jc, sha);
	else
		sv_push(lines, "build.javac (not found)");
	sv_push(lines, "build.flags -nowarn");
	kerr_release(&e);
	free(jc);
}

static int java_build(const struct plugin_ctx *c, struct strvec *argv, struct strvec *env,
		      struct kerr *e)
{
	if (!c->vm_path || !c->plugin_dir || !c->bench_dir)
		return kerr_set(e, "java: missing VM, plugin or benchmark path");
	sv_push(argv, c->vm_path);
	if (c->profile) {
		sv_push(argv, "-XX:+UnlockDiagnosticVMOptions");
		sv_push(argv, "-XX:+DumpPerfMapAtExit");
		sv_push(argv, "-XX:+PreserveFramePointer");
	}
	if (c->vm)
		for (size_t i = 0; i < c->vm->args.n; i++)
			sv_push(argv, c->vm->args.v[i]);
	sv_push(argv, "KilnRunner");
	sv_push(argv, c->bench_dir);
	char *cp = xasprintf("%s:%s", c->plugin_dir, c->bench_dir);
	sv_setenv(env, "CLASSPATH", cp);
	free(cp);
	if (c->instrument)
		sv_setenv(env, "KILN_INSTRUMENT", "1");
	return 0;
}

const struct kiln_plugin plugin_java = {
	.name = "java",
	.language = "java",
	.entry = "Bench.java",
	.krun_entry = "KrunEntry.java",
	.vm_default = "java",
	.summary = "HotSpot: Java benchmarks (class Bench implements KilnBenchmark) timed with System.nanoTime()",
	.records = "per iteration: gc.time (s), gc.count, gc.<collector>.time (s), gc.<collector>.count, "
		   "jit.time (s), heap (bytes) (JMX beans, millisecond resolution); per pexec: checksum",
	.build = java_build,
	.prepare = java_prepare,
	.probe = 1,
	.describe = java_describe,
};
