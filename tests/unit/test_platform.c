/*
 * test_platform.c - the platform part (src/platform*.c) against fake /sys,
 * /proc and /dev trees built here (KILN_SYSROOT through platform_set_root):
 * each doctor check on good and bad values, the wait for temperature and
 * load, taints from the kernel log (a regular file appended to, and the real
 * /dev/kmsg), throttle counters and governors, tune/restore including a
 * tuner killed with SIGKILL, reboot-mode pieces, notify, env hash, audit and
 * its diff, dpkg's answers for a VM's files (the real dpkg-query on a dpkg
 * database built here) cached until the database changes, and, as root, the
 * dedicated benchmark user checked from inside the child by the sanity
 * runner.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <pthread.h>
#include <pwd.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "idcache.h"
#include "platform.h"
#include "vmid.h"
#include "vmid-int.h"

static char root[64];

/*
 * A fake sysfs file, replaced at once (written beside, then renamed): a
 * reader polling it from another thread never sees it empty, as it never
 * sees a real sysfs file half-written.
 */
static void put(const char *path, const char *text)
{
	char *full = xasprintf("%s%s", root, path);
	char *tmp = xasprintf("%s.tmp", full);
	char *dir = path_dirname(full);
	assert_int_equal(mkdir_p(dir, 0755), 0);
	FILE *f = fopen(tmp, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	assert_int_equal(rename(tmp, full), 0);
	free(dir);
	free(tmp);
	free(full);
}

static void append(const char *path, const char *text)
{
	char *full = xasprintf("%s%s", root, path);
	FILE *f = fopen(full, "a");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	free(full);
}

static char *get(const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	char *full = xasprintf("%s%s", root, path);
	if (read_file(full, &sb, NULL) < 0) {
		free(full);
		sb_release(&sb);
		return NULL;
	}
	free(full);
	while (sb.len && sb.buf[sb.len - 1] == '\n')
		sb.buf[--sb.len] = '\0';
	return sb_detach(&sb);
}

static void assert_file(const char *path, const char *want)
{
	char *v = get(path);
	assert_non_null(v);
	assert_string_equal(v, want);
	free(v);
}

/* a small machine: 2 CPUs, cpufreq, intel_pstate, 2 thermal zones, 1 hwmon */
static void build_tree(void)
{
	put("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", "performance\n");
	put("/sys/devices/system/cpu/cpu1/cpufreq/scaling_governor", "powersave\n");
	put("/sys/devices/system/cpu/cpu0/cpufreq/scaling_available_governors", "performance powersave\n");
	put("/sys/devices/system/cpu/cpu1/cpufreq/scaling_available_governors", "performance powersave\n");
	put("/sys/devices/system/cpu/cpu0/cpufreq/scaling_driver", "intel_pstate\n");
	put("/sys/devices/system/cpu/cpu1/cpufreq/scaling_driver", "intel_pstate\n");
	put("/sys/devices/system/cpu/intel_pstate/no_turbo", "0\n");
	put("/sys/devices/system/cpu/cpu0/thermal_throttle/core_throttle_count", "0\n");
	put("/sys/devices/system/cpu/cpu1/thermal_throttle/core_throttle_count", "0\n");
	put("/sys/devices/system/cpu/cpu0/thermal_throttle/package_throttle_count", "4\n");
	put("/sys/devices/system/cpu/isolated", "\n");
	put("/sys/class/thermal/thermal_zone0/temp", "45000\n");
	put("/sys/class/thermal/thermal_zone1/temp", "52500\n");
	put("/sys/class/hwmon/hwmon0/temp1_input", "40000\n");
	put("/sys/kernel/mm/transparent_hugepage/enabled", "[always] madvise never\n");
	put("/proc/sys/kernel/randomize_va_space", "2\n");
	put("/proc/sys/kernel/perf_event_paranoid", "2\n");
	put("/proc/sys/kernel/perf_event_max_sample_rate", "100000\n");
	put("/proc/cmdline", "BOOT_IMAGE=/vmlinuz root=/dev/sda1 quiet\n");
	put("/proc/cpuinfo", "processor\t: 0\nmodel name\t: Fake CPU 9000\nflags\t\t: fpu sse2\n\n"
			     "processor\t: 1\nmodel name\t: Fake CPU 9000\nflags\t\t: fpu sse2\n");
	put("/proc/loadavg", "0.10 0.20 0.30 1/100 4242\n");
	put("/proc/meminfo", "MemTotal:       16384000 kB\nMemAvailable:    8192000 kB\nSwapTotal:       2097152 kB\n");
	put("/proc/1/stat", "1 (init) S 0 1 1 0 -1 4194560 100 0 0 0 50 20 0 0 20 0 1 0 1 0 0\n");
	put("/dev/kmsg", "6,1,100,-;Linux version 6.1 (fake)\n");
}

static int setup(void **state)
{
	(void)state;
	strcpy(root, "/tmp/kiln-plat.XXXXXX");
	assert_non_null(mkdtemp(root));
	platform_set_root(root);
	char *st = xasprintf("%s/state/tune-state.json", root);
	setenv("KILN_TUNE_STATE", st, 1);
	free(st);
	build_tree();
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	/* the test user must not outlive a failed test */
	if (getpwnam("kiln-test-bench")) {
		char *argv[] = { "userdel", "kiln-test-bench", NULL };
		struct exec_result r = { 0 };
		exec_simple(argv, 30, &r, NULL);
		exec_result_release(&r);
	}
	platform_set_root(NULL);
	rm_rf(root);
	unsetenv("KILN_TUNE_STATE");
	return 0;
}

static const struct doctor_opts quick = { .busy_sample_s = 0.01, .no_counters = 1, .no_detect_virt = 1 };

static const struct pcheck *doctor_find(struct pchecks *c, const struct experiment *ex, const char *name)
{
	pchecks_release(c);
	platform_doctor(ex, &quick, c);
	const struct pcheck *k = pchecks_find(c, name);
	assert_non_null(k);
	return k;
}

/* ---- root path ---- */

static void test_root_path(void **state)
{
	(void)state;
	char *p = platform_path("/proc/cmdline");
	char *want = xasprintf("%s/proc/cmdline", root);
	assert_string_equal(p, want);
	free(p);
	free(want);
	platform_set_root("/x/y/");
	p = platform_path("/sys/a");
	assert_string_equal(p, "/x/y/sys/a");
	free(p);
	platform_set_root(NULL);
	setenv("KILN_SYSROOT", "/env/root", 1);
	p = platform_path("/dev/kmsg");
	assert_string_equal(p, "/env/root/dev/kmsg");
	free(p);
	unsetenv("KILN_SYSROOT");
	p = platform_path("/dev/kmsg");
	assert_string_equal(p, "/dev/kmsg");
	free(p);
	platform_set_root(root);
}

/* ---- doctor checks ---- */

static void test_doctor_governor_turbo(void **state)
{
	(void)state;
	struct pchecks c = PCHECKS_INIT;
	struct experiment ex;
	memset(&ex, 0, sizeof(ex));
	platform_conf_defaults(&ex.platform);
	const struct pcheck *k = doctor_find(&c, &ex, "governor");
	assert_int_equal(k->state, PS_WARN);
	assert_non_null(strstr(k->value, "1 of 2 CPUs not on performance"));
	assert_non_null(strstr(k->value, "cpu1=powersave"));
	assert_non_null(k->fix);
	ex.platform.governor = CHECK_REQUIRE;
	k = doctor_find(&c, &ex, "governor");
	assert_int_equal(k->state, PS_FAIL);
	assert_int_equal(pchecks_worst(&c), PS_FAIL);
	put("/sys/devices/system/cpu/cpu1/cpufreq/scaling_governor", "performance\n");
	k = doctor_find(&c, &ex, "governor");
	assert_int_equal(k->state, PS_OK);
	/*
	 * CPU 2 offline (SMT off): its cpufreq link stays, its policy is
	 * inactive and a read of its governor fails (EBUSY; a folder here)
	 */
	char *g2 = xasprintf("%s/sys/devices/system/cpu/cpu2/cpufreq/scaling_governor", root);
	assert_int_equal(mkdir_p(g2, 0755), 0);
	put("/sys/devices/system/cpu/online", "0-1\n");
	k = doctor_find(&c, &ex, "governor");
	assert_int_equal(k->state, PS_OK);
	assert_non_null(strstr(k->value, "cpu2=offline"));
	/* online and unreadable: that is not performance */
	put("/sys/devices/system/cpu/online", "0-2\n");
	k = doctor_find(&c, &ex, "governor");
	assert_int_equal(k->state, PS_FAIL);
	assert_non_null(strstr(k->value, "1 of 3 CPUs not on performance"));
	put("/sys/devices/system/cpu/online", "0-1\n");
	put("/sys/devices/system/cpu/cpu1/cpufreq/scaling_governor", "powersave\n");
	k = doctor_find(&c, &ex, "governor");
	assert_non_null(strstr(k->value, "1 of 2 CPUs not on performance"));
	put("/sys/devices/system/cpu/cpu1/cpufreq/scaling_governor", "performance\n");
	free(g2);
	g2 = xasprintf("%s/sys/devices/system/cpu/cpu2", root);
	rm_rf(g2);
	free(g2);

	k = doctor_find(&c, NULL, "scaling-driver");
	assert_int_equal(k->state, PS_OK);
	assert_string_equal(k->value, "intel_pstate");

	k = doctor_find(&c, NULL, "turbo");
	assert_int_equal(k->state, PS_WARN);
	put("/sys/devices/system/cpu/intel_pstate/no_turbo", "1\n");
	k = doctor_find(&c, NULL, "turbo");
	assert_int_equal(k->state, PS_OK);
	/* without intel_pstate, cpufreq/boost speaks */
	char *f = xasprintf("%s/sys/devices/system/cpu/intel_pstate/no_turbo", root);
	unlink(f);
	free(f);
	put("/sys/devices/system/cpu/cpufreq/boost", "1\n");
	k = doctor_find(&c, NULL, "turbo");
	assert_int_equal(k->state, PS_WARN);
	assert_non_null(strstr(k->value, "cpufreq/boost=1"));
	f = xasprintf("%s/sys/devices/system/cpu/cpufreq/boost", root);
	unlink(f);
	free(f);
	k = doctor_find(&c, NULL, "turbo");
	assert_int_equal(k->state, PS_UNAVAILABLE);
	/* no cpufreq at all: unavailable, not ok */
	f = xasprintf("%s/sys/devices/system/cpu/cpu0/cpufreq", root);
	rm_rf(f);
	free(f);
	f = xasprintf("%s/sys/devices/system/cpu/cpu1/cpufreq", root);
	rm_rf(f);
	free(f);
	k = doctor_find(&c, NULL, "governor");
	assert_int_equal(k->state, PS_UNAVAILABLE);
	pchecks_release(&c);
}

static void test_doctor_sensors(void **state)
{
	(void)state;
	struct pchecks c = PCHECKS_INIT;
	const struct pcheck *k = doctor_find(&c, NULL, "temperature");
	assert_int_equal(k->state, PS_OK);
	assert_non_null(strstr(k->value, "3 sensors, hottest 52.5"));
	k = doctor_find(&c, NULL, "throttling");
	assert_int_equal(k->state, PS_WARN);
	assert_non_null(strstr(k->value, "3 throttle counters, total 4"));
	char *f = xasprintf("%s/sys/class", root);
	rm_rf(f);
	free(f);
	k = doctor_find(&c, NULL, "temperature");
	assert_int_equal(k->state, PS_UNAVAILABLE);
	/* required but impossible: a fail, as the run would refuse to start */
	struct experiment ex;
	memset(&ex, 0, sizeof(ex));
	platform_conf_defaults(&ex.platform);
	ex.platform.temperature = CHECK_REQUIRE;
	k = doctor_find(&c, &ex, "temperature");
	assert_int_equal(k->state, PS_FAIL);
	pchecks_release(&c);
}

static void *burn_ticks(void *arg)
{
	(void)arg;
	usleep(50000);
	/* 25 more ticks of utime+stime during a 0.25 s sample: about 100% at 100 Hz */
	put("/proc/77/stat", "77 (busy (x) y) R 1 77 77 0 -1 0 0 0 0 0 125 0 0 0 20 0 1 0 1 0 0\n");
	return NULL;
}

static void test_doctor_busy(void **state)
{
	(void)state;
	if (sysconf(_SC_CLK_TCK) != 100)
		skip();
	put("/proc/77/stat", "77 (busy (x) y) R 1 77 77 0 -1 0 0 0 0 0 100 0 0 0 20 0 1 0 1 0 0\n");
	struct doctor_opts o = { .busy_sample_s = 0.25, .no_counters = 1, .no_detect_virt = 1 };
	struct pchecks c = PCHECKS_INIT;
	pthread_t th;
	pthread_create(&th, NULL, burn_ticks, NULL);
	platform_doctor(NULL, &o, &c);
	pthread_join(th, NULL);
	const struct pcheck *k = pchecks_find(&c, "load");
	assert_int_equal(k->state, PS_WARN);
	assert_non_null(strstr(k->value, "busy: busy (x) y[77] 100%"));
	/* init, whose ticks did not move, is not listed */
	assert_null(strstr(k->value, "init"));
	pchecks_release(&c);
	/* without sampling (kiln run with the load check off): those running now, and no wait; */
	/* on a quiet machine (only the reader runnable, /proc/loadavg says) no process is read */
	o.busy_now = 1;
	platform_doctor(NULL, &o, &c);
	k = pchecks_find(&c, "load");
	assert_int_equal(k->state, PS_OK);
	assert_non_null(strstr(k->value, "no other running process"));
	pchecks_release(&c);
	put("/proc/loadavg", "0.10 0.20 0.30 2/100 4242\n");
	int64_t t0 = mono_ns();
	platform_doctor(NULL, &o, &c);
	assert_true(mono_ns() - t0 < 200000000);
	k = pchecks_find(&c, "load");
	assert_int_equal(k->state, PS_WARN);
	assert_non_null(strstr(k->value, "running now: busy (x) y[77]"));
	pchecks_release(&c);
}

static void test_doctor_system(void **state)
{
	(void)state;
	struct pchecks c = PCHECKS_INIT;
	struct experiment ex;
	memset(&ex, 0, sizeof(ex));
	platform_conf_defaults(&ex.platform);

	const struct pcheck *k = doctor_find(&c, &ex, "aslr");
	assert_int_equal(k->state, PS_WARN);
	ex.platform.aslr = ASLR_OFF;
	k = doctor_find(&c, &ex, "aslr");
	assert_int_equal(k->state, PS_OK);
	/* aslr: on where the system has it off: no pexec gets it */
	put("/proc/sys/kernel/randomize_va_space", "0\n");
	k = doctor_find(&c, &ex, "aslr");
	assert_int_equal(k->state, PS_OK);
	ex.platform.aslr = ASLR_ON;
	k = doctor_find(&c, &ex, "aslr");
	assert_int_equal(k->state, PS_WARN);
	assert_non_null(strstr(k->value, "aslr: on cannot turn it on"));
	put("/proc/sys/kernel/randomize_va_space", "2\n");
	k = doctor_find(&c, &ex, "aslr");
	assert_int_equal(k->state, PS_OK);
	ex.platform.aslr = ASLR_OFF;

	k = doctor_find(&c, &ex, "isolcpus");
	assert_int_equal(k->state, PS_WARN);
	put("/proc/cmdline", "root=/dev/sda1 isolcpus=1 nohz_full=1 -- isolcpus=9\n");
	put("/sys/devices/system/cpu/isolated", "1\n");
	k = doctor_find(&c, &ex, "isolcpus");
	assert_int_equal(k->state, PS_OK);
	assert_non_null(strstr(k->value, "isolated CPUs 1, nohz_full=1"));
	/* pexecs pinned off the isolated CPUs: their isolation does nothing for them */
	sv_push(&ex.platform.pin_cpus, "0-1");
	k = doctor_find(&c, &ex, "isolcpus");
	assert_int_equal(k->state, PS_WARN);
	assert_non_null(strstr(k->value, "pin_cpus has CPU 0, which is not isolated"));
	sv_clear(&ex.platform.pin_cpus);
	sv_push(&ex.platform.pin_cpus, "1");
	k = doctor_find(&c, &ex, "isolcpus");
	assert_int_equal(k->state, PS_OK);
	sv_clear(&ex.platform.pin_cpus);

	k = doctor_find(&c, &ex, "thp");
	assert_int_equal(k->state, PS_WARN);
	put("/sys/kernel/mm/transparent_hugepage/enabled", "always [madvise] never\n");
	k = doctor_find(&c, &ex, "thp");
	assert_int_equal(k->state, PS_OK);
	assert_non_null(strstr(k->value, "madvise"));

	k = doctor_find(&c, &ex, "swap");
	assert_int_equal(k->state, PS_WARN);
	assert_non_null(strstr(k->value, "2048 MiB"));
	k = doctor_find(&c, &ex, "memory");
	assert_int_equal(k->state, PS_OK);
	ex.limits.address_space_mb = 10000; /* more than the 8000 MiB available */
	k = doctor_find(&c, &ex, "memory");
	assert_int_equal(k->state, PS_FAIL);
	assert_non_null(strstr(k->value, "8000 MiB available"));

	k = doctor_find(&c, &ex, "load");
	assert_int_equal(k->state, PS_OK);
	put("/proc/loadavg", "3.50 2.00 1.00 3/100 4242\n");
	k = doctor_find(&c, &ex, "load");
	assert_int_equal(k->state, PS_WARN);
	ex.platform.load = CHECK_REQUIRE;
	k = doctor_find(&c, &ex, "load");
	assert_int_equal(k->state, PS_FAIL);
	assert_non_null(strstr(k->value, "load 3.50"));

	k = doctor_find(&c, &ex, "kmsg");
	assert_int_equal(k->state, PS_OK);

	k = doctor_find(&c, &ex, "virtualization");
	assert_int_equal(k->state, PS_OK);
	put("/sys/class/dmi/id/sys_vendor", "QEMU\n");
	k = doctor_find(&c, &ex, "virtualization");
	assert_int_equal(k->state, PS_WARN);
	assert_non_null(strstr(k->value, "dmi QEMU"));
	put("/sys/class/dmi/id/sys_vendor", "Dell Inc.\n");
	put("/proc/cpuinfo", "processor\t: 0\nflags\t\t: fpu hypervisor sse2\n");
	k = doctor_find(&c, &ex, "virtualization");
	assert_int_equal(k->state, PS_WARN);
	assert_non_null(strstr(k->value, "cpuinfo flag hypervisor"));

	k = doctor_find(&c, &ex, "tune-state");
	assert_int_equal(k->state, PS_OK);

	json_t *j = pchecks_json(&c);
	assert_int_equal(json_array_size(j), c.n);
	assert_string_equal(json_string_value(json_object_get(json_array_get(j, 0), "state")),
			    pstate_name(c.v[0].state));
	json_decref(j);
	pchecks_release(&c);
}

/* ---- during a run ---- */

static void run_conf(struct platform_conf *pc)
{
	platform_conf_defaults(pc);
	pc->temp_tolerance_c = 2;
	pc->temp_wait_max_s = 0.3;
	pc->sync = 0;
}

static void test_run_temperature_wait(void **state)
{
	(void)state;
	struct platform_conf pc;
	run_conf(&pc);
	struct platform p;
	struct kerr e = KERR_INIT;
	struct strbuf log = STRBUF_INIT;
	assert_int_equal(platform_open(&p, &pc, &e), 0);
	p.poll_s = 0.02;
	assert_int_equal(p.temp_paths.n, 3);
	assert_int_equal(platform_before_pexec(&p, &log, &e), 0);
	/* 1.5 °C warmer is within the tolerance */
	put("/sys/class/thermal/thermal_zone0/temp", "46500\n");
	assert_int_equal(platform_before_pexec(&p, &log, &e), 0);
	/* 5 °C warmer: waits 0.3 s, then gives up with a warning */
	put("/sys/class/thermal/thermal_zone0/temp", "50000\n");
	int64_t t0 = mono_ns();
	assert_int_equal(platform_before_pexec(&p, &log, &e), 1);
	double waited = (mono_ns() - t0) / 1e9;
	assert_true(waited >= 0.3 && waited < 2);
	assert_non_null(strstr(log.buf, "still too hot"));
	assert_non_null(strstr(log.buf, "thermal_zone0/temp is 50.0 °C, start was 45.0 °C"));
	platform_close(&p);
	/* require: the same is an error */
	pc.temperature = CHECK_REQUIRE;
	put("/sys/class/thermal/thermal_zone0/temp", "45000\n");
	assert_int_equal(platform_open(&p, &pc, &e), 0);
	p.poll_s = 0.02;
	put("/sys/class/thermal/thermal_zone0/temp", "50000\n");
	assert_int_equal(platform_before_pexec(&p, &log, &e), -1);
	assert_non_null(strstr(e.msg.buf, "too hot"));
	platform_close(&p);
	/* require without any sensor: refused at the start */
	char *f = xasprintf("%s/sys/class", root);
	rm_rf(f);
	free(f);
	assert_int_equal(platform_open(&p, &pc, &e), -1);
	assert_non_null(strstr(e.msg.buf, "no readable temperature sensor"));
	platform_close(&p);
	sb_release(&log);
	kerr_release(&e);
}

/* a sensor whose read fails (EIO, ENODATA on real machines; a folder here) */
static void sensor_unreadable(const char *path)
{
	char *f = xasprintf("%s%s", root, path);
	assert_int_equal(unlink(f), 0);
	assert_int_equal(mkdir(f, 0755), 0);
	free(f);
}

/* one sensor that cannot be read leaves the others watched, at the start and later */
static void test_run_temperature_bad_sensor(void **state)
{
	(void)state;
	struct platform_conf pc;
	run_conf(&pc);
	pc.temperature = CHECK_REQUIRE;
	struct platform p;
	struct kerr e = KERR_INIT;
	struct strbuf log = STRBUF_INIT;
	/* later: hwmon0 fails its reads, thermal_zone0 is too hot all the same */
	assert_int_equal(platform_open(&p, &pc, &e), 0);
	p.poll_s = 0.02;
	sensor_unreadable("/sys/class/hwmon/hwmon0/temp1_input");
	put("/sys/class/thermal/thermal_zone0/temp", "50000\n");
	assert_int_equal(platform_before_pexec(&p, &log, &e), -1);
	assert_non_null(strstr(e.msg.buf, "thermal_zone0/temp is 50.0 °C"));
	platform_close(&p);
	/* at the start: hwmon0 is left out, the thermal zones are watched */
	put("/sys/class/thermal/thermal_zone0/temp", "45000\n");
	kerr_release(&e);
	assert_int_equal(platform_open(&p, &pc, &e), 0);
	p.poll_s = 0.02;
	assert_int_equal(p.temp_paths.n, 2);
	assert_int_equal(platform_before_pexec(&p, &log, &e), 0);
	put("/sys/class/thermal/thermal_zone1/temp", "60000\n");
	assert_int_equal(platform_before_pexec(&p, &log, &e), -1);
	assert_non_null(strstr(e.msg.buf, "thermal_zone1/temp is 60.0 °C, start was 52.5 °C"));
	platform_close(&p);
	sb_release(&log);
	kerr_release(&e);
}

static void *cool_down(void *arg)
{
	(void)arg;
	usleep(150000);
	put("/sys/class/thermal/thermal_zone1/temp", "52000\n");
	return NULL;
}

static void test_run_temperature_cools(void **state)
{
	(void)state;
	struct platform_conf pc;
	run_conf(&pc);
	pc.temp_wait_max_s = 10;
	struct platform p;
	struct kerr e = KERR_INIT;
	struct strbuf log = STRBUF_INIT;
	assert_int_equal(platform_open(&p, &pc, &e), 0);
	p.poll_s = 0.02;
	put("/sys/class/thermal/thermal_zone1/temp", "60000\n");
	pthread_t th;
	int64_t t0 = mono_ns();
	pthread_create(&th, NULL, cool_down, NULL);
	assert_int_equal(platform_before_pexec(&p, &log, &e), 0);
	pthread_join(th, NULL);
	double waited = (mono_ns() - t0) / 1e9;
	assert_true(waited >= 0.14 && waited < 5);
	assert_non_null(strstr(log.buf, "back within 2.0 °C of the start"));
	platform_close(&p);
	sb_release(&log);
	kerr_release(&e);
}

static void test_run_load(void **state)
{
	(void)state;
	struct platform_conf pc;
	run_conf(&pc);
	pc.temperature = CHECK_OFF;
	pc.load = CHECK_WARN; /* off by default: opt in */
	pc.load_max = 1.0;
	struct platform p;
	struct kerr e = KERR_INIT;
	struct strbuf log = STRBUF_INIT;
	assert_int_equal(platform_open(&p, &pc, &e), 0);
	p.poll_s = 0.02;
	assert_int_equal(platform_before_pexec(&p, &log, &e), 0);
	put("/proc/loadavg", "2.50 2.00 1.00 3/100 4242\n");
	assert_int_equal(platform_before_pexec(&p, &log, &e), 1);
	assert_non_null(strstr(log.buf, "1-minute load 2.50 above 1.00"));
	p.conf.load = CHECK_REQUIRE;
	assert_int_equal(platform_before_pexec(&p, &log, &e), -1);
	p.conf.load = CHECK_OFF;
	assert_int_equal(platform_before_pexec(&p, &log, &e), 0);
	platform_close(&p);
	sb_release(&log);
	kerr_release(&e);
}

static void test_run_taint(void **state)
{
	(void)state;
	struct platform_conf pc;
	run_conf(&pc);
	sv_push(&pc.kmsg_allow, "^mydriver: ");
	struct platform p;
	struct kerr e = KERR_INIT;
	struct strbuf log = STRBUF_INIT, why = STRBUF_INIT;
	append("/dev/kmsg", "3,2,200,-;BUG: before the run, not ours\n");
	assert_int_equal(platform_open(&p, &pc, &e), 0);
	assert_true(p.kmsg_is_file);

	/* nothing happened */
	assert_int_equal(platform_before_pexec(&p, &log, &e), 0);
	assert_int_equal(platform_after_pexec(&p, &why), 0);
	assert_int_equal(why.len, 0);

	/* allowed lines only: built-in and configured */
	assert_int_equal(platform_before_pexec(&p, &log, &e), 0);
	append("/dev/kmsg", "5,3,300,-;audit: type=1400 apparmor=\"ALLOWED\"\n"
			    "6,4,400,-;mydriver: link up\n SUBSYSTEM=net\n"
			    "6,5,500,-;eth0: renamed from veth1234\n");
	assert_int_equal(platform_after_pexec(&p, &why), 0);
	assert_int_equal(why.len, 0);

	/* a line outside the allow-list */
	assert_int_equal(platform_before_pexec(&p, &log, &e), 0);
	append("/dev/kmsg", "4,6,600,-;watchdog: BUG: soft lockup - CPU#1 stuck for 22s!\n");
	assert_int_equal(platform_after_pexec(&p, &why), 1);
	assert_non_null(strstr(why.buf, "kernel log: watchdog: BUG: soft lockup"));

	/* what came before a pexec is not held against it */
	append("/dev/kmsg", "4,7,700,-;BUG: between pexecs\n");
	sb_reset(&why);
	assert_int_equal(platform_before_pexec(&p, &log, &e), 0);
	assert_int_equal(platform_after_pexec(&p, &why), 0);

	/* throttle counter change */
	assert_int_equal(platform_before_pexec(&p, &log, &e), 0);
	put("/sys/devices/system/cpu/cpu1/thermal_throttle/core_throttle_count", "3\n");
	assert_int_equal(platform_after_pexec(&p, &why), 1);
	assert_non_null(strstr(why.buf, "thermal throttling: /sys/devices/system/cpu/cpu1/thermal_throttle/core_throttle_count went from 0 to 3"));

	/* governor change */
	sb_reset(&why);
	assert_int_equal(platform_before_pexec(&p, &log, &e), 0);
	put("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", "ondemand\n");
	assert_int_equal(platform_after_pexec(&p, &why), 1);
	assert_non_null(strstr(why.buf, "governor changed: /sys/devices/system/cpu/cpu0/cpufreq/scaling_governor went from performance to ondemand"));

	/* many lines: three shown, the rest counted */
	sb_reset(&why);
	assert_int_equal(platform_before_pexec(&p, &log, &e), 0);
	for (int i = 0; i < 6; i++)
		append("/dev/kmsg", "4,8,800,-;oops line\n");
	assert_int_equal(platform_after_pexec(&p, &why), 1);
	assert_non_null(strstr(why.buf, "3 more lines"));
	/* the scanner on odd input: no ';', empty lines, continuation, no final newline */
	sb_reset(&why);
	const char odd[] = "no semicolon\n\n ORPHAN=1\n6,1,1,-;\n6,2,2,-;mydriver: fine\n6,3,3,-;last one";
	assert_int_equal(platform_kmsg_scan(&p, odd, sizeof(odd) - 1, &why), 1);
	assert_non_null(strstr(why.buf, "kernel log: last one"));
	assert_int_equal(platform_kmsg_scan(&p, "", 0, &why), 0);

	platform_close(&p);

	/* kmsg off: nothing from the kernel log */
	pc.kmsg = CHECK_OFF;
	assert_int_equal(platform_open(&p, &pc, &e), 0);
	assert_int_equal(platform_before_pexec(&p, &log, &e), 0);
	append("/dev/kmsg", "4,9,900,-;BUG: ignored\n");
	sb_reset(&why);
	assert_int_equal(platform_after_pexec(&p, &why), 0);
	platform_close(&p);

	/* a bad regex in kmsg_allow names the entry */
	pc.kmsg = CHECK_WARN;
	sv_push(&pc.kmsg_allow, "([unclosed");
	assert_int_equal(platform_open(&p, &pc, &e), -1);
	assert_non_null(strstr(e.msg.buf, "platform.kmsg_allow[1]"));
	platform_close(&p);
	sv_clear(&pc.kmsg_allow);
	sb_release(&log);
	sb_release(&why);
	kerr_release(&e);
}

/* the real /dev/kmsg: a line written to it during a "pexec" taints it */
static void test_run_real_kmsg(void **state)
{
	(void)state;
	if (geteuid() != 0 || access("/dev/kmsg", R_OK | W_OK) < 0)
		skip();
	platform_set_root("");
	struct platform_conf pc;
	platform_conf_defaults(&pc);
	pc.temperature = CHECK_OFF;
	pc.load = CHECK_OFF;
	pc.sync = 0;
	sv_push(&pc.kmsg_allow, "^kiln-test-allowed: ");
	struct platform p;
	struct kerr e = KERR_INIT;
	struct strbuf log = STRBUF_INIT, why = STRBUF_INIT;
	assert_int_equal(platform_open(&p, &pc, &e), 0);
	assert_false(p.kmsg_is_file);
	FILE *k = fopen("/dev/kmsg", "w");
	assert_non_null(k);
	assert_int_equal(platform_before_pexec(&p, &log, &e), 0);
	fputs("<6>kiln-test-allowed: harmless\n", k);
	fflush(k);
	assert_int_equal(platform_after_pexec(&p, &why), 0);
	assert_int_equal(platform_before_pexec(&p, &log, &e), 0);
	fputs("<4>kiln-test: deliberate line from test_platform\n", k);
	fflush(k);
	assert_int_equal(platform_after_pexec(&p, &why), 1);
	assert_non_null(strstr(why.buf, "kernel log: kiln-test: deliberate line from test_platform"));
	fclose(k);
	platform_close(&p);
	sv_clear(&pc.kmsg_allow);
	sb_release(&log);
	sb_release(&why);
	kerr_release(&e);
	platform_set_root(root);
}

/* ---- tune / restore ---- */

static void assert_untuned(void)
{
	assert_file("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", "performance");
	assert_file("/sys/devices/system/cpu/cpu1/cpufreq/scaling_governor", "powersave");
	assert_file("/sys/devices/system/cpu/intel_pstate/no_turbo", "0");
	assert_file("/proc/sys/kernel/perf_event_max_sample_rate", "100000");
}

static void assert_tuned(void)
{
	assert_file("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", "performance");
	assert_file("/sys/devices/system/cpu/cpu1/cpufreq/scaling_governor", "performance");
	assert_file("/sys/devices/system/cpu/intel_pstate/no_turbo", "1");
	assert_file("/proc/sys/kernel/perf_event_max_sample_rate", "1");
}

static void test_tune_restore(void **state)
{
	(void)state;
	struct kerr e = KERR_INIT;
	struct strbuf log = STRBUF_INIT;
	json_t *saved = NULL;
	const char *sp = platform_tune_state_path();
	assert_false(file_exists(sp));
	assert_int_equal(platform_tune(NULL, &saved, &log, &e), 0);
	assert_tuned();
	assert_true(file_exists(sp));
	/* what was saved: three changes (cpu0 already on performance) */
	json_t *vals = json_object_get(saved, "values");
	assert_int_equal(json_array_size(vals), 3);
	assert_string_equal(json_string_value(json_object_get(json_array_get(vals, 0), "value")), "powersave");
	assert_non_null(strstr(log.buf, "cpu1/cpufreq/scaling_governor: powersave -> performance"));
	/* doctor notices the unrestored state */
	struct pchecks c = PCHECKS_INIT;
	assert_int_equal(doctor_find(&c, NULL, "tune-state")->state, PS_WARN);
	pchecks_release(&c);
	/* a second tune refuses: the first one is not restored */
	json_t *again = NULL;
	assert_int_equal(platform_tune(NULL, &again, &log, &e), -1);
	assert_non_null(strstr(e.msg.buf, "never restored"));
	assert_null(again);
	/* restore from memory */
	assert_int_equal(platform_restore(NULL, saved, &log, &e), 0);
	assert_untuned();
	assert_false(file_exists(sp));
	/* idempotent: nothing left to do */
	sb_reset(&log);
	assert_int_equal(platform_restore(NULL, NULL, &log, &e), 0);
	assert_non_null(strstr(log.buf, "nothing to restore"));
	json_decref(saved);

	/* restore from the state file, and the signal-safe path */
	assert_int_equal(platform_tune(NULL, &saved, &log, &e), 0);
	assert_tuned();
	platform_restore_signal_safe();
	assert_untuned();
	assert_false(file_exists(sp));
	platform_restore_signal_safe(); /* twice: no effect */
	assert_untuned();
	json_decref(saved);

	/* a state file written under another root is refused */
	assert_int_equal(platform_tune(NULL, &saved, &log, &e), 0);
	platform_set_root("/nonexistent-root");
	assert_int_equal(platform_restore(NULL, NULL, &log, &e), -1);
	assert_non_null(strstr(e.msg.buf, "KILN_SYSROOT"));
	platform_set_root(root);
	assert_int_equal(platform_restore(NULL, NULL, &log, &e), 0);
	assert_untuned();
	json_decref(saved);

	/* a garbage state file: a clear error, nothing written */
	char *spdir = path_dirname(sp);
	mkdir_p(spdir, 0755);
	free(spdir);
	FILE *f = fopen(sp, "w");
	fputs("{\"values\": 3", f);
	fclose(f);
	assert_int_equal(platform_restore(NULL, NULL, &log, &e), -1);
	assert_non_null(strstr(e.msg.buf, sp));
	unlink(sp);
	f = fopen(sp, "w");
	fputs("{\"version\":1,\"values\":[{\"path\":\"/etc/passwd\",\"value\":\"x\"}]}", f);
	fclose(f);
	assert_int_equal(platform_restore(NULL, NULL, &log, &e), -1);
	assert_non_null(strstr(e.msg.buf, "bad entry"));
	unlink(sp);

	/* the kiln that tuned still runs (a child here, its pid and start time in the state
	 * file): kiln doctor --restore refuses and doctor says the run is going */
	assert_int_equal(platform_tune(NULL, &saved, &log, &e), 0);
	json_decref(saved);
	pid_t kid = fork();
	if (kid == 0) {
		pause();
		_exit(0);
	}
	char id[32], kst;
	long kpg;
	unsigned long long kstart = 0;
	snprintf(id, sizeof(id), "%ld", (long)kid);
	assert_int_equal(proc_stat(id, &kst, &kpg, &kstart), 0);
	json_t *owned = json_load_file(sp, 0, NULL);
	assert_non_null(owned);
	json_object_set_new(owned, "pid", json_integer(kid));
	json_object_set_new(owned, "start", json_integer((json_int_t)kstart));
	assert_int_equal(json_dump_file(owned, sp, 0), 0);
	assert_int_equal(platform_tune_owner(NULL), (long)kid);
	assert_int_equal(platform_restore(NULL, NULL, &log, &e), -1);
	assert_non_null(strstr(e.msg.buf, "still running"));
	assert_tuned();
	c = (struct pchecks)PCHECKS_INIT;
	assert_int_equal(doctor_find(&c, NULL, "tune-state")->state, PS_OK);
	pchecks_release(&c);
	/* the same pid with another start time is a reused pid: restored */
	json_object_set_new(owned, "start", json_integer((json_int_t)kstart + 1));
	assert_int_equal(json_dump_file(owned, sp, 0), 0);
	assert_int_equal(platform_tune_owner(NULL), 0);
	kill(kid, SIGKILL);
	waitpid(kid, NULL, 0);
	json_decref(owned);
	assert_int_equal(platform_restore(NULL, NULL, &log, &e), 0);
	assert_untuned();
	sb_release(&log);
	kerr_release(&e);
}

/* the tuner dies with SIGKILL right after tuning: the state file restores */
static void test_tune_kill9(void **state)
{
	(void)state;
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		json_t *saved;
		struct strbuf log = STRBUF_INIT;
		if (platform_tune(NULL, &saved, &log, NULL) == 0)
			raise(SIGKILL);
		_exit(3);
	}
	int st;
	waitpid(pid, &st, 0);
	assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	assert_tuned();
	struct kerr e = KERR_INIT;
	struct strbuf log = STRBUF_INIT;
	assert_int_equal(platform_restore(NULL, NULL, &log, &e), 0);
	assert_untuned();
	assert_false(file_exists(platform_tune_state_path()));
	sb_release(&log);
	kerr_release(&e);
}

/* ---- reboot mode ---- */

static void test_reboot(void **state)
{
	(void)state;
	struct kerr e = KERR_INIT;
	char *udir = xasprintf("%s/units", root);
	assert_int_equal(platform_reboot_install(udir, "/usr/local/bin/kiln", "/home/me/my exp.yaml", &e), 0);
	char *unit = get("/units/kiln-reboot.service");
	assert_non_null(unit);
	assert_non_null(strstr(unit, "ExecStart=\"/usr/local/bin/kiln\" run \"/home/me/my exp.yaml\" --reboot\n"));
	assert_non_null(strstr(unit, "WantedBy=multi-user.target"));
	free(unit);
	char *link = xasprintf("%s/multi-user.target.wants/kiln-reboot.service", udir);
	char buf[512];
	ssize_t n = readlink(link, buf, sizeof(buf) - 1);
	assert_true(n > 0);
	buf[n] = '\0';
	assert_non_null(strstr(buf, "/units/kiln-reboot.service"));
	assert_int_equal(platform_reboot_install(udir, "kiln", "/x.yaml", &e), -1);
	assert_int_equal(platform_reboot_remove(udir, &e), 0);
	assert_false(file_exists(link));
	assert_null(get("/units/kiln-reboot.service"));
	assert_int_equal(platform_reboot_remove(udir, &e), 0);

	/* the boot counter stops at its bound */
	char *cnt = xasprintf("%s/boots", root);
	long c = -1;
	assert_int_equal(platform_boot_count(cnt, 2, &c, &e), 0);
	assert_int_equal(c, 1);
	assert_int_equal(platform_boot_count(cnt, 2, &c, &e), 0);
	assert_int_equal(c, 2);
	assert_int_equal(platform_boot_count(cnt, 2, &c, &e), -1);
	assert_non_null(strstr(e.msg.buf, "2 reboots done, the bound is 2"));
	assert_int_equal(platform_boot_reset(cnt), 0);
	assert_int_equal(platform_boot_count(cnt, 2, &c, &e), 0);
	assert_int_equal(c, 1);
	put("/boots", "garbage\n");
	assert_int_equal(platform_boot_count(cnt, 2, &c, &e), -1);
	assert_non_null(strstr(e.msg.buf, "not a boot count"));

	/* the reboot command, simulated */
	struct strvec cmd = STRVEC_INIT;
	sv_push(&cmd, "sh");
	sv_push(&cmd, "-c");
	sv_pushf(&cmd, "echo rebooted > %s/rebooted", root);
	assert_int_equal(platform_reboot(&cmd, &e), 0);
	assert_file("/rebooted", "rebooted");
	sv_clear(&cmd);
	setenv("KILN_REBOOT_CMD", "false", 1);
	assert_int_equal(platform_reboot(NULL, &e), -1);
	assert_non_null(strstr(e.msg.buf, "exited with 1"));
	unsetenv("KILN_REBOOT_CMD");
	free(cnt);
	free(link);
	free(udir);
	kerr_release(&e);
}

/* ---- notify ---- */

static void test_notify(void **state)
{
	(void)state;
	struct platform_conf pc;
	platform_conf_defaults(&pc);
	struct kerr e = KERR_INIT;
	assert_int_equal(platform_notify(&pc, "complete", "nothing configured", &e), 0);
	sv_push(&pc.notify, "sh");
	sv_push(&pc.notify, "-c");
	sv_pushf(&pc.notify, "printf '%%s|%%s' \"$KILN_NOTIFY_EVENT\" \"$KILN_NOTIFY_MESSAGE\" > %s/notified", root);
	assert_int_equal(platform_notify(&pc, "taint", "pexec 3 of fib:lua tainted", &e), 0);
	assert_file("/notified", "taint|pexec 3 of fib:lua tainted");
	sv_clear(&pc.notify);
	sv_push(&pc.notify, "sh");
	sv_push(&pc.notify, "-c");
	sv_push(&pc.notify, "echo no mail server >&2; exit 3");
	assert_int_equal(platform_notify(&pc, "failure", "x", &e), -1);
	assert_non_null(strstr(e.msg.buf, "exited with 3"));
	assert_non_null(strstr(e.msg.buf, "no mail server"));
	sv_clear(&pc.notify);
	kerr_release(&e);
}

/* ---- audit ---- */

static void test_audit(void **state)
{
	(void)state;
	put("/etc/os-release", "NAME=\"Fake\"\nPRETTY_NAME=\"Fake Linux 1.0\"\n");
	struct experiment ex;
	memset(&ex, 0, sizeof(ex));
	platform_conf_defaults(&ex.platform);
	struct vm_conf vm;
	memset(&vm, 0, sizeof(vm));
	vm.name = "sh";
	vm.plugin = "command";
	vm.resolved = "/bin/bash";
	ex.vms = &vm;
	ex.nvms = 1;
	ex.path = "/tmp/x.yaml";
	json_t *vid = vmid_get("/bin/bash", "--version", NULL);
	json_object_set_new(vid, "name", json_string("sh"));
	json_t *a = platform_audit(&ex, &quick, json_pack("[o]", vid));
	assert_string_equal(json_string_value(json_object_get(a, "cpu_model")), "Fake CPU 9000");
	assert_string_equal(json_string_value(json_object_get(a, "distribution")), "Fake Linux 1.0");
	assert_non_null(strstr(json_string_value(json_object_get(a, "cmdline")), "root=/dev/sda1"));
	assert_true(json_is_object(json_object_get(a, "uname")));
	assert_true(json_integer_value(json_object_get(json_object_get(json_object_get(a, "rlimits"), "nofile"), "soft")) > 0);
	assert_true(json_array_size(json_object_get(a, "doctor")) >= 10);
	assert_true(json_array_size(json_object_get(a, "environment")) > 0);
	json_t *v = json_array_get(json_object_get(a, "vms"), 0);
	assert_non_null(strstr(json_string_value(json_object_get(v, "version")), "GNU bash"));
	if (access("/usr/bin/dpkg-query", X_OK) == 0) {
		json_t *pkg = json_object_get(v, "package");
		assert_true(json_is_object(pkg));
		assert_string_equal(json_string_value(json_object_get(pkg, "name")), "bash");
		assert_true(strlen(json_string_value(json_object_get(pkg, "version"))) > 0);
	}

	/* diff: identical, then another kernel, governor and VM version */
	json_t *b = json_deep_copy(a);
	struct strvec lines = STRVEC_INIT;
	assert_int_equal(platform_audit_diff(a, b, &lines), 0);
	json_object_set_new(json_object_get(b, "uname"), "release", json_string("9.9.9-other"));
	json_object_set_new(json_array_get(json_object_get(b, "vms"), 0), "version", json_string("bash 99\nmore"));
	size_t i;
	json_t *c;
	json_array_foreach(json_object_get(b, "doctor"), i, c)
		if (!strcmp(json_string_value(json_object_get(c, "name")), "governor"))
			json_object_set_new(c, "value", json_string("cpu0=powersave"));
	assert_int_equal(platform_audit_diff(a, b, &lines), 3);
	struct strbuf all = STRBUF_INIT;
	for (i = 0; i < lines.n; i++)
		sb_addf(&all, "%s\n", lines.v[i]);
	assert_non_null(strstr(all.buf, "kernel: "));
	assert_non_null(strstr(all.buf, " vs 9.9.9-other\n"));
	assert_non_null(strstr(all.buf, "governor: "));
	assert_non_null(strstr(all.buf, "vm sh version: GNU bash"));
	assert_non_null(strstr(all.buf, " vs bash 99\n"));
	sb_release(&all);
	sv_clear(&lines);
	/* a VM name listed twice (not kiln's writing, a hand-edited file):
	 * the record still equals itself (the fuzzer found it did not) */
	json_array_append_new(json_object_get(b, "vms"), json_pack("{s:s, s:s}", "name", "sh", "version", "other"));
	assert_int_equal(platform_audit_diff(b, b, &lines), 0);
	assert_int_equal(lines.n, 0);
	/*
	 * many VMs, listed in another order on the other side, one of them
	 * another version: that one line, the names matched by a hash (a
	 * file's 100,000 names were 10^10 comparisons)
	 */
	json_t *many_a = json_array(), *many_b = json_array();
	for (int k = 0; k < 20000; k++) {
		char nm[32];
		snprintf(nm, sizeof(nm), "vm%d", k);
		json_array_append_new(many_a, json_pack("{s:s, s:s}", "name", nm, "version", "1"));
		snprintf(nm, sizeof(nm), "vm%d", 19999 - k);
		json_array_append_new(many_b, json_pack("{s:s, s:s}", "name", nm, "version", k == 5 ? "2" : "1"));
	}
	json_t *b2 = json_deep_copy(b);
	json_object_set_new(b, "vms", many_a);
	json_object_set_new(b2, "vms", many_b);
	assert_int_equal(platform_audit_diff(b, b2, &lines), 1);
	json_decref(b2);
	assert_string_equal(lines.v[lines.n - 1], "vm vm19994 version: 1 vs 2");
	sv_clear(&lines);
	json_decref(a);
	json_decref(b);
}

/* ---- dpkg's answers, cached while its database keeps its identity ---- */

/*
 * A dpkg database of the test's own (an admin directory: status, info/PKG.list,
 * diversions), changed as dpkg changes it: the status file written beside and
 * renamed over (a new inode), as dpkg does on every install.
 */
static void db_write(const char *dir, const char *name, const char *text)
{
	char *full = path_join(dir, name);
	char *tmp = xasprintf("%s-new", full);
	FILE *f = fopen(tmp, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(rename(tmp, full), 0);
	free(tmp);
	free(full);
}

static void db_status(const char *dir, const char *pkg, const char *version)
{
	char *s = xasprintf("Package: %s\nStatus: install ok installed\nMaintainer: kiln tests <t@example.org>\n"
			    "Architecture: all\nVersion: %s\nDescription: a package of kiln's tests\n\n",
			    pkg, version);
	db_write(dir, "status", s);
	free(s);
}

/* the files of pkg: its info/pkg.list (the folder listed as dpkg lists it) */
static void db_list(const char *dir, const char *pkg, const char *files)
{
	char *name = xasprintf("info/%s.list", pkg);
	db_write(dir, name, files);
	free(name);
}

static char *db_make(const char *top, const char *name)
{
	char *dir = path_join(top, name);
	char *info = path_join(dir, "info");
	assert_int_equal(mkdir_p(info, 0755), 0);
	db_write(dir, "diversions", "");
	free(info);
	return dir;
}

/*
 * What vmid's lookup says of `path` in the database `admin`: "pkg version"
 * or "none" in *said; returns how many paths dpkg-query was asked about
 * (0: the identity cache answered)
 */
static int dpkg_says(const char *admin, const char *path, char said[128])
{
	struct strvec paths = STRVEC_INIT;
	sv_push(&paths, path);
	json_t *owner = json_object(), *version = json_object();
	int asked = vmid_dpkg_lookup(admin, &paths, owner, version);
	const char *pkg = json_string_value(json_object_get(owner, path));
	const char *ver = pkg ? json_string_value(json_object_get(version, pkg)) : NULL;
	snprintf(said, 128, "%s%s%s", pkg ? pkg : "none", ver ? " " : "", ver ? ver : "");
	json_decref(owner);
	json_decref(version);
	sv_clear(&paths);
	return asked;
}

static void expect_dpkg(const char *admin, const char *path, int asked, const char *want)
{
	char said[128];
	int got = dpkg_says(admin, path, said);
	if (got != asked || strcmp(said, want))
		fail_msg("%s in %s: dpkg-query asked about %d path(s), said \"%s\"; wanted %d, \"%s\"", path, admin,
			 got, said, asked, want);
}

static void test_vmid_dpkg_cache(void **state)
{
	(void)state;
	char *dq = find_in_path("dpkg-query");
	if (!dq)
		skip();
	free(dq);
	/* (KILN_STATE_DIR, set by main, keeps the identity cache in the test's own folder) */
	char top[] = "/tmp/kiln-dpkg.XXXXXX";
	assert_non_null(mkdtemp(top));
	char *files = path_join(top, "files"), *vm = path_join(files, "vm"), *lib = path_join(files, "lib");
	assert_int_equal(mkdir_p(files, 0755), 0);
	db_write(files, "vm", "#!/bin/sh\n");
	db_write(files, "lib", "a library\n");
	char *a = db_make(top, "a");
	char *only_vm = xasprintf("%s\n%s\n", files, vm), *vm_lib = xasprintf("%s\n%s\n%s\n", files, vm, lib);
	db_status(a, "fakevm", "1.0-1");
	db_list(a, "fakevm", only_vm);

	/* asked, then cached: without vm in the list dpkg would say none, the cache still says 1.0-1 */
	expect_dpkg(a, vm, 1, "fakevm 1.0-1");
	expect_dpkg(a, vm, 0, "fakevm 1.0-1");
	db_list(a, "fakevm", files);
	expect_dpkg(a, vm, 0, "fakevm 1.0-1");
	/* another status (dpkg installed something): asked again, the new answer (none, then the new version) */
	db_status(a, "fakevm", "1.0-1");
	expect_dpkg(a, vm, 1, "none");
	db_list(a, "fakevm", only_vm);
	db_status(a, "fakevm", "2.0-1");
	expect_dpkg(a, vm, 1, "fakevm 2.0-1");
	expect_dpkg(a, vm, 0, "fakevm 2.0-1");
	/* kept in the cache's file: another kiln (a fresh cache) has it too */
	idc_save();
	idc_release();
	expect_dpkg(a, vm, 0, "fakevm 2.0-1");

	/* a path no package owns: none, cached (dpkg would now say fakevm), asked again once status changes */
	expect_dpkg(a, lib, 1, "none");
	db_list(a, "fakevm", vm_lib);
	expect_dpkg(a, lib, 0, "none");
	idc_save();
	idc_release();
	expect_dpkg(a, lib, 0, "none");
	db_status(a, "fakevm", "2.0-2");
	expect_dpkg(a, lib, 1, "fakevm 2.0-2");
	expect_dpkg(a, lib, 0, "fakevm 2.0-2");

	/* several paths at once: only those the cache has no answer for are asked */
	struct strvec both = STRVEC_INIT;
	sv_push(&both, vm);
	sv_push(&both, lib);
	json_t *owner = json_object(), *version = json_object();
	assert_int_equal(vmid_dpkg_lookup(a, &both, owner, version), 1);
	assert_string_equal(json_string_value(json_object_get(owner, vm)), "fakevm");
	assert_string_equal(json_string_value(json_object_get(owner, lib)), "fakevm");
	assert_string_equal(json_string_value(json_object_get(version, "fakevm")), "2.0-2");
	json_object_clear(owner);
	json_object_clear(version);
	assert_int_equal(vmid_dpkg_lookup(a, &both, owner, version), 0);
	assert_string_equal(json_string_value(json_object_get(owner, lib)), "fakevm");
	json_decref(owner);
	json_decref(version);
	sv_clear(&both);

	/* the diversions file replaced: asked again */
	db_list(a, "fakevm", only_vm);
	db_write(a, "diversions", "");
	expect_dpkg(a, lib, 1, "none");
	expect_dpkg(a, lib, 0, "none");

	/*
	 * another database: its own answer, not the cached one of the first
	 * (whose files have not changed); the entry is the path's, so the first
	 * is then asked again
	 */
	char *b = db_make(top, "b");
	db_status(b, "othervm", "9");
	db_list(b, "othervm", only_vm);
	expect_dpkg(b, vm, 1, "othervm 9");
	expect_dpkg(a, vm, 1, "fakevm 2.0-2");
	expect_dpkg(a, vm, 0, "fakevm 2.0-2");

	/* no diversions file: no identity to keep an answer by, asked every time */
	char *div = path_join(a, "diversions");
	assert_int_equal(unlink(div), 0);
	expect_dpkg(a, vm, 1, "fakevm 2.0-2");
	expect_dpkg(a, vm, 1, "fakevm 2.0-2");

	idc_release();
	rm_rf(top);
	free(div);
	free(b);
	free(only_vm);
	free(vm_lib);
	free(a);
	free(lib);
	free(vm);
	free(files);
}

/* ---- the dedicated user, checked from inside the child ---- */

static const char *kiln_exe(void)
{
	const char *k = getenv("KILN");
	return k && access(k, X_OK) == 0 ? k : NULL;
}

static void test_user_sanity(void **state)
{
	(void)state;
	if (geteuid() != 0 || !kiln_exe())
		skip();
	char *base = xasprintf("%s/homes", root);
	setenv("KILN_HOME_BASE", base, 1);
	struct kerr e = KERR_INIT;
	struct puser u;
	assert_int_equal(platform_user_ensure("kiln-test-bench", &u, &e), 0);
	assert_true(u.uid != 0);
	assert_int_equal(platform_user_fresh_home(&u, &e), 0);
	char *junk = path_join(u.home, "left-over");
	FILE *f = fopen(junk, "w");
	fclose(f);
	assert_int_equal(platform_user_fresh_home(&u, &e), 0);
	assert_false(file_exists(junk)); /* fresh each pexec */
	free(junk);
	struct stat st;
	assert_int_equal(stat(u.home, &st), 0);
	assert_int_equal(st.st_uid, u.uid);

	/* kiln's results: a root-owned file in a 0755 root-owned dir */
	char *rdir = xasprintf("%s/results", root);
	mkdir(rdir, 0755);
	chmod(root, 0755);
	char *results = xasprintf("%s/exp.kiln.db", rdir);
	f = fopen(results, "w");
	fclose(f);
	chmod(results, 0644);
	char *newfile = xasprintf("%s/new-file", rdir);

	char *env[] = { "PATH=/usr/bin:/bin", "FOO=bar", NULL };
	struct exec_opts o;
	memset(&o, 0, sizeof(o));
	o.envp = env;
	o.aslr = 0;
	o.cpus = "0";
	o.set_nice = 1;
	o.nice = 5;
	/* an ASan-built kiln cannot start under an address-space limit */
#ifndef __SANITIZE_ADDRESS__
	o.rlimit_as_mb = 2048;
#endif
	o.rlimit_stack_mb = 16;
	o.set_user = 1;
	o.uid = u.uid;
	o.gid = u.gid;
	struct sanity_expect x = { .kiln_exe = kiln_exe(), .check_uid = 1, .uid = u.uid, .gid = u.gid,
				   .cpus = "0", .check_nice = 1, .nice = 5, .as_mb = 2048, .stack_mb = 16,
				   .probe = results, .home = u.home };
	x.as_mb = o.rlimit_as_mb;
	json_t *rep = NULL;
	int rc = platform_sanity(&o, &x, &rep, &e);
	if (rc < 0)
		fprintf(stderr, "sanity: %s\n", e.msg.buf);
	assert_int_equal(rc, 0);
	assert_int_equal(json_integer_value(json_object_get(rep, "uid")), u.uid);
	assert_false(json_is_true(json_object_get(json_object_get(rep, "probe"), "writable")));
	assert_true(json_integer_value(json_object_get(rep, "personality")) & ADDR_NO_RANDOMIZE);
	json_decref(rep);
	/* nor create a new file beside the results */
	x.probe = newfile;
	assert_int_equal(platform_sanity(&o, &x, &rep, &e), 0);
	assert_false(file_exists(newfile));
	json_decref(rep);

	/* the check can fail: wrong CPUs and nice expected */
	x.cpus = "0-1";
	x.nice = 3;
	assert_int_equal(platform_sanity(&o, &x, &rep, &e), -1);
	assert_non_null(strstr(e.msg.buf, "allowed CPUs 0, expected 0-1"));
	assert_non_null(strstr(e.msg.buf, "nice 5, expected 3"));
	json_decref(rep);
	/* as root (no user switch), the child could write kiln's results */
	o.set_user = 0;
	x.cpus = "0";
	x.nice = 5;
	x.probe = results;
	assert_int_equal(platform_sanity(&o, &x, &rep, &e), -1);
	assert_non_null(strstr(e.msg.buf, "uid 0/0, expected"));
	assert_non_null(strstr(e.msg.buf, "the benchmark can write"));
	json_decref(rep);
	/* an environment other than the one meant is reported, both ways */
	o.set_user = 1;
	char *env2[] = { "PATH=/usr/bin:/bin", "BAR=1", NULL };
	x.envp = env2;
	assert_int_equal(platform_sanity(&o, &x, &rep, &e), -1);
	assert_non_null(strstr(e.msg.buf, "environment lacks BAR=1"));
	assert_non_null(strstr(e.msg.buf, "environment has extra FOO=bar"));
	json_decref(rep);
	x.envp = NULL;

	platform_user_release(&u);
	unsetenv("KILN_HOME_BASE");
	free(newfile);
	free(results);
	free(rdir);
	free(base);
	kerr_release(&e);
}

static void test_user_bad_name(void **state)
{
	(void)state;
	struct kerr e = KERR_INIT;
	struct puser u;
	assert_int_equal(platform_user_ensure("../etc", &u, &e), -1);
	assert_non_null(strstr(e.msg.buf, "not a valid user name"));
	assert_int_equal(platform_user_ensure("root", &u, &e), -1);
	assert_non_null(strstr(e.msg.buf, "uid 0"));
	kerr_release(&e);
}

int main(void)
{
	/* kiln's state folder (the identity cache) in a folder of the test's own */
	char state[] = "/tmp/kiln-plat-state.XXXXXX";
	if (!mkdtemp(state))
		return 1;
	setenv("KILN_STATE_DIR", state, 1);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_root_path, setup, teardown),
		cmocka_unit_test_setup_teardown(test_doctor_governor_turbo, setup, teardown),
		cmocka_unit_test_setup_teardown(test_doctor_sensors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_doctor_system, setup, teardown),
		cmocka_unit_test_setup_teardown(test_doctor_busy, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_temperature_wait, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_temperature_cools, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_temperature_bad_sensor, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_load, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_taint, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_real_kmsg, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tune_restore, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tune_kill9, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reboot, setup, teardown),
		cmocka_unit_test_setup_teardown(test_notify, setup, teardown),
		cmocka_unit_test_setup_teardown(test_audit, setup, teardown),
		cmocka_unit_test(test_vmid_dpkg_cache),
		cmocka_unit_test_setup_teardown(test_user_sanity, setup, teardown),
		cmocka_unit_test_setup_teardown(test_user_bad_name, setup, teardown),
	};
	int r = cmocka_run_group_tests(tests, NULL, NULL);
	rm_rf(state);
	return r;
}
