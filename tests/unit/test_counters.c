/*
 * test_counters.c - libkiln's counters (lib/counters.c) against the real
 * kernel: the unavailable path (a hardware counter this VM lacks, unknown
 * names, the msr PMU through a fake sysfs tree) including what the result
 * stream says about it, and the available path with software events
 * standing in for hardware ones (task-clock across a busy loop, page-faults
 * across fresh pages).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "kiln.h"
#include "stream.h"

/* the reason given for an unavailable counter, or NULL if it is not listed */
static const char *unav_reason(const struct kiln_counters *c, const char *name)
{
	for (int i = 0; i < kiln_counters_unavailable_count(c); i++)
		if (!strcmp(kiln_counters_unavailable_name(c, i), name))
			return kiln_counters_unavailable_reason(c, i);
	return NULL;
}

static int avail_index(const struct kiln_counters *c, const char *name)
{
	size_t l = strlen(name);
	for (int i = 0; i < kiln_counters_count(c); i++) {
		const char *n = kiln_counters_name(c, i);
		if (!strncmp(n, name, l) && (!n[l] || !strcmp(n + l, ":u")))
			return i;
	}
	return -1;
}

static void busy_ms(int ms)
{
	uint64_t end = kiln_clock_ns() + (uint64_t)ms * 1000000u;
	uint64_t x = 0;
	while (kiln_clock_ns() < end)
		for (int i = 0; i < 1000; i++) {
			x += (uint64_t)i;
			__asm__ volatile("" : "+r"(x)); /* keep the loop */
		}
}

static char *slurp_fd(int fd)
{
	static char buf[8192];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	assert_true(n >= 0);
	buf[n] = 0;
	return buf;
}

/* cycles requested on a machine without them: listed unavailable, not counted,
 * named under "unavailable" in the stream header, absent from iteration lines */
static void test_unavailable_cycles_in_stream(void **state)
{
	struct kiln_counters *c = kiln_counters_open("cycles,task-clock");
	assert_non_null(c);
	if (avail_index(c, "cycles") >= 0) {
		kiln_counters_close(c);
		skip(); /* this machine has cycles: the path is not reachable here */
	}
	assert_int_equal(kiln_counters_count(c), 1);
	assert_int_equal(avail_index(c, "task-clock"), 0);
	assert_int_equal(kiln_counters_unavailable_count(c), 1);
	const char *why = unav_reason(c, "cycles");
	assert_non_null(why);
	assert_true(strstr(why, "ENOENT") || strstr(why, "EOPNOTSUPP") || strstr(why, "EACCES") ||
		    strstr(why, "EPERM") || strstr(why, "ENODEV"));

	char path[] = "/tmp/kiln-test-stream.XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	unlink(path);
	int keep = dup(fd);
	struct kiln_stream *s = kiln_stream_open(fd, c);
	assert_non_null(s);
	uint64_t a[32], b[32], d[32];
	kiln_counters_read(c, a);
	busy_ms(2);
	kiln_counters_read(c, b);
	d[0] = b[0] - a[0];
	assert_int_equal(kiln_stream_iter(s, 0, 12345, d), 0);
	assert_int_equal(kiln_stream_done(s), 0);

	char *text = slurp_fd(keep);
	close(keep);
	char *nl = strchr(text, '\n');
	assert_non_null(nl);
	*nl = 0;
	json_error_t je;
	json_t *h = json_loads(text, 0, &je);
	assert_non_null(h);
	json_t *cs = json_object_get(h, "counters"), *un = json_object_get(h, "unavailable");
	assert_int_equal(json_array_size(cs), 1);
	assert_string_equal(json_string_value(json_array_get(cs, 0)), kiln_counters_name(c, 0));
	assert_int_equal(json_array_size(un), 1);
	assert_string_equal(json_string_value(json_array_get(un, 0)), "cycles");
	json_decref(h);

	char *line2 = nl + 1;
	nl = strchr(line2, '\n');
	assert_non_null(nl);
	*nl = 0;
	json_t *it = json_loads(line2, 0, &je);
	assert_non_null(it);
	assert_int_equal(json_integer_value(json_object_get(it, "wall_ns")), 12345);
	cs = json_object_get(it, "counters");
	assert_int_equal(json_array_size(cs), 1); /* task-clock only: no value for cycles */
	assert_true(json_integer_value(json_array_get(cs, 0)) > 0);
	json_decref(it);
	assert_string_equal(nl + 1, "{\"done\":true}\n");
	kiln_counters_close(c);
}

/*
 * kiln_stream_iter_at: the window (two kiln_clock_ns reads) and the CPU time
 * go on the line, wall time is their difference, and kiln's own reader
 * (src/stream.c) takes the stream whole; kiln_stream_iter still writes no window
 */
static void test_stream_window(void **state)
{
	(void)state;
	char path[] = "/tmp/kiln-test-stream.XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	unlink(path);
	int keep = dup(fd);
	struct kiln_stream *s = kiln_stream_open(fd, NULL);
	assert_non_null(s);
	/* spin until the process used 2 ms of CPU (5 s at most, however loaded the machine) */
	uint64_t c0 = kiln_cpu_ns(), t0 = kiln_clock_ns();
	while (kiln_cpu_ns() - c0 < 2000000 && kiln_clock_ns() - t0 < 5000000000u)
		busy_ms(1);
	uint64_t t1 = kiln_clock_ns(), c1 = kiln_cpu_ns();
	assert_true(c1 - c0 >= 2000000);
	assert_true(c1 - c0 <= t1 - t0 + 1000000); /* one thread: no more CPU than wall time */
	assert_int_equal(kiln_stream_iter_at(s, 0, t0, t1, (int64_t)(c1 - c0), NULL), 0);
	assert_int_equal(kiln_stream_iter_at(s, 1, t1 + 10, t1 + 5, -1, NULL), -1); /* ends before it starts */
	assert_int_equal(kiln_stream_iter_at(s, 1, t1 + 10, t1 + 15, -1, NULL), 0);
	assert_int_equal(kiln_stream_done(s), 0);
	char *text = slurp_fd(keep);
	close(keep);
	struct stream rd;
	stream_init(&rd, 2);
	stream_feed(&rd, text, strlen(text));
	assert_int_equal(stream_finish(&rd), 0);
	assert_int_equal(rd.windows, 1);
	assert_true((uint64_t)rd.start[0] == t0 && (uint64_t)rd.end[0] == t1);
	assert_true((uint64_t)rd.wall[0] == t1 - t0);
	assert_true((uint64_t)rd.cpu[0] == c1 - c0);
	assert_true(rd.cpu[1] == INT64_MIN); /* -1: not measured, absent */
	assert_int_equal(rd.wall[1], 5);
	assert_int_equal(stream_clock_id(rd.clock), CLOCK_MONOTONIC_RAW);
	stream_release(&rd);
}

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * task-clock across a busy loop grows by the CPU time the loop got, as the
 * scheduler's own account (CLOCK_THREAD_CPUTIME_ID) says, and never by more
 * than the wall time around the reads.  The loop runs for 40 ms of CPU, not
 * of wall time, so a loaded machine does not starve the check.
 */
static void test_task_clock_busy_loop(void **state)
{
	struct kiln_counters *c = kiln_counters_open("task-clock");
	assert_non_null(c);
	assert_int_equal(kiln_counters_unavailable_count(c), 0);
	assert_int_equal(kiln_counters_count(c), 1);
	uint64_t a[1], b[1], e[1], x = 0;
	uint64_t w0 = kiln_clock_ns(), u0 = thread_cpu_ns();
	kiln_counters_read(c, a);
	uint64_t u1 = thread_cpu_ns();
	while (thread_cpu_ns() - u1 < 40000000u)
		for (int i = 0; i < 1000; i++) {
			x += (uint64_t)i;
			__asm__ volatile("" : "+r"(x));
		}
	uint64_t u2 = thread_cpu_ns();
	kiln_counters_read(c, b);
	uint64_t u3 = thread_cpu_ns(), w1 = kiln_clock_ns();
	uint64_t cpu = b[0] - a[0];
	assert_true(cpu >= (u2 - u1) / 10 * 9);
	assert_true(cpu <= (u3 - u0) / 10 * 11 + 200000u);
	assert_true(cpu <= w1 - w0 + 100000u);
	kiln_counters_read(c, e);
	assert_true(e[0] >= b[0]);
	kiln_counters_close(c);
}

/* page-faults counts the first touch of each fresh page */
static void test_page_faults(void **state)
{
	struct kiln_counters *c = kiln_counters_open("page-faults,task-clock");
	assert_non_null(c);
	int pf = avail_index(c, "page-faults");
	assert_true(pf >= 0);
	long psz = sysconf(_SC_PAGESIZE);
	size_t npages = 300;
	char *m = mmap(NULL, npages * (size_t)psz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(m != MAP_FAILED);
	madvise(m, npages * (size_t)psz, MADV_NOHUGEPAGE);
	uint64_t a[2], b[2], d[2];
	kiln_counters_read(c, a);
	for (size_t i = 0; i < npages; i++)
		m[i * (size_t)psz] = 1;
	kiln_counters_read(c, b);
	/* nothing faults between two reads with nothing in between */
	kiln_counters_read(c, d);
	uint64_t faults = b[pf] - a[pf];
	assert_true(faults >= npages);
	assert_true(faults < npages + 64);
	assert_true(d[pf] - b[pf] < 8);
	munmap(m, npages * (size_t)psz);
	kiln_counters_close(c);
}

static void test_bad_names(void **state)
{
	struct kiln_counters *c = kiln_counters_open("nonsense, task-clock,cycles-x,,task-clock");
	assert_non_null(c);
	assert_int_equal(kiln_counters_count(c), 1); /* asked twice, opened once */
	assert_string_equal(unav_reason(c, "nonsense"), "unknown counter");
	assert_string_equal(unav_reason(c, "cycles-x"), "unknown counter");
	assert_int_equal(kiln_counters_unavailable_count(c), 2);
	assert_null(kiln_counters_name(c, 5));
	assert_null(kiln_counters_unavailable_name(c, -1));
	kiln_counters_close(c);

	c = kiln_counters_open("");
	assert_int_equal(kiln_counters_count(c), 0);
	assert_int_equal(kiln_counters_unavailable_count(c), 0);
	kiln_counters_read(c, NULL); /* nothing to read, nothing written */
	kiln_counters_close(c);

	setenv("KILN_COUNTERS", "page-faults,bogus", 1);
	c = kiln_counters_open(NULL);
	unsetenv("KILN_COUNTERS");
	assert_int_equal(kiln_counters_count(c), 1);
	assert_int_equal(avail_index(c, "page-faults"), 0);
	assert_string_equal(unav_reason(c, "bogus"), "unknown counter");
	kiln_counters_close(c);
}

/* ---- the msr PMU through a fake sysfs tree ---- */

static char fake_root[64];

static void put(const char *rel, const char *text)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", fake_root, rel);
	/* make the parent directories */
	for (char *p = path + strlen(fake_root) + 1; (p = strchr(p, '/')); p++) {
		*p = 0;
		mkdir(path, 0755);
		*p = '/';
	}
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int fake_setup(void **state)
{
	snprintf(fake_root, sizeof(fake_root), "/tmp/kiln-sysfs.XXXXXX");
	if (!mkdtemp(fake_root))
		return -1;
	setenv("KILN_SYSFS_ROOT", fake_root, 1);
	return 0;
}

static int fake_teardown(void **state)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", fake_root);
	unsetenv("KILN_SYSFS_ROOT");
	return system(cmd) == 0 ? 0 : -1;
}

static void test_msr_no_pmu(void **state)
{
	struct kiln_counters *c = kiln_counters_open("aperf,mperf,task-clock");
	assert_int_equal(kiln_counters_count(c), 1);
	const char *why = unav_reason(c, "aperf");
	assert_non_null(why);
	assert_non_null(strstr(why, "no msr PMU"));
	assert_non_null(strstr(unav_reason(c, "mperf"), "no msr PMU"));
	kiln_counters_close(c);
}

static void test_msr_open_fails(void **state)
{
	/* a type number no PMU has: the kernel refuses the open */
	put("sys/bus/event_source/devices/msr/type", "987654\n");
	put("sys/bus/event_source/devices/msr/events/aperf", "event=0x01\n");
	put("sys/bus/event_source/devices/msr/events/mperf", "config=0x02\n");
	struct kiln_counters *c = kiln_counters_open("aperf,mperf,pperf");
	assert_int_equal(kiln_counters_count(c), 0);
	assert_int_equal(kiln_counters_unavailable_count(c), 3);
	const char *why = unav_reason(c, "aperf");
	assert_non_null(why);
	assert_true(strstr(why, "ENOENT") || strstr(why, "EINVAL") || strstr(why, "EACCES"));
	assert_non_null(strstr(unav_reason(c, "mperf"), "cannot parse"));
	assert_non_null(strstr(unav_reason(c, "pperf"), "no pperf event"));
	kiln_counters_close(c);

	put("sys/bus/event_source/devices/msr/type", "msr\n");
	c = kiln_counters_open("aperf");
	assert_non_null(strstr(unav_reason(c, "aperf"), "bad msr PMU type"));
	kiln_counters_close(c);
}

/* the fake tree really drives the open: the real msr type and the real
 * encoding of the TSC, filed under "aperf", count like the TSC */
static void test_msr_fake_tree_opens(void **state)
{
	char type[32] = "", tsc[64] = "";
	FILE *f = fopen("/sys/bus/event_source/devices/msr/type", "r");
	FILE *g = fopen("/sys/bus/event_source/devices/msr/events/tsc", "r");
	int ok = f && g && fgets(type, sizeof(type), f) && fgets(tsc, sizeof(tsc), g);
	if (f)
		fclose(f);
	if (g)
		fclose(g);
	if (!ok)
		skip(); /* no real msr PMU with a tsc event here */
	put("sys/bus/event_source/devices/msr/type", type);
	put("sys/bus/event_source/devices/msr/events/aperf", tsc);
	struct kiln_counters *c = kiln_counters_open("aperf");
	if (kiln_counters_count(c) == 0) {
		/* not permitted to use the msr PMU: still unavailable with a reason */
		assert_non_null(unav_reason(c, "aperf"));
		kiln_counters_close(c);
		skip();
	}
	assert_string_equal(kiln_counters_name(c, 0), "aperf");
	uint64_t a[1], b[1];
	kiln_counters_read(c, a);
	uint64_t t0 = kiln_clock_ns();
	busy_ms(10);
	uint64_t t1 = kiln_clock_ns();
	kiln_counters_read(c, b);
	/* TSC ticks at >= 100 MHz on anything that has one */
	assert_true(b[0] - a[0] > (t1 - t0) / 10);
	kiln_counters_close(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unavailable_cycles_in_stream),
		cmocka_unit_test(test_stream_window),
		cmocka_unit_test(test_task_clock_busy_loop),
		cmocka_unit_test(test_page_faults),
		cmocka_unit_test(test_bad_names),
		cmocka_unit_test_setup_teardown(test_msr_no_pmu, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_msr_open_fails, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_msr_fake_tree_opens, fake_setup, fake_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
