/*
 * profile-jit.h - kiln profile's JIT'd code (profile-jit.c): the
 * instrumentation folder collected, the VM's JIT logs turned into a code
 * table, the runner's jitdump marker filled from it, perf inject --jit,
 * and samples perf left unnamed named from the table.
 */
#ifndef KILN_PROFILE_JIT_H
#define KILN_PROFILE_JIT_H

#include <jansson.h>

#include "config.h"
#include "jitcode.h"
#include "pexec.h"
#include "profile.h"

/* px's KILN_INSTR_DIR into DIR/instr/ (read as the benchmark user, written by kiln) */
int profjit_collect(const struct experiment *ex, const struct pexec_spec *px, const char *dir, struct kerr *e);
/* the JIT logs kept in DIR/instr/ into jc, load times mapped by m onto perf's clock */
int profjit_load(const struct experiment *ex, const char *dir, const struct prof_clockmap *m, struct jitcode *jc,
		 struct kerr *e);
/* the IPs of the frames in JIT'd code of samples [from, to), sorted */
struct profjit_ips {
	uint64_t *ip;
	size_t n;
};
void profjit_sampled(const struct pscript *ps, size_t from, size_t to, struct profjit_ips *out);
/* the table as PATH, a jitdump of pid with the sampled regions, and jitdir/perf-PID.map with all */
int profjit_write_table(const char *jitdir, int pid, const char *path, const struct jitcode *jc,
			const struct profjit_ips *ips, json_t *files, struct kerr *e);
/*
 * The jitdumps of jitdir made ready for perf inject: a runner's marker
 * jit-PID.dump (a header alone) written from jc, with perf-PID.map; a VM's
 * own jitdump cut to its loads with sampled IPs.  Files named in files;
 * returns how many jitdumps there are, -1 on an error.
 */
int profjit_dumps(const char *jitdir, const struct jitcode *jc, const struct profjit_ips *ips, json_t *files,
		  struct kerr *e);
/*
 * perf inject --jit on perfdata into DIR/perf.data, the jitted files in
 * DIR/jit and their build ids in DIR/.debug; *jitted: how many.  With a
 * benchmark user u, perf reads what is in its home as that user: stage is
 * kiln's folder the user can read (perfdata is there).
 */
int profjit_inject(const char *perf, const char *dir, const char *perfdata, const struct puser *u, const char *stage,
		   size_t *jitted, struct kerr *e);
/* exec options to run a step as the benchmark user, in its home, with a small environment (env holds it) */
struct exec_opts;
void profjit_as_user(struct exec_opts *o, const struct puser *u, struct strvec *env);
/*
 * Samples [from, to) of ps whose frames are in JIT'd code perf could not
 * name, named from jc; returns how many leaves were named, *unnamed how
 * many stayed unnamed.
 */
size_t profjit_name_samples(struct pscript *ps, size_t from, size_t to, const struct jitcode *jc, size_t *unnamed);

#endif
