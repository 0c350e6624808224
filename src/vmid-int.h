/*
 * vmid-int.h - what vmid.c shows its tests and nothing else uses: dpkg's
 * answer for each path, asked of a dpkg database (an "admin directory")
 * that the caller names, so that a test can build one of its own and
 * change it as dpkg would, which it cannot do to the machine's.
 */
#ifndef KILN_VMID_INT_H
#define KILN_VMID_INT_H

#include "vmid.h"

/*
 * The database kiln asks (vmid_get): the machine's, a fixed path.  dpkg-query
 * runs as kiln (root), so no other is ever taken from a config, the
 * environment or a flag: root would read a database, and files, that a
 * benchmark user could have written.
 */
#define VMID_DPKG_ADMINDIR "/var/lib/dpkg"

/*
 * What dpkg says of each of `paths` (absolute): owner gets {path: package}
 * for those a package owns, version {package: version}.  dpkg-query runs
 * with --admindir=ADMINDIR (as kiln, with PATH alone), and each path's
 * answer (a package and its version, or none) is cached in the identity
 * cache (kind "dpkg") while ADMINDIR/status and ADMINDIR/diversions keep
 * their identities.  Returns how many of the paths were not answered by the
 * cache (dpkg-query -S was asked about them), or -1 without dpkg-query.
 */
int vmid_dpkg_lookup(const char *admindir, const struct strvec *paths, json_t *owner, json_t *version);

#endif
