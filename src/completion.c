/*
 * completion.c - bash and zsh completion for kiln, made from the command
 * table: the commands' names, and for each the options its usage line and
 * help name (so a new command or option completes without another edit).
 * `kiln --completion bash|zsh` prints the script; make install puts it where
 * bash-completion and zsh look.  The text is kiln's own (the table), never
 * anything from outside.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "util.h"

/* the distinct options ("--long", "-s") named in text, added to out */
static void options_of(const char *text, struct strvec *out)
{
	for (const char *p = text; p && *p; p++) {
		if (*p != '-' || (p > text && (isalnum((unsigned char)p[-1]) || p[-1] == '-')))
			continue;
		const char *q = p + 1 + (p[1] == '-');
		size_t n = 0;
		while (isalnum((unsigned char)q[n]) || (n && q[n] == '-'))
			n++;
		if (!n || (q == p + 1 && n != 1))
			continue;
		struct strbuf o = STRBUF_INIT;
		sb_add(&o, p, (size_t)(q - p) + n);
		int seen = 0;
		for (size_t i = 0; i < out->n && !seen; i++)
			seen = !strcmp(out->v[i], o.buf);
		if (!seen)
			sv_push(out, o.buf);
		sb_release(&o);
		p = q + n - 1;
	}
}

static void bash_function(const struct cmd_entry *const *table, FILE *f)
{
	fputs("_kiln() {\n"
	      "\tlocal cur=${COMP_WORDS[COMP_CWORD]} opts=\n"
	      "\tif [ \"$COMP_CWORD\" -eq 1 ]; then\n"
	      "\t\tCOMPREPLY=($(compgen -W '--help --version", f);
	for (size_t i = 0; table[i]; i++)
		fprintf(f, " %s", table[i]->name);
	fputs("' -- \"$cur\"))\n\t\treturn\n\tfi\n\tcase ${COMP_WORDS[1]} in\n", f);
	for (size_t i = 0; table[i]; i++) {
		struct strvec o = STRVEC_INIT;
		options_of(table[i]->usage, &o);
		options_of(table[i]->help, &o);
		fprintf(f, "\t%s) opts='--help", table[i]->name);
		for (size_t k = 0; k < o.n; k++)
			if (strcmp(o.v[k], "--help"))
				fprintf(f, " %s", o.v[k]);
		fputs("' ;;\n", f);
		sv_clear(&o);
	}
	fputs("\tesac\n"
	      "\tif [[ $cur == -* ]]; then\n"
	      "\t\tCOMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
	      "\telse\n"
	      "\t\tCOMPREPLY=($(compgen -f -- \"$cur\"))\n"
	      "\tfi\n"
	      "}\n", f);
}

int kiln_completion(const struct cmd_entry *const *table, const char *shell, FILE *f)
{
	if (!strcmp(shell, "bash")) {
		fputs("# bash completion for kiln (kiln --completion bash)\n", f);
		bash_function(table, f);
		fputs("complete -o filenames -F _kiln kiln\n", f);
	} else if (!strcmp(shell, "zsh")) {
		fputs("#compdef kiln\n# zsh completion for kiln (kiln --completion zsh), through bash's\n"
		      "autoload -U +X bashcompinit && bashcompinit\n", f);
		bash_function(table, f);
		fputs("complete -o filenames -F _kiln kiln\n", f);
	} else {
		kiln_error("--completion: '%s' is not a shell kiln completes for (bash, zsh)", shell);
		return KEXIT_USAGE;
	}
	return fflush(f) ? KEXIT_FAIL : KEXIT_OK;
}
