/*
 * plugins/c/plugin.c - the `c` plugin: native benchmarks.
 *
 * A benchmark is benchmarks/<name>/c/bench.c exporting
 * `void run_iter(long param)` (and optionally `long checksum(void)`), built
 * into bench.so.  The runner, kiln-runner-c (plugins/c/runner.c), dlopen()s
 * it and times each call with libkiln's clock and counters.  prepare()
 * compiles bench.so when it is missing or older than bench.c: beside the
 * source when that folder is writable, otherwise in kiln's cache folder.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "exec.h"
#include "idcache.h"
#include "plugin.h"

/* where the shared object of a benchmark folder is (or will be) */
static char *so_path(const char *bench_dir)
{
	char *src = path_join(bench_dir, "bench.c");
	char *so = path_join(bench_dir, "bench.so");
	if (file_up_to_date(so, src) || access(bench_dir, W_OK) == 0) {
		free(src);
		return so;
	}
	free(so);
	const char *cache = getenv("XDG_CACHE_HOME");
	char *base = cache && *cache ? xasprintf("%s/kiln/c", cache) : xasprintf("%s/.cache/kiln/c", getenv("HOME") ? getenv("HOME") : "/tmp");
	char hash[65];
	hash_hex(src, strlen(src), hash);
	hash[16] = '\0';
	char *p = xasprintf("%s/%s.so", base, hash);
	free(base);
	free(src);
	return p;
}

/* how bench.so is built: the compiler ($CC, else cc) and its flags, for prepare and the provenance */
static const char *const cflags[] = { "-std=gnu11", "-O2", "-g", "-shared", "-fPIC" };
static const char *const ldlibs[] = { "-lm" };

static const char *c_compiler(void)
{
	return getenv("CC") && *getenv("CC") ? getenv("CC") : "cc";
}

static int c_prepare(const struct plugin_ctx *c, struct kerr *e)
{
	char *src = path_join(c->bench_dir, "bench.c");
	char *so = so_path(c->bench_dir);
	int r = 0;
	if (!file_up_to_date(so, src)) {
		char *dir = path_dirname(so);
		mkdir_p(dir, 0755);
		free(dir);
		struct strvec argv = STRVEC_INIT;
		sv_push(&argv, c_compiler());
		for (size_t i = 0; i < ARRAY_SIZE(cflags); i++)
			sv_push(&argv, cflags[i]);
		sv_push(&argv, "-o");
		sv_push(&argv, so);
		sv_push(&argv, src);
		for (size_t i = 0; i < ARRAY_SIZE(ldlibs); i++)
			sv_push(&argv, ldlibs[i]);
		struct exec_result res;
		int x = exec_simple(sv_array(&argv), 120, &res, e);
		sv_clear(&argv);
		if (x < 0) {
			r = -1;
		} else if (!res.exited || res.status) {
			r = kerr_setc(e, KEXIT_CONFIG, "compiling %s failed:\n%s", src, sb_str(&res.err));
		}
		exec_result_release(&res);
	}
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
	char *so = so_path(c->bench_dir);
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
