/*
 * provenance.h - one key is one program: what defines the program a key's
 * pexecs run, written down as lines and hashed.
 *
 * The description is "name<TAB>value" lines, sorted by name:
 *   plugin, argv            the plugin and the runner's argv (as JSON),
 *                           per-pexec words ($KILN_INSTR_DIR, $KILN_PEXEC)
 *                           in their fixed form
 *   vm.*                    the VM executable's identity (vmid.h): real
 *                           path, SHA-256, its package and version, each
 *                           library's package and version (or SHA-256),
 *                           its --version as the benchmark user sees it
 *   probe.*                 what the runner itself said it runs on in its
 *                           probe (KILN_PROBE): version, executable
 *   bench.file, plugin.file every file of the benchmark's folder and of the
 *                           plugin's (sources and built objects: bench.so,
 *                           .class; bytecode caches are derived, skipped)
 *   file                    any other file the argv names (kiln-runner-c,
 *                           a bench.so kept in a cache folder)
 *   build.*                 what the plugin says built it (compiler, flags)
 *   env, limits, libkiln    the runner's environment (credentials hidden,
 *                           secret.h), rlimits, ASLR, pinning, nice, and
 *                           the libkiln the runner may load (by content)
 * and the hash is the SHA-256 of that text.  What is recorded but does not
 * define the program (the setting): kiln's PATH (the VM is run by its
 * absolute path, whose identity is above; a PATH set in the VM's env is
 * part of the program), HOME, USER, the benchmark user's uid, libkiln's
 * path.  docs/provenance.md says why each is where it is.
 */
#ifndef KILN_PROVENANCE_H
#define KILN_PROVENANCE_H

#include <jansson.h>
#include "util.h"

struct pexec_key;
struct exec_opts;

struct prov {
	char hash[65];          /* SHA-256 of `program` */
	struct strbuf program;  /* the lines that define the program */
	struct strbuf setting;  /* the lines recorded beside it */
};
#define PROV_INIT { "", STRBUF_INIT, STRBUF_INIT }

/*
 * Describe key k's program: `argv` and `env` as a pexec of it gets them
 * (built with the per-pexec words in their fixed form), `eo` its exec
 * options, `vm` the VM's identity (vmid_get, may be NULL), `probe` the
 * runner's probe line (may be NULL).
 */
void prov_describe(struct prov *pv, const struct pexec_key *k, const struct strvec *argv, const struct strvec *env,
		   const struct exec_opts *eo, const json_t *vm, const json_t *probe);
void prov_release(struct prov *pv);
/*
 * How description b differs from a, one line per name: "NAME: A -> B"
 * (values shortened), "NAME: added B", "NAME: removed A"; at most `max`
 * lines, then "... and N more".  Returns how many names differ.
 */
size_t prov_diff(const char *a, const char *b, size_t max, struct strvec *out);

#endif
