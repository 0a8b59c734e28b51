/*
 * test_marker.c — the launcher's markers, written and scanned
 * (reaper/marker.c).
 *
 * The scanner gets the pane's bytes in pieces of any size. Each case
 * checks the text handed on (everything that is not a marker of our
 * nonce, in order, unchanged) and the markers found. Splitting: every
 * split point of a stream, and one byte at a time.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "buf.h"
#include "marker.h"

#define NONCE	"0123456789abcdef0123456789abcdef"
#define OTHER	"fedcba9876543210fedcba9876543210"

struct seen {
	struct buf	text;
	struct marker	found[8];
	int		nfound;
	char		order[64];	/* 't' text, 'm' marker, in order */
	size_t		norder;
};

/* Text callback: gather it. */
static void
seen_text(void *arg, const char *p, size_t len)
{
	struct seen	*s = arg;

	assert_true(len > 0);
	buf_add(&s->text, p, len);
	if (s->norder == 0 || s->order[s->norder - 1] != 't')
		s->order[s->norder++] = 't';
}

/* Feed p in pieces of at most step bytes (0: the split at cut). */
static void
feed(struct marker_scan *ms, struct seen *s, const char *p, size_t len,
    size_t step, size_t cut)
{
	struct marker	m;
	size_t		off = 0, end, n;
	bool		found;

	while (off < len) {
		if (step > 0)
			end = off + step < len ? off + step : len;
		else
			end = off < cut ? cut : len;
		while (off < end) {
			n = marker_scan(ms, p + off, end - off, seen_text, s,
			    &m, &found);
			off += n;
			if (found) {
				assert_true(s->nfound < 8);
				s->found[s->nfound++] = m;
				s->order[s->norder++] = 'm';
			} else
				assert_int_equal(off, end);
		}
	}
}

/* Run one stream split at every point, and one byte at a time; each
 * way must give the same text and markers. */
static void
check_all_splits(const char *stream, size_t len, const char *text,
    const struct marker *want, int nwant)
{
	struct marker_scan	ms;
	struct seen		s;
	size_t			cut;
	int			i, pass;

	for (pass = 0; pass <= (int)len + 1; pass++) {
		memset(&s, 0, sizeof s);
		marker_scan_init(&ms, NONCE);
		if (pass == (int)len + 1)
			feed(&ms, &s, stream, len, 1, 0);
		else {
			cut = (size_t)pass;
			feed(&ms, &s, stream, len, 0, cut);
		}
		marker_scan_flush(&ms, seen_text, &s);
		assert_int_equal(s.text.len, strlen(text));
		assert_memory_equal(s.text.len ? s.text.data : "", text,
		    strlen(text));
		assert_int_equal(s.nfound, nwant);
		for (i = 0; i < nwant; i++) {
			assert_int_equal(s.found[i].kind, want[i].kind);
			assert_int_equal(s.found[i].value, want[i].value);
		}
		buf_free(&s.text);
	}
}

/* What the writer makes is what the scanner finds, for every kind,
 * between text, whatever the split. */
static void
test_every_kind_round_trip(void **state)
{
	static const struct marker	kinds[] = {
		{ MARKER_K_RUN, 4242 }, { MARKER_K_EXIT, 0 },
		{ MARKER_K_EXIT, 3 }, { MARKER_K_SIGNAL, 15 },
		{ MARKER_K_NOEXEC, 127 }, { MARKER_K_EXIT, -1 }
	};
	char	stream[512], m[MARKER_MAX + 64];
	size_t	i, len, n;

	(void)state;
	for (i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
		n = marker_format(m, sizeof m, NONCE, kinds[i].kind,
		    kinds[i].value);
		assert_true(n > 0 && n < sizeof m);
		assert_memory_equal(m, MARKER_PREFIX NONCE ";",
		    strlen(MARKER_PREFIX NONCE ";"));
		assert_int_equal(m[n - 1], '\007');
		len = (size_t)snprintf(stream, sizeof stream, "before\r\n%s"
		    "after", m);
		check_all_splits(stream, len, "before\r\nafter", &kinds[i], 1);
	}
}

/* Two markers back to back, the run marker then the end: both found,
 * in order, the text around them intact. */
static void
test_two_markers(void **state)
{
	static const struct marker	want[] = {
		{ MARKER_K_RUN, 77 }, { MARKER_K_SIGNAL, 9 }
	};
	char	stream[512], a[MARKER_MAX + 64], b[MARKER_MAX + 64];
	size_t	len;

	(void)state;
	marker_format(a, sizeof a, NONCE, MARKER_K_RUN, 77);
	marker_format(b, sizeof b, NONCE, MARKER_K_SIGNAL, 9);
	len = (size_t)snprintf(stream, sizeof stream, "%sx\033[1my%s", a, b);
	check_all_splits(stream, len, "x\033[1my", want, 2);
}

/* A marker with another nonce is text (the stripper removes it later);
 * so are ESC sequences that start like one. */
static void
test_wrong_nonce_is_text(void **state)
{
	char	stream[512], m[MARKER_MAX + 64];
	size_t	len;

	(void)state;
	marker_format(m, sizeof m, OTHER, MARKER_K_EXIT, 0);
	len = (size_t)snprintf(stream, sizeof stream, "a%sb\033]5522;0123c"
	    "\033\033]55d", m);
	check_all_splits(stream, len, stream, NULL, 0);
}

/* A body longer than the limit, or one not understood (unknown kind, a
 * value that is not a number, no value), is dropped with its marker:
 * nothing is found, the text around it is kept, and a good marker after
 * it is still found. */
static void
test_bad_bodies_dropped(void **state)
{
	static const struct marker	want = { MARKER_K_EXIT, 5 };
	const char	*bad[] = { "exit;", "what;1", "exit;12x", "exit",
			    ";3", "signal;99999999999999999999999" };
	char		 stream[1024], body[MARKER_MAX * 2], good[MARKER_MAX + 64];
	size_t		 i, len;

	(void)state;
	marker_format(good, sizeof good, NONCE, MARKER_K_EXIT, 5);
	memset(body, '7', sizeof body - 1);
	body[sizeof body - 1] = '\0';
	memcpy(body, "exit;", 5);
	len = (size_t)snprintf(stream, sizeof stream, "a" MARKER_PREFIX NONCE
	    ";%s\007b%s", body, good);
	check_all_splits(stream, len, "ab", &want, 1);
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		len = (size_t)snprintf(stream, sizeof stream, "a"
		    MARKER_PREFIX NONCE ";%s\007b%s", bad[i], good);
		check_all_splits(stream, len, "ab", &want, 1);
	}
}

/* A prefix cut short by the end of the input is text once flushed;
 * the scanner stops right after a marker, leaving the rest to the
 * caller. */
static void
test_flush_and_stop(void **state)
{
	struct marker_scan	ms;
	struct seen		s;
	struct marker		m;
	char			stream[256], mk[MARKER_MAX + 64];
	size_t			n, len;
	bool			found;

	(void)state;
	memset(&s, 0, sizeof s);
	marker_scan_init(&ms, NONCE);
	n = marker_scan(&ms, "x\033]5522;01", 10, seen_text, &s, &m, &found);
	assert_int_equal(n, 10);
	assert_false(found);
	assert_int_equal(s.text.len, 1);
	marker_scan_flush(&ms, seen_text, &s);
	assert_int_equal(s.text.len, 10);
	assert_memory_equal(s.text.data, "x\033]5522;01", 10);

	marker_format(mk, sizeof mk, NONCE, MARKER_K_EXIT, 2);
	len = (size_t)snprintf(stream, sizeof stream, "%stail", mk);
	marker_scan_init(&ms, NONCE);
	n = marker_scan(&ms, stream, len, seen_text, &s, &m, &found);
	assert_true(found);
	assert_int_equal(n, strlen(mk));
	assert_int_equal(m.kind, MARKER_K_EXIT);
	assert_int_equal(m.value, 2);
	buf_free(&s.text);
}

/* Nonces are hex of the right length, and differ. */
static void
test_nonce(void **state)
{
	char	a[MARKER_NONCE_LEN + 1], b[MARKER_NONCE_LEN + 1];

	(void)state;
	assert_int_equal(marker_nonce(a), 0);
	assert_int_equal(marker_nonce(b), 0);
	assert_int_equal(strlen(a), MARKER_NONCE_LEN);
	assert_int_equal(strspn(a, "0123456789abcdef"), MARKER_NONCE_LEN);
	assert_string_not_equal(a, b);
}

int
main(void)
{
	const struct CMUnitTest	tests[] = {
		cmocka_unit_test(test_every_kind_round_trip),
		cmocka_unit_test(test_two_markers),
		cmocka_unit_test(test_wrong_nonce_is_text),
		cmocka_unit_test(test_bad_bodies_dropped),
		cmocka_unit_test(test_flush_and_stop),
		cmocka_unit_test(test_nonce),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
