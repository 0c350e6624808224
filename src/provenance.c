/*
 * provenance.c - a key's program written down and hashed (see
 * provenance.h), and how two descriptions differ.
 */
#include "provenance.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "exec.h"
#include "pexec.h"
#include "idcache.h"
#include "plugin.h"
#include "secret.h"

#define MAX_FILES 2000   /* per folder: past it the rest is counted, not hashed */
#define MAX_DEPTH 4
#define SHOW_MAX 120     /* characters of a value shown by prov_diff */

/*
 * s made one visible line, without ambiguity: ESC_TERM writes a tab, a
 * newline or a byte that is not UTF-8 as \t, \n, \xNN and keeps a
 * backslash as it is, so a value's own backslashes are doubled first (a
 * tab and the two characters \t would otherwise be one program)
 */
static void add_visible(struct strbuf *sb, const char *s)
{
	struct strbuf d = STRBUF_INIT;
	for (const char *p = s; *p; p++) {
		if (*p == '\\')
			sb_addc(&d, '\\');
		sb_addc(&d, *p);
	}
	esc_add(sb, ESC_TERM, sb_str(&d));
	sb_release(&d);
}

/* one "name<TAB>value" line; the value made one visible line */
static void add(struct strvec *lines, const char *name, const char *value)
{
	struct strbuf sb = STRBUF_INIT;
	add_visible(&sb, name);
	sb_addc(&sb, '\t');
	add_visible(&sb, value ? value : "");
	sv_push(lines, sb.buf);
	sb_release(&sb);
}

/* a file's line: "sha256:HEX", or why it could not be hashed (r < 0); e released */
static void add_hash(struct strvec *lines, const char *name, int r, const char *sha, struct kerr *e)
{
	char *v = r == 0 ? xasprintf("sha256:%s", sha) : xstrdup(sb_str(&e->msg));
	add(lines, name, v);
	free(v);
	kerr_release(e);
}

/* bytecode caches (derived from the sources beside them) and hidden files */
static int skipped(const char *name)
{
	return name[0] == '.' || !strcmp(name, "__pycache__") || str_ends_with(name, ".pyc");
}

/* kiln's side of a plugin's folder (its table entry, parsers, headers): not what the runner runs */
static int kiln_side(const char *name)
{
	return !strcmp(name, "plugin.c") || !strncmp(name, "parse", 5) || str_ends_with(name, ".h");
}

struct walk {
	struct strvec *lines;
	const char *prefix;  /* "bench.file" */
	int plugin;          /* the plugin's folder: kiln's side skipped */
	size_t files, over;
};

static void walk_dir(struct walk *w, int dfd, const char *dirname, const char *rel, int depth);

/* one entry of a folder: a file's hash, a folder's contents, anything else by its kind */
static void walk_entry(struct walk *w, int dfd, const char *dirname, const char *name, const char *rel, int depth)
{
	struct stat st;
	char *r = *rel ? xasprintf("%s/%s", rel, name) : xstrdup(name);
	char *line = xasprintf("%s %s", w->prefix, r);
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		add(w->lines, line, strerror(errno));
	} else if (S_ISDIR(st.st_mode) && depth < MAX_DEPTH) {
		int sub = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub >= 0) {
			char *subname = path_join(dirname, name);
			walk_dir(w, sub, subname, r, depth + 1);
			free(subname);
			close(sub);
		}
	} else if (S_ISREG(st.st_mode) && w->files++ < MAX_FILES) {
		char sha[65];
		struct kerr e = KERR_INIT;
		add_hash(w->lines, line, idc_sha256_at(dfd, dirname, name, sha, &e), sha, &e);
	} else if (S_ISLNK(st.st_mode)) {
		char target[4096];
		ssize_t n = readlinkat(dfd, name, target, sizeof(target) - 1);
		target[n > 0 ? n : 0] = '\0';
		char *v = xasprintf("link to %s", target);
		add(w->lines, line, v);
		free(v);
	} else if (S_ISREG(st.st_mode)) {
		w->over++;
	}
	free(line);
	free(r);
}

static void walk_dir(struct walk *w, int dfd, const char *dirname, const char *rel, int depth)
{
	int fd = dup(dfd);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	struct strvec names = STRVEC_INIT;
	struct dirent *de;
	while ((de = readdir(d)))
		if (!skipped(de->d_name) && !(w->plugin && kiln_side(de->d_name)))
			sv_push(&names, de->d_name);
	closedir(d);
	if (names.n)
		sv_sort(&names);
	for (size_t i = 0; i < names.n; i++)
		walk_entry(w, dfd, dirname, names.v[i], rel, depth);
	sv_clear(&names);
}

/* every file below dir, as PREFIX REL<TAB>sha256:... lines */
static void hash_folder(struct strvec *lines, const char *prefix, const char *dir, int plugin)
{
	struct walk w = { lines, prefix, plugin, 0, 0 };
	int dfd = dir ? open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1;
	if (dfd < 0)
		return;
	walk_dir(&w, dfd, dir, "", 0);
	close(dfd);
	if (w.over) {
		char n[64];
		snprintf(n, sizeof(n), "%zu more files, not hashed (over %d)", w.over, MAX_FILES);
		add(lines, prefix, n);
	}
}

static int under(const char *path, const char *dir)
{
	size_t n = dir ? strlen(dir) : 0;
	return n && !strncmp(path, dir, n) && path[n] == '/';
}

/* argv as JSON, and each file it names outside the folders hashed whole (a relative one in `cwd`, where it starts) */
static void describe_argv(struct strvec *lines, const struct pexec_key *k, const struct strvec *argv, const char *cwd)
{
	json_t *a = json_array();
	for (size_t i = 0; i < argv->n; i++)
		json_array_append_new(a, json_string(esc(ESC_JSON, argv->v[i])));
	char *txt = json_dumps(a, JSON_COMPACT);
	add(lines, "argv", txt);
	free(txt);
	json_decref(a);
	const char *vm = k->pc.vm_path;
	for (size_t i = 0; i < argv->n; i++) {
		const char *w = argv->v[i];
		struct stat st;
		if (!*w || (w[0] != '/' && !cwd))
			continue;
		char *path = w[0] == '/' ? xstrdup(w) : path_join(cwd, w);
		if ((vm && !strcmp(path, vm)) || under(path, k->bench_dir) || under(path, k->plugin_dir) ||
		    stat(path, &st) < 0 || !S_ISREG(st.st_mode)) {
			free(path);
			continue;
		}
		char sha[65], *name = xasprintf("file %s", w);
		struct kerr e = KERR_INIT;
		add_hash(lines, name, idc_sha256(path, sha, &e), sha, &e);
		free(name);
		free(path);
	}
}

/* a string member of o as the line `name`, when there is one */
static void add_member(struct strvec *lines, const char *name, const json_t *o, const char *member)
{
	const char *s = json_string_value(json_object_get(o, member));
	if (s)
		add(lines, name, s);
}

/* what vmid learned of the VM (its --version's credentials already hidden) */
static void describe_vm(struct strvec *lines, const json_t *vm)
{
	add_member(lines, "vm.real", vm, "real");
	add_member(lines, "vm.sha256", vm, "sha256");
	const json_t *pkg = json_object_get(vm, "package");
	if (json_is_object(pkg)) {
		char *v = xasprintf("%s %s", json_string_value(json_object_get(pkg, "name")) ?: "?",
				    json_string_value(json_object_get(pkg, "version")) ?: "?");
		add(lines, "vm.package", v);
		free(v);
	}
	size_t i;
	const json_t *l;
	json_array_foreach(json_object_get(vm, "libs"), i, l) {
		char *name = xasprintf("vm.lib %s", json_string_value(json_object_get(l, "path")) ?: "?");
		const char *p = json_string_value(json_object_get(l, "package"));
		const char *sha = json_string_value(json_object_get(l, "sha256"));
		char *v = p ? xasprintf("%s %s", p, json_string_value(json_object_get(l, "version")) ?: "?")
			  : xasprintf("sha256:%s", sha ? sha : "unknown");
		add(lines, name, v);
		free(v);
		free(name);
	}
	add_member(lines, "vm.version", vm, "version");
	add_member(lines, "vm.error", vm, "error");
}

/* the plugin's own "name value" lines */
static void describe_build(struct strvec *lines, const struct pexec_key *k)
{
	const struct kiln_plugin *pl = k->pc.vm->pl;
	struct strvec b = STRVEC_INIT;
	if (pl && pl->describe)
		pl->describe(&k->pc, &b);
	for (size_t i = 0; i < b.n; i++) {
		char *sp = strchr(b.v[i], ' ');
		if (sp)
			*sp = '\0';
		add(lines, b.v[i], sp ? sp + 1 : "");
	}
	sv_clear(&b);
}

/* is the variable part of the setting, not of the program? (libkiln is, by content, with counters) */
static int setting_var(const struct vm_conf *vm, const char *name, size_t n)
{
	static const char *const names[] = { "HOME", "USER", "KILN_LIBKILN" };
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (strlen(names[i]) == n && !strncmp(name, names[i], n))
			return 1;
	if (n != 4 || strncmp(name, "PATH", 4))
		return 0;
	/* a PATH the VM's env sets is the config's: part of the program */
	for (size_t i = 0; i < vm->env.n; i++)
		if (!strncmp(vm->env.v[i], "PATH=", 5))
			return 0;
	return 1;
}

static void describe_env(struct strvec *prog, struct strvec *set, const struct pexec_key *k, const struct strvec *env)
{
	for (size_t i = 0; i < env->n; i++) {
		const char *eq = strchr(env->v[i], '=');
		if (!eq)
			continue;
		size_t n = (size_t)(eq - env->v[i]);
		char *name = xasprintf("env %.*s", (int)n, env->v[i]);
		struct strbuf v = STRBUF_INIT;
		secret_mask_var(&v, env->v[i]);
		add(setting_var(k->pc.vm, env->v[i], n) ? set : prog, name, v.buf + n + 1);
		sb_release(&v);
		free(name);
	}
	/* runners load libkiln (FFI) for KILN_COUNTERS only */
	const char *lk = sv_getenv(env, "KILN_LIBKILN");
	char sha[65];
	if (lk && sv_getenv(env, "KILN_COUNTERS") && idc_sha256(lk, sha, NULL) == 0) {
		char *v = xasprintf("sha256:%s", sha);
		add(prog, "libkiln", v);
		free(v);
	}
}

static void describe_limits(struct strvec *prog, struct strvec *set, const struct exec_opts *eo)
{
	char nice[16] = "-";
	if (eo->set_nice)
		snprintf(nice, sizeof(nice), "%d", eo->nice);
	char *v = xasprintf("as_mb=%ld stack_mb=%ld aslr=%d cpus=%s nice=%s", eo->rlimit_as_mb, eo->rlimit_stack_mb,
			    eo->aslr, eo->cpus ? eo->cpus : "-", nice);
	add(prog, "limits", v);
	free(v);
	if (eo->set_user) {
		v = xasprintf("%ld:%ld", (long)eo->uid, (long)eo->gid);
		add(set, "user", v);
		free(v);
	}
}

static void join_sorted(struct strvec *lines, struct strbuf *out)
{
	if (lines->n)
		sv_sort(lines);
	for (size_t i = 0; i < lines->n; i++)
		sb_addf(out, "%s\n", lines->v[i]);
	if (!out->buf)
		sb_adds(out, "");
}

void prov_describe(struct prov *pv, const struct pexec_key *k, const struct strvec *argv, const struct strvec *env,
		   const struct exec_opts *eo, const json_t *vm, const json_t *probe)
{
	struct strvec prog = STRVEC_INIT, set = STRVEC_INIT;
	const struct vm_conf *vmc = k->pc.vm;
	add(&prog, "plugin", vmc->pl ? vmc->pl->name : vmc->plugin ? vmc->plugin : "external");
	/* where it starts: a relative path in its argv (an input file, a harness) is read there */
	const char *cwd = config_cwd(vmc, k->pc.bench);
	if (cwd)
		add(&prog, "cwd", cwd);
	describe_argv(&prog, k, argv, eo->cwd);
	if (vm)
		describe_vm(&prog, vm);
	add_member(&prog, "probe.version", probe, "version");
	add_member(&prog, "probe.executable", probe, "executable");
	hash_folder(&prog, "bench.file", k->bench_dir, 0);
	hash_folder(&prog, "plugin.file", k->plugin_dir, 1);
	describe_build(&prog, k);
	describe_env(&prog, &set, k, env);
	describe_limits(&prog, &set, eo);
	join_sorted(&prog, &pv->program);
	join_sorted(&set, &pv->setting);
	hash_hex(pv->program.buf, pv->program.len, pv->hash);
	sv_clear(&prog);
	sv_clear(&set);
}

void prov_release(struct prov *pv)
{
	sb_release(&pv->program);
	sb_release(&pv->setting);
	pv->hash[0] = '\0';
}

/* the value of line `name` in text, NULL when absent (a pointer into text, up to the newline) */
static const char *find_value(const char *text, const char *name, size_t nl, size_t *vl)
{
	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		if (!strncmp(l, name, nl) && l[nl] == '\t') {
			*vl = strcspn(l + nl + 1, "\n");
			return l + nl + 1;
		}
	}
	return NULL;
}

/* does text hold this very line (n bytes, without its newline)? */
static int has_line(const char *text, const char *line, size_t n)
{
	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
		if (!strncmp(l, line, n) && (l[n] == '\n' || !l[n]))
			return 1;
	return 0;
}

static void shown(struct strbuf *sb, const char *v, size_t n)
{
	if (n > SHOW_MAX)
		sb_addf(sb, "%.*s...", SHOW_MAX - 3, v);
	else
		sb_add(sb, v, n);
}

/*
 * "A -> B": long values by the part where they differ (with a little
 * context), so that a PATH with one folder more shows that folder
 */
static void shown_change(struct strbuf *sb, const char *a, size_t al, const char *b, size_t bl)
{
	size_t pre = 0, suf = 0;
	if (al <= SHOW_MAX && bl <= SHOW_MAX) {
		sb_add(sb, a, al);
		sb_adds(sb, " -> ");
		sb_add(sb, b, bl);
		return;
	}
	while (pre < al && pre < bl && a[pre] == b[pre])
		pre++;
	while (suf < al - pre && suf < bl - pre && a[al - 1 - suf] == b[bl - 1 - suf])
		suf++;
	size_t from = pre > 20 ? pre - 20 : 0, tail = suf > 20 ? suf - 20 : 0;
	const char *v[2] = { a, b };
	size_t l[2] = { al, bl };
	for (int i = 0; i < 2; i++) {
		sb_adds(sb, i ? " -> " : "");
		sb_adds(sb, from ? "..." : "");
		shown(sb, v[i] + from, l[i] - from - tail);
		sb_adds(sb, tail ? "..." : "");
	}
}

/* names of a that b lacks or holds with another value; with added_only, only those b lacks */
static size_t diff_one_way(const char *a, const char *b, int added_only, size_t max, struct strvec *out,
			   size_t *extra)
{
	size_t n = 0;
	for (const char *l = a; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		size_t nl = strcspn(l, "\t\n"), al = 0, bl = 0;
		if (l[nl] != '\t')
			continue;
		const char *av = l + nl + 1;
		al = strcspn(av, "\n");
		const char *bv = find_value(b, l, nl, &bl);
		if (bv && (added_only || has_line(b, l, nl + 1 + al)))
			continue;
		n++;
		if (out->n >= max) {
			(*extra)++;
			continue;
		}
		struct strbuf sb = STRBUF_INIT;
		sb_addf(&sb, "%.*s: ", (int)nl, l);
		if (added_only) {
			sb_adds(&sb, "added ");
			shown(&sb, av, al);
		} else if (!bv) {
			sb_adds(&sb, "removed ");
			shown(&sb, av, al);
		} else {
			shown_change(&sb, av, al, bv, bl);
		}
		sv_push(out, sb.buf);
		sb_release(&sb);
	}
	return n;
}

size_t prov_diff(const char *a, const char *b, size_t max, struct strvec *out)
{
	size_t extra = 0;
	struct strvec mine = STRVEC_INIT;
	size_t n = diff_one_way(a ? a : "", b ? b : "", 0, max, &mine, &extra);
	n += diff_one_way(b ? b : "", a ? a : "", 1, max, &mine, &extra);
	for (size_t i = 0; i < mine.n; i++)
		sv_push(out, mine.v[i]);
	if (extra)
		sv_pushf(out, "... and %zu more", extra);
	sv_clear(&mine);
	return n;
}
