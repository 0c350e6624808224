/*
 * plugins/php/plugin.c - the `php` plugin: the PHP CLI (Zend engine).
 *
 * Runs benchmarks/<b>/php/bench.php with plugins/php/runner.php, which
 * times each run_iter with hrtime() and, with `instrument: true`, writes
 * gc_status() differences and the JIT buffer's use (opcache_get_status())
 * per iteration as generic records (php.kiln.jsonl).  The variants are
 * opcache's switches, given as -d settings: `interp` (opcache off, the CLI's
 * default), `jit-off` (opcache's optimiser, no JIT), `tracing` and
 * `function` (the two JIT modes); each probe asks the PHP itself whether
 * opcache, and the JIT, came up.  With profiling on, opcache.jit_debug makes
 * the JIT write a perf map (/tmp/perf-PID.map) naming each compiled
 * function (JIT$name) and trace (TRACE-N$name$line).
 */
#include "config.h"
#include "plugin.h"

#define JIT_BUFFER "-d", "opcache.jit_buffer_size=64M"

static const char *const interp_args[] = { "-d", "opcache.enable_cli=0", NULL };
static const char *const jit_off_args[] = { "-d", "opcache.enable_cli=1", "-d", "opcache.jit=disable", NULL };
static const char *const tracing_args[] = { "-d", "opcache.enable_cli=1", JIT_BUFFER, "-d", "opcache.jit=tracing",
					    NULL };
static const char *const function_args[] = { "-d", "opcache.enable_cli=1", JIT_BUFFER, "-d",
					     "opcache.jit=function", NULL };

#define PROBE_OPCACHE                                                                                          \
	"if (!function_exists('opcache_get_status')) { fwrite(STDERR, 'the Zend OPcache extension is not loaded' "  \
	". PHP_EOL); exit(1); } $s = opcache_get_status(false); if (!$s || !$s['opcache_enabled']) { "             \
	"fwrite(STDERR, 'opcache is not enabled' . PHP_EOL); exit(1); } "
static const char *const opcache_probe[] = { "-r", PROBE_OPCACHE "exit(0);", NULL };
static const char *const jit_probe[] = {
	"-r",
	PROBE_OPCACHE "if (empty($s['jit']['on'])) { fwrite(STDERR, 'the JIT is not on (' . "
		      "(empty($s['jit']['enabled']) ? 'this PHP has no JIT or no JIT buffer' : 'opcache.jit') . ')' . "
		      "PHP_EOL); exit(1); } exit(0);",
	NULL
};

static const struct plugin_variant php_variants[] = {
	{ "interp", "the interpreter, opcache off (the CLI's default)", interp_args, NULL },
	{ "jit-off", "opcache's optimiser, JIT off", jit_off_args, opcache_probe },
	{ "tracing", "opcache's tracing JIT (opcache.jit=tracing)", tracing_args, jit_probe },
	{ "function", "opcache's function JIT (opcache.jit=function)", function_args, jit_probe },
	{ NULL, NULL, NULL, NULL },
};

static int php_build(const struct plugin_ctx *c, struct strvec *argv, struct strvec *env, struct kerr *e)
{
	/* 0x10: the perf map; 0x20: a jitdump too */
	static const char *const prof[] = { "-d", "opcache.jit_debug=0x30", NULL };
	return plugin_build_script(c, "runner.php", prof, argv, env, e);
}

const struct kiln_plugin plugin_php = {
	.name = "php",
	.language = "php",
	.entry = "bench.php",
	.vm_default = "php",
	.summary = "PHP CLI: PHP benchmarks timed with hrtime() (CLOCK_MONOTONIC)",
	.records = "per iteration: gc.count, php.gc.collected, php.gc.roots, gc.time (s, PHP >= 8.3), "
		   "heap (bytes, memory_get_usage), "
		   "with opcache: jit.code_size, jit.code_added (bytes of the JIT buffer); per pexec: checksum",
	.variants = php_variants,
	.build = php_build,
};
