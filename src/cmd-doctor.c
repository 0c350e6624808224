/*
 * cmd-doctor.c - `kiln doctor [CONFIG] [--json] [--restore]`: one screen of
 * every platform check (platform.c does the checking), or the same as JSON;
 * --restore puts back what a crashed `kiln run --tune` changed; --tune
 * [--hold] tunes by hand (and with --hold, until SIGINT/SIGTERM, whose
 * handler restores through the signal-safe path, as a run's does).
 *
 * Hidden: `kiln doctor --sanity-child [--probe PATH] [--home DIR]` is the
 * child of the sanity check (platform-user.c): it prints what it sees from
 * inside a pexec's process as JSON.  It lives here so that kiln needs no
 * extra installed helper.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "config.h"
#include "platform.h"

static int doctor_exec(int argc, char **argv);

const struct cmd_entry cmd_doctor_entry = {
	.name = "doctor",
	.usage = "[CONFIG] [--json] [--quick] | --restore | --tune [--hold]",
	.summary = "check the machine for benchmarking and say how to fix it",
	.help = "  CONFIG      use this experiment's platform policy and limits (optional)\n"
		"  --json      print the checks as JSON\n"
		"  --restore   put back the values a crashed `kiln run --tune` changed\n"
		"              (read from $KILN_TUNE_STATE, default /var/lib/kiln/tune-state.json)\n"
		"  --quick     skip the busy-process sampling (0.5 s) and the counter probe\n"
		"  --tune      (root) governor performance, turbo off, perf_event_max_sample_rate 1,\n"
		"              originals saved in the state file; undo with --restore\n"
		"  --hold      with --tune: stay until SIGINT/SIGTERM, then restore\n"
		"Exit status: 0 nothing failed, 1 a check failed (or --restore failed).\n"
		"KILN_SYSROOT=DIR reads /sys, /proc and /dev under DIR (tests).\n",
	.exec = doctor_exec,
};

static const char *state_col(FILE *f, enum pstate s)
{
	switch (s) {
	case PS_OK: return kiln_col(f, "\033[32m");
	case PS_WARN: return kiln_col(f, "\033[33m");
	case PS_FAIL: return kiln_col(f, "\033[1;31m");
	default: return kiln_col(f, "\033[2m");
	}
}

static void print_screen(const struct pchecks *c, FILE *f)
{
	size_t cnt[4] = { 0 };
	for (size_t i = 0; i < c->n; i++)
		cnt[c->v[i].state]++;
	const char *off = kiln_col(f, "\033[0m");
	for (size_t i = 0; i < c->n; i++) {
		const struct pcheck *k = &c->v[i];
		/* a value is what the machine's files say (sysfs, /proc): made visible, never obeyed */
		fprintf(f, "%s%-11s%s %-15s %s\n", state_col(f, k->state), pstate_name(k->state), off,
			k->name, esc(ESC_TERM, k->value));
		if (k->fix && (k->state == PS_WARN || k->state == PS_FAIL || k->state == PS_UNAVAILABLE))
			fprintf(f, "%-27s %sfix:%s %s\n", "", kiln_col(f, "\033[1m"), off, esc(ESC_TERM, k->fix));
	}
	fprintf(f, "\n%zu checks: %zu ok, %zu warn, %zu fail, %zu unavailable\n", c->n, cnt[PS_OK],
		cnt[PS_WARN], cnt[PS_FAIL], cnt[PS_UNAVAILABLE]);
}

static int do_restore(void)
{
	struct strbuf log = STRBUF_INIT;
	struct kerr e = KERR_INIT;
	int rc = platform_restore(NULL, NULL, &log, &e);
	fputs(sb_str(&log), stdout);
	sb_release(&log);
	if (rc < 0) {
		kerr_print(&e);
		kerr_release(&e);
		return KEXIT_FAIL;
	}
	kerr_release(&e);
	return 0;
}

static void on_signal(int sig)
{
	(void)sig;
	platform_restore_signal_safe();
	_exit(KEXIT_INTERRUPTED);
}

static int do_tune(int hold)
{
	struct strbuf log = STRBUF_INIT;
	struct kerr e = KERR_INIT;
	json_t *saved = NULL;
	/* handlers first: a signal between tuning and pause() must restore too */
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	if (hold) {
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
	}
	int rc = platform_tune(NULL, &saved, &log, &e);
	fputs(sb_str(&log), stdout);
	fflush(stdout);
	sb_release(&log);
	if (rc < 0) {
		kerr_print(&e);
		kerr_release(&e);
		return KEXIT_FAIL;
	}
	json_decref(saved);
	kerr_release(&e);
	if (hold) {
		printf("tuned; holding until SIGINT or SIGTERM\n");
		fflush(stdout);
		for (;;)
			pause();
	}
	return 0;
}

static int doctor_exec(int argc, char **argv)
{
	if (cmd_wants_help(&cmd_doctor_entry, argc, argv))
		return 0;
	const char *config = NULL, *probe = NULL, *home = NULL;
	int json = 0, restore = 0, child = 0, quick = 0, tune = 0, hold = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--json"))
			json = 1;
		else if (!strcmp(a, "--restore"))
			restore = 1;
		else if (!strcmp(a, "--tune"))
			tune = 1;
		else if (!strcmp(a, "--hold"))
			hold = 1;
		else if (!strcmp(a, "--quick"))
			quick = 1;
		else if (!strcmp(a, "--sanity-child"))
			child = 1;
		else if ((!strcmp(a, "--probe") || !strcmp(a, "--home")) && i + 1 < argc)
			*(a[2] == 'p' ? &probe : &home) = argv[++i];
		else if (a[0] == '-' && a[1])
			return cmd_usage_error(&cmd_doctor_entry, "unknown option %s", a);
		else if (!config)
			config = a;
		else
			return cmd_usage_error(&cmd_doctor_entry, "more than one CONFIG");
	}
	if (child)
		return platform_sanity_child(probe, home);
	if (restore && tune)
		return cmd_usage_error(&cmd_doctor_entry, "--tune and --restore exclude each other");
	if (hold && !tune)
		return cmd_usage_error(&cmd_doctor_entry, "--hold goes with --tune");
	if (restore)
		return do_restore();
	if (tune)
		return do_tune(hold);

	struct experiment ex;
	int have_ex = 0;
	if (config) {
		struct kerr e = KERR_INIT;
		if (config_load(config, kiln_datadir(), 0, &ex, &e) < 0) {
			kerr_print(&e);
			int code = e.code;
			kerr_release(&e);
			return code;
		}
		have_ex = 1;
	}
	struct doctor_opts o = { 0 };
	if (quick) {
		o.busy_sample_s = 0.01;
		o.no_counters = 1;
	}
	struct pchecks c = PCHECKS_INIT;
	platform_doctor(have_ex ? &ex : NULL, &o, &c);
	if (json) {
		json_t *j = json_pack("{s:o, s:s, s:s?}", "checks", pchecks_json(&c), "worst",
				      pstate_name(pchecks_worst(&c)), "config", have_ex ? ex.path : NULL);
		char *s = json_dumps(j, JSON_INDENT(2));
		puts(s);
		free(s);
		json_decref(j);
	} else {
		print_screen(&c, stdout);
	}
	int rc = pchecks_worst(&c) == PS_FAIL ? KEXIT_FAIL : 0;
	pchecks_release(&c);
	if (have_ex)
		config_free(&ex);
	return rc;
}
