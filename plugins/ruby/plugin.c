/*
 * plugins/ruby/plugin.c - the `ruby` plugin: CRuby (MRI).
 *
 * Runs benchmarks/<b>/ruby/bench.rb with plugins/ruby/runner.rb, which
 * times each run_iter with CLOCK_MONOTONIC_RAW and, with `instrument:
 * true`, writes GC.stat deltas, GC.total_time and YJIT's code size per
 * iteration as generic records (ruby.kiln.jsonl).  Two variants: `interp`
 * (YJIT and MJIT off) and `yjit` (--yjit); the yjit probe asks the ruby
 * itself whether YJIT came up, so a build without it is refused by the
 * config check.  YJIT of Ruby 3.1 writes no perf map: a profile shows its
 * code as anonymous JIT'd memory, the interpreter's C functions by name.
 */
#include "config.h"
#include "plugin.h"

static const char *const interp_args[] = { "--disable=yjit,mjit", NULL };
static const char *const yjit_args[] = { "--yjit", NULL };
static const char *const yjit_probe[] = {
	"-e",
	"if defined?(RubyVM::YJIT) && RubyVM::YJIT.enabled? then exit 0 end; "
	"warn \"YJIT is not available in #{RUBY_DESCRIPTION}\"; exit 1",
	NULL
};

static const struct plugin_variant ruby_variants[] = {
	{ "interp", "the interpreter, YJIT and MJIT off", interp_args, NULL },
	{ "yjit", "YJIT on (--yjit)", yjit_args, yjit_probe },
	{ NULL, NULL, NULL, NULL },
};

static int ruby_build(const struct plugin_ctx *c, struct strvec *argv, struct strvec *env, struct kerr *e)
{
	return plugin_build_script(c, "runner.rb", NULL, argv, env, e);
}

const struct kiln_plugin plugin_ruby = {
	.name = "ruby",
	.language = "ruby",
	.entry = "bench.rb",
	.vm_default = "ruby",
	.summary = "CRuby: Ruby benchmarks timed with Process.clock_gettime(CLOCK_MONOTONIC_RAW)",
	.records = "per iteration: gc.time (s), gc.count, ruby.gc.minor_count, ruby.gc.major_count, "
		   "ruby.allocated_objects, heap (bytes of live slots), rss (bytes), with yjit: jit.code_size, "
		   "jit.code_added (bytes), yjit.<stat> (a YJIT stats build); per pexec: checksum",
	.variants = ruby_variants,
	.build = ruby_build,
};
