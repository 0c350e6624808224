/*
 * config-int.h - what config.c (the experiment's walk) and config-yaml.c
 * (the config's text to a bounded YAML document) share; not for other
 * files, which use config.h.
 */
#ifndef KILN_CONFIG_INT_H
#define KILN_CONFIG_INT_H

#include <libfyaml.h>
#include <stddef.h>

#include "util.h"

/* a place in the config's text, 1-based */
struct pos {
	int line, col;
};

/* where node n starts (a scalar's token), fallback when it has none */
struct pos config_node_pos(struct fy_node *n, struct pos fallback);
/* printable UTF-8 only (and tab, CR, LF): else -1 with FILE:LINE:COL in e */
int config_check_text(const char *path, const char *text, size_t len, struct kerr *e);
/* blank lines and comments only? */
int config_only_comments(const char *text, size_t len);
/*
 * The YAML document of the config's text, aliases expanded (within
 * CONFIG_MAX_NODES); NULL with the error as FILE:LINE:COL.  *diagp: for
 * config_diag_release once the document is destroyed.
 */
struct fy_document *config_load_yaml(const char *path, const char *text, size_t len, struct fy_diag **diagp,
				     struct kerr *e);
void config_diag_release(struct fy_diag *diag);

#endif
