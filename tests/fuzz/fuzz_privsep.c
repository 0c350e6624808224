/*
 * fuzz_privsep.c - libFuzzer target for the monitor's side of the privsep
 * channel (src/privsep-monitor.c): any bytes a compromised collector could
 * send must end in records within the bounds or a violation, never a crash,
 * a leak, or a record outside the bounds.  The first byte chooses whether
 * logs are kept (into a scratch folder, emptied as it goes).
 */
#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "privsep.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int logs_dir(void)
{
	static int fd = -1;
	if (fd < 0) {
		char t[] = "/tmp/kiln-fuzz-privsep.XXXXXX";
		if (mkdtemp(t))
			fd = open(t, O_RDONLY | O_DIRECTORY);
	}
	return fd;
}

static void empty(int dfd)
{
	int fd = dup(dfd);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *de;
	while (d && (de = readdir(d)))
		if (de->d_name[0] != '.')
			unlinkat(dfd, de->d_name, 0);
	if (d)
		closedir(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	struct ps_request rq;
	memset(&rq, 0, sizeof(rq));
	rq.keep_log = data[0] & 1;
	rq.b.bytes = 1 << 20;
	rq.b.log_bytes = 4096;
	rq.b.records = 64;
	rq.b.names = 8;
	rq.b.iterations = 16;
	rq.b.timeout_s = 1;
	int lfd = rq.keep_log ? logs_dir() : -1;
	struct ps_result r;
	ps_monitor_feed(&rq, lfd, data + 1, size - 1, &r);
	if (r.recs.n > rq.b.records || r.recs.names.n > rq.b.names || r.log_bytes > rq.b.log_bytes)
		abort();
	for (size_t i = 0; i < r.recs.n; i++) {
		const struct kiln_rec *x = &r.recs.v[i];
		if (!x->name || !*x->name || (x->kind == REC_ITER && (x->iter < 0 || x->iter >= rq.b.iterations)) ||
		    (x->kind != REC_EVENT && !isfinite(x->value)) ||
		    (x->kind == REC_EVENT && (x->start_ns < 0 || x->end_ns < x->start_ns)))
			abort();
	}
	ps_result_release(&r);
	if (lfd >= 0)
		empty(lfd);
	return 0;
}
