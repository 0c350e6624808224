/*
 * config-grow.c - may a stored experiment's config change as it did?  An
 * experiment grows (more pexecs, more benchmarks or VMs) without a new
 * results file only when the rest of its config is the same
 * (config_grows), and a key none of whose pexecs ran may change while
 * those that ran may not (config_keeps_keys).  Both compare the configs'
 * texts as YAML, aliases resolved (config-yaml.c), without the keys that
 * may change.
 */
#include "config.h"
#include "config-int.h"

#include <stdlib.h>
#include <string.h>

#include "secret.h"

/*
 * The config text as YAML, its aliases resolved (within the bounds of a
 * config), without the top-level keys `drop` (and x-* ones with drop_x),
 * emitted on one line: what must not change (for an experiment to grow,
 * or for keys none of whose pexecs ran to change).  NULL: it does not parse.
 */
static char *config_core_without(const char *text, const char *const *drop, size_t ndrop, int drop_x)
{
	struct kerr e = KERR_INIT;
	size_t len = strlen(text);
	char *core = NULL;
	if (config_check_text("config", text, len, &e) < 0) {
		kerr_release(&e);
		return NULL;
	}
	struct fy_diag *d = NULL;
	struct fy_document *doc = config_load_yaml("config", text, len, &d, &e);
	if (doc && fy_node_is_mapping(fy_document_root(doc))) {
		struct fy_node *root = fy_document_root(doc);
		for (size_t i = 0; i < ndrop; i++) {
			struct fy_node_pair *pr = fy_node_mapping_lookup_pair_by_string(root, drop[i], FY_NT);
			if (pr) /* the pair goes with its key; the value is ours to free */
				fy_node_free(fy_node_mapping_remove_by_key(root, fy_node_pair_key(pr)));
		}
		for (int again = drop_x; again;) {
			void *it = NULL;
			struct fy_node_pair *pr;
			again = 0;
			while ((pr = fy_node_mapping_iterate(root, &it))) {
				const char *k = fy_node_get_scalar0(fy_node_pair_key(pr));
				if (k && !strncmp(k, "x-", 2)) {
					fy_node_free(fy_node_mapping_remove_by_key(root, fy_node_pair_key(pr)));
					again = 1;
					break;
				}
			}
		}
		core = fy_emit_document_to_string(doc, FYECF_MODE_FLOW_ONELINE);
	}
	if (doc)
		fy_document_destroy(doc);
	if (d)
		config_diag_release(d);
	kerr_release(&e);
	return core;
}

/* a benchmark as its keys run it: the same text for the same benchmark */
static void bench_canon(const struct bench_conf *b, struct strbuf *sb)
{
	const struct strvec *lists[] = { &b->vms, &b->args, &b->build, &b->setup, &b->prepare, &b->cleanup, &b->vars };
	sb_addf(sb, "%s\n%s\n%s\n%ld\n%s\n", config_bench_source(b), b->param ? b->param : "", b->suite ? b->suite : "",
		b->iterations, b->cwd ? b->cwd : "");
	for (size_t i = 0; i < ARRAY_SIZE(lists); i++) {
		for (size_t j = 0; j < lists[i]->n; j++)
			sb_addf(sb, "%s\x1f", lists[i]->v[j]);
		sb_addc(sb, '\n');
	}
}

/*
 * The stored config, parsed into *old, when its text and ex's are the same
 * but for the top-level keys `drop` (and x-* with drop_x): 1; else 0, why
 * says what (`what` differed, or the stored config does not read).
 */
static int same_but(const struct experiment *ex, const char *old_text, const char *datadir, const char *const *drop,
		    size_t ndrop, int drop_x, const char *what, struct experiment *old, struct strbuf *why)
{
	struct strbuf now = STRBUF_INIT;
	secret_mask(&now, ex->text);
	char *a = config_core_without(old_text, drop, ndrop, drop_x), *b = config_core_without(now.buf, drop, ndrop, drop_x);
	int r = a && b && !strcmp(a, b);
	if (!r)
		sb_adds(why, what);
	free(a);
	free(b);
	sb_release(&now);
	struct kerr e = KERR_INIT;
	if (r && config_parse(ex->path, old_text, strlen(old_text), datadir, 0, old, &e) < 0) {
		sb_addf(why, "the stored config does not read: %s", sb_str(&e.msg));
		r = 0;
	}
	kerr_release(&e);
	return r;
}

int config_grows(const struct experiment *ex, const char *old_text, const char *datadir, struct strbuf *why)
{
	static const char *const grow[] = { "pexecs", "benchmarks", "suites" };
	struct experiment old;
	int r = same_but(ex, old_text, datadir, grow, ARRAY_SIZE(grow), 0,
			 "settings other than pexecs, benchmarks and suites changed", &old, why);
	if (r) {
		if (ex->pexecs < old.pexecs)
			r = 0, sb_addf(why, "pexecs went down from %ld to %ld", old.pexecs, ex->pexecs);
		for (size_t i = 0; r && i < old.nbenchs; i++) {
			const struct bench_conf *n = NULL;
			for (size_t j = 0; j < ex->nbenchs && !n; j++)
				if (!strcmp(ex->benchs[j].name, old.benchs[i].name))
					n = &ex->benchs[j];
			struct strbuf x = STRBUF_INIT, y = STRBUF_INIT;
			bench_canon(&old.benchs[i], &x);
			if (n)
				bench_canon(n, &y);
			if (!n || strcmp(x.buf, y.buf))
				r = 0, sb_addf(why, "benchmark %s was %s", old.benchs[i].name, n ? "changed" : "removed");
			sb_release(&x);
			sb_release(&y);
		}
		config_free(&old);
	}
	return r;
}

/* what defines a key of ex as it runs, in text: its VM's settings, its benchmark's and the counts */
static void key_text(const struct experiment *ex, const struct vm_conf *vm, const struct bench_conf *b, struct strbuf *sb)
{
	const struct strvec *lists[] = { &vm->args, &vm->env, &vm->pass_env, &vm->runner, &vm->parser, &vm->build,
					 &vm->setup, &vm->prepare, &vm->cleanup };
	sb_addf(sb, "%s\n%s\n%s\n%s\n%s\n%s\n%s\n%d %d %d %ld %ld %ld\n", vm->plugin ? vm->plugin : "",
		vm->path ? vm->path : "", vm->variant ? vm->variant : "", vm->language ? vm->language : "",
		vm->entry ? vm->entry : "", vm->stats_from ? vm->stats_from : "", vm->cwd ? vm->cwd : "", vm->instrument,
		vm->keep_log, vm->ignore_exit, config_iterations(ex, vm, b), ex->warmup_iterations, ex->warmup_pexecs);
	for (size_t i = 0; i < ARRAY_SIZE(lists); i++) {
		for (size_t j = 0; j < lists[i]->n; j++)
			sb_addf(sb, "%s\x1f", lists[i]->v[j]);
		sb_addc(sb, '\n');
	}
	const struct gauge_conf *g = config_gauge(vm, b);
	if (g)
		gauge_describe(g, sb);
	sb_addf(sb, "\n%d %s\n", config_krun_layout(ex, b), ex->benchmarks_dir ? ex->benchmarks_dir : "");
	/* the benchmark as bench_canon has it, but for the suite and its VMs (which say only whether the key runs) */
	struct bench_conf bare = *b;
	bare.vms = (struct strvec)STRVEC_INIT;
	bare.suite = NULL;
	bench_canon(&bare, sb);
}

static const struct vm_conf *vm_named(const struct experiment *ex, const char *name, const char *variant)
{
	for (size_t i = 0; i < ex->nvms; i++)
		if (!strcmp(ex->vms[i].name, name) && !strcmp(ex->vms[i].variant, variant))
			return &ex->vms[i];
	return NULL;
}

int config_keeps_keys(const struct experiment *ex, const char *old_text, const char *datadir, const struct strvec *ran,
		      struct strbuf *why)
{
	static const char *const keyed[] = { "pexecs", "benchmarks", "suites", "vms", "skip", "name" };
	struct experiment old;
	int r = same_but(ex, old_text, datadir, keyed, ARRAY_SIZE(keyed), 1,
			 "settings of every key (other than vms, benchmarks, suites, skip, pexecs and name) changed", &old, why);
	if (r) {
		if (ran->n && ex->pexecs < old.pexecs)
			r = 0, sb_addf(why, "pexecs went down from %ld to %ld", old.pexecs, ex->pexecs);
		for (size_t i = 0; r && i < ran->n; i++) {
			char *k = xstrdup(ran->v[i]), *c1 = strchr(k, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
			if (!c2) {
				free(k);
				continue;
			}
			*c1 = *c2 = '\0';
			const struct vm_conf *ov = vm_named(&old, c1 + 1, c2 + 1), *nv = vm_named(ex, c1 + 1, c2 + 1);
			const struct bench_conf *ob = config_bench_named(&old, k), *nb = config_bench_named(ex, k);
			struct strbuf x = STRBUF_INIT, y = STRBUF_INIT;
			if (ov && ob)
				key_text(&old, ov, ob, &x);
			if (nv && nb && config_runs(ex, nb, nv))
				key_text(ex, nv, nb, &y);
			if (!y.len)
				r = 0, sb_addf(why, "key %s, whose pexecs ran, is no longer planned", ran->v[i]);
			else if (strcmp(x.buf ? x.buf : "", y.buf))
				r = 0, sb_addf(why, "key %s, whose pexecs ran, changed", ran->v[i]);
			sb_release(&x);
			sb_release(&y);
			free(k);
		}
		config_free(&old);
	}
	return r;
}

