/*
 * richards (C) - Martin Richards' operating-system simulation.
 *
 * A scheduler runs six tasks (idle, worker, two handlers, two devices) that
 * pass packets to each other through queues; the idle task counts down from
 * `param` and the run ends when every task is held or waiting.  The result
 * is how many packets were queued and how many times a task was held:
 * checksum() is queue_count * 1000000 + hold_count (param 1000 gives 2322 and
 * 928, as in the classic benchmark).  Task state is three flags (packet
 * pending, waiting, held), as in the Python original, so that the Lua version
 * needs no bit operations beyond the idle task's xor.
 */
#include <stdlib.h>

enum { I_IDLE, I_WORK, I_HANDLER_A, I_HANDLER_B, I_DEV_A, I_DEV_B, NTASKS };
enum { K_DEV, K_WORK };
#define DATA_SIZE 4

struct packet {
	struct packet *link;
	int id, kind, a1;
	int a2[DATA_SIZE];
};

enum task_kind { T_IDLE, T_WORKER, T_HANDLER, T_DEVICE };

struct tcb {
	struct tcb *link;
	int id, pri;
	struct packet *queue;
	int pending, waiting, held;
	enum task_kind kind;
	/* task-private state (meaning depends on kind) */
	long v1, v2;                    /* idle: seed, count; worker: dest, counter */
	struct packet *p1, *p2;         /* handler: work and device queues; device: pending */
};

struct sched {
	struct tcb *list, *cur;
	struct tcb *blocks[NTASKS];
	int cur_id;
	long queue_count, hold_count;
	struct packet *all[8];          /* every packet made, to free them at the end */
	int npackets;
};

static long result;

static struct packet *pk_new(struct sched *s, struct packet *link, int id, int kind)
{
	struct packet *p = calloc(1, sizeof(*p));
	if (!p)
		abort();
	s->all[s->npackets++] = p;
	p->link = link;
	p->id = id;
	p->kind = kind;
	return p;
}

/* append p to the end of queue q, return the queue's head */
static struct packet *pk_add_to(struct packet *p, struct packet *q)
{
	p->link = NULL;
	if (!q)
		return p;
	struct packet *last = q;
	while (last->link)
		last = last->link;
	last->link = p;
	return q;
}

static struct tcb *add_task(struct sched *s, int id, int pri, struct packet *q, enum task_kind kind)
{
	struct tcb *t = calloc(1, sizeof(*t));
	if (!t)
		abort();
	t->link = s->list;
	t->id = id;
	t->pri = pri;
	t->queue = q;
	t->pending = q != NULL;
	t->waiting = 1;
	t->kind = kind;
	s->list = s->cur = s->blocks[id] = t;
	return t;
}

static int held_or_suspended(const struct tcb *t)
{
	return t->held || (t->waiting && !t->pending);
}

static struct tcb *release(struct sched *s, int id)
{
	struct tcb *t = s->blocks[id];
	t->held = 0;
	return t->pri > s->cur->pri ? t : s->cur;
}

static struct tcb *hold_current(struct sched *s)
{
	s->hold_count++;
	s->cur->held = 1;
	return s->cur->link;
}

static struct tcb *suspend_current(struct sched *s)
{
	s->cur->waiting = 1;
	return s->cur;
}

/* send packet p to the task it names; the sender's id goes in the packet */
static struct tcb *queue_packet(struct sched *s, struct packet *p)
{
	struct tcb *t = s->blocks[p->id];
	s->queue_count++;
	p->link = NULL;
	p->id = s->cur_id;
	if (!t->queue) {
		t->queue = p;
		t->pending = 1;
		if (t->pri > s->cur->pri)
			return t;
	} else {
		t->queue = pk_add_to(p, t->queue);
	}
	return s->cur;
}

static struct tcb *run_idle(struct sched *s, struct tcb *t)
{
	if (--t->v2 == 0)
		return hold_current(s);
	if ((t->v1 & 1) == 0) {
		t->v1 >>= 1;
		return release(s, I_DEV_A);
	}
	t->v1 = (t->v1 >> 1) ^ 0xD008;
	return release(s, I_DEV_B);
}

static struct tcb *run_worker(struct sched *s, struct tcb *t, struct packet *p)
{
	if (!p)
		return suspend_current(s);
	t->v1 = t->v1 == I_HANDLER_A ? I_HANDLER_B : I_HANDLER_A;
	p->id = (int)t->v1;
	p->a1 = 0;
	for (int i = 0; i < DATA_SIZE; i++) {
		if (++t->v2 > 26)
			t->v2 = 1;
		p->a2[i] = (int)t->v2;
	}
	return queue_packet(s, p);
}

static struct tcb *run_handler(struct sched *s, struct tcb *t, struct packet *p)
{
	if (p) {
		if (p->kind == K_WORK)
			t->p1 = pk_add_to(p, t->p1);
		else
			t->p2 = pk_add_to(p, t->p2);
	}
	if (t->p1) {
		struct packet *w = t->p1;
		int n = w->a1;
		if (n < DATA_SIZE) {
			if (t->p2) {
				struct packet *d = t->p2;
				t->p2 = d->link;
				d->a1 = w->a2[n];
				w->a1 = n + 1;
				return queue_packet(s, d);
			}
		} else {
			t->p1 = w->link;
			return queue_packet(s, w);
		}
	}
	return suspend_current(s);
}

static struct tcb *run_device(struct sched *s, struct tcb *t, struct packet *p)
{
	if (!p) {
		if (!t->p1)
			return suspend_current(s);
		struct packet *v = t->p1;
		t->p1 = NULL;
		return queue_packet(s, v);
	}
	t->p1 = p;
	return hold_current(s);
}

static struct tcb *tcb_run(struct sched *s, struct tcb *t)
{
	struct packet *p = NULL;
	if (t->waiting && t->pending) {
		p = t->queue;
		t->queue = p->link;
		t->pending = t->queue != NULL;
		t->waiting = 0;
	}
	switch (t->kind) {
	case T_IDLE: return run_idle(s, t);
	case T_WORKER: return run_worker(s, t, p);
	case T_HANDLER: return run_handler(s, t, p);
	default: return run_device(s, t, p);
	}
}

void run_iter(long param)
{
	struct sched s = { 0 };
	struct tcb *t = add_task(&s, I_IDLE, 0, NULL, T_IDLE);
	t->v1 = 1;
	t->v2 = param;
	t->pending = t->waiting = t->held = 0;   /* the idle task starts running */

	struct packet *q = pk_new(&s, NULL, I_WORK, K_WORK);
	q = pk_new(&s, q, I_WORK, K_WORK);
	t = add_task(&s, I_WORK, 1000, q, T_WORKER);
	t->v1 = I_HANDLER_A;

	q = pk_new(&s, NULL, I_DEV_A, K_DEV);
	q = pk_new(&s, q, I_DEV_A, K_DEV);
	q = pk_new(&s, q, I_DEV_A, K_DEV);
	add_task(&s, I_HANDLER_A, 2000, q, T_HANDLER);

	q = pk_new(&s, NULL, I_DEV_B, K_DEV);
	q = pk_new(&s, q, I_DEV_B, K_DEV);
	q = pk_new(&s, q, I_DEV_B, K_DEV);
	add_task(&s, I_HANDLER_B, 3000, q, T_HANDLER);

	add_task(&s, I_DEV_A, 4000, NULL, T_DEVICE);
	add_task(&s, I_DEV_B, 5000, NULL, T_DEVICE);

	s.cur = s.list;
	while (s.cur) {
		if (held_or_suspended(s.cur)) {
			s.cur = s.cur->link;
		} else {
			s.cur_id = s.cur->id;
			s.cur = tcb_run(&s, s.cur);
		}
	}
	result = s.queue_count * 1000000 + s.hold_count;

	for (int i = 0; i < s.npackets; i++)
		free(s.all[i]);
	for (int i = 0; i < NTASKS; i++)
		free(s.blocks[i]);
}

long checksum(void)
{
	return result;
}
