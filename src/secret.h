/*
 * secret.h - credentials kept out of what kiln writes down.
 *
 * The audit, the provenance of a key and the exports travel (Krun files,
 * shared results), so nothing kiln records from an environment, a config
 * or a VM's output may carry a credential.  A value is hidden when its
 * variable's name suggests one (TOKEN, PASSWORD, ..._PAT), and whatever the
 * name when the value looks like one: a URL's password
 * (postgres://bob:hunter2@db), a token with a known prefix (ghp_, glpat-,
 * xoxb-, AKIA...), a JSON Web Token, a private key block, or a long
 * random-looking word (mixed case and digits, or a long hex string).
 * Hidden parts read "(hidden)"; the rest is kept as it was.  The rules and
 * their reasons are in docs/security.md#credentials.
 */
#ifndef KILN_SECRET_H
#define KILN_SECRET_H

#include <stddef.h>
#include "util.h"

/* does the variable name (n bytes) suggest a credential? */
int secret_name(const char *name, size_t n);
/* is this word (n bytes of [A-Za-z0-9_+/=.~-]) token-like? */
int secret_word(const char *w, size_t n);
/* free text (a config, a VM's --version output) with its credentials hidden */
void secret_mask(struct strbuf *out, const char *text);
/* one NAME=VALUE entry: the value hidden by its name, else masked as text */
void secret_mask_var(struct strbuf *out, const char *var);
/*
 * Any JSON value (an imported file's audit or fields kiln does not know),
 * in place: a member whose name suggests a credential hidden whole, every
 * other string masked as text.
 */
struct json_t;
void secret_mask_json(struct json_t *v);

#endif
