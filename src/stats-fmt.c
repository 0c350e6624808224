/*
 * stats-fmt.c - printing figures with intervals so that the print says
 * what the figure says (stats.h): enough digits that an interval which
 * excludes 1 never prints as one that touches it ("1.00 ± 0.00"), and a
 * lopsided interval printed as its two ends, not as a ± that would put one
 * end on the other side of 1.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "util.h"

int ks_decimals(double v, double lo, double hi, double pivot, int sig)
{
	double mag = fabs(v);
	if (!(mag > 0) || !isfinite(mag))
		mag = fmax(fabs(lo), fabs(hi));
	int d = 0;
	if (mag > 0 && isfinite(mag))
		d = sig - 1 - (int)floor(log10(mag));
	if (d < 0)
		d = 0;
	if (d > 12)
		d = 12;
	{
		char buf[64], bv[64];
		for (; d < 12; d++) {
			int ok = 1;
			/* ends that differ from the value print differently */
			snprintf(bv, sizeof(bv), "%.*f", d, v);
			if (isfinite(lo) && lo < v) {
				snprintf(buf, sizeof(buf), "%.*f", d, lo);
				ok &= strcmp(buf, bv) != 0;
			}
			if (isfinite(hi) && hi > v) {
				snprintf(buf, sizeof(buf), "%.*f", d, hi);
				ok &= strcmp(buf, bv) != 0;
			}
			if (!isnan(pivot) && lo > pivot && isfinite(lo)) {
				snprintf(buf, sizeof(buf), "%.*f", d, lo);
				ok &= strtod(buf, NULL) > pivot;
			}
			if (!isnan(pivot) && hi < pivot && isfinite(hi)) {
				snprintf(buf, sizeof(buf), "%.*f", d, hi);
				ok &= strtod(buf, NULL) < pivot;
			}
			if (ok)
				break;
		}
	}
	return d;
}

void ks_fmt_ratio(struct strbuf *sb, double r, double lo, double hi, int sig)
{
	if (!isfinite(r)) {
		sb_adds(sb, "-");
		return;
	}
	if (isnan(lo) || isnan(hi)) {
		sb_addf(sb, "%.*f", ks_decimals(r, r, r, NAN, sig), r);
		return;
	}
	int d = ks_decimals(r, lo, hi, 1.0, sig);
	if (!isfinite(hi)) {
		sb_addf(sb, "%.*f (%.*f–inf)", d, r, d, lo);
		return;
	}
	double up = hi - r, down = r - lo, h = (up + down) / 2;
	/* "r ± h" only when it says the same: symmetric within 10%, and r - h, r + h on lo's and hi's sides of 1 */
	int sym = fabs(up - down) <= 0.1 * fmax(up, down) && !((lo > 1) != (r - h > 1)) && !((hi < 1) != (r + h < 1));
	if (sym && h > 0) {
		char buf[64];
		/* the half-width to two significant digits at least, and nonzero in print */
		int dh = d;
		for (;; dh++) {
			snprintf(buf, sizeof(buf), "%.*f", dh, h);
			if (strtod(buf, NULL) > 0 && (dh >= 12 || h >= 10 * pow(10, -dh)))
				break;
		}
		if (dh > d)
			d = dh;
		sb_addf(sb, "%.*f ± %.*f", d, r, d, h);
	} else
		sb_addf(sb, "%.*f (%.*f–%.*f)", d, r, d, lo, d, hi);
}
