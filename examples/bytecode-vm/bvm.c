/*
 * bvm.c - a tiny bytecode VM, the example of libkiln's internal timers and
 * counters for VM authors (docs/libkiln.md, "Timers").
 *
 *   bvm [-n RUNS] PROGRAM.bvm [ARG]
 *
 * PROGRAM.bvm is stack-machine assembly, one instruction per line, labels
 * ending in ':', comments after ';' (see fib.bvm and sum.bvm).  The VM
 * compiles it in three passes - parse the text, fuse instruction pairs
 * (peephole), resolve labels to addresses - then runs the bytecode RUNS
 * times with ARG (default 10) as the only value on the stack, printing what
 * the program prints.
 *
 * Instrumentation, the way a real VM would carry it in a release build:
 *   us_compiling              the whole compile step, and inside it
 *   us_compiling_parse        (a name with a prefix is part of the prefix's
 *   us_compiling_peephole      time: timers are inclusive, Pyston's
 *   us_compiling_resolve       convention)
 *   us_running                all runs of the bytecode
 *   num_instructions          bytecodes executed, counted in a local
 *                             variable and handed to kiln_count once per run,
 *                             not per instruction
 *   num_calls, num_branches_taken, num_compiled_instructions,
 *   num_peephole_fused
 * kiln_stats_atexit() dumps them at exit in the `stats` format, to
 * $KILN_INSTR_DIR/stats.txt under kiln (where the `stats` parser collects
 * them per pexec) and to stderr otherwise.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kiln.h"

enum op {
	OP_PUSH, OP_LOAD, OP_STORE, OP_ADD, OP_SUB, OP_MUL, OP_LT, OP_DUP, OP_POP,
	OP_JMP, OP_JZ, OP_CALL, OP_RET, OP_PRINT, OP_HALT,
	OP_ADDI, OP_SUBI, /* made by the peephole pass: push k; add|sub */
	OP_LABEL,         /* only before resolution */
};

static const struct {
	const char *name;
	int nargs;        /* 0, 1 (number or label), 2 (label, number) */
	int label;        /* first argument is a label */
} ops[] = {
	[OP_PUSH] = { "push", 1, 0 }, [OP_LOAD] = { "load", 1, 0 }, [OP_STORE] = { "store", 1, 0 },
	[OP_ADD] = { "add", 0, 0 }, [OP_SUB] = { "sub", 0, 0 }, [OP_MUL] = { "mul", 0, 0 },
	[OP_LT] = { "lt", 0, 0 }, [OP_DUP] = { "dup", 0, 0 }, [OP_POP] = { "pop", 0, 0 },
	[OP_JMP] = { "jmp", 1, 1 }, [OP_JZ] = { "jz", 1, 1 }, [OP_CALL] = { "call", 2, 1 },
	[OP_RET] = { "ret", 0, 0 }, [OP_PRINT] = { "print", 0, 0 }, [OP_HALT] = { "halt", 0, 0 },
	[OP_ADDI] = { "addi", 1, 0 }, [OP_SUBI] = { "subi", 1, 0 },
};

struct insn {
	enum op op;
	long a, b;        /* operands; for jumps and calls, a is the target */
	char *label;      /* label operand, or the label's own name for OP_LABEL */
	int line;
};

struct prog {
	struct insn *v;
	size_t n, alloc;
};

#define NLOCALS 8
#define STACK 4096
#define FRAMES 1024

static const char *file;

static void die_at(int line, const char *fmt, const char *arg)
{
	fprintf(stderr, "bvm: %s:%d: ", file, line);
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	exit(2);
}

static void push_insn(struct prog *p, struct insn in)
{
	if (p->n == p->alloc) {
		p->alloc = p->alloc ? 2 * p->alloc : 64;
		p->v = realloc(p->v, p->alloc * sizeof(*p->v));
		if (!p->v) {
			perror("bvm");
			exit(1);
		}
	}
	p->v[p->n++] = in;
}

static long parse_num(const char *s, int line)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (!*s || *end || errno)
		die_at(line, "'%s' is not a number", s);
	return v;
}

/* pass 1: text to instructions with symbolic labels */
static void parse(FILE *f, struct prog *p)
{
	char buf[512];
	int line = 0;
	kiln_timer_start("us_compiling_parse");
	while (fgets(buf, sizeof(buf), f)) {
		line++;
		char *c = strchr(buf, ';');
		if (c)
			*c = 0;
		char *save = NULL, *tok = strtok_r(buf, " \t\r\n", &save);
		while (tok && tok[strlen(tok) - 1] == ':') {
			tok[strlen(tok) - 1] = 0;
			push_insn(p, (struct insn){ .op = OP_LABEL, .label = strdup(tok), .line = line });
			tok = strtok_r(NULL, " \t\r\n", &save);
		}
		if (!tok)
			continue;
		struct insn in = { .line = line };
		size_t k;
		for (k = 0; k < sizeof(ops) / sizeof(ops[0]); k++)
			if (ops[k].name && !strcmp(ops[k].name, tok))
				break;
		if (k == sizeof(ops) / sizeof(ops[0]) || k == OP_ADDI || k == OP_SUBI)
			die_at(line, "unknown instruction '%s'", tok);
		in.op = (enum op)k;
		for (int a = 0; a < ops[k].nargs; a++) {
			char *arg = strtok_r(NULL, " \t\r\n", &save);
			if (!arg)
				die_at(line, "'%s' needs more operands", ops[k].name);
			if (a == 0 && ops[k].label)
				in.label = strdup(arg);
			else if (a == 0)
				in.a = parse_num(arg, line);
			else
				in.b = parse_num(arg, line);
		}
		if (strtok_r(NULL, " \t\r\n", &save))
			die_at(line, "too many operands for '%s'", ops[k].name);
		if ((in.op == OP_LOAD || in.op == OP_STORE) && (in.a < 0 || in.a >= NLOCALS))
			die_at(line, "local %s out of range (0-7)", tok);
		if (in.op == OP_CALL && (in.b < 0 || in.b > NLOCALS))
			die_at(line, "a call passes 0 to 8 arguments%s", "");
		push_insn(p, in);
	}
	kiln_timer_stop();
}

/* pass 2: push k; add -> addi k (not across a label: it may be jumped to) */
static void peephole(struct prog *p)
{
	kiln_timer_start("us_compiling_peephole");
	size_t w = 0;
	long fused = 0;
	for (size_t r = 0; r < p->n; r++) {
		if (p->v[r].op == OP_PUSH && r + 1 < p->n &&
		    (p->v[r + 1].op == OP_ADD || p->v[r + 1].op == OP_SUB)) {
			struct insn in = p->v[r];
			in.op = p->v[r + 1].op == OP_ADD ? OP_ADDI : OP_SUBI;
			p->v[w++] = in;
			r++;
			fused++;
			continue;
		}
		p->v[w++] = p->v[r];
	}
	p->n = w;
	kiln_count("num_peephole_fused", fused);
	kiln_timer_stop();
}

/* pass 3: labels to addresses; label pseudo-instructions disappear */
static void resolve(struct prog *p)
{
	kiln_timer_start("us_compiling_resolve");
	size_t nl = 0, w = 0;
	struct { char *name; long addr; } *labels = calloc(p->n + 1, sizeof(*labels));
	for (size_t r = 0; r < p->n; r++) {
		if (p->v[r].op != OP_LABEL) {
			w++;
			continue;
		}
		for (size_t k = 0; k < nl; k++)
			if (!strcmp(labels[k].name, p->v[r].label))
				die_at(p->v[r].line, "label '%s' defined twice", p->v[r].label);
		labels[nl].name = p->v[r].label;
		labels[nl++].addr = (long)w;
	}
	w = 0;
	for (size_t r = 0; r < p->n; r++) {
		struct insn in = p->v[r];
		if (in.op == OP_LABEL)
			continue;
		if (in.label) {
			size_t k;
			for (k = 0; k < nl; k++)
				if (!strcmp(labels[k].name, in.label))
					break;
			if (k == nl)
				die_at(in.line, "undefined label '%s'", in.label);
			in.a = labels[k].addr;
			free(in.label);
			in.label = NULL;
		}
		p->v[w++] = in;
	}
	p->n = w;
	for (size_t k = 0; k < nl; k++)
		free(labels[k].name);
	free(labels);
	kiln_count("num_compiled_instructions", (int64_t)w);
	kiln_timer_stop();
}

static void compile(const char *path, struct prog *p)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "bvm: %s: %s\n", path, strerror(errno));
		exit(2);
	}
	kiln_timer_start("us_compiling");
	parse(f, p);
	peephole(p);
	resolve(p);
	kiln_timer_stop();
	fclose(f);
}

struct frame {
	size_t ret;
	long local[NLOCALS];
};

static void rt_error(const struct insn *in, const char *what)
{
	fprintf(stderr, "bvm: %s:%d: %s\n", file, in->line, what);
	exit(3);
}

/* run the bytecode once; the counts stay in locals until the end */
static void run(const struct prog *p, long arg)
{
	static long stack[STACK];
	static struct frame frames[FRAMES];
	size_t sp = 0, fp = 0, pc = 0;
	long ninsn = 0, ncalls = 0, ntaken = 0;
	memset(&frames[0], 0, sizeof(frames[0]));
	stack[sp++] = arg;
	kiln_timer_start("us_running");
	for (;;) {
		if (pc >= p->n)
			rt_error(&p->v[p->n - 1], "ran off the end of the program");
		const struct insn *in = &p->v[pc++];
		ninsn++;
		if (sp + 2 >= STACK)
			rt_error(in, "stack overflow");
		long x, y;
		switch (in->op) {
		case OP_PUSH: stack[sp++] = in->a; break;
		case OP_LOAD: stack[sp++] = frames[fp].local[in->a]; break;
		case OP_DUP:
			if (!sp)
				rt_error(in, "stack underflow");
			stack[sp] = stack[sp - 1];
			sp++;
			break;
		case OP_STORE: case OP_POP: case OP_JZ: case OP_PRINT: case OP_RET:
		case OP_ADDI: case OP_SUBI:
			if (!sp)
				rt_error(in, "stack underflow");
			x = stack[--sp];
			if (in->op == OP_STORE)
				frames[fp].local[in->a] = x;
			else if (in->op == OP_JZ && !x)
				pc = (size_t)in->a, ntaken++;
			else if (in->op == OP_PRINT)
				printf("%ld\n", x);
			else if (in->op == OP_ADDI)
				stack[sp++] = x + in->a;
			else if (in->op == OP_SUBI)
				stack[sp++] = x - in->a;
			else if (in->op == OP_RET) {
				if (!fp)
					rt_error(in, "ret outside a call");
				pc = frames[fp--].ret;
				stack[sp++] = x;
			}
			break;
		case OP_ADD: case OP_SUB: case OP_MUL: case OP_LT:
			if (sp < 2)
				rt_error(in, "stack underflow");
			y = stack[--sp];
			x = stack[--sp];
			stack[sp++] = in->op == OP_ADD ? x + y : in->op == OP_SUB ? x - y
				    : in->op == OP_MUL ? x * y : x < y;
			break;
		case OP_JMP: pc = (size_t)in->a; ntaken++; break;
		case OP_CALL:
			if (fp + 1 >= FRAMES)
				rt_error(in, "call stack overflow");
			if (sp < (size_t)in->b)
				rt_error(in, "stack underflow");
			fp++;
			frames[fp].ret = pc;
			for (long k = in->b - 1; k >= 0; k--)
				frames[fp].local[k] = stack[--sp];
			pc = (size_t)in->a;
			ncalls++;
			break;
		case OP_HALT:
			goto out;
		case OP_LABEL:
			break;
		}
	}
out:
	kiln_timer_stop();
	kiln_count("num_instructions", ninsn);
	kiln_count("num_calls", ncalls);
	kiln_count("num_branches_taken", ntaken);
}

int main(int argc, char **argv)
{
	long runs = 1;
	int i = 1;
	if (i + 1 < argc && !strcmp(argv[i], "-n")) {
		char *end;
		runs = strtol(argv[i + 1], &end, 10);
		if (*end || runs < 1) {
			fprintf(stderr, "bvm: bad run count '%s'\n", argv[i + 1]);
			return 2;
		}
		i += 2;
	}
	if (i >= argc || argc - i > 2) {
		fprintf(stderr, "usage: bvm [-n RUNS] PROGRAM.bvm [ARG]\n");
		return 2;
	}
	file = argv[i];
	long arg = 10;
	if (argc - i == 2) {
		char *end;
		arg = strtol(argv[i + 1], &end, 10);
		if (*end) {
			fprintf(stderr, "bvm: bad argument '%s' (an integer is expected)\n", argv[i + 1]);
			return 2;
		}
	}
	kiln_stats_atexit();
	struct prog p = { 0 };
	compile(file, &p);
	if (!p.n) {
		fprintf(stderr, "bvm: %s: no instructions\n", file);
		return 2;
	}
	for (long r = 0; r < runs; r++)
		run(&p, arg);
	free(p.v);
	return 0;
}
