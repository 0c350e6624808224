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
 */
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

static int javac(const struct plugin_ctx *c, const char *src, const char *outdir, struct kerr *e)
{
	char *jc = find_javac(c->vm_path);
	if (!jc)
		return kerr_setc(e, KEXIT_CONFIG, "java: %s needs compiling and no javac was found", src);
	char *argv[] = { jc, "-nowarn", "-d", (char *)outdir, "-cp", (char *)c->plugin_dir, (char *)src, NULL };
	struct exec_result res;
	int r = 0;
	if (exec_simple(argv, 300, &res, e) < 0)
		r = -1;
	else if (!res.exited || res.status)
		r = kerr_setc(e, KEXIT_CONFIG, "java: compiling %s failed:\n%s", src, sb_str(&res.err));
	exec_result_release(&res);
	free(jc);
	return r;
}

static int java_prepare(const struct plugin_ctx *c, struct kerr *e)
{
	static const char *const plugin_classes[] = { "KilnBenchmark", "KilnRunner" };
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
	if (r == 0 && !file_up_to_date(cls, src)) {
		if (access(c->bench_dir, W_OK) != 0)
			r = kerr_setc(e, KEXIT_CONFIG, "java: %s is missing or stale and %s is not writable",
				      cls, c->bench_dir);
		else
			r = javac(c, src, c->bench_dir, e);
	}
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
	.vm_default = "java",
	.summary = "HotSpot: Java benchmarks (class Bench implements KilnBenchmark) timed with System.nanoTime()",
	.records = "per iteration: gc.time (s), gc.count, gc.<collector>.time (s), gc.<collector>.count, "
		   "jit.time (s), heap (bytes) (JMX beans, millisecond resolution); per pexec: checksum",
	.build = java_build,
	.prepare = java_prepare,
	.probe = 1,
	.describe = java_describe,
};
