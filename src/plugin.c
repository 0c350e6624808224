/*
 * plugin.c - the table of built-in plugins.  Each plugin's entry is defined
 * in plugins/<name>/plugin.c; adding a plugin is that folder plus one line
 * here.  External plugins defined in a config are not in this table: see
 * plugin_external in plugins/external/plugin.c.
 */
#include <string.h>
#include "plugin.h"

extern const struct kiln_plugin plugin_c;
extern const struct kiln_plugin plugin_command;

const struct kiln_plugin *const kiln_plugins[] = {
	&plugin_c,
	&plugin_command,
	NULL,
};

const struct kiln_plugin *plugin_find(const char *name)
{
	for (size_t i = 0; kiln_plugins[i]; i++)
		if (!strcmp(kiln_plugins[i]->name, name))
			return kiln_plugins[i];
	return NULL;
}
