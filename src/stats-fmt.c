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

/* a value as printed with d decimals, in units of its last digit */
static long long printed_units(double v, int d)
{
	char buf[64];
	snprintf(buf, sizeof(buf), "%.*f", d, v);
	return llround(strtod(buf, NULL) * pow(10, d));
}

/* do "r ± h" printed with d decimals give ends on the sides of 1 that lo and hi are on? */
static int pm_sides_ok(double r, double h, double lo, double hi, int d)
{
	long long rp = printed_units(r, d), hp = printed_units(h, d), one = llround(pow(10, d));
	return (lo > 1) == (rp - hp > one) && (hi < 1) == (rp + hp < one);
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
		/*
		 * r and h are rounded apart, so the ends a reader takes from
		 * them may be a last digit off lo's and hi's: "1.011 ± 0.011" of
		 * 1.0006-1.0222 reads as 1.000-1.022, touching 1.  More digits
		 * until the ends read from the print are on lo's and hi's sides
		 * of 1, else the interval itself.
		 */
		for (; d <= 12 && !pm_sides_ok(r, h, lo, hi, d); d++)
			;
		if (d <= 12) {
			sb_addf(sb, "%.*f ± %.*f", d, r, d, h);
			return;
		}
		d = ks_decimals(r, lo, hi, 1.0, sig);
	}
	sb_addf(sb, "%.*f (%.*f–%.*f)", d, r, d, lo, d, hi);
}

void ks_fmt_pct(struct strbuf *sb, double pct, int sig)
{
	if (!isfinite(pct)) {
		sb_adds(sb, "-");
		return;
	}
	/* a 100-fold change and more: the digits of a bound that says "nothing" would be noise */
	if (fabs(pct) > 1e4) {
		sb_addf(sb, "%s10000%%", pct > 0 ? ">" : "<-");
		return;
	}
	char buf[64];
	int d = 0;
	if (pct != 0)
		d = sig - 1 - (int)floor(log10(fabs(pct)));
	d = d < 0 ? 0 : d > 12 ? 12 : d;
	snprintf(buf, sizeof(buf), "%.*f", d, pct);
	/* as %g: no trailing zeros ("1%", not "1.0%"), but never an exponent */
	if (strchr(buf, '.')) {
		size_t l = strlen(buf);
		while (buf[l - 1] == '0')
			buf[--l] = '\0';
		if (buf[l - 1] == '.')
			buf[--l] = '\0';
	}
	sb_addf(sb, "%s%%", buf);
}
