/*
 * fuzz_procfs.c - every doctor check that parses a /proc or /sys text
 * (cpuinfo, cmdline, loadavg, meminfo, a process's stat, THP mode, CPU
 * governors, temperatures) on arbitrary bytes: the input is split on NUL
 * bytes into those files of a fake tree, then platform_doctor() runs.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "platform.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const files[] = {
	"/proc/cpuinfo", "/proc/cmdline", "/proc/loadavg", "/proc/meminfo", "/proc/7/stat",
	"/sys/kernel/mm/transparent_hugepage/enabled", "/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor",
	"/sys/class/thermal/thermal_zone0/temp", "/sys/devices/system/cpu/cpu0/thermal_throttle/core_throttle_count",
	"/proc/sys/kernel/randomize_va_space", "/sys/devices/system/cpu/isolated",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char root[64];
	if (!root[0]) {
		strcpy(root, "/tmp/kiln-fuzz-procfs.XXXXXX");
		if (!mkdtemp(root))
			abort();
		platform_set_root(root);
		for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
			char *p = xasprintf("%s%s", root, files[i]);
			char *d = path_dirname(p);
			mkdir_p(d, 0755);
			free(d);
			free(p);
		}
	}
	const char *s = (const char *)data, *end = s + size;
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		const char *z = s < end ? memchr(s, 0, (size_t)(end - s)) : NULL;
		size_t n = s < end ? (z ? (size_t)(z - s) : (size_t)(end - s)) : 0;
		char *p = xasprintf("%s%s", root, files[i]);
		FILE *f = fopen(p, "w");
		if (f) {
			fwrite(s, 1, n, f);
			fclose(f);
		}
		free(p);
		s = z ? z + 1 : end;
	}
	struct doctor_opts o = { 1e-6, 1, 1 };
	struct pchecks c = PCHECKS_INIT;
	platform_doctor(NULL, &o, &c);
	if (c.n < 10)
		abort();
	pchecks_release(&c);
	return 0;
}
