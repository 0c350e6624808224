/*
 * test_provenance.c - unit tests of what one-key-one-program rests on:
 * credentials found by name and by value (secret.c), how two program
 * descriptions differ (prov_diff), a key that ran several programs split
 * into one key each (ds_split_programs), and file hashes cached by the
 * file's identity (idcache.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dataset.h"
#include "idcache.h"
#include "provenance.h"
#include "secret.h"

static char *masked(const char *text, int var)
{
	struct strbuf sb = STRBUF_INIT;
	if (var)
		secret_mask_var(&sb, text);
	else
		secret_mask(&sb, text);
	return sb_detach(&sb);
}

static void expect(const char *text, int var, const char *want)
{
	char *got = masked(text, var);
	if (strcmp(got, want))
		fail_msg("%s\n  -> %s\n  wanted %s", text, got, want);
	free(got);
}

static void test_secret_by_value(void **state)
{
	(void)state;
	expect("DATABASE_URL=postgres://bob:hunter2@db.example/x", 1, "DATABASE_URL=postgres://bob:(hidden)@db.example/x");
	expect("GH_PAT=ghp_aB3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5", 1, "GH_PAT=(hidden)");
	expect("X=ghp_aB3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5", 1, "X=(hidden)");
	expect("REPO=https://ghp_aB3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5@github.com/a/b", 1, "REPO=https://(hidden)@github.com/a/b");
	expect("AWS=AKIAIOSFODNN7EXAMPLE", 1, "AWS=(hidden)");
	expect("ID=0f3c2a9b8e7d6c5b4a39281706f5e4d3", 1, "ID=(hidden)");
	expect("B=aZ3kQ9mX2pL7vR4tN8wY6cF1", 1, "B=(hidden)");
	expect("jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFU end", 0,
	       "jwt (hidden) end");
	expect("-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----\nafter", 0,
	       "(hidden private key)\nafter");
	expect("cmd --password=s3cret --name=bob", 0, "cmd --password=(hidden) --name=bob");
	expect("password: hunter2 and \"token\": \"abc\" ok", 0, "password: (hidden) and \"token\": \"(hidden)\" ok");
	expect("base64 dGhpcyBpcyBhIGxvbmcgc2VjcmV0IHZhbHVlIDEyMw==", 0, "base64 (hidden)");
}

static void test_secret_kept(void **state)
{
	(void)state;
	/* what is no credential stays as it was */
	const char *keep[] = {
		"PATH=/usr/local/bin:/usr/bin:/bin", "LS_COLORS=rs=0:di=01;34:ln=01;36:mh=00:pi=40;33",
		"JAVA_HOME=/usr/lib/jvm/java-17-openjdk-amd64", "KILN_KEY=nbody:py:default-python", "PWD=/home/bob",
		"URL=https://example.com/x?y=1", "LANG=en_US.UTF-8",
	};
	for (size_t i = 0; i < ARRAY_SIZE(keep); i++)
		expect(keep[i], 1, keep[i]);
	const char *text[] = {
		"Python 3.11.2", "openjdk version \"17.0.9\" 2023-10-17 (build 17.0.9+9-Debian-1deb12u1)",
		"benchmarks: {monkey: 1}", "author: Bob", "pin_cpus: [1-3]", "file:///home/bob/x", "", "s3cret",
	};
	for (size_t i = 0; i < ARRAY_SIZE(text); i++)
		expect(text[i], 0, text[i]);
	assert_true(secret_name("GH_PAT", 6));
	assert_true(secret_name("DB_PASS", 7));
	assert_true(secret_name("MY_API_KEY", 10));
	assert_true(secret_name("SENTRY_DSN", 10));
	assert_false(secret_name("KILN_KEY", 8));
	assert_false(secret_name("PATCH_LEVEL", 11));
	assert_false(secret_name("MONKEY", 6));
	assert_false(secret_name("PWD", 3));
}

static const char old_desc[] = "argv\t[\"/usr/bin/python3\",\"runner.py\"]\n"
			       "bench.file bench.py\tsha256:aaaa\n"
			       "env PATH\t/a/very/long/folder/one:/a/very/long/folder/two:/a/very/long/folder/three:"
			       "/a/very/long/folder/four:/a/very/long/folder/five:/a/very/long/folder/six\n"
			       "vm.sha256\t1111\n";

static void test_prov_diff(void **state)
{
	(void)state;
	const char *now = "argv\t[\"/usr/bin/python3\",\"-O\",\"runner.py\"]\n"
			  "env PATH\t/a/very/long/folder/one:/a/very/long/folder/two:/a/very/long/folder/three:"
			  "/a/very/long/folder/four:/EXTRA:/a/very/long/folder/five:/a/very/long/folder/six\n"
			  "probe.version\t3.11.2\n"
			  "vm.sha256\t1111\n";
	struct strvec d = STRVEC_INIT;
	assert_int_equal(prov_diff(old_desc, old_desc, 10, &d), 0);
	assert_int_equal(d.n, 0);
	assert_int_equal(prov_diff(old_desc, now, 10, &d), 4);
	struct strbuf all = STRBUF_INIT;
	for (size_t i = 0; i < d.n; i++)
		sb_addf(&all, "%s\n", d.v[i]);
	assert_non_null(strstr(all.buf, "argv: [\"/usr/bin/python3\",\"runner.py\"] -> [\"/usr/bin/python3\",\"-O\",\"runner.py\"]\n"));
	assert_non_null(strstr(all.buf, "bench.file bench.py: removed sha256:aaaa\n"));
	assert_non_null(strstr(all.buf, "probe.version: added 3.11.2\n"));
	/* a long value is shown where it differs */
	assert_non_null(strstr(all.buf, "env PATH: ..."));
	assert_non_null(strstr(all.buf, "/EXTRA:"));
	assert_null(strstr(all.buf, "vm.sha256"));
	sv_clear(&d);
	assert_int_equal(prov_diff(old_desc, now, 2, &d), 4);
	assert_int_equal(d.n, 3);
	assert_string_equal(d.v[2], "... and 2 more");
	sv_clear(&d);
	sb_release(&all);
}

static void add_pexecs(struct ds_key *k, const long *prog, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct ds_pexec *p = ds_add_pexec(k, (long)i);
		p->program = prog[i];
		p->n = 1;
		p->wall = xmalloc(sizeof(double));
		p->wall[0] = (double)prog[i];
	}
}

static void test_split_programs(void **state)
{
	(void)state;
	struct dataset ds;
	memset(&ds, 0, sizeof(ds));
	static const long one[] = { 1, 1, 1 }, three[] = { 1, 2, 1, 3, 2 };
	add_pexecs(ds_add_key(&ds, "a", "vm", "default-c"), one, 3);
	struct ds_key *b = ds_add_key(&ds, "b", "vm", "default-c");
	b->program_note = xstrdup("program 2 differs from program 1: argv: x -> y");
	b->planned_pexecs = 5;
	add_pexecs(b, three, 5);
	add_pexecs(ds_add_key(&ds, "c", "vm", "default-c"), one, 2);
	assert_int_equal(ds_split_programs(&ds), 1);
	assert_int_equal(ds.nkeys, 5);
	const char *names[] = { "a:vm:default-c", "b:vm:default-c", "b:vm:default-c#2", "b:vm:default-c#3", "c:vm:default-c" };
	const size_t counts[] = { 3, 2, 2, 1, 2 };
	const long progs[] = { 1, 1, 2, 3, 1 };
	for (size_t i = 0; i < 5; i++) {
		assert_string_equal(ds.keys[i].key, names[i]);
		assert_int_equal(ds.keys[i].npexecs, counts[i]);
		assert_int_equal(ds.keys[i].program, progs[i]);
		/* every pexec of a key ran its program: never two in one key */
		for (size_t p = 0; p < ds.keys[i].npexecs; p++)
			assert_int_equal((long)ds.keys[i].pexecs[p].wall[0], progs[i]);
	}
	assert_null(ds.keys[0].program_note);
	for (size_t i = 1; i < 4; i++) {
		assert_non_null(strstr(ds.keys[i].program_note, "b:vm:default-c ran 3 programs"));
		assert_non_null(strstr(ds.keys[i].program_note, "b:vm:default-c#2, b:vm:default-c#3"));
		assert_non_null(strstr(ds.keys[i].program_note, "argv: x -> y"));
	}
	assert_int_equal(ds.keys[2].planned_pexecs, 5);
	assert_string_equal(ds.keys[3].variant, "default-c#3");
	struct strvec pats = STRVEC_INIT;
	sv_push(&pats, "b:*");
	assert_int_equal(ds_keep_keys(&ds, &pats), 3);
	sv_clear(&pats);
	ds_free(&ds);
}

/* a key that ran more programs than any fixed list holds: each still apart */
static void test_split_many_programs(void **state)
{
	(void)state;
	struct dataset ds;
	memset(&ds, 0, sizeof(ds));
	long prog[70];
	for (size_t i = 0; i < 70; i++)
		prog[i] = (long)(70 - i); /* the last found first */
	add_pexecs(ds_add_key(&ds, "m", "vm", "default-c"), prog, 70);
	assert_int_equal(ds_split_programs(&ds), 1);
	assert_int_equal(ds.nkeys, 70);
	for (size_t i = 0; i < ds.nkeys; i++) {
		assert_int_equal(ds.keys[i].npexecs, 1);
		assert_int_equal(ds.keys[i].program, (long)i + 1);
		assert_int_equal((long)ds.keys[i].pexecs[0].wall[0], (long)i + 1);
	}
	ds_free(&ds);
}

static void test_idcache_sha256(void **state)
{
	(void)state;
	char dir[] = "/tmp/kiln-prov-unit.XXXXXX";
	assert_non_null(mkdtemp(dir));
	char *state_dir = path_join(dir, "state");
	setenv("KILN_STATE_DIR", state_dir, 1);
	char *f = path_join(dir, "x");
	int fd = open(f, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(write(fd, "abc", 3) == 3);
	close(fd);
	char h[65], id1[96], id2[96];
	struct kerr e = KERR_INIT;
	assert_int_equal(idc_sha256(f, h, &e), 0);
	assert_string_equal(h, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	assert_int_equal(fileid(f, id1), 0);
	assert_non_null(idc_get("sha256", id1));
	/* rewritten: another identity, another hash */
	fd = open(f, O_WRONLY | O_APPEND);
	assert_true(write(fd, "d", 1) == 1);
	close(fd);
	assert_int_equal(fileid(f, id2), 0);
	assert_string_not_equal(id1, id2);
	assert_int_equal(idc_sha256(f, h, &e), 0);
	assert_string_equal(h, "88d4266fd4e6338d13b845fcf289579d209c897823b9217da3e161936f031589");
	/* an entry is valid while the files it names keep their identity */
	idc_put("test", "k", json_pack("{s:{s:s}, s:i}", "ids", f, id2, "v", 7));
	assert_non_null(idc_get("test", "k"));
	idc_save();
	idc_release();
	assert_non_null(idc_get("test", "k"));
	fd = open(f, O_WRONLY | O_APPEND);
	assert_true(write(fd, "e", 1) == 1);
	close(fd);
	assert_null(idc_get("test", "k"));
	/* a link is hashed as the file it leads to; a folder is refused */
	char *l = path_join(dir, "l");
	assert_int_equal(symlink(f, l), 0);
	assert_int_equal(idc_sha256(l, h, &e), 0);
	assert_int_equal(idc_sha256(dir, h, &e), -1);
	idc_release();
	kerr_release(&e);
	rm_rf(dir);
	free(l);
	free(f);
	free(state_dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_secret_by_value),
		cmocka_unit_test(test_secret_kept),
		cmocka_unit_test(test_prov_diff),
		cmocka_unit_test(test_split_programs),
		cmocka_unit_test(test_split_many_programs),
		cmocka_unit_test(test_idcache_sha256),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
