/*
 * json-num.h - a double as JSON: a number when it is finite, else null
 * (JSON has no NaN or infinity, and a 0 in their place would be a claim).
 */
#ifndef KILN_JSON_NUM_H
#define KILN_JSON_NUM_H

#include <jansson.h>
#include <math.h>

static inline json_t *json_num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

#endif
