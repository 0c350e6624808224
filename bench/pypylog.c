/*
 * pypylog.c - PYPYLOG parse throughput against `wc -l`, and the parser's
 * memory at two log sizes.
 *
 *   $O/bench/pypylog [--small MB] [--large MB] [--runs N] [--dir DIR] [--keep]
 *
 * 1. Makes real logs: runs pypy3 with the pypy plugin's runner, instrumented
 *    exactly as the plugin sets it (PYPYLOG=+FILE, profiling mode), on the
 *    bundled Python benchmarks (a 1 MB nursery, the usual size on common
 *    machines, so the GC logs as it normally would).
 * 2. Builds a small and a large log (default 64 and 512 MB) by repeating the
 *    real ones, shifting every timestamp so that the result is one valid log
 *    (nesting intact, time increasing).
 * 3. Times, warm cache, best of N runs (default 7) of each, alternating
 *    the two so that a change in the machine's load hits both, each as a
 *    whole process: this program re-executed as `--parse FILE`
 *    (pypylog_parse_file, the plugin's parse function, into a counting
 *    sink) and `wc -l FILE`.
 * 4. Prints MB/s of both, the ratio (information: the target of >= 0.5x
 *    wc -l is retired, issue 30: 0.39-0.43x on a machine whose wc -l runs
 *    10 GB/s is still far faster than PyPy writes its log), which of the
 *    parser's paths this CPU ran (pypylog_path: avx2, sse2 or portable)
 *    and the parser's peak RSS (ru_maxrss of the --parse process) on the
 *    small and the large log: equal figures mean memory does not grow with
 *    the log.
 * Then a machine-readable line,
 *   pypylog: parse_mbps=.. wc_mbps=.. ratio=.. rss_small_kb=.. rss_large_kb=..
 * and the two figures as "ROW" lines for bench/run.sh (the memory one with
 * its target).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "record.h"
#include "util.h"
#include "../plugins/pypy/pypylog.h"

static int count_emit(void *ctx, const struct kiln_rec *r)
{
	(void)r;
	(*(long *)ctx)++;
	return 0;
}

/* --parse FILE: the measured process */
static int parse_mode(const char *path)
{
	long n = 0;
	struct rec_sink s = { count_emit, &n };
	struct kerr e = KERR_INIT;
	int64_t t0 = mono_ns();
	if (instr_parse_path(pypylog_parse_file, path, &s, &e) < 0) {
		kerr_print(&e);
		return 1;
	}
	printf("%ld %lld\n", n, (long long)(mono_ns() - t0));
	return 0;
}

/* run argv, stdout to `out` (or /dev/null); wall ns and the child's maxrss (KB) */
static int run(char *const argv[], const char *out, int64_t *ns, long *maxrss_kb)
{
	int64_t t0 = mono_ns();
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		int fd = open(out ? out : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd >= 0)
			dup2(fd, 1);
		execvp(argv[0], argv);
		_exit(127);
	}
	int st;
	struct rusage ru;
	if (wait4(pid, &st, 0, &ru) < 0)
		return -1;
	*ns = mono_ns() - t0;
	if (maxrss_kb)
		*maxrss_kb = ru.ru_maxrss;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

/* ---- making the logs ---- */

struct ev {
	uint64_t t;
	const char *rest; /* "{name" or "name}" */
	int len;
};

struct tmpl {
	struct strbuf text;
	struct ev *v;
	size_t n;
	uint64_t span;
};

static int load_tmpl(const char *path, struct tmpl *t)
{
	struct kerr e = KERR_INIT;
	if (read_file(path, &t->text, &e) < 0) {
		kerr_print(&e);
		return -1;
	}
	size_t alloc = 0;
	char *s = t->text.buf, *end = s + t->text.len;
	while (s < end) {
		char *nl = memchr(s, '\n', (size_t)(end - s));
		if (!nl)
			break;
		char *q;
		if (*s == '[') {
			unsigned long long ts = strtoull(s + 1, &q, 16);
			if (*q == ']' && q[1] == ' ') {
				if (t->n == alloc) {
					alloc = alloc ? 2 * alloc : 4096;
					t->v = xrealloc(t->v, alloc * sizeof(*t->v));
				}
				t->v[t->n++] = (struct ev){ ts, q + 2, (int)(nl - q - 2) };
			}
		}
		s = nl + 1;
	}
	if (t->n < 2)
		return -1;
	t->span = t->v[t->n - 1].t - t->v[0].t + 1000;
	return 0;
}

/* repeat the templates, shifted, until `bytes` are written */
static int make_log(const char *path, struct tmpl *ts, int nt, size_t bytes, long *lines)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	setvbuf(f, NULL, _IOFBF, 1 << 20);
	uint64_t base = 0x1000000;
	size_t written = 0;
	*lines = 0;
	for (int k = 0; written < bytes; k = (k + 1) % nt) {
		struct tmpl *t = &ts[k];
		uint64_t first = t->v[0].t;
		for (size_t i = 0; i < t->n; i++) {
			int n = fprintf(f, "[%llx] %.*s\n", (unsigned long long)(t->v[i].t - first + base),
					t->v[i].len, t->v[i].rest);
			written += (size_t)n;
		}
		*lines += (long)t->n;
		base += t->span;
	}
	return fclose(f);
}

/* one real log from pypy3 + runner.py on a benchmark */
static int real_log(const char *root, const char *bench, const char *param, long iters,
		    const char *dir, const char *name)
{
	char *idir = xasprintf("%s/%s.d", dir, name);
	mkdir_p(idir, 0755);
	char *runner = xasprintf("%s/plugins/pypy/runner.py", root);
	char *entry = xasprintf("%s/benchmarks/%s/python/bench.py", root, bench);
	char *plog = xasprintf("+%s/%s", dir, name);
	char *it = xasprintf("%ld", iters);
	pid_t pid = fork();
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);
		dup2(fd, 1);
		dup2(fd, 3); /* the result stream is not needed here */
		setenv("KILN_ITERATIONS", it, 1);
		setenv("KILN_PARAM", param, 1);
		setenv("KILN_INSTR_DIR", idir, 1);
		setenv("KILN_INSTRUMENT", "1", 1);
		setenv("KILN_RESULT_FD", "3", 1);
		setenv("PYPYLOG", plog, 1);
		setenv("PYPY_GC_NURSERY", "1MB", 1);
		execlp("pypy3", "pypy3", runner, entry, (char *)NULL);
		_exit(127);
	}
	int st = 0;
	waitpid(pid, &st, 0);
	/* the calibration goes beside the big logs */
	char *cal = xasprintf("%s/calibration.json", idir), *dst = xasprintf("%s/calibration.json", dir);
	struct strbuf sb = STRBUF_INIT;
	struct kerr e = KERR_INIT;
	if (read_file(cal, &sb, &e) == 0)
		write_file(dst, sb.buf, sb.len, &e);
	sb_release(&sb);
	kerr_release(&e);
	rm_rf(idir);
	free(cal), free(dst), free(idir), free(runner), free(entry), free(plog), free(it);
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

static int64_t best(char *const argv[], int runs, long *rss, const char *out)
{
	int64_t b = -1;
	for (int i = 0; i < runs; i++) {
		int64_t ns;
		if (run(argv, out, &ns, rss) < 0)
			return -1;
		if (b < 0 || ns < b)
			b = ns;
	}
	return b;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--parse"))
		return parse_mode(argv[2]);
	long small_mb = 64, large_mb = 512, runs = 7;
	const char *dir = NULL;
	int keep = 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--small") && i + 1 < argc)
			small_mb = atol(argv[++i]);
		else if (!strcmp(argv[i], "--large") && i + 1 < argc)
			large_mb = atol(argv[++i]);
		else if (!strcmp(argv[i], "--runs") && i + 1 < argc)
			runs = atol(argv[++i]);
		else if (!strcmp(argv[i], "--dir") && i + 1 < argc)
			dir = argv[++i];
		else if (!strcmp(argv[i], "--keep"))
			keep = 1;
		else {
			fprintf(stderr, "usage: pypylog [--small MB] [--large MB] [--runs N] [--dir DIR] [--keep]\n");
			return 2;
		}
	}
	char *pyp = find_in_path("pypy3");
	if (!pyp) {
		printf("pypylog: skipped (pypy3 not installed)\n");
		return 0;
	}
	free(pyp);
	const char *root = getenv("KILN_ROOT");
	if (!root || !*root)
		root = ".";
	char *probe = xasprintf("%s/plugins/pypy/runner.py", root);
	if (!file_exists(probe)) {
		fprintf(stderr, "pypylog: run from the source tree or set KILN_ROOT (%s not found)\n", probe);
		return 2;
	}
	free(probe);
	char tmpdir[] = "/tmp/kiln-bench-pypylog.XXXXXX";
	if (!dir) {
		if (!mkdtemp(tmpdir)) {
			perror("mkdtemp");
			return 1;
		}
		dir = tmpdir;
	}
	mkdir_p(dir, 0755);

	/* real logs from a few benchmarks */
	static const struct { const char *bench, *param; long iters; } src[] = {
		{ "binary_trees", "12", 20 }, { "richards", "20", 20 }, { "nbody", "20000", 20 },
		{ "spectral_norm", "120", 20 }, { "fannkuch_redux", "8", 20 },
	};
	struct tmpl t[ARRAY_SIZE(src)];
	int nt = 0;
	size_t real_bytes = 0;
	for (size_t i = 0; i < ARRAY_SIZE(src); i++) {
		char *name = xasprintf("real-%s.log", src[i].bench);
		char *path = xasprintf("%s/%s", dir, name);
		memset(&t[nt], 0, sizeof(t[nt]));
		if (real_log(root, src[i].bench, src[i].param, src[i].iters, dir, name) == 0 &&
		    load_tmpl(path, &t[nt]) == 0) {
			real_bytes += t[nt].text.len;
			nt++;
		}
		unlink(path);
		free(name);
		free(path);
	}
	if (!nt) {
		fprintf(stderr, "pypylog: pypy3 produced no usable log\n");
		return 1;
	}
	char *small = xasprintf("%s/pypylog-small", dir), *large = xasprintf("%s/pypylog-large", dir);
	long small_lines, large_lines;
	if (make_log(small, t, nt, (size_t)small_mb << 20, &small_lines) < 0 ||
	    make_log(large, t, nt, (size_t)large_mb << 20, &large_lines) < 0) {
		perror("pypylog: writing the logs");
		return 1;
	}
	for (int i = 0; i < nt; i++) {
		sb_release(&t[i].text);
		free(t[i].v);
	}
	struct stat st;
	stat(large, &st);
	double mb = (double)st.st_size / 1e6;
	struct stat ss;
	stat(small, &ss);

	char self[PATH_MAX];
	ssize_t sl = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (sl <= 0)
		return 1;
	self[sl] = '\0';
	char *wc_argv[] = { "wc", "-l", large, NULL };
	char *p_large[] = { self, "--parse", large, NULL };
	char *p_small[] = { self, "--parse", small, NULL };
	long rss_small = 0, rss_large = 0, dummy;

	/* warm the page cache for both, and check the log parses */
	int64_t ns;
	char *out = xasprintf("%s/parse.out", dir);
	if (run(wc_argv, NULL, &ns, &dummy) < 0 || run(p_large, out, &ns, &dummy) < 0) {
		fprintf(stderr, "pypylog: the parser failed on %s\n", large);
		return 1;
	}
	struct strbuf o = STRBUF_INIT;
	struct kerr e = KERR_INIT;
	read_file(out, &o, &e);
	long nrec = atol(sb_str(&o));

	/* alternate the two, so that a change in the machine's load hits both */
	int64_t wc_ns = -1, p_ns = -1;
	for (long i = 0; i < runs; i++) {
		int64_t a = best(wc_argv, 1, &dummy, NULL), b = best(p_large, 1, &rss_large, NULL);
		if (a < 0 || b < 0)
			return 1;
		if (wc_ns < 0 || a < wc_ns)
			wc_ns = a;
		if (p_ns < 0 || b < p_ns)
			p_ns = b;
	}
	best(p_small, 1, &rss_small, NULL);
	if (wc_ns <= 0 || p_ns <= 0)
		return 1;
	double p_mbps = mb / (p_ns / 1e9), wc_mbps = mb / (wc_ns / 1e9);

	printf("PYPYLOG parse throughput (real pypy3 logs, %.1f MB, repeated with shifted timestamps)\n",
	       real_bytes / 1e6);
	printf("  log           : %.1f MB, %.2f M lines, %ld records\n", mb, large_lines / 1e6, nrec);
	printf("  kiln parser   : %8.1f MB/s  (best of %ld: %.3f s, whole process, %s path)\n", p_mbps, runs,
	       p_ns / 1e9, pypylog_path());
	printf("  wc -l         : %8.1f MB/s  (best of %ld: %.3f s)\n", wc_mbps, runs, wc_ns / 1e9);
	printf("  ratio         : %.2fx wc -l (information; the >= 0.5x target is retired)\n", p_mbps / wc_mbps);
	printf("  parser max RSS: %ld KB on %.0f MB, %ld KB on %.0f MB\n", rss_small, ss.st_size / 1e6,
	       rss_large, mb);
	printf("pypylog: parse_mbps=%.1f wc_mbps=%.1f ratio=%.2f rss_small_kb=%ld rss_large_kb=%ld\n",
	       p_mbps, wc_mbps, p_mbps / wc_mbps, rss_small, rss_large);
	/* throughput is information now (its >= 0.5x target is retired); memory keeps its target */
	printf("ROW\tPYPYLOG parse throughput (%s path)\t%.1f MB/s\twc -l\t%.1f MB/s\t%.3f\t- (>= 0.5x retired)\tinfo\n",
	       pypylog_path(), p_mbps, wc_mbps, p_mbps / wc_mbps);
	printf("ROW\tPYPYLOG parser peak RSS, %.0f MB log\t%ld KiB\tthe same, %.0f MB log\t%ld KiB\t%.3f\t"
	       "independent of the size (<= 1.1x)\t%s\n", mb, rss_large, ss.st_size / 1e6, rss_small,
	       rss_small > 0 ? (double)rss_large / (double)rss_small : 0,
	       rss_small > 0 && rss_large <= rss_small * 1.1 ? "PASS" : "MISS");
	if (!keep) {
		unlink(small);
		unlink(large);
		unlink(out);
		char *cal = xasprintf("%s/calibration.json", dir);
		unlink(cal);
		free(cal);
		if (dir == tmpdir)
			rmdir(dir);
	}
	return 0;
}
