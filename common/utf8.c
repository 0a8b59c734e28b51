/*
 * utf8.c — the one UTF-8 codec (see utf8.h).
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "utf8.h"

#define UTF8_HIGHS	0x8080808080808080ULL

/* Encode one code point. */
size_t
utf8_encode(uint32_t cp, char *out)
{
	uint8_t	*o = (uint8_t *)out;

	if (cp < 0x80) {
		o[0] = (uint8_t)cp;
		return (1);
	}
	if (cp < 0x800) {
		o[0] = 0xc0 | (cp >> 6);
		o[1] = 0x80 | (cp & 0x3f);
		return (2);
	}
	if (cp < 0x10000) {
		o[0] = 0xe0 | (cp >> 12);
		o[1] = 0x80 | ((cp >> 6) & 0x3f);
		o[2] = 0x80 | (cp & 0x3f);
		return (3);
	}
	o[0] = 0xf0 | (cp >> 18);
	o[1] = 0x80 | ((cp >> 12) & 0x3f);
	o[2] = 0x80 | ((cp >> 6) & 0x3f);
	o[3] = 0x80 | (cp & 0x3f);
	return (4);
}

/* Find the first invalid byte; ASCII goes eight bytes at a time. */
size_t
utf8_find_invalid(const char *s, size_t n)
{
	const uint8_t	*p = (const uint8_t *)s;
	size_t		 i = 0, used;
	uint64_t	 w;
	uint32_t	 cp;

	while (i < n) {
		if (n - i >= 8) {
			memcpy(&w, p + i, 8);
			if ((w & UTF8_HIGHS) == 0) {
				i += 8;
				continue;
			}
		}
		if (p[i] < 0x80) {
			i++;
			continue;
		}
		used = utf8_decode(s + i, n - i, &cp);
		if (cp == UTF8_INVALID)
			return (i);
		i += used;
	}
	return (n);
}

/* Is it all valid? */
bool
utf8_valid(const char *s, size_t n)
{
	return (utf8_find_invalid(s, n) == n);
}

/* Count the characters of valid UTF-8. */
size_t
utf8_count(const char *s, size_t n)
{
	size_t	i, c = 0;

	for (i = 0; i < n; i++)
		c += !utf8_is_cont(s[i]);
	return (c);
}

/* The length a lead byte announces. */
size_t
utf8_seq_len(char c)
{
	uint8_t	lo, hi;
	int	need;

	need = utf8_lead((uint8_t)c, &lo, &hi);
	return (need < 0 ? 1 : (size_t)need + 1);
}

/* Back up over continuation bytes (at most three) to a character's start. */
size_t
utf8_char_start(const char *s, size_t at)
{
	size_t	i = at;

	while (i > 0 && at - i < UTF8_MAX - 1 && utf8_is_cont(s[i]))
		i--;
	return (i);
}
