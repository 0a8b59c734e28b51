/*
 * fuzz_strip.c — libFuzzer target for the stripper (reaper/strip.c).
 *
 * The first byte chooses where to split the rest. The rest is stripped in
 * one buffer, in two pieces split there, and byte by byte: the three texts
 * must be identical, each within STRIP_MAX_OUT, valid UTF-8 (no overlong
 * form, no surrogate), and free of every C0 control but TAB and LF and of
 * DEL. U+0080..U+009F may appear: they are text (progmux(1), Text).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "clean_text.h"
#include "strip.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);


/* Strip in pieces of at most step bytes, or split once at cut. */
static size_t
fuzz_strip(const uint8_t *in, size_t len, size_t cut, size_t step,
    uint8_t *out)
{
	struct strip	sp;
	size_t		off = 0, n, o = 0, got;

	strip_init(&sp);
	while (off < len) {
		n = step != 0 ? step : (off < cut ? cut : len - off);
		if (n > len - off)
			n = len - off;
		got = strip_feed(&sp, in + off, n, (char *)out + o);
		if (got > STRIP_MAX_OUT(n))
			abort();
		o += got;
		off += n;
	}
	got = strip_finish(&sp, (char *)out + o);
	if (got > 16)
		abort();
	return (o + got);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t	*a, *b, *c;
	size_t	 len, cut, na, nb, nc;

	if (size < 1)
		return (0);
	len = size - 1;
	cut = len * data[0] / 255;
	a = malloc(STRIP_MAX_OUT(len) + 16);
	b = malloc(STRIP_MAX_OUT(len) + 16);
	c = malloc(STRIP_MAX_OUT(len) + 16);
	na = fuzz_strip(data + 1, len, len, 0, a);
	nb = fuzz_strip(data + 1, len, cut, 0, b);
	nc = fuzz_strip(data + 1, len, 0, 1, c);
	if (na != nb || na != nc || memcmp(a, b, na) != 0 ||
	    memcmp(a, c, na) != 0)
		abort();
	if (!clean_text(a, na))
		abort();
	free(a);
	free(b);
	free(c);
	return (0);
}
