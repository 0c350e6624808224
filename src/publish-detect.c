/*
 * publish-detect.c - a key's change points for the site, as the history's
 * own detection finds them (history_detect, history-detect.c: kiln publish
 * shows what `kiln track --changes` prints, never a second opinion), with
 * the A/A pairs of each series and the alarms detection put on them: the
 * false-alarm rate every alarm shows; and the smallest steady step the
 * series could have shown, and the smallest stretch of its warm-up
 * (history-power.c), so that no alarm is not read as no change.
 */
#include <stdlib.h>
#include <string.h>

#include "history-detect.h"
#include "publish-int.h"

_Static_assert((int)PUB_STEADY == (int)HIST_STEADY && (int)PUB_WARMUP == (int)HIST_WARMUP &&
		       (int)PUB_CLASS == (int)HIST_CLASS && (int)PUB_COST == (int)HIST_COST &&
		       (int)PUB_NWHAT == (int)HIST_NWHAT,
	       "publish names the history's series in its order");

void pub_detect(struct pub_key *k)
{
	struct hist_change *ch = NULL;
	struct hist_detect_stats st;
	size_t n = 0;
	memset(&st, 0, sizeof(st));
	k->ch = NULL;
	k->nch = 0;
	k->detected = history_detect(&k->s, NULL, &ch, &n, &st) == 0;
	memset(&k->power, 0, sizeof(k->power));
	memset(&k->power_warm, 0, sizeof(k->power_warm));
	if (k->detected) {
		history_power(&k->s, NULL, ch, n, &k->power);
		history_power_warm(&k->s, NULL, ch, n, &k->power_warm);
	}
	for (int w = 0; w < PUB_NWHAT; w++) {
		k->aa[w].pairs = st.aa_pairs[w];
		k->aa[w].alarms = st.aa_alarms[w];
	}
	if (!k->detected)
		return;
	k->ch = xcalloc(n + 1, sizeof(*k->ch));
	for (size_t i = 0; i < n; i++) {
		const struct hist_change *c = &ch[i];
		if (c->at >= k->s.n)
			continue;
		k->ch[k->nch++] = (struct pub_change){ (enum pub_what)c->what, c->at, c->lo, c->hi, c->before, c->after,
						       c->ratio, c->ratio_lo, c->ratio_hi, c->aa_alarm,
						       c->after_lo, c->after_hi };
	}
	free(ch);
}
