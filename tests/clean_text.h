/*
 * clean_text.h — what the stripper's output must be, as its tests (the
 * unit test, the fuzzer) check it: valid UTF-8 (no overlong form, no
 * surrogate, nothing past U+10FFFF) holding no C0 control but TAB and LF,
 * and no DEL. Checked here byte by byte, apart from common/utf8.c, which
 * the stripper itself uses.
 */
#ifndef PROGMUX_TESTS_CLEAN_TEXT_H
#define PROGMUX_TESTS_CLEAN_TEXT_H

#include <stddef.h>
#include <stdint.h>

/* Are the len bytes at v clean? */
static inline int
clean_text(const void *v, size_t len)
{
	const uint8_t	*p = v;
	size_t		 i = 0, n, k;
	uint32_t	 cp;

	while (i < len) {
		if (p[i] < 0x80) {
			if ((p[i] < 0x20 && p[i] != '\t' && p[i] != '\n') ||
			    p[i] == 0x7f)
				return (0);
			i++;
			continue;
		}
		if (p[i] >= 0xc2 && p[i] <= 0xdf) {
			n = 1;
			cp = p[i] & 0x1f;
		} else if (p[i] >= 0xe0 && p[i] <= 0xef) {
			n = 2;
			cp = p[i] & 0x0f;
		} else if (p[i] >= 0xf0 && p[i] <= 0xf4) {
			n = 3;
			cp = p[i] & 0x07;
		} else
			return (0);
		if (i + n >= len)
			return (0);
		for (k = 1; k <= n; k++) {
			if ((p[i + k] & 0xc0) != 0x80)
				return (0);
			cp = (cp << 6) | (p[i + k] & 0x3f);
		}
		if ((n == 1 && cp < 0x80) || (n == 2 && cp < 0x800) ||
		    (n == 3 && (cp < 0x10000 || cp > 0x10ffff)) ||
		    (cp >= 0xd800 && cp <= 0xdfff))
			return (0);
		i += n + 1;
	}
	return (1);
}

#endif
