/*
 * test_utf8.c — the one UTF-8 codec (common/utf8.c, utf8.h).
 *
 * Every code point encodes and decodes back; the invalid forms (overlongs,
 * surrogates, past U+10FFFF, stray and missing continuation bytes) are
 * read as Unicode's maximal subparts; on random bytes the one-shot
 * decoder, the streaming one and a decoder written here from the
 * definition agree; counting and character starts follow the decoding.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "rand.h"

#include <stdlib.h>
#include <string.h>

#include "utf8.h"

/* Decode s as a list of (code point, length) with the one-shot decoder. */
static size_t
decode_all(const char *s, size_t n, uint32_t *cps, size_t *lens)
{
	size_t	i = 0, k = 0;

	while (i < n) {
		lens[k] = utf8_decode(s + i, n - i, &cps[k]);
		assert_true(lens[k] >= 1 && lens[k] <= n - i);
		i += lens[k++];
	}
	return (k);
}

/* The same with the streaming decoder, fed a byte at a time. */
static size_t
stream_all(const char *s, size_t n, uint32_t *cps, size_t *lens)
{
	struct utf8_dec	 u = UTF8_DEC_INIT;
	size_t		 i, k = 0;
	uint32_t	 cp, len;
	int		 r;

	for (i = 0; i < n; i++) {
		while ((r = utf8_dec_byte(&u, (uint8_t)s[i], &cp, &len)) !=
		    UTF8_MORE) {
			cps[k] = cp;
			lens[k++] = len;
			if (r == UTF8_CHAR)
				break;
		}
	}
	if (u.len != 0) {
		/* Cut short by the end: one invalid character. */
		cps[k] = UTF8_INVALID;
		lens[k++] = u.len;
	}
	return (k);
}

/*
 * A decoder from the definition (Unicode 3.9, table 3-7): the well-formed
 * sequences, and otherwise the longest prefix of one as a maximal subpart.
 */
static size_t
ref_decode(const unsigned char *s, size_t n, uint32_t *cp)
{
	static const struct {
		unsigned char	lead_lo, lead_hi, lo, hi;
		int		len;
	} t[] = {
		{ 0xc2, 0xdf, 0x80, 0xbf, 2 }, { 0xe0, 0xe0, 0xa0, 0xbf, 3 },
		{ 0xe1, 0xec, 0x80, 0xbf, 3 }, { 0xed, 0xed, 0x80, 0x9f, 3 },
		{ 0xee, 0xef, 0x80, 0xbf, 3 }, { 0xf0, 0xf0, 0x90, 0xbf, 4 },
		{ 0xf1, 0xf3, 0x80, 0xbf, 4 }, { 0xf4, 0xf4, 0x80, 0x8f, 4 },
	};
	size_t	r, i;
	int	k;

	if (s[0] < 0x80) {
		*cp = s[0];
		return (1);
	}
	for (r = 0; r < sizeof t / sizeof t[0]; r++)
		if (s[0] >= t[r].lead_lo && s[0] <= t[r].lead_hi)
			break;
	if (r == sizeof t / sizeof t[0]) {
		*cp = UTF8_INVALID;
		return (1);
	}
	for (k = 1; k < t[r].len; k++) {
		if ((size_t)k >= n || s[k] < (k == 1 ? t[r].lo : 0x80) ||
		    s[k] > (k == 1 ? t[r].hi : 0xbf)) {
			*cp = UTF8_INVALID;
			return ((size_t)k);
		}
	}
	*cp = s[0] & (0xff >> (t[r].len + 1));
	for (i = 1; i < (size_t)t[r].len; i++)
		*cp = (*cp << 6) | (s[i] & 0x3f);
	return ((size_t)t[r].len);
}

/* Every scalar value encodes and decodes back, at its length. */
static void
test_round_trip(void **state)
{
	char		 b[UTF8_MAX];
	uint32_t	 c, cp;
	size_t		 n, want;

	(void)state;
	for (c = 0; c <= 0x10ffff; c++) {
		if (c >= 0xd800 && c <= 0xdfff)
			continue;
		n = utf8_encode(c, b);
		want = c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
		assert_int_equal(n, want);
		assert_int_equal(utf8_decode(b, n, &cp), n);
		assert_true(cp == c);
		assert_true(utf8_valid(b, n));
		assert_int_equal(utf8_count(b, n), 1);
		assert_int_equal(utf8_seq_len(b[0]), n);
		assert_int_equal(utf8_char_start(b, n - 1), 0);
	}
}

/* Ill-formed input: one invalid character per maximal subpart. */
static void
test_invalid(void **state)
{
	static const struct {
		const char	*s;
		size_t		 lens[5];	/* lengths of what is read, then 0 */
	} cases[] = {
		{ "\xc0\x80", { 1, 1 } },		/* overlong */
		{ "\xe0\x80\x80", { 1, 1, 1 } },
		{ "\xe0\xa0", { 2 } },			/* cut short */
		{ "\xed\xa0\x80", { 1, 1, 1 } },	/* surrogate */
		{ "\xf4\x90\x80\x80", { 1, 1, 1, 1 } },	/* past U+10FFFF */
		{ "\xf5\x80", { 1, 1 } },
		{ "\xe2\x82(", { 2, 1 } },		/* cut by a byte */
		{ "\xf0\x9f\x98", { 3 } },
		{ "\x80\xbf", { 1, 1 } },		/* stray */
		{ "\xff", { 1 } },
	};
	uint32_t	cps[8];
	size_t		lens[8], i, k, n;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		n = decode_all(cases[i].s, strlen(cases[i].s), cps, lens);
		for (k = 0; k < n; k++) {
			assert_int_equal(lens[k], cases[i].lens[k]);
			if (k == n - 1 && cases[i].s[strlen(cases[i].s) - 1] ==
			    '(')
				assert_true(cps[k] == '(');
			else
				assert_true(cps[k] == UTF8_INVALID);
		}
		assert_int_equal(cases[i].lens[n], 0);
		assert_false(utf8_valid(cases[i].s, strlen(cases[i].s)));
		assert_int_equal(utf8_find_invalid(cases[i].s,
		    strlen(cases[i].s)), 0);
	}
	assert_int_equal(utf8_find_invalid("abcdefghij\xc3(", 12), 10);
	assert_true(utf8_valid("a\0b", 3));
}

/* On random bytes (mostly high ones), the one-shot decoder, the streaming
 * one and the decoder from the definition agree;
 * utf8_find_invalid finds the first invalid character. */
static void
test_random(void **state)
{
	unsigned char	 s[64];
	uint32_t	 a[64], b[64], rcp;
	size_t		 la[64], lb[64], na, nb, i, k, n, off, rl, bad;
	uint64_t	 x = 2463534242ULL;

	(void)state;
	for (i = 0; i < 200000; i++) {
		n = 1 + i % 16;
		for (k = 0; k < n; k++) {
			test_xorshift(&x);
			s[k] = (x & 3) == 0 ? (x >> 8) & 0x7f :
			    0x80 | ((x >> 8) & 0x7f);
		}
		na = decode_all((char *)s, n, a, la);
		nb = stream_all((char *)s, n, b, lb);
		assert_int_equal(na, nb);
		bad = n;
		for (k = 0, off = 0; k < na; k++) {
			assert_int_equal(la[k], lb[k]);
			assert_true(a[k] == b[k]);
			rl = ref_decode(s + off, n - off, &rcp);
			assert_int_equal(la[k], rl);
			assert_true(a[k] == rcp);
			if (a[k] == UTF8_INVALID && bad == n)
				bad = off;
			off += la[k];
		}
		assert_int_equal(utf8_find_invalid((char *)s, n), bad);
	}
}

/* Counting and character starts in valid text. */
static void
test_count_start(void **state)
{
	static const char s[] = "a\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80z";
	static const size_t start[] = { 0, 1, 1, 3, 3, 3, 6, 6, 6, 6, 10 };
	size_t	i;

	(void)state;
	assert_int_equal(utf8_count(s, sizeof s - 1), 5);
	assert_int_equal(utf8_count(s, 0), 0);
	for (i = 0; i < sizeof s - 1; i++)
		assert_int_equal(utf8_char_start(s, i), start[i]);
	assert_int_equal(utf8_seq_len('a'), 1);
	assert_int_equal(utf8_seq_len('\x80'), 1);	/* cannot start one */
	assert_int_equal(utf8_seq_len('\xc0'), 1);
	assert_int_equal(utf8_seq_len('\xf5'), 1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_invalid),
		cmocka_unit_test(test_random),
		cmocka_unit_test(test_count_start),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
