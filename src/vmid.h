/*
 * vmid.h - what a VM executable is: its file (real path, SHA-256), the
 * Debian package that owns it and the packages of the shared libraries it
 * loads (their versions; a library no package owns by its SHA-256), and
 * what it says its version is.
 *
 * Everything that runs the VM or reads what the benchmark user could
 * influence runs as the benchmark would: as its user, with its
 * environment (PATH, the VM's env, HOME), in its home (`struct
 * vmid_probe`), never as root with kiln's environment: `VM --version`,
 * `ldd VM`, `sha256sum` of the libraries no package owns.  Only the VM
 * file itself (named by the config) is read by kiln, and `dpkg-query`
 * runs as kiln with PATH alone.  The version text is kept with its
 * credentials hidden (secret.h).
 *
 * The answer is cached (idcache.h) under the executable's identity, the
 * probe's environment and user, and checked against the identities of the
 * executable and of every library it named: an unchanged machine asks
 * nothing.  A script (#!) is probed every time: what it runs is not in its
 * identity (a pyenv shim picks its Python from the environment and files).
 */
#ifndef KILN_VMID_H
#define KILN_VMID_H

struct exec_opts;
#include <jansson.h>
#include <sys/types.h>
#include "util.h"

struct vmid_probe {
	char **envp;            /* the benchmark's environment */
	const char *cwd;        /* NULL: kiln's */
	int set_user;
	uid_t uid;
	gid_t gid;
	const struct exec_opts *bounds; /* the machine and bounds of a pexec (join_ns, rlimits, oom), NULL: none */
};

/*
 * The identity of `exe` (absolute) as a JSON object: real, sha256, script,
 * package {name, version} or null, libs [{path, package, version} or
 * {path, sha256}], version (the output of EXE VERSION_FLAG, trimmed),
 * version_status, probed_as (uid), cached.  Never NULL; what could not be
 * learned is null or absent, and "error" says why.
 */
json_t *vmid_get(const char *exe, const char *version_flag, const struct vmid_probe *pr);

#endif
