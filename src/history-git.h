/*
 * history-git.h - the VM's repository as kiln track and kiln bisect see it
 * (history-git.c): git run without a shell, its answers bounded and
 * checked, checkouts in kiln's own folders.
 */
#ifndef KILN_HISTORY_GIT_H
#define KILN_HISTORY_GIT_H

#include "history.h"

/* git ARGS... in dir (git -C dir), hooks off; its stdout added to out (NULL: dropped) */
int hgit_run(const char *dir, const char *const *args, struct strbuf *out, struct kerr *e);
/* is s[0..n) a full lowercase hex hash (40 or 64 digits)? */
int hgit_is_hash(const char *s, size_t n);
/* the full hash of the commit rev names (KEXIT_USAGE when none) */
int hgit_resolve(const char *repo, const char *rev, char **hash, struct kerr *e);
/* the first-parent commits of from..to (from NULL: every ancestor of to), oldest first, appended */
int hgit_range(const char *repo, const char *from, const char *to, struct strvec *hashes, struct kerr *e);
/* each commit's parent, time, author, subject and depth (an array of hashes->n, hgit_commit_release each) */
int hgit_info(const char *repo, const struct strvec *hashes, struct hist_commit **out, struct kerr *e);
void hgit_commit_release(struct hist_commit *c);
/*
 * dir holds exactly commit hash's tree, nothing else (a clone sharing
 * repo's objects is made there the first time; then checkout --force and
 * clean -ffdx: no file of an earlier build is left).
 */
int hgit_checkout(const char *repo, const char *dir, const char *hash, struct kerr *e);

#endif
