/*
 * dataset.h - an experiment's measurements in memory, whatever they came
 * from: a kiln results file (store_load_dataset in store.c), a Krun results
 * file or a warmup_stats CSV (import.c).  Analysis, report, plot, diff and
 * plan work on this and nothing else, so they never know where data came from.
 */
#ifndef KILN_DATASET_H
#define KILN_DATASET_H

#include <stddef.h>
#include <stdint.h>

/* one per-iteration instrumentation series (gc.time, jit.time, heap, a counter...) */
struct ds_series {
	char *name;
	char *unit;
	double *v;      /* n values, NAN where absent */
	size_t n;
};

/* one per-pexec scalar (us_compiling, checksum, maxrss...) */
struct ds_scalar {
	char *name;
	char *unit;
	double value;
};

enum ds_status { DS_OK, DS_FAILED, DS_TIMEOUT, DS_PENDING, DS_TAINTED };

struct ds_pexec {
	long num;           /* pexec number */
	enum ds_status status;
	double *wall;       /* seconds per iteration (n of them) */
	size_t n;
	struct ds_series *series;   /* instrumentation and counters per iteration */
	size_t nseries;
	struct ds_scalar *scalars;
	size_t nscalars;
	char *machine;      /* where it ran, when the file says (merged from a cluster); NULL: the dataset's */
	long program;       /* which of its key's programs it ran (store_program.seq), 0: not recorded */
	char *error;        /* why it failed, timed out or was tainted (NULL: none known) */
	char *instr_error;  /* what the instrumentation parser said went wrong (NULL: nothing) */
	double duration;    /* seconds the whole process took, start to reap (Krun's ETA estimate), NAN when unknown */
	double start;       /* when it started, seconds since the epoch (kiln's pexecs.wall_start_ns), NAN when unknown */
	/*
	 * The round it ran in (schedule.h's rounds: every key once per round, in
	 * a fresh random order), from 1; 0: not run in rounds.  Pexecs of two
	 * keys with the same round are a pair.  duet_pair: in a duet, the pair
	 * of its round that ran at the same time (0: it ran alone).
	 */
	long round;
	int duet_pair;
};

struct ds_key {
	char *bench, *vm, *variant;
	char *key;          /* "bench:vm:variant" */
	struct ds_pexec *pexecs;
	size_t npexecs;
	long planned_pexecs;
	long iterations;    /* planned iterations per pexec */
	/*
	 * Left out of the dataset (kept in the results file, never analysed):
	 * the key's warm-up pexecs that ran (warmup_pexecs) and the first
	 * iterations of each pexec (warmup_iterations); every report says so
	 */
	long warmup_pexecs, warmup_iterations;
	char *machine;      /* set when ds_split_machines() made one key per machine: `key` is then KEY@MACHINE */
	long program;       /* after ds_split_programs: the program all its pexecs ran (0: not recorded) */
	char *program_note; /* when the key ran more than one program: what every report says about it */
};

struct dataset {
	char *name;         /* experiment name */
	char *source;       /* where it was read from */
	char *machine;      /* host name / machine id, for diff warnings */
	struct ds_key *keys;
	size_t nkeys;
	/*
	 * An imported file's own text that its format writes back from
	 * (pyperf's metadata and exact per-loop values), kept in the results
	 * file as meta `keep_name`; NULL: none
	 */
	char *keep_name, *keep_text;
};

struct strvec;
/* Each add may move the array it appends to: a pointer it returned is valid
 * until the next add to the same parent. */
struct ds_key *ds_add_key(struct dataset *ds, const char *bench, const char *vm, const char *variant);
struct ds_pexec *ds_add_pexec(struct ds_key *k, long num);
struct ds_series *ds_add_series(struct ds_pexec *p, const char *name, const char *unit, size_t n);
void ds_add_scalar(struct ds_pexec *p, const char *name, const char *unit, double value);
/* a per-pexec scalar of p by name, NAN when absent */
double ds_scalar(const struct ds_pexec *p, const char *name);
struct ds_key *ds_find_key(const struct dataset *ds, const char *key);
const struct ds_series *ds_find_series(const struct ds_pexec *p, const char *name);
/*
 * Does key pattern pat match k?  pat is bench[:vm[:variant]] with '*'
 * wildcards in each part; the parts left out match anything ("nbody:pypy"
 * is "nbody:pypy:*").  A pattern of more than three parts is matched
 * against the whole "bench:vm:variant"; one with '@' against a key split
 * by machine, KEY@MACHINE (such a key also matches by its parts).
 */
struct strvec;
int ds_key_matches(const char *pat, const struct ds_key *k);
/* keep only the keys matching any of pats (none: all), freeing the others; returns how many are left */
size_t ds_keep_keys(struct dataset *ds, const struct strvec *pats);
/*
 * The machines the pexecs ran on (each pexec's own, else the dataset's),
 * sorted, in `names`; returns how many.
 */
size_t ds_machines(const struct dataset *ds, struct strvec *names);
/*
 * Pexecs of different machines are not one sample: when the dataset holds
 * more than one machine, each key becomes one key per machine (KEY@MACHINE,
 * `machine` set), machine by machine.  With `pool`, the keys stay whole and
 * ds->machine names every machine ("n1+n2").  Returns how many machines.
 */
size_t ds_split_machines(struct dataset *ds, int pool);
/*
 * One key is one program: a key whose pexecs ran more than one program
 * (`kiln run --force` after a change of its provenance) becomes one key
 * per program: the first keeps its name, program N is KEY#N (its variant
 * VARIANT#N), and each gets a program_note naming the others (followed by
 * the program_note the loader gave the key: how they differ).  Never two
 * programs in one key's statistics.  Returns how many keys were split.
 */
size_t ds_split_programs(struct dataset *ds);
void ds_free(struct dataset *ds);

/*
 * The longest time kiln stores: whole nanoseconds in 64 bits (about 292
 * years).  A time of an input file above it is refused, not wrapped.
 */
#define DS_TIME_MAX_S 9.2e9
/*
 * A time below half a nanosecond but not 0: the store's whole nanoseconds
 * (llround(s * 1e9), as store-write.c computes them) would keep it as 0, a
 * measured time become no time, so it is refused (1.4e-9 s is kept as
 * 1 ns: rounded, as every time is, not lost).
 */
static inline int ds_time_subns(double s)
{
	return s > 0 && s * 1e9 < 0.5;
}
#define DS_TIME_SUBNS_WHY "is below 0.5 ns: kiln keeps whole nanoseconds, and would store it as 0"

/* a time in seconds kiln can store: finite, 0 or at least 0.5 ns, at most DS_TIME_MAX_S */
static inline int ds_time_ok(double s)
{
	return s >= 0 && s <= DS_TIME_MAX_S && !ds_time_subns(s); /* NaN fails both */
}

/*
 * A key's text "bench:vm:variant" split into malloc'd parts (the variant may
 * hold ':', said once a process); a bare name is bench:unknown:default; -1 if
 * malformed.  Krun's and warmup_stats' files name keys this way.
 */
int ds_split_key(const char *key, char **bench, char **vm, char **variant);

#endif
