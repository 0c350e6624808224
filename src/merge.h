/*
 * merge.h - folding cluster tasks' shards back into the experiment's
 * results file (`kiln merge`, also run when a job array ends and before
 * every resubmission).
 *
 * A shard is merged only if it is one the main file made (same cluster id,
 * a name it gave out), from the same config (hash) and schedule (hash, and
 * every pexec row the same), and if every pexec it holds was given to it.
 * Each finished pexec it holds that the main file still lacks is copied
 * whole (its row, iterations, series, scalars, events), with its machine
 * in `origins`, in one transaction per shard; the shard's audit is kept
 * under `shard:NAME:...`.  What the main file has merged once is never
 * merged again, so merging twice changes nothing.  Per-pexec provenance
 * (today the env log hash) must agree with the key's first pexec.
 */
#ifndef KILN_MERGE_H
#define KILN_MERGE_H

#include "store.h"

struct merge_shard {
	char *name, *path;
	char *machine;      /* the node its task ran on, NULL if it never started */
	long merged;        /* pexecs copied by this merge */
	long before;        /* pexecs of it merged by earlier merges */
	long duplicates;    /* finished here and already finished in the main file (main's kept) */
	long unfinished;    /* given to it and not finished: they stay pending */
	int refused;        /* 0, or the exit code of its refusal (KEXIT_CONFIG, KEXIT_STORE) */
	char *why;
};

struct merge_result {
	struct merge_shard *v;
	size_t n;
	long done, total;   /* the main file's finished and planned pexecs afterwards */
};

/*
 * Merge the shards at `paths` (none: every shard the main file made) into
 * `main`, open read-write and locked.  A refused shard is reported in mr and
 * the others are merged.  Returns 0, or -1 when the main file itself fails.
 */
int merge_shards(struct store *main, const struct strvec *paths, struct merge_result *mr, struct kerr *e);
/* KEXIT_OK, or the code of the first refused shard */
int merge_exit_code(const struct merge_result *mr);
void merge_result_free(struct merge_result *mr);

#endif
