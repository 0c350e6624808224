/*
 * test_privsep.c - the parts of kiln that touch what a benchmark leaves
 * behind: rm_rf against a folder swapped for a link while it walks, the
 * collector on a hostile folder (links, FIFOs, other owners, sizes), and
 * the monitor's table against malformed and out-of-bounds messages.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "plugin.h"
#include "privsep.h"
#include "safefs.h"
#include "util.h"

static char *tmpdir(void)
{
	char t[] = "/tmp/kiln-test-privsep.XXXXXX";
	assert_non_null(mkdtemp(t));
	return xstrdup(t);
}

static void touch(const char *dir, const char *name, const char *text)
{
	char *p = path_join(dir, name);
	struct kerr e = KERR_INIT;
	assert_int_equal(write_file(p, text, strlen(text), &e), 0);
	free(p);
}

static int count_files(const char *dir)
{
	char *cmd = xasprintf("ls %s | wc -l", dir);
	FILE *f = popen(cmd, "r");
	int n = -1;
	assert_int_equal(fscanf(f, "%d", &n), 1);
	pclose(f);
	free(cmd);
	return n;
}

/* ---- rm_rf ---- */

struct swapper {
	char *d, *real, *victim;
	volatile int stop;
};

static void *swap_loop(void *arg)
{
	struct swapper *s = arg;
	while (!s->stop) {
		if (rename(s->d, s->real) == 0) {
			if (symlink(s->victim, s->d) == 0)
				unlink(s->d);
			rename(s->real, s->d);
		}
	}
	return NULL;
}

/* a folder swapped for a link to a victim, over and over, while rm_rf walks it */
static void test_rm_rf_race(void **state)
{
	(void)state;
	char *top = tmpdir();
	char *tree = path_join(top, "tree"), *victim = path_join(top, "victim");
	assert_int_equal(mkdir(tree, 0700), 0);
	assert_int_equal(mkdir(victim, 0700), 0);
	char *d = path_join(tree, "d");
	assert_int_equal(mkdir(d, 0700), 0);
	for (int i = 0; i < 2000; i++) {
		char name[32];
		snprintf(name, sizeof(name), "f%d", i);
		touch(d, name, "x");
		touch(victim, name, "v");
	}
	struct swapper s = { d, path_join(tree, "d.real"), victim, 0 };
	pthread_t th;
	assert_int_equal(pthread_create(&th, NULL, swap_loop, &s), 0);
	usleep(1000);
	for (int round = 0; round < 20 && file_exists(tree); round++)
		rm_rf(tree); /* may fail while the swapper runs; may never delete through the link */
	s.stop = 1;
	pthread_join(th, NULL);
	assert_int_equal(count_files(victim), 2000);
	rm_rf(top);
	assert_false(file_exists(top));
	free(s.real);
	free(d);
	free(tree);
	free(victim);
	free(top);
}

/* links inside the tree are removed, never followed; a path that is a link goes, its target stays */
static void test_rm_rf_links(void **state)
{
	(void)state;
	char *top = tmpdir();
	char *keep = path_join(top, "keep"), *tree = path_join(top, "tree");
	assert_int_equal(mkdir(keep, 0700), 0);
	touch(keep, "precious", "p");
	assert_int_equal(mkdir(tree, 0700), 0);
	char *l1 = path_join(tree, "to-dir"), *l2 = path_join(tree, "to-file"), *l3 = path_join(top, "link");
	assert_int_equal(symlink(keep, l1), 0);
	char *pf = path_join(keep, "precious");
	assert_int_equal(symlink(pf, l2), 0);
	assert_int_equal(symlink(keep, l3), 0);
	assert_int_equal(rm_rf(tree), 0);
	assert_int_equal(rm_rf(l3), 0);
	assert_true(file_exists(pf));
	assert_false(file_exists(tree));
	rm_rf(top);
	free(pf);
	free(l1);
	free(l2);
	free(l3);
	free(keep);
	free(tree);
	free(top);
}

/* ---- sfs_copy_file: a file of the benchmark's copied into kiln's folder ---- */

static void test_copy_file(void **state)
{
	(void)state;
	char *top = tmpdir();
	char *secret = path_join(top, "secret"), *l = path_join(top, "link"), *fifo = path_join(top, "fifo");
	char *to = path_join(top, "copy"), *to_link = path_join(top, "to-link");
	touch(top, "secret", "s");
	touch(top, "ok", "12345");
	assert_int_equal(symlink(secret, l), 0);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	struct kerr e = KERR_INIT;
	assert_int_equal(sfs_copy_file(top, "ok", geteuid(), 100, to, 0644, &e), 0);
	struct strbuf b = STRBUF_INIT;
	assert_int_equal(read_file(to, &b, &e), 0);
	assert_string_equal(sb_str(&b), "12345");
	assert_int_equal(sfs_copy_file(top, "missing", geteuid(), 100, to, 0644, &e), 1);
	assert_int_equal(e.msg.len, 0);
	assert_int_equal(sfs_copy_file(top, "link", geteuid(), 100, to, 0644, &e), -1);
	assert_non_null(strstr(sb_str(&e.msg), "a symbolic link: refused"));
	sb_reset(&e.msg);
	assert_int_equal(sfs_copy_file(top, "fifo", geteuid(), 100, to, 0644, &e), -1); /* not waited on */
	assert_non_null(strstr(sb_str(&e.msg), "a FIFO: refused"));
	sb_reset(&e.msg);
	assert_int_equal(sfs_copy_file(top, "ok", geteuid() + 1, 100, to, 0644, &e), -1);
	assert_non_null(strstr(sb_str(&e.msg), "not by the benchmark's uid"));
	sb_reset(&e.msg);
	assert_int_equal(sfs_copy_file(top, "ok", geteuid(), 4, to, 0644, &e), -1);
	assert_non_null(strstr(sb_str(&e.msg), "more than 4"));
	sb_reset(&e.msg);
	/* the destination is never written through a link */
	assert_int_equal(symlink(secret, to_link), 0);
	assert_int_equal(sfs_copy_file(top, "ok", geteuid(), 100, to_link, 0644, &e), -1);
	sb_reset(&b);
	assert_int_equal(read_file(secret, &b, &e), 0);
	assert_string_equal(sb_str(&b), "s");
	sb_release(&b);
	kerr_release(&e);
	rm_rf(top);
	free(secret);
	free(l);
	free(fifo);
	free(to);
	free(to_link);
	free(top);
}

/* ---- the collector ---- */

static struct ps_request request(const char *dir)
{
	struct ps_request rq;
	memset(&rq, 0, sizeof(rq));
	rq.dir = dir;
	rq.b.bytes = 1 << 20;
	rq.b.log_bytes = 1 << 20;
	rq.b.records = 1000;
	rq.b.names = 10;
	rq.b.iterations = 5;
	rq.b.timeout_s = 20;
	return rq;
}

static size_t count_name(const struct rec_list *l, const char *name)
{
	size_t n = 0;
	for (size_t i = 0; i < l->n; i++)
		n += !strcmp(l->v[i].name, name);
	return n;
}

/* what a hostile folder gets: only the regular files of the collector's user are read */
static void test_collect_hostile(void **state)
{
	(void)state;
	char *dir = tmpdir();
	touch(dir, "a.kiln.jsonl", "{\"i\":0,\"name\":\"gc.time\",\"value\":1}\n{\"name\":\"ok\",\"value\":2}\n");
	char *fifo = path_join(dir, "b.kiln.jsonl");
	assert_int_equal(mkfifo(fifo, 0600), 0);
	char *link = path_join(dir, "c.kiln.jsonl");
	assert_int_equal(symlink("/dev/zero", link), 0);
	struct ps_request rq = request(dir);
	struct ps_result r;
	struct kerr e = KERR_INIT;
	assert_int_equal(ps_collect(&rq, -1, &r, &e), 0);
	assert_int_equal(count_name(&r.recs, "gc.time"), 1);
	assert_int_equal(count_name(&r.recs, "ok"), 1);
	assert_non_null(strstr(sb_str(&r.error), "b.kiln.jsonl: a FIFO: refused"));
	ps_result_release(&r);

	/* a file of another owner (as root: chown it away) and one over the byte budget */
	unlink(fifo);
	unlink(link);
	touch(dir, "big.kiln.jsonl", "{\"name\":\"big\",\"value\":1}\n                                        \n");
	rq.b.bytes = 60;
	assert_int_equal(ps_collect(&rq, -1, &r, &e), 0);
	assert_int_equal(count_name(&r.recs, "ok"), 1);
	assert_int_equal(count_name(&r.recs, "big"), 0);
	assert_non_null(strstr(sb_str(&r.error), "limits.instr_mb"));
	ps_result_release(&r);
	if (geteuid() == 0) {
		char *big = path_join(dir, "big.kiln.jsonl");
		assert_int_equal(chown(big, 1, 1), 0);
		rq.b.bytes = 1 << 20;
		assert_int_equal(ps_collect(&rq, -1, &r, &e), 0);
		assert_int_equal(count_name(&r.recs, "big"), 0);
		assert_non_null(strstr(sb_str(&r.error), "owned by uid 1"));
		ps_result_release(&r);
		free(big);
	}
	rm_rf(dir);
	free(fifo);
	free(link);
	free(dir);
	kerr_release(&e);
}

/* the bounds: iterations, records, names */
static void test_collect_bounds(void **state)
{
	(void)state;
	char *dir = tmpdir();
	struct strbuf t = STRBUF_INIT;
	for (int i = 0; i < 30; i++)
		sb_addf(&t, "{\"name\":\"n%d\",\"value\":%d}\n", i, i);
	touch(dir, "names.kiln.jsonl", t.buf);
	struct ps_request rq = request(dir);
	struct ps_result r;
	struct kerr e = KERR_INIT;
	assert_int_equal(ps_collect(&rq, -1, &r, &e), 0);
	assert_int_equal(r.recs.names.n, 10);
	assert_non_null(strstr(sb_str(&r.error), "more than 10 distinct record names"));
	ps_result_release(&r);
	rq.b.names = 100;
	rq.b.records = 12;
	assert_int_equal(ps_collect(&rq, -1, &r, &e), 0);
	assert_int_equal(r.recs.n, 12);
	assert_non_null(strstr(sb_str(&r.error), "more than 12 records"));
	ps_result_release(&r);
	char *names = path_join(dir, "names.kiln.jsonl");
	unlink(names);
	free(names);
	touch(dir, "i.kiln.jsonl", "{\"i\":4,\"name\":\"x\",\"value\":1}\n{\"i\":5,\"name\":\"x\",\"value\":1}\n");
	assert_int_equal(ps_collect(&rq, -1, &r, &e), 0);
	assert_int_equal(r.recs.n, 1);
	assert_non_null(strstr(sb_str(&r.error), "iteration 5 of a pexec of 5 iterations"));
	ps_result_release(&r);
	sb_release(&t);
	rm_rf(dir);
	free(dir);
	kerr_release(&e);
}

/* keep_log: compressed or as they are, into files the monitor makes; odd names are not kept */
static void test_collect_keep_log(void **state)
{
	(void)state;
	char *dir = tmpdir(), *logs = tmpdir();
	struct strbuf big = STRBUF_INIT;
	for (int i = 0; i < 2000; i++)
		sb_addf(&big, "line %d\n", i);
	touch(dir, "pypylog", big.buf);
	touch(dir, "small.json", "{}");
	touch(dir, "we ird", "x");
	struct ps_request rq = request(dir);
	rq.keep_log = 1;
	int lfd = open(logs, O_RDONLY | O_DIRECTORY);
	struct ps_result r;
	struct kerr e = KERR_INIT;
	assert_int_equal(ps_collect(&rq, lfd, &r, &e), 0);
	char *z = path_join(logs, "pypylog.zst"), *s = path_join(logs, "small.json");
	assert_true(file_exists(z));
	assert_true(file_exists(s));
	assert_int_equal(count_files(logs), 2);
	assert_non_null(strstr(sb_str(&r.log_error), "not a file name kiln keeps"));
	char *cmd = xasprintf("zstd -dc %s | cmp -s - %s/pypylog", z, dir);
	assert_int_equal(system(cmd), 0);
	ps_result_release(&r);
	/* over limits.log_mb: nothing half-written is left */
	rq.b.log_bytes = 100;
	rm_rf(z);
	assert_int_equal(ps_collect(&rq, lfd, &r, &e), 0);
	assert_false(file_exists(z));
	assert_non_null(strstr(sb_str(&r.log_error), "limits.log_mb"));
	ps_result_release(&r);
	close(lfd);
	rm_rf(dir);
	rm_rf(logs);
	free(cmd);
	free(z);
	free(s);
	free(dir);
	free(logs);
	sb_release(&big);
	kerr_release(&e);
}

/* ---- the monitor's table, on hand-made messages ---- */

static void msg(struct strbuf *b, uint32_t type, const void *p, uint32_t len)
{
	unsigned char h[8] = { (unsigned char)type, (unsigned char)(type >> 8), 0, 0, (unsigned char)len,
			       (unsigned char)(len >> 8), (unsigned char)(len >> 16), (unsigned char)(len >> 24) };
	sb_add(b, h, 8);
	sb_add(b, p, len);
}

static void scalar(struct strbuf *b, const char *name)
{
	struct strbuf p = STRBUF_INIT;
	double v = 1.5;
	sb_add(&p, &v, 8); /* little-endian host */
	unsigned char n[2] = { (unsigned char)strlen(name), 0 };
	sb_add(&p, n, 2);
	sb_adds(&p, name);
	sb_add(&p, "\0\0", 2);
	msg(b, PS_SCALAR, p.buf, (uint32_t)p.len);
	sb_release(&p);
}

static const char *feed(const struct strbuf *b, int keep_log, size_t *nrec)
{
	static struct strbuf err;
	struct ps_request rq = request(NULL);
	rq.keep_log = keep_log;
	struct ps_result r;
	ps_monitor_feed(&rq, -1, b->buf, b->len, &r);
	*nrec = r.recs.n;
	sb_reset(&err);
	sb_adds(&err, sb_str(&r.error));
	ps_result_release(&r);
	return sb_str(&err);
}

static void test_monitor_table(void **state)
{
	(void)state;
	size_t n;
	struct strbuf b = STRBUF_INIT;
	scalar(&b, "fine");
	msg(&b, PS_DONE, NULL, 0);
	assert_string_equal(feed(&b, 0, &n), "");
	assert_int_equal(n, 1);

	sb_reset(&b);
	scalar(&b, "fine");
	msg(&b, 99, NULL, 0);
	scalar(&b, "after");
	assert_non_null(strstr(feed(&b, 0, &n), "unknown message type 99"));
	assert_int_equal(n, 1);

	sb_reset(&b);
	scalar(&b, "bad\033[2Jname");
	assert_non_null(strstr(feed(&b, 0, &n), "control characters"));
	assert_int_equal(n, 0);

	sb_reset(&b);
	msg(&b, PS_LOG_OPEN, "\0\1\0a", 4);
	assert_non_null(strstr(feed(&b, 0, &n), "no log is kept"));

	sb_reset(&b);
	msg(&b, PS_LOG_DATA, "x", 1);
	assert_non_null(strstr(feed(&b, 1, &n), "no log is kept"));

	sb_reset(&b);
	msg(&b, PS_DONE, NULL, 0);
	scalar(&b, "late");
	assert_non_null(strstr(feed(&b, 0, &n), "after the end"));
	assert_int_equal(n, 0);

	sb_reset(&b);
	unsigned char huge[8] = { PS_SCALAR, 0, 0, 0, 0xff, 0xff, 0xff, 0x7f };
	sb_add(&b, huge, 8);
	assert_non_null(strstr(feed(&b, 0, &n), "a message of 2147483647 bytes"));

	sb_reset(&b);
	msg(&b, PS_SCALAR, "12345678\3\0abc", 13); /* no unit after the name */
	assert_non_null(strstr(feed(&b, 0, &n), "malformed"));

	sb_reset(&b);
	scalar(&b, "unfinished");
	assert_non_null(strstr(feed(&b, 0, &n), "ended before it had finished"));
	assert_int_equal(n, 1);
	sb_release(&b);
}

/*
 * A collector that opens kept logs without end (empty ones cost no byte of
 * limits.log_mb): the monitor makes at most log_mb / 4 KiB files, says so
 * once, and stops the collector past PS_FILES_MAX opens.  Before, it made
 * a file (and an fsync) for each, unbounded
 */
static void test_monitor_log_files(void **state)
{
	(void)state;
	char tmpl[] = "/tmp/kiln-test-logs.XXXXXX";
	assert_non_null(mkdtemp(tmpl));
	int dfd = open(tmpl, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(dfd >= 0);
	struct strbuf b = STRBUF_INIT;
	for (int i = 0; i < PS_FILES_MAX + 10; i++) {
		char p[16];
		int len = snprintf(p + 3, sizeof(p) - 3, "f%d", i);
		p[0] = 0;
		p[1] = (char)len;
		p[2] = 0;
		msg(&b, PS_LOG_OPEN, p, (uint32_t)(3 + len));
		msg(&b, PS_LOG_END, NULL, 0);
	}
	struct ps_request rq = request(NULL);
	rq.keep_log = 1;
	struct ps_result r;
	ps_monitor_feed(&rq, dfd, b.buf, b.len, &r);
	assert_non_null(strstr(sb_str(&r.error), "more kept logs than an instrumentation folder's files"));
	assert_non_null(strstr(sb_str(&r.log_error), "over limits.log_mb"));
	assert_null(strstr(strstr(sb_str(&r.log_error), "over limits.log_mb") + 1, "over limits.log_mb"));
	size_t files = 0;
	DIR *d = fdopendir(dfd);
	for (struct dirent *de; (de = readdir(d));)
		files += de->d_name[0] != '.';
	closedir(d);
	assert_int_equal(files, (1 << 20) / PS_LOG_FILE_BYTES);
	ps_result_release(&r);
	sb_release(&b);
	rm_rf(tmpl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rm_rf_race),
		cmocka_unit_test(test_rm_rf_links),
		cmocka_unit_test(test_copy_file),
		cmocka_unit_test(test_collect_hostile),
		cmocka_unit_test(test_collect_bounds),
		cmocka_unit_test(test_collect_keep_log),
		cmocka_unit_test(test_monitor_log_files),
		cmocka_unit_test(test_monitor_table),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
