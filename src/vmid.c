/*
 * vmid.c - a VM executable's identity: file, packages, libraries, version
 * (see vmid.h), learned once per identity and cached.
 */
#include "vmid.h"
#include "vmid-int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exec.h"
#include "idcache.h"
#include "secret.h"

#define MAX_LIBS 256
#define VERSION_MAX 4096

/* run argv as the probe says (pr NULL: as kiln, with PATH alone); stdout and stderr in *out */
static int probe_run(const struct vmid_probe *pr, char *const argv[], struct strbuf *out, struct strbuf *err,
		     int *status)
{
	static char *plain_env[] = { "PATH=/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL=C", NULL };
	struct exec_opts o;
	exec_opts_plain(&o, (char **)argv, pr ? pr->envp : plain_env, 20);
	o.cwd = pr ? pr->cwd : NULL;
	o.capture_bytes = 64 * 1024;
	if (pr && pr->set_user) {
		o.set_user = 1;
		o.uid = pr->uid;
		o.gid = pr->gid;
	}
	if (pr && pr->bounds) {
		o.join_ns = pr->bounds->join_ns;
		o.rlimit_nproc = pr->bounds->rlimit_nproc;
		o.rlimit_fsize_mb = pr->bounds->rlimit_fsize_mb;
		o.set_oom = pr->bounds->set_oom;
		o.oom_score_adj = pr->bounds->oom_score_adj;
	}
	struct exec_result r = { 0 };
	struct kerr e = KERR_INIT;
	int rc = exec_run(&o, &r, &e);
	if (rc == 0 && !r.spawn_errno) {
		sb_adds(out, sb_str(&r.out));
		if (err)
			sb_adds(err, sb_str(&r.err));
		else
			sb_adds(out, sb_str(&r.err));
		*status = r.exited ? r.status : 128 + r.signal;
	} else {
		rc = -1;
	}
	exec_result_release(&r);
	kerr_release(&e);
	return rc;
}

static void trim(struct strbuf *sb)
{
	while (sb->len && strchr("\n\r\t ", sb->buf[sb->len - 1]))
		sb->buf[--sb->len] = '\0';
}

/* does the file start with #!? */
static int is_script(const char *real)
{
	char two[2] = { 0 };
	int fd = open(real, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	ssize_t n = fd < 0 ? -1 : read(fd, two, 2);
	if (fd >= 0)
		close(fd);
	return n == 2 && two[0] == '#' && two[1] == '!';
}

/* EXE FLAG, as the benchmark would run it: its first VERSION_MAX bytes, credentials hidden */
static void probe_version(json_t *o, const char *exe, const char *flag, const struct vmid_probe *pr)
{
	char *argv[] = { (char *)exe, (char *)flag, NULL };
	struct strbuf out = STRBUF_INIT, masked = STRBUF_INIT;
	int st = -1;
	if (probe_run(pr, argv, &out, NULL, &st) == 0) {
		trim(&out);
		if (out.len > VERSION_MAX)
			out.buf[out.len = VERSION_MAX] = '\0';
		secret_mask(&masked, sb_str(&out));
		json_object_set_new(o, "version", json_string(esc(ESC_JSON, masked.buf)));
	} else {
		json_object_set_new(o, "version", json_null());
	}
	json_object_set_new(o, "version_status", json_integer(st));
	sb_release(&out);
	sb_release(&masked);
}

/* the libraries `ldd` names (absolute paths), run as the benchmark user with its environment */
static void list_libs(const char *real, const struct vmid_probe *pr, struct strvec *libs)
{
	char *ldd = find_in_path("ldd");
	if (!ldd)
		return;
	char *argv[] = { ldd, (char *)real, NULL };
	struct strbuf out = STRBUF_INIT;
	int st = -1;
	if (probe_run(pr, argv, &out, NULL, &st) == 0 && st == 0) {
		char *save = NULL;
		for (char *l = strtok_r(out.buf, "\n", &save); l && libs->n < MAX_LIBS; l = strtok_r(NULL, "\n", &save)) {
			/* "\tlibz.so.1 => /lib/.../libz.so.1 (0x...)" or "\t/lib64/ld-linux-x86-64.so.2 (0x...)" */
			char *arrow = strstr(l, "=> ");
			char *p = arrow ? arrow + 3 : l + strspn(l, " \t");
			if (*p != '/')
				continue;
			p[strcspn(p, " \t(")] = '\0';
			sv_push(libs, p);
		}
	}
	sb_release(&out);
	free(ldd);
}

/* "pkg[:arch][, pkg2]: /path" lines of dpkg-query -S: the first package of each path */
static void parse_owners(char *text, json_t *owner)
{
	char *save = NULL;
	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char *sep = strstr(l, ": /");
		if (!sep || !strncmp(l, "diversion", 9))
			continue;
		*sep = '\0';
		l[strcspn(l, ",")] = '\0';
		if (!json_object_get(owner, sep + 2))
			json_object_set_new(owner, sep + 2, json_string(esc(ESC_JSON, l)));
	}
}

/*
 * dpkg's answer for a path (its package and that package's version, or no
 * package) changes only with dpkg's database: it is cached, by the path,
 * while these files keep their identity (dpkg rewrites its status file
 * whenever it installs or removes anything).  Scripts are probed on every
 * run and each new build is a new file: without this each asked dpkg-query
 * -S again, a read of every package's file list (0.3 to 0.5 s).
 */
static const char *const dpkg_db[] = { "status", "diversions" };

/* {file: identity} of the database in admindir, NULL when it cannot be had (nothing cached then) */
static json_t *dpkg_db_ids(const char *admindir)
{
	json_t *ids = json_object();
	char id[96];
	for (size_t i = 0; i < sizeof(dpkg_db) / sizeof(*dpkg_db); i++) {
		char *f = path_join(admindir, dpkg_db[i]);
		if (fileid(f, id) < 0) {
			free(f);
			json_decref(ids);
			return NULL;
		}
		json_object_set_new(ids, f, json_string(id));
		free(f);
	}
	return ids;
}

static void dpkg_key(const char *path, char key[65])
{
	hash_hex(path, strlen(path), key);
}

/* did dpkg-query -S say that no package has `path`? (its stderr, in the C locale) */
static int dpkg_said_none(const char *err, const char *path)
{
	static const char said[] = "dpkg-query: no path found matching pattern ";
	size_t n = strlen(path);
	for (const char *l = err; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (!strncmp(l, said, sizeof(said) - 1) && !strncmp(l + sizeof(said) - 1, path, n) &&
		    (l[sizeof(said) - 1 + n] == '\n' || !l[sizeof(said) - 1 + n]))
			return 1;
	return 0;
}

/*
 * owner: {path: package} for the paths dpkg knows; version: {package: version}
 * (vmid-int.h).  An entry learned from another admindir names other files in
 * its "ids": it is not this database's answer.
 */
int vmid_dpkg_lookup(const char *admindir, const struct strvec *paths, json_t *owner, json_t *version)
{
	char *dq = find_in_path("dpkg-query");
	if (!dq || !paths->n) {
		free(dq);
		return dq ? 0 : -1;
	}
	char *admin_opt = xasprintf("--admindir=%s", admindir);
	/* what is cached; dpkg asked only about the rest */
	json_t *db = dpkg_db_ids(admindir);
	struct strvec ask = STRVEC_INIT;
	for (size_t i = 0; i < paths->n; i++) {
		char key[65];
		dpkg_key(paths->v[i], key);
		json_t *hit = db ? idc_get("dpkg", key) : NULL;
		if (!hit || !json_equal(json_object_get(hit, "ids"), db)) {
			sv_push(&ask, paths->v[i]);
			continue;
		}
		json_t *pkg = json_object_get(hit, "package"), *ver = json_object_get(hit, "version");
		if (json_is_string(pkg)) {
			json_object_set(owner, paths->v[i], pkg);
			if (json_is_string(ver))
				json_object_set(version, json_string_value(pkg), ver);
		}
	}
	int asked_n = (int)ask.n;
	if (!ask.n) {
		sv_clear(&ask);
		json_decref(db);
		free(admin_opt);
		free(dq);
		return 0;
	}
	json_t *found = json_object(); /* {path: package} of this -S */
	struct strvec argv = STRVEC_INIT;
	sv_push(&argv, dq);
	sv_push(&argv, admin_opt);
	sv_push(&argv, "-S");
	for (size_t i = 0; i < ask.n; i++)
		sv_push(&argv, ask.v[i]);
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	int st, asked = probe_run(NULL, sv_array(&argv), &out, &err, &st) == 0;
	if (asked)
		parse_owners(out.buf ? out.buf : (char *)"", found);
	sv_clear(&argv);
	sb_reset(&out);
	sv_push(&argv, dq);
	sv_push(&argv, admin_opt);
	sv_push(&argv, "-W");
	sv_push(&argv, "-f=${binary:Package}\t${Version}\n");
	const char *path;
	json_t *pkg;
	json_object_foreach(found, path, pkg) {
		if (!json_object_get(owner, path))
			json_object_set(owner, path, pkg);
		sv_push(&argv, json_string_value(pkg));
	}
	if (argv.n > 4 && probe_run(NULL, sv_array(&argv), &out, &err, &st) == 0) {
		char *save = NULL;
		for (char *l = strtok_r(out.buf ? out.buf : (char *)"", "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
			char *tab = strchr(l, '\t');
			if (!tab)
				continue;
			*tab = '\0';
			json_object_set_new(version, l, json_string(esc(ESC_JSON, tab + 1)));
			/* -S names a package without its architecture when there is one */
			char *colon = strchr(l, ':');
			if (colon) {
				*colon = '\0';
				json_object_set_new(version, l, json_string(esc(ESC_JSON, tab + 1)));
			}
		}
	}
	/* the answers, cached: a package with its version, or none where dpkg said so (a path with a
	   pattern's characters is a pattern to dpkg: not cached) */
	for (size_t i = 0; db && asked && i < ask.n; i++) {
		const char *p = ask.v[i];
		json_t *name = json_object_get(found, p), *ver = name ? json_object_get(version, json_string_value(name)) : NULL;
		if (strpbrk(p, "*?[]\\") || (name ? !json_is_string(ver) : !dpkg_said_none(err.buf, p)))
			continue;
		char key[65];
		dpkg_key(p, key);
		idc_put("dpkg", key, json_pack("{s:O, s:O, s:O}", "ids", db, "package", name ? name : json_null(),
					      "version", name ? ver : json_null()));
	}
	json_decref(found);
	json_decref(db);
	sv_clear(&ask);
	sv_clear(&argv);
	sb_release(&out);
	sb_release(&err);
	free(admin_opt);
	free(dq);
	return asked_n;
}

/* the package owning `path` or its real path: {name, version}, or NULL */
static json_t *package_of(const char *path, const char *real, json_t *owner, json_t *version)
{
	json_t *p = json_object_get(owner, path);
	if (!p && real)
		p = json_object_get(owner, real);
	const char *name = json_string_value(p);
	if (!name)
		return NULL;
	const char *v = json_string_value(json_object_get(version, name));
	return json_pack("{s:s, s:s}", "name", name, "version", v ? v : "");
}

/* SHA-256 of files no package owns, computed by `sha256sum` as the benchmark user */
static void user_sha256(const struct strvec *files, const struct vmid_probe *pr, json_t *sums)
{
	char *tool = files->n ? find_in_path("sha256sum") : NULL;
	if (!tool)
		return;
	struct strvec argv = STRVEC_INIT;
	sv_push(&argv, tool);
	sv_push(&argv, "--");
	for (size_t i = 0; i < files->n; i++)
		sv_push(&argv, files->v[i]);
	struct strbuf out = STRBUF_INIT;
	int st;
	if (probe_run(pr, sv_array(&argv), &out, NULL, &st) == 0) {
		char *save = NULL;
		for (char *l = strtok_r(out.buf ? out.buf : (char *)"", "\n", &save); l; l = strtok_r(NULL, "\n", &save))
			if (strlen(l) > 66 && l[64] == ' ')
				json_object_set_new(sums, l + 66, json_stringn(l, 64));
	}
	sv_clear(&argv);
	sb_release(&out);
	free(tool);
}

/* libs: [{path, package, version} or {path, sha256}]; ids gets each library's identity */
static json_t *describe_libs(const struct strvec *libs, json_t *owner, json_t *version, const struct vmid_probe *pr,
			     json_t *ids)
{
	json_t *arr = json_array(), *sums = json_object();
	struct strvec unowned = STRVEC_INIT;
	for (size_t i = 0; i < libs->n; i++) {
		char *real = realpath(libs->v[i], NULL);
		json_t *pkg = package_of(libs->v[i], real, owner, version);
		char id[96];
		if (real && fileid(real, id) == 0)
			json_object_set_new(ids, real, json_string(id));
		if (!pkg)
			sv_push(&unowned, libs->v[i]);
		json_decref(pkg);
		free(real);
	}
	user_sha256(&unowned, pr, sums);
	for (size_t i = 0; i < libs->n; i++) {
		char *real = realpath(libs->v[i], NULL);
		json_t *pkg = package_of(libs->v[i], real, owner, version);
		json_t *l = json_pack("{s:s}", "path", esc(ESC_JSON, libs->v[i]));
		if (pkg) {
			json_object_set(l, "package", json_object_get(pkg, "name"));
			json_object_set(l, "version", json_object_get(pkg, "version"));
		} else {
			json_t *s = json_object_get(sums, libs->v[i]);
			json_object_set_new(l, "sha256", s ? json_incref(s) : json_null());
		}
		json_array_append_new(arr, l);
		json_decref(pkg);
		free(real);
	}
	sv_clear(&unowned);
	json_decref(sums);
	return arr;
}

/* everything about the file: sha256, package, libraries (not the version) */
static void learn(json_t *o, const char *exe, const char *real, int script, const struct vmid_probe *pr, json_t *ids)
{
	char sha[65];
	struct kerr e = KERR_INIT;
	if (idc_sha256(real, sha, &e) == 0)
		json_object_set_new(o, "sha256", json_string(sha));
	else
		json_object_set_new(o, "error", json_string(esc(ESC_JSON, e.msg.buf)));
	kerr_release(&e);
	struct strvec libs = STRVEC_INIT, paths = STRVEC_INIT;
	if (!script)
		list_libs(real, pr, &libs);
	sv_push(&paths, exe);
	if (strcmp(exe, real))
		sv_push(&paths, real);
	for (size_t i = 0; i < libs.n; i++) {
		sv_push(&paths, libs.v[i]);
		char *lr = realpath(libs.v[i], NULL);
		if (lr && strcmp(lr, libs.v[i]))
			sv_push(&paths, lr);
		free(lr);
	}
	json_t *owner = json_object(), *version = json_object();
	vmid_dpkg_lookup(VMID_DPKG_ADMINDIR, &paths, owner, version);
	json_t *pkg = package_of(exe, real, owner, version);
	json_object_set_new(o, "package", pkg ? pkg : json_null());
	json_object_set_new(o, "libs", describe_libs(&libs, owner, version, pr, ids));
	json_decref(owner);
	json_decref(version);
	sv_clear(&libs);
	sv_clear(&paths);
}

/* what the cache files the answer under: the executable, the flag, the probe's environment and user */
static void cache_key(const char *exe, const char *real, const char *id, const char *flag,
		      const struct vmid_probe *pr, char out[65])
{
	struct strbuf sb = STRBUF_INIT;
	sb_addf(&sb, "%s\n%s\n%s\n%s\n", exe, real, id, flag);
	for (char **p = pr ? pr->envp : NULL; p && *p; p++)
		sb_addf(&sb, "env %s\n", *p);
	sb_addf(&sb, "user %d %ld:%ld cwd %s\n", pr && pr->set_user, pr ? (long)pr->uid : -1L,
		pr ? (long)pr->gid : -1L, pr && pr->cwd ? pr->cwd : "");
	hash_hex(sb.buf, sb.len, out);
	sb_release(&sb);
}

json_t *vmid_get(const char *exe, const char *version_flag, const struct vmid_probe *pr)
{
	char *real = realpath(exe, NULL);
	char id[96];
	if (!real || fileid(real, id) < 0) {
		free(real);
		return json_pack("{s:n, s:s}", "real", "error", "not a regular file");
	}
	int script = is_script(real);
	char key[65];
	cache_key(exe, real, id, version_flag, pr, key);
	json_t *hit = script ? NULL : idc_get("vm", key);
	json_t *o;
	if (hit) {
		o = json_deep_copy(json_object_get(hit, "vm"));
		json_object_set_new(o, "cached", json_true());
	} else {
		o = json_pack("{s:s, s:b}", "real", esc(ESC_JSON, real), "script", script);
		json_t *ids = json_pack("{s:s}", real, id);
		learn(o, exe, real, script, pr, ids);
		probe_version(o, exe, version_flag, pr);
		json_object_set_new(o, "probed_as", json_integer(pr && pr->set_user ? (json_int_t)pr->uid : (json_int_t)geteuid()));
		if (!script && !json_object_get(o, "error"))
			idc_put("vm", key, json_pack("{s:o, s:o}", "ids", ids, "vm", json_deep_copy(o)));
		else
			json_decref(ids);
		json_object_set_new(o, "cached", json_false());
	}
	free(real);
	return o;
}
