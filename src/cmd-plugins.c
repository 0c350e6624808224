/*
 * cmd-plugins.c - `kiln plugins [CONFIG]`: the built-in plugins (and, with
 * a config, its external ones), what each runs and records, and whether its
 * default VM is on this machine.
 */
#include <getopt.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "config.h"
#include "plugin.h"

static int cmd_plugins(int argc, char **argv);

const struct cmd_entry cmd_plugins_entry = {
	.name = "plugins",
	.usage = "[CONFIG] [--json]",
	.summary = "list the plugins: what each runs, records, and whether its VM is here",
	.help = "  CONFIG   also list the config's external plugins\n"
		"  --json   machine-readable output\n",
	.exec = cmd_plugins,
};

/*
 * A plugin's variants, each probed with the default VM when it is here, so
 * that `kiln plugins` says whether this machine's ruby has YJIT, its php
 * opcache and the JIT.  avail: 1 runs, 0 does not (why), -1 not probed.
 */
static int variant_avail(const struct plugin_variant *v, const char *vm, struct strbuf *why)
{
	if (!vm)
		return -1;
	return plugin_variant_probe(v, vm, NULL, why) == 0;
}

static json_t *variants_json(const struct kiln_plugin *p, const char *vm)
{
	json_t *arr = json_array();
	for (size_t i = 0; p->variants[i].name; i++) {
		const struct plugin_variant *v = &p->variants[i];
		struct strbuf why = STRBUF_INIT;
		int a = variant_avail(v, vm, &why);
		json_t *args = json_array();
		for (size_t k = 0; v->args && v->args[k]; k++)
			json_array_append_new(args, json_string(v->args[k]));
		json_t *o = json_object();
		json_object_set_new(o, "name", json_string(v->name));
		json_object_set_new(o, "default", json_boolean(i == 0));
		json_object_set_new(o, "summary", json_string(v->summary));
		json_object_set_new(o, "args", args);
		json_object_set_new(o, "available", a < 0 ? json_null() : json_boolean(a));
		json_object_set_new(o, "why", a == 0 ? json_string(sb_str(&why)) : json_null());
		json_array_append_new(arr, o);
		sb_release(&why);
	}
	return arr;
}

static void variants_text(const struct kiln_plugin *p, const char *vm)
{
	for (size_t i = 0; p->variants[i].name; i++) {
		const struct plugin_variant *v = &p->variants[i];
		struct strbuf why = STRBUF_INIT;
		int a = variant_avail(v, vm, &why);
		printf("          %s %s%s: %s", i ? "         " : "variants:", v->name, i ? "" : " (default)", v->summary);
		if (a == 1)
			printf(" - runs here\n");
		else if (a == 0)
			printf(" - CANNOT RUN with %s: %s\n", esc(ESC_TERM, vm), esc(ESC_TERM, sb_str(&why)));
		else
			printf("\n");
		sb_release(&why);
	}
}

static int cmd_plugins(int argc, char **argv)
{
	if (cmd_wants_help(&cmd_plugins_entry, argc, argv))
		return 0;
	static const struct option opts[] = { { "json", no_argument, NULL, 'j' }, { NULL, 0, NULL, 0 } };
	int json = 0, c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c == 'j')
			json = 1;
		else
			return cmd_usage_error(&cmd_plugins_entry, "unknown option");
	}
	struct experiment ex;
	memset(&ex, 0, sizeof(ex));
	struct kerr e = KERR_INIT;
	if (optind < argc && config_load(argv[optind], kiln_datadir(), 0, &ex, &e) < 0) {
		kerr_print(&e);
		kerr_release(&e);
		return KEXIT_CONFIG;
	}
	json_t *arr = json_array();
	int col = kiln_color(stdout);
	for (size_t i = 0; kiln_plugins[i]; i++) {
		const struct kiln_plugin *p = kiln_plugins[i];
		char *found = p->vm_default ? find_in_path(p->vm_default) : NULL;
		if (json) {
			json_t *o = json_object();
			json_object_set_new(o, "name", json_string(p->name));
			json_object_set_new(o, "language", json_string(p->language));
			json_object_set_new(o, "entry", p->entry ? json_string(p->entry) : json_null());
			json_object_set_new(o, "vm", p->vm_default ? json_string(p->vm_default) : json_null());
			json_object_set_new(o, "vm_found", found ? json_string(found) : json_null());
			json_object_set_new(o, "runner", json_boolean(p->build != NULL));
			json_object_set_new(o, "parser", json_boolean(p->parse != NULL));
			json_object_set_new(o, "summary", json_string(p->summary));
			json_object_set_new(o, "records", json_string(p->records ? p->records : ""));
			if (p->variants)
				json_object_set_new(o, "variants", variants_json(p, found));
			json_array_append_new(arr, o);
		} else {
			printf("%s%-9s%s %s\n", col ? "\033[1m" : "", p->name, col ? "\033[0m" : "", p->summary);
			if (p->build) {
				if (p->entry)
					printf("          runs benchmarks/<name>/%s/%s", p->language, p->entry);
				else
					printf("          runs the VM's path with the benchmark's args");
				if (p->vm_default)
					printf(" with %s (%s)", p->vm_default, found ? esc(ESC_TERM, found) : "not found here");
				printf("\n");
			}
			if (p->variants)
				variants_text(p, found);
			printf("          records: %s\n", p->records ? p->records : "-");
		}
		free(found);
	}
	for (size_t i = 0; i < ex.nvms; i++) {
		const struct vm_conf *vm = &ex.vms[i];
		if (vm->pl)
			continue;
		if (json) {
			json_t *o = json_object();
			json_object_set_new(o, "name", json_string(vm->name));
			json_object_set_new(o, "external", json_true());
			json_object_set_new(o, "language", json_string(vm->language ? vm->language : ""));
			json_object_set_new(o, "parser", json_boolean(vm->parser.n > 0));
			json_array_append_new(arr, o);
		} else {
			printf("%-9s external (%s): runner %s%s\n", esc(ESC_TERM, vm->name), esc(ESC_TERM, ex.path),
			       vm->runner.n ? esc(ESC_TERM, vm->runner.v[0]) : "?",
			       vm->parser.n ? ", with a parser command" : "");
		}
	}
	if (json) {
		char *s = json_dumps(arr, JSON_INDENT(2));
		puts(s);
		free(s);
	}
	json_decref(arr);
	if (ex.path)
		config_free(&ex);
	kerr_release(&e);
	return 0;
}
