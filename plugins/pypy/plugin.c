/*
 * plugin.c - the pypy plugin: runs benchmarks/<b>/python/bench.py under PyPy
 * with plugins/pypy/runner.py, and with `instrument: true` has PyPy write a
 * PYPYLOG into KILN_INSTR_DIR, which parse_pypylog.c summarises per
 * iteration (GC, JIT, other sections, time outside any section).
 *
 * PYPYLOG is set to "+DIR/pypylog": PyPy's profiling mode, which logs the
 * start and stop of every section (all categories) and none of their content.
 * That is all the time accounting needs, every section is seen (so exclusive
 * times are exact), and the VM writes as little as possible while it is being
 * measured.  The "+" keeps a ':' in the path from being read as a category
 * prefix.
 *
 * Under kiln profile the log has the JIT backend's sections instead, with
 * their content, in KILN_INSTR_DIR/pypy-jit.log: where each loop and bridge
 * is (jit-backend-addr), its machine code (jit-backend-dump), and the
 * traces' operations (jit-log-opt: which loop a guard is in, where a bridge
 * starts), from which kiln names the JIT'd code (jitcode.c); KILN_PROFILE=1
 * has the runner map a jitdump marker and write the calibration.
 */
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "plugin.h"
#include "pypylog.h"

static int pypy_build(const struct plugin_ctx *c, struct strvec *argv, struct strvec *env,
		      struct kerr *e)
{
	if (plugin_build_script(c, "runner.py", NULL, argv, env, e) < 0)
		return -1;
	if (c->profile && c->instr_dir) {
		char *log = xasprintf("jit-backend-addr,jit-backend-dump,jit-log-opt:%s/pypy-jit.log", c->instr_dir);
		sv_setenv(env, "PYPYLOG", log);
		sv_setenv(env, "KILN_PROFILE", "1");
		free(log);
	} else if (c->instrument && c->instr_dir) {
		char *log = xasprintf("+%s/pypylog", c->instr_dir);
		sv_setenv(env, "PYPYLOG", log);
		free(log);
	}
	return 0;
}

const struct kiln_plugin plugin_pypy = {
	.name = "pypy",
	.language = "python",
	.entry = "bench.py",
	.vm_default = "pypy3",
	.summary = "PyPy: Python benchmarks timed with time.clock_gettime_ns(CLOCK_MONOTONIC_RAW)",
	.records = "per iteration: gc.time jit.time other.time outside.time (s), gc.count jit.count "
		   "(from PYPYLOG); per pexec: the same totals, pypy.<section>.time/.count, checksum",
	.whole_process = 0,
	.build = pypy_build,
	.prepare = NULL,
	.parse_glob = "pypylog*",
	.parse = pypylog_parse_file,
	.probe = 1,
};
