/*
 * utf8.h — the one UTF-8 codec: decode, validate, encode, count, find a
 * character's start.
 *
 * Valid UTF-8 is RFC 3629's: no overlong forms, no surrogates (U+D800 to
 * U+DFFF), nothing past U+10FFFF. Invalid input is read by Unicode's
 * "maximal subpart" practice: each maximal subpart of an ill-formed
 * sequence is one invalid character (which callers show as U+FFFD), and a
 * byte that cannot continue a sequence ends it and is read afresh. So
 * "\xe2\x82(" is one invalid character and "(", "\xc0\xaf" is two invalid
 * characters.
 *
 * The rules live in utf8_lead() alone; the one-shot decoder and the
 * streaming one (for a byte stream cut anywhere) both follow it.
 */
#ifndef PROGMUX_UTF8_H
#define PROGMUX_UTF8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define UTF8_REPLACEMENT	0xfffdU		/* what invalid input becomes */
#define UTF8_INVALID		0xffffffffU	/* decoded: not a character */
#define UTF8_MAX		4		/* bytes in one character */

/*
 * For a byte c that starts a character: how many continuation bytes follow
 * (0 for ASCII), or -1 if c cannot start one; *lo and *hi bound the first
 * continuation byte (narrower than 80..BF after E0, ED, F0 and F4).
 */
static inline int
utf8_lead(uint8_t c, uint8_t *lo, uint8_t *hi)
{
	*lo = 0x80;
	*hi = 0xbf;
	if (c < 0x80)
		return (0);
	if (c < 0xc2 || c > 0xf4)
		return (-1);
	if (c < 0xe0)
		return (1);
	if (c < 0xf0) {
		if (c == 0xe0)
			*lo = 0xa0;	/* no overlongs */
		else if (c == 0xed)
			*hi = 0x9f;	/* no surrogates */
		return (2);
	}
	if (c == 0xf0)
		*lo = 0x90;		/* no overlongs */
	else if (c == 0xf4)
		*hi = 0x8f;		/* nothing past U+10FFFF */
	return (3);
}

/* Is c a continuation byte (10xxxxxx)? */
static inline bool
utf8_is_cont(char c)
{
	return (((unsigned char)c & 0xc0) == 0x80);
}

/*
 * Decode the character at s (n > 0 bytes there): returns its length, with
 * *cp the code point, or for invalid input the length of the maximal
 * subpart, with *cp UTF8_INVALID.
 */
static inline size_t
utf8_decode(const char *s, size_t n, uint32_t *cp)
{
	const uint8_t	*p = (const uint8_t *)s;
	uint8_t		 lo, hi;
	uint32_t	 c;
	size_t		 i;
	int		 need;

	if ((need = utf8_lead(p[0], &lo, &hi)) <= 0) {
		*cp = need == 0 ? p[0] : UTF8_INVALID;
		return (1);
	}
	c = p[0] & (0x3f >> need);
	for (i = 1; i <= (size_t)need; i++) {
		if (i >= n || p[i] < lo || p[i] > hi) {
			*cp = UTF8_INVALID;
			return (i);
		}
		c = (c << 6) | (p[i] & 0x3f);
		lo = 0x80;
		hi = 0xbf;
	}
	*cp = c;
	return (i);
}

/*
 * A streaming decoder, for bytes that arrive in pieces. Start it zeroed
 * (UTF8_DEC_INIT); it holds at most three bytes of an open sequence.
 */
struct utf8_dec {
	uint32_t	cp;	/* code point so far */
	uint8_t		need;	/* continuation bytes still to come */
	uint8_t		len;	/* bytes held; 0 between characters */
	uint8_t		lo;	/* bounds of the next continuation byte */
	uint8_t		hi;
};

#define UTF8_DEC_INIT	{ 0, 0, 0, 0, 0 }

#define UTF8_MORE	0	/* byte taken, the character goes on */
#define UTF8_CHAR	1	/* byte taken, a character ends with it */
#define UTF8_AGAIN	2	/* byte not taken: the held bytes were invalid */

/*
 * Feed byte c. UTF8_CHAR: *cp is the character that c completes (or
 * UTF8_INVALID if c cannot start one), *n its length in bytes. UTF8_AGAIN:
 * c cannot continue the bytes held, which are one invalid character of *n
 * bytes (*cp is UTF8_INVALID); feed c again. UTF8_MORE: nothing yet.
 */
static inline int
utf8_dec_byte(struct utf8_dec *u, uint8_t c, uint32_t *cp, uint32_t *n)
{
	int	need;

	if (u->len != 0) {
		if (c < u->lo || c > u->hi) {
			*cp = UTF8_INVALID;
			*n = u->len;
			u->len = u->need = 0;
			return (UTF8_AGAIN);
		}
		u->cp = (u->cp << 6) | (c & 0x3f);
		u->len++;
		u->lo = 0x80;
		u->hi = 0xbf;
		if (--u->need != 0)
			return (UTF8_MORE);
		*cp = u->cp;
		*n = u->len;
		u->len = 0;
		return (UTF8_CHAR);
	}
	if ((need = utf8_lead(c, &u->lo, &u->hi)) <= 0) {
		*cp = need == 0 ? c : UTF8_INVALID;
		*n = 1;
		return (UTF8_CHAR);
	}
	u->cp = c & (0x3f >> need);
	u->need = (uint8_t)need;
	u->len = 1;
	return (UTF8_MORE);
}

/* Write code point cp (at most U+10FFFF) as UTF-8; returns 1 to 4. */
size_t	utf8_encode(uint32_t cp, char *out);
/* Offset of the first byte of invalid UTF-8 in s, or n if it is valid. */
size_t	utf8_find_invalid(const char *s, size_t n);
/* Is s valid UTF-8 (NUL bytes allowed)? */
bool	utf8_valid(const char *s, size_t n);
/* Code points in valid UTF-8: the bytes that are not continuation bytes. */
size_t	utf8_count(const char *s, size_t n);
/* Bytes a character starting with byte c takes (1 if c cannot start one). */
size_t	utf8_seq_len(char c);
/* In valid UTF-8, the start of the character that holds byte at. */
size_t	utf8_char_start(const char *s, size_t at);

#endif
