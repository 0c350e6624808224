/*
 * test_vm_plugins.c - the table entries of the VM plugins (python, lua,
 * luajit, node, java, ruby, jruby, php): they are registered, name their language and entry
 * file, and build() puts the VM, its configured args, the runner and the
 * benchmark in that order, sets KILN_INSTRUMENT only when asked, the Java
 * classpath, and each VM's profiling switches only when profiling; a
 * variant's switches (ruby, php) come first, and its probe's verdict and
 * complaint come back bounded and terminal-safe.
 * prepare(): the lua plugin refuses a missing kilnclock.so, the java plugin
 * compiles a missing Bench.class.  Runs from the source tree's root.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "plugin.h"

struct built {
	struct strvec argv, env;
};

static void build_variant(const char *plugin, const char *vm_path, const char *variant, int instrument, int profile,
			  struct built *b)
{
	const struct kiln_plugin *p = plugin_find(plugin);
	assert_non_null(p);
	struct vm_conf vm;
	memset(&vm, 0, sizeof(vm));
	vm.name = "v";
	vm.plugin = (char *)plugin;
	vm.pl = p;
	vm.variant = (char *)variant;
	sv_push(&vm.args, "--vm-arg");
	struct plugin_ctx c = {
		.vm = &vm,
		.vm_path = vm_path,
		.bench_dir = "/b/nbody/x",
		.entry_path = "/b/nbody/x/bench.x",
		.plugin_dir = "/k/plugins/p",
		.param = "10",
		.iterations = 3,
		.instr_dir = "/tmp/i",
		.instrument = instrument,
		.profile = profile,
	};
	struct kerr e = KERR_INIT;
	memset(b, 0, sizeof(*b));
	assert_int_equal(p->build(&c, &b->argv, &b->env, &e), 0);
	sv_clear(&vm.args);
}

static void build(const char *plugin, const char *vm_path, int instrument, int profile, struct built *b)
{
	build_variant(plugin, vm_path, NULL, instrument, profile, b);
}

static void release(struct built *b)
{
	sv_clear(&b->argv);
	sv_clear(&b->env);
}

static int index_of(const struct strvec *sv, const char *s)
{
	for (size_t i = 0; i < sv->n; i++)
		if (!strcmp(sv->v[i], s))
			return (int)i;
	return -1;
}

/* a fake VM: an executable shell script */
static void write_script(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");
	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
	assert_int_equal(chmod(path, 0755), 0);
}

static void test_table(void **state)
{
	(void)state;
	static const struct { const char *name, *lang, *entry, *vm; } want[] = {
		{ "python", "python", "bench.py", "python3" },
		{ "lua", "lua", "bench.lua", "lua5.4" },
		{ "luajit", "lua", "bench.lua", "luajit" },
		{ "node", "js", "bench.js", "node" },
		{ "java", "java", "Bench.java", "java" },
		{ "ruby", "ruby", "bench.rb", "ruby" },
		{ "jruby", "ruby", "bench.rb", "jruby" },
		{ "php", "php", "bench.php", "php" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(want); i++) {
		const struct kiln_plugin *p = plugin_find(want[i].name);
		assert_non_null(p);
		assert_string_equal(p->language, want[i].lang);
		assert_string_equal(p->entry, want[i].entry);
		assert_string_equal(p->vm_default, want[i].vm);
		assert_non_null(p->summary);
		assert_non_null(p->records);
		assert_false(p->whole_process);
		/* benchmarks of the bundled suite exist for every language */
		char *f = xasprintf("benchmarks/nbody/%s/%s", p->language, p->entry);
		assert_true(file_exists(f));
		free(f);
	}
}

static void test_argv_order(void **state)
{
	(void)state;
	static const struct { const char *name, *runner; } r[] = {
		{ "python", "/k/plugins/p/runner.py" },
		{ "lua", "/k/plugins/p/runner.lua" },
		{ "luajit", "/k/plugins/p/runner.lua" },
		{ "node", "/k/plugins/p/runner.js" },
		{ "ruby", "/k/plugins/p/runner.rb" },
		{ "jruby", "/k/plugins/p/runner.rb" },
		{ "php", "/k/plugins/p/runner.php" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(r); i++) {
		struct built b;
		build(r[i].name, "/usr/bin/vm", 0, 0, &b);
		assert_int_equal(b.argv.n, 4);
		assert_string_equal(b.argv.v[0], "/usr/bin/vm");
		assert_string_equal(b.argv.v[1], "--vm-arg");
		assert_string_equal(b.argv.v[2], r[i].runner);
		assert_string_equal(b.argv.v[3], "/b/nbody/x/bench.x");
		assert_null(sv_getenv(&b.env, "KILN_INSTRUMENT"));
		release(&b);
	}
	struct built b;
	build("java", "/usr/bin/java", 0, 0, &b);
	assert_int_equal(b.argv.n, 4);
	assert_string_equal(b.argv.v[0], "/usr/bin/java");
	assert_string_equal(b.argv.v[1], "--vm-arg");
	assert_string_equal(b.argv.v[2], "KilnRunner");
	assert_string_equal(b.argv.v[3], "/b/nbody/x");
	/* the plugin's classes, the benchmark's compiled into kiln's build cache, then its folder */
	const char *cp = sv_getenv(&b.env, "CLASSPATH");
	assert_true(!strncmp(cp, "/k/plugins/p:", 13) && strstr(cp, "/build/java/") && str_ends_with(cp, ":/b/nbody/x"));
	release(&b);
}

static void test_instrument(void **state)
{
	(void)state;
	const char *names[] = { "python", "lua", "luajit", "node", "java", "ruby", "jruby", "php" };
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		struct built b;
		build(names[i], "/usr/bin/vm", 1, 0, &b);
		assert_non_null(sv_getenv(&b.env, "KILN_INSTRUMENT"));
		assert_string_equal(sv_getenv(&b.env, "KILN_INSTRUMENT"), "1");
		release(&b);
	}
}

static void test_profile_flags(void **state)
{
	(void)state;
	struct built b;
	build("node", "/usr/bin/node", 0, 1, &b);
	int pb = index_of(&b.argv, "--perf-basic-prof"), pp = index_of(&b.argv, "--perf-prof");
	int fr = index_of(&b.argv, "--interpreted-frames-native-stack"), va = index_of(&b.argv, "--vm-arg");
	assert_true(pb > 0 && pp > 0 && fr > 0);
	assert_true(pb < va && pp < va && fr < va); /* the user's args come after and may override */
	release(&b);

	build("java", "/usr/bin/java", 0, 1, &b);
	int u = index_of(&b.argv, "-XX:+UnlockDiagnosticVMOptions");
	int d = index_of(&b.argv, "-XX:+DumpPerfMapAtExit");
	int f = index_of(&b.argv, "-XX:+PreserveFramePointer");
	assert_true(u > 0 && d > u && f > 0);
	assert_true(index_of(&b.argv, "KilnRunner") > f);
	release(&b);

	/* without profiling none of them */
	build("java", "/usr/bin/java", 0, 0, &b);
	assert_int_equal(index_of(&b.argv, "-XX:+DumpPerfMapAtExit"), -1);
	release(&b);
	build("node", "/usr/bin/node", 0, 0, &b);
	assert_int_equal(index_of(&b.argv, "--perf-prof"), -1);
	release(&b);

	/* python: -X perf only for an interpreter that says it is CPython >= 3.12 */
	char dir[] = "/tmp/kiln-vmplug.XXXXXX";
	assert_non_null(mkdtemp(dir));
	char *yes = xasprintf("%s/py-new", dir), *no = xasprintf("%s/py-old", dir);
	write_script(yes, "#!/bin/sh\necho 1\n");
	write_script(no, "#!/bin/sh\necho 0\n");
	build("python", yes, 0, 1, &b);
	int x = index_of(&b.argv, "-X");
	assert_int_equal(x, 1);
	assert_string_equal(b.argv.v[2], "perf");
	release(&b);
	build("python", no, 0, 1, &b);
	assert_int_equal(index_of(&b.argv, "-X"), -1);
	release(&b);
	build("python", yes, 0, 0, &b);
	assert_int_equal(index_of(&b.argv, "-X"), -1);
	release(&b);
	rm_rf(dir);
	free(yes);
	free(no);
}

/* argv[from..] equals want[] (NULL-terminated) */
static void assert_words(const struct strvec *argv, size_t from, const char *const *want)
{
	for (size_t k = 0; want[k]; k++) {
		assert_true(from + k < argv->n);
		assert_string_equal(argv->v[from + k], want[k]);
	}
}

/* a variant's switches come right after the VM, before profiling switches and the user's args */
static void test_variants_argv(void **state)
{
	(void)state;
	struct built b;
	build_variant("ruby", "/usr/bin/ruby", "yjit", 0, 0, &b);
	assert_words(&b.argv, 0,
		     (const char *const[]){ "/usr/bin/ruby", "--yjit", "--vm-arg", "/k/plugins/p/runner.rb", NULL });
	assert_int_equal(b.argv.n, 5);
	release(&b);
	build_variant("ruby", "/usr/bin/ruby", "interp", 1, 1, &b);
	assert_words(&b.argv, 0, (const char *const[]){ "/usr/bin/ruby", "--disable=yjit,mjit", "--vm-arg", NULL });
	release(&b);

	build_variant("php", "/usr/bin/php", "tracing", 0, 1, &b);
	assert_words(&b.argv, 0,
		     (const char *const[]){ "/usr/bin/php", "-d", "opcache.enable_cli=1", "-d",
					    "opcache.jit_buffer_size=64M", "-d", "opcache.jit=tracing", "-d",
					    "opcache.jit_debug=0x30", "--vm-arg", "/k/plugins/p/runner.php",
					    "/b/nbody/x/bench.x", NULL });
	release(&b);
	build_variant("php", "/usr/bin/php", "function", 0, 0, &b);
	assert_int_equal(index_of(&b.argv, "opcache.jit=function"), 6);
	assert_int_equal(index_of(&b.argv, "opcache.jit_debug=0x30"), -1);
	release(&b);
	build_variant("php", "/usr/bin/php", "jit-off", 0, 0, &b);
	assert_words(&b.argv, 0,
		     (const char *const[]){ "/usr/bin/php", "-d", "opcache.enable_cli=1", "-d", "opcache.jit=disable",
					    "--vm-arg", NULL });
	release(&b);
	build_variant("php", "/usr/bin/php", "interp", 0, 0, &b);
	assert_words(&b.argv, 0, (const char *const[]){ "/usr/bin/php", "-d", "opcache.enable_cli=0", "--vm-arg", NULL });
	release(&b);

	/* jruby: no variants; the JVM's perf-map switches through -J, before the user's args */
	assert_null(plugin_find("jruby")->variants);
	build("jruby", "/usr/bin/jruby", 0, 1, &b);
	assert_words(&b.argv, 0,
		     (const char *const[]){ "/usr/bin/jruby", "-J-XX:+UnlockDiagnosticVMOptions",
					    "-J-XX:+DumpPerfMapAtExit", "-J-XX:+PreserveFramePointer", "--vm-arg",
					    "/k/plugins/p/runner.rb", NULL });
	release(&b);
	build("jruby", "/usr/bin/jruby", 0, 0, &b);
	assert_int_equal(index_of(&b.argv, "-J-XX:+DumpPerfMapAtExit"), -1);
	release(&b);
}

static void test_variant_names(void **state)
{
	(void)state;
	const struct kiln_plugin *rb = plugin_find("ruby"), *php = plugin_find("php");
	struct strbuf sb = STRBUF_INIT;
	plugin_variant_names(rb, &sb);
	assert_string_equal(sb_str(&sb), "interp, yjit");
	sb_reset(&sb);
	plugin_variant_names(php, &sb);
	assert_string_equal(sb_str(&sb), "interp, jit-off, tracing, function");
	sb_reset(&sb);
	plugin_variant_names(plugin_find("node"), &sb);
	assert_string_equal(sb_str(&sb), "");
	sb_release(&sb);
	assert_ptr_equal(plugin_variant_find(rb, "interp"), &rb->variants[0]);
	assert_string_equal(plugin_variant_find(rb, "yjit")->args[0], "--yjit");
	assert_null(plugin_variant_find(rb, "mjit"));
	assert_null(plugin_variant_find(rb, NULL));
	assert_null(plugin_variant_find(plugin_find("node"), "default-js"));
	/* the no-JIT variants need no probe; the JIT ones have one */
	assert_null(rb->variants[0].probe);
	assert_non_null(plugin_variant_find(rb, "yjit")->probe);
	assert_non_null(plugin_variant_find(php, "tracing")->probe);
}

/* the probe runs VM, variant switches, VM args, probe words; its complaint comes back terminal-safe */
static void test_variant_probe(void **state)
{
	(void)state;
	const struct plugin_variant *yjit = plugin_variant_find(plugin_find("ruby"), "yjit");
	const struct plugin_variant *interp = plugin_variant_find(plugin_find("ruby"), "interp");
	char dir[] = "/tmp/kiln-vmprobe.XXXXXX";
	assert_non_null(mkdtemp(dir));
	char *no = xasprintf("%s/no", dir), *yes = xasprintf("%s/yes", dir), *mute = xasprintf("%s/mute", dir);
	write_script(no, "#!/bin/sh\nprintf 'argv: %s\\033[31m\\nsecond line\\n' \"$*\" >&2\nexit 1\n");
	write_script(yes, "#!/bin/sh\nexit 0\n");
	write_script(mute, "#!/bin/sh\nexit 7\n");
	struct strvec args = STRVEC_INIT;
	sv_push(&args, "--user-arg");
	struct strbuf why = STRBUF_INIT;
	assert_int_equal(plugin_variant_probe(yjit, yes, &args, &why), 0);
	assert_string_equal(sb_str(&why), "");
	assert_int_equal(plugin_variant_probe(yjit, no, &args, &why), -1);
	/* the first line only, its escape character made visible */
	assert_true(!strncmp(sb_str(&why), "argv: --yjit --user-arg -e if defined?(RubyVM::YJIT)", 52));
	assert_non_null(strstr(sb_str(&why), "exit 1\\x1b[31m"));
	assert_null(strchr(sb_str(&why), ''));
	assert_null(strstr(sb_str(&why), "second line"));
	sb_reset(&why);
	assert_int_equal(plugin_variant_probe(yjit, mute, NULL, &why), -1);
	assert_string_equal(sb_str(&why), "the probe exited with status 7");
	sb_reset(&why);
	assert_int_equal(plugin_variant_probe(yjit, "/nonexistent/ruby", NULL, &why), -1);
	assert_true(why.len > 0);
	sb_reset(&why);
	/* no probe: nothing is run */
	assert_int_equal(plugin_variant_probe(interp, "/nonexistent/ruby", NULL, &why), 0);
	sb_release(&why);
	sv_clear(&args);
	rm_rf(dir);
	free(no);
	free(yes);
	free(mute);
}

static void test_lua_prepare(void **state)
{
	(void)state;
	const struct kiln_plugin *p = plugin_find("lua");
	struct plugin_ctx c = { .plugin_dir = "/nonexistent/plugins/lua", .bench_dir = "benchmarks/nbody/lua" };
	struct kerr e = KERR_INIT;
	assert_non_null(p->prepare);
	assert_int_equal(p->prepare(&c, &e), -1);
	assert_non_null(strstr(sb_str(&e.msg), "kilnclock.so"));
	kerr_release(&e);
}

static void test_java_prepare(void **state)
{
	(void)state;
	char *javac = find_in_path("javac");
	if (!javac) {
		skip();
		return;
	}
	free(javac);
	char dir[] = "/tmp/kiln-vmplug.XXXXXX";
	assert_non_null(mkdtemp(dir));
	/* a copy of a benchmark folder with no class file */
	struct strbuf src = STRBUF_INIT;
	struct kerr e = KERR_INIT;
	assert_int_equal(read_file("benchmarks/richards/java/Bench.java", &src, &e), 0);
	char *copy = xasprintf("%s/Bench.java", dir);
	assert_int_equal(write_file(copy, src.buf, src.len, &e), 0);
	char *pdir = realpath("plugins/java", NULL);
	assert_non_null(pdir);
	struct plugin_ctx c = { .plugin_dir = pdir, .bench_dir = dir, .vm_path = NULL };
	const struct kiln_plugin *p = plugin_find("java");
	assert_int_equal(p->prepare(&c, &e), 0);
	/* compiled into kiln's build cache (the CLASSPATH's second folder), nothing beside the source */
	char *cls = xasprintf("%s/Bench.class", dir);
	assert_false(file_exists(cls));
	struct strvec argv = STRVEC_INIT, env = STRVEC_INIT;
	c.vm_path = "/usr/bin/java";
	assert_int_equal(p->build(&c, &argv, &env, &e), 0);
	const char *cp = sv_getenv(&env, "CLASSPATH"), *a = strchr(cp, ':'), *b = a ? strchr(a + 1, ':') : NULL;
	assert_non_null(b);
	char *cached = xasprintf("%.*s/Bench.class", (int)(b - a - 1), a + 1);
	assert_true(file_exists(cached));
	free(cached);
	sv_clear(&argv);
	sv_clear(&env);

	/* a broken source is a clear error naming the file */
	const char *bad = "public final class Bench implements KilnBenchmark { oops }\n";
	assert_int_equal(write_file(copy, bad, strlen(bad), &e), 0);
	unlink(cls);
	assert_int_equal(p->prepare(&c, &e), -1);
	assert_non_null(strstr(sb_str(&e.msg), "Bench.java"));
	kerr_release(&e);
	rm_rf(dir);
	free(cls);
	free(copy);
	free(pdir);
	sb_release(&src);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_argv_order),
		cmocka_unit_test(test_instrument),
		cmocka_unit_test(test_profile_flags),
		cmocka_unit_test(test_variants_argv),
		cmocka_unit_test(test_variant_names),
		cmocka_unit_test(test_variant_probe),
		cmocka_unit_test(test_lua_prepare),
		cmocka_unit_test(test_java_prepare),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
