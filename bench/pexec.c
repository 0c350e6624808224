/*
 * bench/pexec.c - kiln's own per-pexec overhead and memory.
 *
 * The command plugin runs /bin/true N times (N pexecs, each committed
 * durably), compared in the same run with the physical floor, a plain
 * posix_spawn + waitpid loop over the same program, and with `hyperfine -N`
 * when it is installed.  Also reports kiln's peak RSS during that run and,
 * as the floor of a harness written in Python, the RSS of `python3 -c pass`.
 *
 *   build/bench/pexec [N]        (default 1000)
 * Prints one "ROW" line per figure for bench/run.sh.
 */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util.h"

extern char **environ;

static double now_s(void)
{
	return (double)mono_ns() / 1e9;
}

/* run argv, wait, return wall seconds and the child's peak RSS */
static double run_cmd(char *const argv[], long *maxrss_kb, int quiet)
{
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	if (quiet) {
		posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
		posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	}
	double t0 = now_s();
	pid_t pid;
	if (posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ) != 0) {
		posix_spawn_file_actions_destroy(&fa);
		return -1;
	}
	int st;
	struct rusage ru;
	wait4(pid, &st, 0, &ru);
	double t = now_s() - t0;
	posix_spawn_file_actions_destroy(&fa);
	if (maxrss_kb)
		*maxrss_kb = ru.ru_maxrss;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? t : -1;
}

static void row(const char *name, double v, const char *unit, const char *base, double bv, const char *target, int pass)
{
	printf("ROW\t%s\t%.4g %s\t%s\t%.4g %s\t%.3f\t%s\t%s\n", name, v, unit, base, bv, unit, bv > 0 ? v / bv : 0,
	       target, pass ? "PASS" : "MISS");
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;
	const char *O = getenv("O") ? getenv("O") : "build";
	char *kiln = xasprintf("%s/kiln", O);
	char dir[] = "/tmp/kiln-bench.XXXXXX";
	if (!mkdtemp(dir))
		return 1;
	char *cfg = xasprintf("%s/true.yaml", dir);
	FILE *f = fopen(cfg, "w");
	fprintf(f, "pexecs: %ld\niterations: 1\nvms:\n  t: {plugin: command, path: /bin/true}\nbenchmarks:\n  noop: 0\n", n);
	fclose(f);

	/* warm up caches of both paths */
	for (int i = 0; i < 50; i++)
		run_cmd((char *[]){ "/bin/true", NULL }, NULL, 0);

	/* floor: posix_spawn + waitpid */
	double t0 = now_s();
	for (long i = 0; i < n; i++)
		run_cmd((char *[]){ "/bin/true", NULL }, NULL, 0);
	double floor_s = (now_s() - t0) / (double)n;

	long rss = 0;
	double kt = run_cmd((char *[]){ kiln, "run", "-q", cfg, NULL }, &rss, 1);
	if (kt < 0) {
		fprintf(stderr, "bench/pexec: %s run failed\n", kiln);
		return 1;
	}
	double kiln_s = kt / (double)n;

	printf("kiln per-pexec overhead, command plugin, /bin/true x %ld\n", n);
	printf("  posix_spawn+waitpid: %8.1f us per run\n", floor_s * 1e6);
	printf("  kiln run:            %8.1f us per pexec (durable commit included)\n", kiln_s * 1e6);
	row("per-pexec time, kiln run /bin/true", kiln_s * 1e6, "us", "posix_spawn+waitpid loop", floor_s * 1e6,
	    "<= 1.10x", kiln_s <= 1.10 * floor_s);

	char *hf = find_in_path("hyperfine");
	if (hf) {
		char *json = xasprintf("%s/hf.json", dir);
		char runs[32];
		snprintf(runs, sizeof(runs), "%ld", n);
		double ht = run_cmd((char *[]){ hf, "-N", "--runs", runs, "--export-json", json, "/bin/true", NULL }, NULL, 1);
		struct strbuf sb = STRBUF_INIT;
		struct kerr e = KERR_INIT;
		if (ht > 0 && read_file(json, &sb, &e) == 0) {
			char *m = strstr(sb.buf, "\"mean\":");
			double mean = m ? atof(m + 7) : 0;
			printf("  hyperfine -N mean:   %8.1f us per run (%.1f us per run including hyperfine's own work)\n",
			       mean * 1e6, ht / (double)n * 1e6);
			row("per-pexec time, kiln run /bin/true", kiln_s * 1e6, "us", "hyperfine -N (wall per run)",
			    ht / (double)n * 1e6, "<= 1.10x", kiln_s <= 1.10 * ht / (double)n);
		}
		sb_release(&sb);
		kerr_release(&e);
		free(json);
		free(hf);
	}
	long prss = 0;
	char *py = find_in_path("python3");
	if (py) {
		run_cmd((char *[]){ py, "-c", "pass", NULL }, &prss, 0);
		free(py);
	}
	printf("  kiln peak RSS:       %8ld KiB\n", rss);
	printf("  python3 -c pass RSS: %8ld KiB\n", prss);
	row("kiln peak RSS during a run", (double)rss, "KiB", "python3 -c pass", (double)prss, "<= 4096 KiB", rss <= 4096);

	char *db = xasprintf("%s/true.kiln.db", dir);
	rm_rf(dir);
	free(db);
	free(cfg);
	free(kiln);
	return 0;
}
