/*
 * fakerunner.c - a runner that misbehaves on request, for the end-to-end
 * tests of exec.c and stream.c.  Used through an external plugin:
 *   runner: [build/tests/helpers/fakerunner, MODE, "{iterations}"]
 * Modes:
 *   ok          a correct stream of N iterations of ~1 ms (argv[3]: ns per iteration)
 *   slow        a correct stream, each iteration ~50 ms
 *   garbage     header, two iterations, then a line that is not JSON
 *   early       header and half the iterations, then exit 0 without done
 *   skip        iterations 0, 1, 3 (non-monotonic index)
 *   badvalue    an iteration with a negative wall_ns
 *   flood       1 GiB to stdout, then a correct stream
 *   hang        a correct header, then sleeps forever
 *   grandchild  forks a child that leaves the process group (setsid) and
 *               sleeps forever, then hangs itself
 *   escape      forks a setsid'd grandchild that sleeps, then exits 0 with a correct stream
 *   ignoreterm  ignores SIGTERM and hangs
 *   closefd     closes the result fd after the header, then carries on
 *   nul         writes invalid UTF-8 and NUL bytes to the stream and stdout
 *   crash       correct iterations then SIGSEGV
 *   env         writes its environment to KILN_INSTR_DIR/env.txt, then a correct stream
 *   gated       "ok" (argv[3]: ns per iteration), but before its last line, while the
 *               file argv[4]/KILN_KEY@N (N: KILN_PEXEC as a number) exists, it waits,
 *               having made that file's twin ending in ".held": a pexec a test holds in
 *               flight, however loaded the machine, until it removes the file
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int fd = -1;

static void say(const char *s)
{
	size_t n = strlen(s);
	while (n) {
		ssize_t w = write(fd, s, n);
		if (w <= 0)
			return;
		s += w;
		n -= (size_t)w;
	}
}

static void iter(long i, long ns)
{
	char buf[128];
	struct timespec ts = { ns / 1000000000, ns % 1000000000 };
	if (ns > 1000)
		nanosleep(&ts, NULL);
	else if (!ns)
		ns = 1000 + i % 7; /* no sleep: a plausible made-up time */
	snprintf(buf, sizeof(buf), "{\"i\":%ld,\"wall_ns\":%ld}\n", i, ns);
	say(buf);
}

static void iterations(long n, long ns)
{
	say("{\"kiln\":1,\"clock\":\"monotonic_raw\",\"counters\":[]}\n");
	for (long i = 0; i < n; i++)
		iter(i, ns);
}

static void stream(long n, long ns)
{
	iterations(n, ns);
	say("{\"done\":true}\n");
}

/* gated: wait while DIR/KILN_KEY@N exists, saying so with DIR/KILN_KEY@N.held */
static void gate(const char *dir)
{
	const char *key = getenv("KILN_KEY"), *pexec = getenv("KILN_PEXEC");
	char path[4096], held[4200];
	snprintf(path, sizeof(path), "%s/%s@%ld", dir, key ? key : "", pexec ? atol(pexec) : -1L);
	snprintf(held, sizeof(held), "%s.held", path);
	for (int said = 0; access(path, F_OK) == 0; said = 1) {
		if (!said) {
			FILE *f = fopen(held, "w");
			if (f)
				fclose(f);
		}
		usleep(10000);
	}
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "ok";
	long n = argc > 2 ? atol(argv[2]) : 5;
	const char *f = getenv("KILN_RESULT_FD");
	fd = f ? atoi(f) : 1;
	if (!strcmp(mode, "ok")) {
		stream(n, argc > 3 ? atol(argv[3]) : 1000000);
	} else if (!strcmp(mode, "gated")) {
		iterations(n, argc > 3 ? atol(argv[3]) : 1000000);
		if (argc > 4)
			gate(argv[4]);
		say("{\"done\":true}\n");
	} else if (!strcmp(mode, "slow")) {
		stream(n, 50000000);
	} else if (!strcmp(mode, "garbage")) {
		say("{\"kiln\":1,\"clock\":\"monotonic_raw\",\"counters\":[]}\n");
		iter(0, 1000);
		iter(1, 1000);
		say("this is not json\n");
		iter(2, 1000);
		say("{\"done\":true}\n");
	} else if (!strcmp(mode, "early")) {
		say("{\"kiln\":1,\"clock\":\"monotonic_raw\",\"counters\":[]}\n");
		for (long i = 0; i < n / 2; i++)
			iter(i, 1000);
	} else if (!strcmp(mode, "skip")) {
		say("{\"kiln\":1,\"clock\":\"monotonic_raw\",\"counters\":[]}\n");
		iter(0, 1000);
		iter(1, 1000);
		iter(3, 1000);
		say("{\"done\":true}\n");
	} else if (!strcmp(mode, "badvalue")) {
		say("{\"kiln\":1,\"clock\":\"monotonic_raw\",\"counters\":[]}\n");
		iter(0, 1000);
		say("{\"i\":1,\"wall_ns\":-5}\n");
		say("{\"done\":true}\n");
	} else if (!strcmp(mode, "flood")) {
		static char buf[1 << 16];
		memset(buf, 'x', sizeof(buf));
		buf[sizeof(buf) - 1] = '\n';
		for (long i = 0; i < (1L << 30) / (long)sizeof(buf); i++)
			if (write(1, buf, sizeof(buf)) < 0)
				return 1;
		stream(n, 1000);
	} else if (!strcmp(mode, "hang")) {
		say("{\"kiln\":1,\"clock\":\"monotonic_raw\",\"counters\":[]}\n");
		for (;;)
			pause();
	} else if (!strcmp(mode, "grandchild") || !strcmp(mode, "escape")) {
		pid_t p = fork();
		if (p == 0) {
			setsid();
			if (fork() == 0) {
				char buf[64];
				snprintf(buf, sizeof(buf), "%d\n", (int)getpid());
				const char *path = getenv("FAKE_PIDFILE"); /* the VM's env: in the config */
				if (path) {
					FILE *pf = fopen(path, "w");
					if (pf) {
						fputs(buf, pf);
						fclose(pf);
					}
				}
				for (;;)
					pause();
			}
			_exit(0);
		}
		if (!strcmp(mode, "escape")) {
			sleep(1);
			stream(n, 1000);
			return 0;
		}
		for (;;)
			pause();
	} else if (!strcmp(mode, "ignoreterm")) {
		signal(SIGTERM, SIG_IGN);
		for (;;)
			pause();
	} else if (!strcmp(mode, "closefd")) {
		say("{\"kiln\":1,\"clock\":\"monotonic_raw\",\"counters\":[]}\n");
		close(fd);
		fd = -1;
		usleep(100000);
	} else if (!strcmp(mode, "nul")) {
		say("{\"kiln\":1,\"clock\":\"monotonic_raw\",\"counters\":[]}\n");
		static const char junk[] = "{\"i\":0,\"wall_ns\":1\0\xff\xfe}\n";
		if (write(1, junk, sizeof(junk) - 1) < 0 || write(fd, junk, sizeof(junk) - 1) < 0)
			return 1;
		say("{\"done\":true}\n");
	} else if (!strcmp(mode, "crash")) {
		say("{\"kiln\":1,\"clock\":\"monotonic_raw\",\"counters\":[]}\n");
		iter(0, 1000);
		iter(1, 1000);
		signal(SIGSEGV, SIG_DFL); /* a sanitizer may have its own handler */
		raise(SIGSEGV);
	} else if (!strcmp(mode, "env")) {
		extern char **environ;
		const char *dir = getenv("KILN_INSTR_DIR");
		char path[512];
		snprintf(path, sizeof(path), "%s/env.kiln.jsonl", dir ? dir : ".");
		FILE *ef = fopen(path, "w");
		int count = 0;
		for (char **e = environ; *e; e++)
			count++;
		if (ef) {
			fprintf(ef, "{\"name\":\"env_count\",\"value\":%d}\n", count);
			fprintf(ef, "{\"name\":\"has_pexec\",\"value\":%d}\n", getenv("KILN_PEXEC") != NULL);
			fclose(ef);
		}
		stream(n, 1000);
	} else {
		fprintf(stderr, "fakerunner: unknown mode %s\n", mode);
		return 2;
	}
	return 0;
}
