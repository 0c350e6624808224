/*
 * plugins/c/plugin.c - the `c` plugin: native benchmarks.
 *
 * A benchmark is benchmarks/<name>/c/bench.c exporting
 * `void run_iter(long param)` (and optionally `long checksum(void)`), built
 * into bench.so.  The runner, kiln-runner-c (plugins/c/runner.c), dlopen()s
 * it and times each call with libkiln's clock and counters.  prepare()
 * compiles it into kiln's build cache (build-cache.h), never beside the
 * sources, under a key of the sources' contents, the compiler and its
 * flags: another source or compiler is another object.
 */
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

/* how bench.so is built: the compiler ($CC, else cc) and its flags, for prepare and the provenance */
static const char *const cflags[] = { "-std=gnu11", "-O2", "-g", "-shared", "-fPIC" };
static const char *const ldlibs[] = { "-lm" };

static const char *c_compiler(void)
{
	return getenv("CC") && *getenv("CC") ? getenv("CC") : "cc";
}

/* what bench.so is built from: the folder's C sources and headers, the compiler by SHA-256, the flags */
static const char *const c_sources[] = { ".c", ".h", NULL };

/* the bench.so of each benchmark folder this kiln found (bench_dir -> path): a pexec's argv needs it again */
static struct strvec so_known = STRVEC_INIT;

/*
 * Where the folder's bench.so is (or is to be built): kiln's build cache
 * (build-cache.h), never the benchmark's folder, keyed by the sources'
 * contents, the compiler and its flags.  NULL with e set.
 */
static char *so_path(const char *bench_dir, int fresh, struct kerr *e)
{
	const char *known = fresh ? NULL : bcache_known(&so_known, bench_dir);
	if (known)
		return xstrdup(known);
	struct strbuf t = STRBUF_INIT;
	sb_adds(&t, "c bench.so\n");
	bcache_add_sources(&t, bench_dir, c_sources);
	char *cc = find_in_path(c_compiler()), sha[65];
	struct kerr ie = KERR_INIT;
	sb_addf(&t, "cc %s %s\n", cc ? cc : c_compiler(), cc && idc_sha256(cc, sha, &ie) == 0 ? sha : "?");
	kerr_release(&ie);
	free(cc);
	for (size_t i = 0; i < ARRAY_SIZE(cflags); i++)
		sb_addf(&t, "flag %s\n", cflags[i]);
	for (size_t i = 0; i < ARRAY_SIZE(ldlibs); i++)
		sb_addf(&t, "lib %s\n", ldlibs[i]);
	char *p = bcache_path("c", t.buf, ".so", e);
	sb_release(&t);
	bcache_remember(&so_known, bench_dir, p);
	return p;
}

/* compile bench.c into the cache when its object is not there: into a file of our own, then renamed */
static int c_prepare(const struct plugin_ctx *c, struct kerr *e)
{
	char *so = so_path(c->bench_dir, 1, e);
	if (!so)
		return kerr_wrap(e, "c: the build cache");
	if (file_exists(so)) {
		free(so);
		return 0;
	}
	char *src = path_join(c->bench_dir, "bench.c"), *tmp = xasprintf("%s.%ld.tmp", so, (long)getpid());
	struct strvec argv = STRVEC_INIT;
	sv_push(&argv, c_compiler());
	for (size_t i = 0; i < ARRAY_SIZE(cflags); i++)
		sv_push(&argv, cflags[i]);
	sv_push(&argv, "-o");
	sv_push(&argv, tmp);
	sv_push(&argv, src);
	for (size_t i = 0; i < ARRAY_SIZE(ldlibs); i++)
		sv_push(&argv, ldlibs[i]);
	struct exec_result res;
	int r = exec_simple(sv_array(&argv), 120, &res, e);
	sv_clear(&argv);
	if (r == 0 && (!res.exited || res.status))
		r = kerr_setc(e, KEXIT_CONFIG, "compiling %s failed:\n%s", src, sb_str(&res.err));
	if (r == 0) {
		chmod(tmp, 0644);
		if (rename(tmp, so) < 0)
			r = kerr_set(e, "c: %s: %s", so, strerror(errno));
	}
	if (r == 0 || !file_exists(so))
		unlink(tmp);
	exec_result_release(&res);
	free(tmp);
	free(src);
	free(so);
	return r;
}

/* the compiler (its file's SHA-256) and flags that built bench.so */
static void c_describe(const struct plugin_ctx *c, struct strvec *lines)
{
	(void)c;
	char *cc = find_in_path(c_compiler());
	char sha[65];
	struct kerr e = KERR_INIT;
	if (cc && idc_sha256(cc, sha, &e) == 0)
		sv_pushf(lines, "build.cc %s sha256:%s", cc, sha);
	else
		sv_pushf(lines, "build.cc %s (not found)", c_compiler());
	kerr_release(&e);
	free(cc);
	struct strbuf f = STRBUF_INIT;
	for (size_t i = 0; i < ARRAY_SIZE(cflags); i++)
		sb_addf(&f, "%s ", cflags[i]);
	for (size_t i = 0; i < ARRAY_SIZE(ldlibs); i++)
		sb_addf(&f, "%s%s", i ? " " : "", ldlibs[i]);
	sv_pushf(lines, "build.flags %s", f.buf);
	sb_release(&f);
}

static int c_build(const struct plugin_ctx *c, struct strvec *argv, struct strvec *env, struct kerr *e)
{
	/* a configured `path` is a wrapper around the runner (taskset, numactl...) */
	if (c->vm->path) {
		sv_push(argv, c->vm_path);
		for (size_t i = 0; i < c->vm->args.n; i++)
			sv_push(argv, c->vm->args.v[i]);
	}
	char *runner = path_join(c->libexec_dir, "kiln-runner-c");
	if (!is_executable(runner)) {
		kerr_set(e, "%s is missing: build kiln with `make`", runner);
		free(runner);
		return -1;
	}
	sv_push(argv, runner);
	free(runner);
	char *so = so_path(c->bench_dir, 0, e);
	if (!so)
		return -1;
	sv_push(argv, so);
	free(so);
	sv_pushf(argv, "%ld", c->iterations);
	sv_push(argv, c->param);
	(void)env;
	return 0;
}

const struct kiln_plugin plugin_c = {
	.name = "c",
	.language = "c",
	.entry = "bench.c",
	.vm_default = NULL,
	.summary = "native code: a shared object with void run_iter(long param)",
	.records = "wall time; hardware/software counters through libkiln (platform.counters)",
	.build = c_build,
	.prepare = c_prepare,
	.probe = 1,
	.describe = c_describe,
};
