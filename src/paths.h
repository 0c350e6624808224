/*
 * paths.h - where kiln's own files are (the build tree or PREFIX).
 */
#ifndef KILN_PATHS_H
#define KILN_PATHS_H

/* where kiln's bundled plugins/benchmarks/examples are (share/kiln or the source tree) */
const char *kiln_datadir(void);
/* where compiled runners are (libexec/kiln or build/) */
const char *kiln_libexecdir(void);

#endif
