/*
 * publish-detect.c - a key's change points for the site, as the history's
 * own detection finds them (history-detect.c: kiln publish shows what
 * `kiln track --changes` prints, never a second opinion), with the A/A
 * pairs of each series and the alarms detection put on them: the
 * false-alarm rate every alarm shows.
 */
#include <stdlib.h>
#include <string.h>

#include "publish-int.h"

/* the neighbouring same-binary commits of the series: its A/A pairs */
static size_t aa_pairs(const struct hist_series *s)
{
	size_t n = 0;
	for (size_t i = 1; i < s->n; i++)
		n += s->p[i].same_as_prev != 0;
	return n;
}

void pub_detect(struct pub_key *k)
{
	k->ch = NULL;
	k->nch = 0;
	for (int w = 0; w < PUB_NWHAT; w++) {
		k->aa[w].pairs = aa_pairs(&k->s);
		k->aa[w].alarms = 0;
	}
	/* the history's detection (history_detect) is not in this build yet: no change points known */
	k->detected = 0;
}
