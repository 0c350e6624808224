/*
 * paths.h - where kiln's own files are (the build tree or PREFIX).
 */
#ifndef KILN_PATHS_H
#define KILN_PATHS_H

#include <stddef.h>

/* where kiln's bundled plugins/benchmarks/examples are (share/kiln or the source tree) */
const char *kiln_datadir(void);
/* where compiled runners are (libexec/kiln or build/) */
const char *kiln_libexecdir(void);
/*
 * The path that runs this very kiln again (the sanity child): its file, or
 * /proc/self/exe when that file was replaced while kiln ran (an upgrade, a
 * rebuild) and the path now holds another kiln or nothing; buf of n bytes.
 * NULL if kiln cannot find itself.
 */
const char *kiln_self_exe(char *buf, size_t n);
/*
 * Where kiln's file is, for what starts kiln later (the boot unit of
 * --reboot, a Slurm job script, the folders a pexec keeps): the path,
 * with the kernel's " (deleted)" mark cut off when the file was replaced
 * while kiln ran (the kiln now there is the one to start).  NULL if kiln
 * cannot find itself.
 */
const char *kiln_self_path(char *buf, size_t n);

#endif
