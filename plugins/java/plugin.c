/*
 * plugins/java/plugin.c - the `java` plugin: HotSpot.
 *
 * A benchmark is benchmarks/<b>/java/Bench.java, class Bench implementing
 * KilnBenchmark (plugins/java/KilnBenchmark.java).  prepare() compiles the
 * benchmark, with the javac beside the java executable (or on PATH), into
 * kiln's build cache (build-cache.h), never beside its sources, keyed by
 * the sources, the javac and its flags.  The runner, KilnRunner, gets
 * CLASSPATH=<plugin dir>:<its classes>:<benchmark dir> and reads the JMX
 * beans around each iteration when `instrument: true` (java.kiln.jsonl).
 * With profiling on: a perf map at exit and frame pointers.
 *
 * Krun's layout (the warmup experiment's benchmarks): a folder without
 * Bench.java whose KrunEntry.java has class KrunEntry implementing
 * BaseKrunEntry (plugins/java/BaseKrunEntry.java, Krun's interface) with
 * run_iter(int).  prepare() compiles the folder's .java files together, as
 * the warmup experiment's Makefile does (its trace_*.java left out).
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "build-cache.h"
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
	sv_push(&argv, "-sourcepath");
	sv_push(&argv, c->bench_dir);
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

/* the Java sources a benchmark's classes are built from */
static const char *const java_sources[] = { ".java", NULL };

/* the classes folder of each benchmark folder this kiln found (bench_dir -> path): a pexec's CLASSPATH needs it */
static struct strvec classes_known = STRVEC_INIT;

/*
 * Where a benchmark folder's classes are (or are to be compiled): kiln's
 * build cache (build-cache.h), never the benchmark's folder, keyed by the
 * folder's sources, the javac and its flags.  NULL with e set.
 */
static char *classes_dir(const struct plugin_ctx *c, int fresh, struct kerr *e)
{
	const char *known = fresh ? NULL : bcache_known(&classes_known, c->bench_dir);
	if (known)
		return xstrdup(known);
	struct strbuf t = STRBUF_INIT;
	sb_adds(&t, "java classes\n");
	bcache_add_sources(&t, c->bench_dir, java_sources);
	char *jc = find_javac(c->vm_path), sha[65];
	struct kerr ie = KERR_INIT;
	sb_addf(&t, "javac %s %s\nflag -nowarn\n", jc ? jc : "-", jc && idc_sha256(jc, sha, &ie) == 0 ? sha : "?");
	kerr_release(&ie);
	free(jc);
	char *p = bcache_path("java", t.buf, NULL, e);
	sb_release(&t);
	bcache_remember(&classes_known, c->bench_dir, p);
	return p;
}

/*
 * The benchmark's classes into the cache, once: Bench.java (the sources it
 * uses found in its folder), or in Krun's layout every source of the
 * folder together, as the warmup experiment's Makefile does (its trace_*
 * left out); into a folder of our own, then renamed.
 */
static int compile_classes(const struct plugin_ctx *c, struct kerr *e)
{
	char *out = classes_dir(c, 1, e);
	if (!out)
		return kerr_wrap(e, "java: the build cache");
	if (file_exists(out)) {
		free(out);
		return 0;
	}
	char *tmp = xasprintf("%s.%ld.tmp", out, (long)getpid());
	char *bench = path_join(c->bench_dir, "Bench.java");
	struct strvec srcs = STRVEC_INIT;
	if (file_exists(bench))
		sv_push(&srcs, bench);
	else
		krun_sources(c->bench_dir, &srcs);
	rm_rf(tmp);
	int r = srcs.n ? 0 : kerr_setc(e, KEXIT_CONFIG, "java: %s has no Bench.java (nor Krun's KrunEntry.java)", c->bench_dir);
	if (r == 0 && mkdir(tmp, 0755) < 0)
		r = kerr_set(e, "java: %s: %s", tmp, strerror(errno));
	if (r == 0)
		r = javac_all(c, &srcs, tmp, e);
	if (r == 0 && rename(tmp, out) < 0 && !file_exists(out))
		r = kerr_set(e, "java: %s: %s", out, strerror(errno));
	rm_rf(tmp);
	sv_clear(&srcs);
	free(bench);
	free(tmp);
	free(out);
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
	return r == 0 ? compile_classes(c, e) : r;
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
	char *classes = classes_dir(c, 0, e);
	if (!classes)
		return -1;
	char *cp = xasprintf("%s:%s:%s", c->plugin_dir, classes, c->bench_dir);
	sv_setenv(env, "CLASSPATH", cp);
	free(cp);
	free(classes);
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
