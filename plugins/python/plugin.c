/*
 * plugins/python/plugin.c - the `python` plugin: CPython.
 *
 * Runs benchmarks/<b>/python/bench.py with plugins/python/runner.py, which
 * times each run_iter() with CLOCK_MONOTONIC_RAW and, with `instrument:
 * true` (KILN_INSTRUMENT=1), writes per-iteration GC records from
 * gc.callbacks as generic records (python.kiln.jsonl), which kiln reads
 * without a parser of its own.  With profiling on, CPython >= 3.12 gets
 * `-X perf` so perf sees Python frames (older versions have no such mode).
 */
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "exec.h"
#include "plugin.h"

/* does this interpreter know -X perf (CPython >= 3.12)? */
static int has_perf_trampoline(const char *python)
{
	char *argv[] = { (char *)python, "-c",
			 "import sys; print(int(sys.implementation.name == 'cpython' and sys.version_info >= (3, 12)))",
			 NULL };
	struct exec_result res;
	struct kerr e = KERR_INIT;
	int yes = 0;
	if (exec_simple(argv, 30, &res, &e) == 0) {
		yes = res.exited && res.status == 0 && !strncmp(sb_str(&res.out), "1", 1);
		exec_result_release(&res);
	}
	kerr_release(&e);
	return yes;
}

static int python_build(const struct plugin_ctx *c, struct strvec *argv, struct strvec *env,
			struct kerr *e)
{
	static const char *const prof[] = { "-X", "perf", NULL };
	/* -X perf exists from CPython 3.12 on */
	return plugin_build_script(c, "runner.py", c->profile && has_perf_trampoline(c->vm_path) ? prof : NULL, argv,
				   env, e);
}

const struct kiln_plugin plugin_python = {
	.name = "python",
	.language = "python",
	.entry = "bench.py",
	.vm_default = "python3",
	.summary = "CPython: Python benchmarks timed with time.clock_gettime_ns(CLOCK_MONOTONIC_RAW)",
	.records = "per iteration: gc.time (s), gc.count, python.gc.collected, python.allocated_blocks, "
		   "rss (bytes) (gc.callbacks); per pexec: checksum",
	.build = python_build,
	.probe = 1,
};
