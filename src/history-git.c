/*
 * history-git.c - what kiln asks of the VM's repository, through git run
 * without a shell (exec.h): revisions resolved, first-parent ranges, each
 * commit's hash, parent, time, author, subject and depth, and a clean
 * checkout of a commit in a folder of kiln's, outside the user's tree (a
 * clone sharing the repository's objects: the user's repository, its
 * index, worktrees and hooks are never touched).  The repository is
 * untrusted: what it says is bounded and validated, and kiln's git runs
 * with hooks off.
 */
#include "history-git.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exec.h"

/* what one git command may print (a history of millions of commits is still well under) */
#define GIT_OUT_MAX ((size_t)64 << 20)
#define GIT_TIMEOUT_S 600

extern char **environ;

/* git's environment: kiln's PATH and HOME (the user's git config, safe.directory), no GIT_* of kiln's */
static void git_env(struct strvec *env)
{
	for (char **p = environ; p && *p; p++)
		if (!strncmp(*p, "PATH=", 5) || !strncmp(*p, "HOME=", 5) || !strncmp(*p, "USER=", 5))
			sv_push(env, *p);
	sv_push(env, "LC_ALL=C");
	sv_push(env, "GIT_TERMINAL_PROMPT=0");
	sv_push(env, "GIT_CONFIG_NOSYSTEM=1");
}

int hgit_run(const char *dir, const char *const *args, struct strbuf *out, struct kerr *e)
{
	struct strvec argv = STRVEC_INIT, env = STRVEC_INIT;
	sv_push(&argv, "git");
	sv_push(&argv, "-c");
	sv_push(&argv, "core.hooksPath=/dev/null");
	sv_push(&argv, "-C");
	sv_push(&argv, dir);
	for (const char *const *a = args; *a; a++)
		sv_push(&argv, *a);
	git_env(&env);
	struct exec_opts o;
	exec_opts_plain(&o, sv_array(&argv), sv_array(&env), GIT_TIMEOUT_S);
	o.search = 1;
	o.capture_bytes = GIT_OUT_MAX;
	struct exec_result r;
	memset(&r, 0, sizeof(r));
	int rc = exec_run(&o, &r, e);
	if (rc == 0 && r.spawn_errno)
		rc = kerr_setc(e, KEXIT_FAIL, "git: cannot start it (%s): is git installed?", strerror(r.spawn_errno));
	else if (rc == 0 && (!r.exited || r.status)) {
		struct strbuf msg = STRBUF_INIT;
		size_t n = r.err.len < 2000 ? r.err.len : 2000;
		while (n && (r.err.buf[n - 1] == '\n' || r.err.buf[n - 1] == ' '))
			n--;
		sb_add(&msg, r.err.buf ? r.err.buf : "", n);
		rc = kerr_setc(e, KEXIT_FAIL, "git %s (in %s) failed: %s", esc(ESC_TERM, args[0]), esc(ESC_TERM, dir),
			       esc(ESC_TERM, sb_str(&msg)));
		sb_release(&msg);
	} else if (rc == 0 && r.out_bytes != r.out.len)
		rc = kerr_setc(e, KEXIT_FAIL, "git %s printed more than %zu bytes", esc(ESC_TERM, args[0]), GIT_OUT_MAX);
	else if (rc < 0)
		kerr_wrap(e, "git");
	if (rc == 0 && out)
		sb_add(out, r.out.buf ? r.out.buf : "", r.out.len);
	exec_result_release(&r);
	sv_clear(&argv);
	sv_clear(&env);
	return rc < 0 ? -1 : 0;
}

/* a full hex hash: 40 (SHA-1) or 64 (SHA-256) lowercase hex digits */
int hgit_is_hash(const char *s, size_t n)
{
	if (n != 40 && n != 64)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return 1;
}

/* the output's lines, each a full hash, into hashes */
static int hash_lines(const struct strbuf *out, struct strvec *hashes, struct kerr *e)
{
	const char *p = sb_str(out), *end = p + out->len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		if (n) {
			if (!hgit_is_hash(p, n)) {
				char *bad = xstrndup(p, n < 80 ? n : 80);
				kerr_setc(e, KEXIT_FAIL, "git printed '%s' where a commit hash was expected", esc(ESC_TERM, bad));
				free(bad);
				return -1;
			}
			char *h = xstrndup(p, n);
			sv_push(hashes, h);
			free(h);
		}
		p += n + 1;
	}
	return 0;
}

int hgit_resolve(const char *repo, const char *rev, char **hash, struct kerr *e)
{
	*hash = NULL;
	char *spec = xasprintf("%s^{commit}", rev);
	const char *args[] = { "rev-parse", "--verify", "--quiet", "--end-of-options", spec, NULL };
	struct strbuf out = STRBUF_INIT;
	struct strvec h = STRVEC_INIT;
	int r = hgit_run(repo, args, &out, e);
	if (r < 0)
		kerr_setc(e, KEXIT_USAGE, "%s: no commit '%s' in the repository", esc(ESC_TERM, repo), esc(ESC_TERM, rev));
	else if (hash_lines(&out, &h, e) < 0 || h.n != 1)
		r = kerr_setc(e, KEXIT_USAGE, "%s: '%s' names no one commit", esc(ESC_TERM, repo), esc(ESC_TERM, rev));
	else
		*hash = xstrdup(h.v[0]);
	free(spec);
	sb_release(&out);
	sv_clear(&h);
	return r < 0 ? -1 : 0;
}

int hgit_range(const char *repo, const char *from, const char *to, struct strvec *hashes, struct kerr *e)
{
	char *range = from ? xasprintf("%s..%s", from, to) : xstrdup(to);
	const char *args[] = { "rev-list", "--first-parent", "--reverse", "--end-of-options", range, NULL };
	struct strbuf out = STRBUF_INIT;
	int r = hgit_run(repo, args, &out, e);
	if (r == 0)
		r = hash_lines(&out, hashes, e);
	free(range);
	sb_release(&out);
	return r;
}

/* the NUL-separated field i of a record, NULL when missing */
static char *field(const char *rec, size_t len, int i)
{
	const char *p = rec, *end = rec + len;
	for (; i > 0 && p < end; i--) {
		const char *z = memchr(p, '\0', (size_t)(end - p));
		if (!z)
			return NULL;
		p = z + 1;
	}
	if (p >= end)
		return NULL;
	const char *z = memchr(p, '\0', (size_t)(end - p));
	return xstrndup(p, z ? (size_t)(z - p) : (size_t)(end - p));
}

static long depth_of(const char *repo, const char *hash, struct kerr *e)
{
	const char *args[] = { "rev-list", "--first-parent", "--count", "--end-of-options", hash, NULL };
	struct strbuf out = STRBUF_INIT;
	long n = -1;
	if (hgit_run(repo, args, &out, e) == 0) {
		char *t = xstrdup(sb_str(&out));
		t[strcspn(t, "\n")] = '\0';
		if (parse_long(t, &n) < 0 || n < 1)
			n = -1, kerr_setc(e, KEXIT_FAIL, "git rev-list --count printed '%s'", esc(ESC_TERM, t));
		free(t);
	}
	sb_release(&out);
	return n < 0 ? -1 : n - 1;
}

/*
 * a commit's author or subject, which anyone who commits writes, cut to
 * HISTORY_TEXT_MAX bytes on a UTF-8 boundary: the history stores no more,
 * and track --compare's pull-request comment must stay under the forge's
 * limit (GitHub's is 65536 characters) whatever the subjects hold
 */
static void cap_text(char *s)
{
	if (s)
		s[utf8_cut(s, HISTORY_TEXT_MAX)] = '\0';
}

/* one record of `git log -z --format=%H%x00%P%x00%ct%x00%an%x00%s` into c */
static int parse_record(const char *rec, size_t len, struct hist_commit *c, struct kerr *e)
{
	memset(c, 0, sizeof(*c));
	c->hash = field(rec, len, 0);
	char *parents = field(rec, len, 1), *t = field(rec, len, 2);
	c->author = field(rec, len, 3);
	c->subject = field(rec, len, 4);
	cap_text(c->author);
	cap_text(c->subject);
	int ok = c->hash && hgit_is_hash(c->hash, strlen(c->hash)) && parents && t && c->subject;
	if (ok && parents[0]) {
		size_t n = strcspn(parents, " ");
		ok = hgit_is_hash(parents, n);
		if (ok)
			c->parent = xstrndup(parents, n);
	}
	long tv = 0;
	if (ok && parse_long(t, &tv) == 0)
		c->time = tv;
	free(parents);
	free(t);
	if (!ok)
		return kerr_setc(e, KEXIT_FAIL, "git log printed a record kiln cannot read");
	return 0;
}

void hgit_commit_release(struct hist_commit *c)
{
	free(c->hash);
	free(c->parent);
	free(c->author);
	free(c->subject);
	memset(c, 0, sizeof(*c));
}

int hgit_info(const char *repo, const struct strvec *hashes, struct hist_commit **out, struct kerr *e)
{
	*out = xcalloc(hashes->n ? hashes->n : 1, sizeof(**out));
	int r = 0;
	for (size_t i0 = 0; r == 0 && i0 < hashes->n; i0 += 256) {
		struct strvec args = STRVEC_INIT;
		sv_push(&args, "log");
		sv_push(&args, "--no-walk=unsorted");
		sv_push(&args, "-z");
		sv_push(&args, "--format=%H%x00%P%x00%ct%x00%an%x00%s");
		sv_push(&args, "--end-of-options");
		size_t n = hashes->n - i0 < 256 ? hashes->n - i0 : 256;
		for (size_t i = 0; i < n; i++)
			sv_push(&args, hashes->v[i0 + i]);
		struct strbuf o = STRBUF_INIT;
		r = hgit_run(repo, (const char *const *)sv_array(&args), &o, e);
		/* -z ends each record with a NUL too: five fields, then an empty one */
		const char *p = sb_str(&o), *end = p + o.len;
		for (size_t i = 0; r == 0 && i < n; i++) {
			const char *q = p;
			for (int f = 0; f < 5 && q && q < end; f++) {
				q = memchr(q, '\0', (size_t)(end - q));
				q = q ? q + 1 : NULL;
			}
			size_t len = q ? (size_t)(q - p) : (size_t)(end - p);
			r = parse_record(p, len, &(*out)[i0 + i], e);
			if (r == 0 && strcmp((*out)[i0 + i].hash, hashes->v[i0 + i]))
				r = kerr_setc(e, KEXIT_FAIL, "git log gave the commits in another order");
			p = q ? q : end;
			while (p < end && *p == '\n')
				p++;
		}
		sb_release(&o);
		sv_clear(&args);
	}
	/* depths: along a first-parent line each is its parent's + 1 */
	for (size_t i = 0; r == 0 && i < hashes->n; i++) {
		struct hist_commit *c = &(*out)[i];
		if (i > 0 && c->parent && !strcmp(c->parent, (*out)[i - 1].hash))
			c->depth = (*out)[i - 1].depth + 1;
		else if ((c->depth = depth_of(repo, c->hash, e)) < 0)
			r = -1;
	}
	if (r < 0) {
		for (size_t i = 0; i < hashes->n; i++)
			hgit_commit_release(&(*out)[i]);
		free(*out);
		*out = NULL;
	}
	return r;
}

/*
 * A clone borrowing the repository's objects (nothing of the user's is
 * written), made under a temporary name and renamed into place: a folder
 * with a .git is a whole clone, never what an interrupted or killed clone
 * left behind
 */
static int clone_into(const char *repo, const char *dir, struct kerr *e)
{
	char *parent = path_dirname(dir), *part = xasprintf("%s.part", dir);
	mkdir_p(parent, 0755);
	rm_rf(part);
	const char *args[] = { "clone", "--quiet", "--shared", "--no-checkout", "--", repo, part, NULL };
	int r = hgit_run(parent, args, NULL, e);
	if (r == 0 && rename(part, dir) < 0)
		r = kerr_setc(e, KEXIT_STORE, "%s -> %s: %s", part, dir, strerror(errno));
	if (r < 0)
		rm_rf(part);
	free(parent);
	free(part);
	return r;
}

/* a forced, clean checkout of hash in the clone at dir; -1 with e set */
static int checkout_in(const char *dir, const char *hash, struct kerr *e)
{
	const char *co[] = { "checkout", "--quiet", "--force", "--detach", hash, "--", NULL };
	const char *clean[] = { "clean", "-ffdxq", NULL };
	return hgit_run(dir, co, NULL, e) < 0 || hgit_run(dir, clean, NULL, e) < 0 ? -1 : 0;
}

int hgit_checkout(const char *repo, const char *dir, const char *hash, struct kerr *e)
{
	char *gitdir = path_join(dir, ".git");
	int had = file_exists(gitdir);
	free(gitdir);
	if (had) {
		/*
		 * kiln's clone from before (a resumed track, the previous commit):
		 * reused when it checks out; what a crash left unusable in it (a
		 * stale index.lock, a clone of an older kiln cut short) is made
		 * again rather than stopping the track
		 */
		struct kerr first = KERR_INIT;
		int r = checkout_in(dir, hash, &first);
		kerr_release(&first);
		if (r == 0)
			return 0;
	}
	rm_rf(dir);
	if (clone_into(repo, dir, e) < 0 || checkout_in(dir, hash, e) < 0)
		return kerr_wrap(e, "checkout of %.12s", hash);
	return 0;
}
