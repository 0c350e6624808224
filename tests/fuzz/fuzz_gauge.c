/*
 * fuzz_gauge.c - libFuzzer target for the gauge line parsers (src/gauge.c):
 * the first byte picks the format (rebench, jmh, time, a regex, multivariate,
 * plain_seconds, savina, validation), the
 * second where the rest is cut in two chunks; any output must give
 * iterations within the bound or an error, and an error must be visible
 * text (no control character of the output reaches it).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gauge.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;
	struct gauge_conf c = { .format = (enum gauge_format)(1 + data[0] % 8), .max_iterations = 50,
				.regex = "took ([0-9.eE+-]+) ?(ms)?", .unit = "ms" };
	struct gauge g;
	struct kerr e = KERR_INIT;
	if (gauge_init(&g, &c, data[0] & 0x80 ? 3 : 0, data[0] & 0x40 ? 1 : 0, &e) < 0)
		abort();
	const char *text = (const char *)data + 2;
	size_t n = size - 2, cut = data[1] < n ? data[1] : n;
	int r = gauge_feed(&g, text, cut);
	if (r == 0)
		r = gauge_feed(&g, text + cut, n - cut);
	if (r == 0)
		r = gauge_finish(&g);
	if ((long)g.n > c.max_iterations || g.warmup > g.n || (r < 0 && !g.error.len) || (r == 0 && !g.n))
		abort();
	for (size_t i = 0; i < g.error.len; i++)
		if ((unsigned char)g.error.buf[i] < 0x20 || g.error.buf[i] == 0x7f)
			abort();
	for (size_t i = 0; i < g.n; i++)
		if (g.wall[i] < 0)
			abort();
	gauge_release(&g);
	kerr_release(&e);
	return 0;
}
