/*
 * slurm.c - kiln's few questions to Slurm (see slurm.h), each one command
 * run through exec_simple with an argv array.  What the commands print is
 * read line by line, each field cut to its buffer; whoever shows a field
 * escapes it for where it goes (esc()).
 */
#include "slurm.h"

#include <stdlib.h>
#include <string.h>

#include "exec.h"

/* a field of Slurm's output, bounded (escaped where it is shown: esc()) */
static void field(char *dst, size_t cap, const char *src, size_t len)
{
	if (len >= cap)
		len = cap - 1;
	memcpy(dst, src, len);
	dst[len] = '\0';
}

/* run a Slurm command: 0 when it ran and exited 0, its output in r */
static int slurm_cmd(char *const argv[], struct exec_result *r, struct kerr *e)
{
	if (exec_simple(argv, 60, r, e) < 0)
		return kerr_wrap(e, "%s (is Slurm installed? kiln needs its client commands)", argv[0]);
	if (r->exited && r->status == 0)
		return 0;
	/* the first line says it; Slurm's clients repeat themselves */
	const char *err = sb_str(&r->err), *nl = strchr(err, '\n');
	char msg[512];
	field(msg, sizeof(msg), err, nl ? (size_t)(nl - err) : r->err.len);
	return kerr_set(e, "%s failed (%s %d): %s", argv[0], r->exited ? "exit status" : "signal",
			r->exited ? r->status : r->signal, *msg ? msg : "no message");
}

int slurm_sbatch(const struct strvec *args, char **job, struct kerr *e)
{
	struct strvec argv = STRVEC_INIT;
	sv_push(&argv, "sbatch");
	sv_push(&argv, "--parsable");
	for (size_t i = 0; i < args->n; i++)
		sv_push(&argv, args->v[i]);
	struct exec_result r;
	int rc = slurm_cmd(sv_array(&argv), &r, e);
	sv_clear(&argv);
	if (rc == 0) {
		/* "JOBID" or "JOBID;CLUSTER" */
		const char *out = sb_str(&r.out);
		size_t n = strspn(out, "0123456789");
		if (n == 0 || n > 20) {
			char got[64];
			field(got, sizeof(got), out, r.out.len);
			rc = kerr_set(e, "sbatch printed no job id ('%s')", got);
		} else {
			*job = xstrndup(out, n);
		}
	}
	exec_result_release(&r);
	return rc;
}

int slurm_state_live(const char *s)
{
	static const char *const live[] = { "PENDING", "RUNNING", "CONFIGURING", "COMPLETING", "SUSPENDED",
					    "REQUEUED", "REQUEUE_HOLD", "REQUEUE_FED", "RESIZING", "SIGNALING",
					    "STAGE_OUT", "STOPPED", "RESV_DEL_HOLD", "SPECIAL_EXIT" };
	for (size_t i = 0; i < ARRAY_SIZE(live); i++)
		if (!strcmp(s, live[i]))
			return 1;
	return 0;
}

static struct slurm_task *add_task(struct slurm_task **v, size_t *n, long task)
{
	for (size_t i = 0; i < *n; i++)
		if ((*v)[i].task == task)
			return &(*v)[i];
	*v = xrealloc(*v, (*n + 1) * sizeof(**v));
	struct slurm_task *t = &(*v)[(*n)++];
	memset(t, 0, sizeof(*t));
	t->task = task;
	return t;
}

/* squeue -r: one line per array task, "TASK|STATE|NODES|REASON" */
static void parse_squeue(const char *out, struct slurm_task **v, size_t *n)
{
	for (const char *line = out; *line;) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		const char *f[4];
		size_t fl[4], nf = 0;
		const char *p = line, *stop = line + len;
		while (nf < 4) {
			const char *bar = memchr(p, '|', (size_t)(stop - p));
			f[nf] = p;
			fl[nf] = (size_t)((bar ? bar : stop) - p);
			nf++;
			if (!bar)
				break;
			p = bar + 1;
		}
		char num[24];
		long task;
		field(num, sizeof(num), f[0], fl[0]);
		if (!strcmp(num, "N/A")) /* not an array job */
			snprintf(num, sizeof(num), "0");
		if (nf == 4 && parse_long(num, &task) == 0 && task >= 0) {
			struct slurm_task *t = add_task(v, n, task);
			field(t->state, sizeof(t->state), f[1], fl[1]);
			field(t->node, sizeof(t->node), f[2], fl[2]);
			field(t->reason, sizeof(t->reason), f[3], fl[3]);
		}
		line = end ? end + 1 : line + len;
	}
}

/* the value of NAME= in one line of `scontrol -o show job` */
static int kv(const char *line, size_t len, const char *name, char *dst, size_t cap)
{
	size_t nl = strlen(name);
	for (const char *p = line; p + nl < line + len; p++) {
		if ((p == line || p[-1] == ' ') && !strncmp(p, name, nl) && p[nl] == '=') {
			const char *v = p + nl + 1, *sp = v;
			while (sp < line + len && *sp != ' ')
				sp++;
			field(dst, cap, v, (size_t)(sp - v));
			return 0;
		}
	}
	dst[0] = '\0';
	return -1;
}

/* one scontrol line: ArrayTaskId=N, or a range/list of pending tasks ("2-5", "1,3", "4-7%2") */
static void parse_scontrol_line(const char *line, size_t len, struct slurm_task **v, size_t *n)
{
	char ids[256], state[24], node[64], reason[96], ex[16];
	if (kv(line, len, "JobId", ids, sizeof(ids)) < 0)
		return;
	/* a job that is no array is its own task 0 */
	if (kv(line, len, "ArrayTaskId", ids, sizeof(ids)) < 0)
		snprintf(ids, sizeof(ids), "0");
	kv(line, len, "JobState", state, sizeof(state));
	kv(line, len, "NodeList", node, sizeof(node));
	kv(line, len, "Reason", reason, sizeof(reason));
	kv(line, len, "ExitCode", ex, sizeof(ex));
	char *pct = strchr(ids, '%');
	if (pct)
		*pct = '\0';
	char *save = NULL;
	for (char *item = strtok_r(ids, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		long a, b;
		char *dash = strchr(item, '-');
		if (dash)
			*dash = '\0';
		if (parse_long(item, &a) < 0 || (dash ? parse_long(dash + 1, &b) : (b = a, 0)) < 0 || a < 0 || b < a ||
		    b - a > 100000)
			continue;
		for (long t = a; t <= b; t++) {
			struct slurm_task *st = add_task(v, n, t);
			snprintf(st->state, sizeof(st->state), "%s", state);
			snprintf(st->node, sizeof(st->node), "%s", strcmp(node, "(null)") ? node : "");
			snprintf(st->reason, sizeof(st->reason), "%s", reason);
			snprintf(st->exit, sizeof(st->exit), "%s", ex);
		}
	}
}

int slurm_tasks(const char *job, struct slurm_task **tasks, size_t *n, struct kerr *e)
{
	*tasks = NULL;
	*n = 0;
	/* scontrol first: it also has the exit codes; squeue when it fails */
	char *sc[] = { "scontrol", "-o", "show", "job", (char *)job, NULL };
	struct exec_result r;
	struct kerr ie = KERR_INIT;
	int rc = slurm_cmd(sc, &r, &ie);
	if (rc == 0) {
		for (const char *line = sb_str(&r.out); *line;) {
			const char *end = strchr(line, '\n');
			size_t len = end ? (size_t)(end - line) : strlen(line);
			parse_scontrol_line(line, len, tasks, n);
			line = end ? end + 1 : line + len;
		}
	}
	int gone = rc < 0 && strstr(sb_str(&r.err), "Invalid job id");
	exec_result_release(&r);
	if (rc == 0 || gone) {
		kerr_release(&ie);
		return 0;
	}
	char *sq[] = { "squeue", "-h", "-r", "-t", "all", "-j", (char *)job, "-o", "%K|%T|%N|%r", NULL };
	kerr_release(&ie);
	ie = (struct kerr)KERR_INIT;
	rc = slurm_cmd(sq, &r, &ie);
	if (rc == 0)
		parse_squeue(sb_str(&r.out), tasks, n);
	else if (strstr(sb_str(&r.err), "Invalid job id"))
		rc = 0;
	else
		kerr_set(e, "%s", sb_str(&ie.msg));
	exec_result_release(&r);
	kerr_release(&ie);
	return rc;
}

long slurm_default_nodes(void)
{
	char *argv[] = { "sinfo", "-h", "-o", "%P %D", NULL };
	struct exec_result r;
	struct kerr e = KERR_INIT;
	long total = 0;
	if (slurm_cmd(argv, &r, &e) == 0) {
		/* "main* 3": the default partition is marked with '*' */
		for (const char *line = sb_str(&r.out); *line;) {
			const char *end = strchr(line, '\n');
			const char *star = strchr(line, '*');
			long d;
			if (star && (!end || star < end) && star[1] == ' ') {
				char num[24];
				const char *nb = star + 2;
				size_t len = end ? (size_t)(end - nb) : strlen(nb);
				field(num, sizeof(num), nb, len);
				if (parse_long(num, &d) == 0 && d > 0)
					total += d;
			}
			if (!end)
				break;
			line = end + 1;
		}
	}
	exec_result_release(&r);
	kerr_release(&e);
	return total;
}
