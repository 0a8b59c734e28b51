/*
 * test_textbuf.c — a program's text and its pages (server/textbuf.c).
 *
 * Exact pages for each rule (max_lines, max_chars with multi-byte
 * characters, a long line cut on a code point, the final line only once
 * ended, cursors past the end, mid-line and mid-character), the ceiling,
 * the tail, and a property test: pages laid end to end give the text.
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

#include "rand.h"

#include "textbuf.h"
#include "xmalloc.h"

static uint64_t	test_rng = 2463534242ULL;
#define test_rand()	test_xorshift(&test_rng)

/* A textbuf holding s, without a ceiling. */
static void
test_make(struct textbuf *tb, const char *s)
{
	textbuf_init(tb, 1 << 20);
	textbuf_append(tb, s, strlen(s));
}

/* The page at cursor must hold exactly want, with lines and chars. */
static void
test_page(const struct textbuf *tb, size_t cursor, size_t max_lines,
    size_t max_chars, bool ended, size_t start, const char *want,
    size_t lines, size_t chars)
{
	struct page	 pg;
	char		*cause = NULL;

	assert_int_equal(textbuf_page(tb, cursor, max_lines, max_chars, ended,
	    &pg, &cause), 0);
	assert_null(cause);
	assert_int_equal(pg.start, start);
	assert_int_equal(pg.end - pg.start, strlen(want));
	assert_memory_equal(tb->data + pg.start, want, strlen(want));
	assert_int_equal(pg.lines, lines);
	assert_int_equal(pg.chars, chars);
	assert_int_equal(utf8_count(tb->data + pg.start, pg.end - pg.start),
	    pg.chars);
}

/* The tail must hold exactly want. */
static void
test_tail(const struct textbuf *tb, size_t max_lines, size_t max_chars,
    const char *want, size_t lines, size_t chars)
{
	struct page	pg;

	textbuf_tail(tb, max_lines, max_chars, &pg);
	assert_int_equal(pg.end, tb->len);
	assert_int_equal(pg.start, tb->len - strlen(want));
	assert_memory_equal(tb->data + pg.start, want, strlen(want));
	assert_int_equal(pg.lines, lines);
	assert_int_equal(pg.chars, chars);
}

/* Code points are counted, not bytes. */
static void
test_count(void **state)
{
	(void)state;
	assert_int_equal(utf8_count("", 0), 0);
	assert_int_equal(utf8_count("abc\n", 4), 4);
	assert_int_equal(utf8_count("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", 9),
	    3);
	assert_int_equal(utf8_count("\xe2\x82", 2), 1);
}

/* Appends accumulate; storage grows with the text, not beyond. */
static void
test_append(void **state)
{
	struct textbuf	tb;
	char		line[100];
	size_t		i;

	(void)state;
	textbuf_init(&tb, 8 << 20);
	assert_int_equal(tb.len, 0);
	assert_false(tb.cut);
	textbuf_append(&tb, "", 0);
	assert_int_equal(tb.len, 0);
	assert_null(tb.data);		/* nothing allocated for nothing */
	memset(line, 'x', sizeof line - 1);
	line[sizeof line - 1] = '\n';
	for (i = 0; i < 20000; i++) {
		textbuf_append(&tb, line, sizeof line);
		assert_true(tb.cap >= tb.len);
		assert_true(tb.cap <= 2 * tb.len + 4096);
	}
	assert_int_equal(tb.len, 20000 * sizeof line);
	assert_false(tb.cut);
	assert_int_equal(tb.dropped, 0);
	for (i = 0; i < tb.len; i += sizeof line)
		assert_memory_equal(tb.data + i, line, sizeof line);
	textbuf_free(&tb);
	assert_null(tb.data);
	assert_int_equal(tb.len, 0);
}

/* The ceiling: kept on a code point boundary, the rest counted. */
static void
test_ceiling(void **state)
{
	struct textbuf	tb;

	(void)state;
	/* The last character that fits is kept, the next is not. */
	textbuf_init(&tb, 10);
	textbuf_append(&tb, "abcdefgh", 8);
	textbuf_append(&tb, "\xc3\xa9\xe2\x82\xac", 5);
	assert_int_equal(tb.len, 10);
	assert_memory_equal(tb.data, "abcdefgh\xc3\xa9", 10);
	assert_true(tb.cut);
	assert_int_equal(tb.dropped, 3);
	textbuf_append(&tb, "x", 1);
	assert_int_equal(tb.len, 10);
	assert_int_equal(tb.dropped, 4);
	assert_true(tb.cap <= 10);
	/* The running count of characters agrees with the bytes. */
	assert_int_equal(tb.chars, utf8_count(tb.data, tb.len));
	textbuf_free(&tb);

	/* A character that would straddle the ceiling is dropped whole,
	 * and later text that would fit is not kept either. */
	textbuf_init(&tb, 10);
	textbuf_append(&tb, "abcdefghi", 9);
	textbuf_append(&tb, "\xc3\xa9z", 3);
	assert_int_equal(tb.len, 9);
	assert_true(tb.cut);
	assert_int_equal(tb.dropped, 3);
	textbuf_append(&tb, "z", 1);
	assert_int_equal(tb.len, 9);
	assert_int_equal(tb.dropped, 4);
	/* The running count of characters agrees with the bytes. */
	assert_int_equal(tb.chars, utf8_count(tb.data, tb.len));
	textbuf_free(&tb);

	/* A 4-byte character cut in the middle. */
	textbuf_init(&tb, 6);
	textbuf_append(&tb, "ab\xf0\x9f\x98\x80\xf0\x9f\x98\x80", 10);
	assert_int_equal(tb.len, 6);
	assert_memory_equal(tb.data, "ab\xf0\x9f\x98\x80", 6);
	assert_int_equal(tb.dropped, 4);
	/* The running count of characters agrees with the bytes. */
	assert_int_equal(tb.chars, utf8_count(tb.data, tb.len));
	textbuf_free(&tb);

	textbuf_init(&tb, 5);
	textbuf_append(&tb, "ab\xf0\x9f\x98\x80", 6);
	assert_int_equal(tb.len, 2);
	assert_int_equal(tb.dropped, 4);
	assert_true(tb.cut);
	/* The running count of characters agrees with the bytes. */
	assert_int_equal(tb.chars, utf8_count(tb.data, tb.len));
	textbuf_free(&tb);

	/* Filling exactly is not a cut; one byte more is. */
	textbuf_init(&tb, 4);
	textbuf_append(&tb, "abcd", 4);
	assert_false(tb.cut);
	textbuf_append(&tb, "", 0);
	assert_false(tb.cut);
	textbuf_append(&tb, "e", 1);
	assert_true(tb.cut);
	assert_int_equal(tb.dropped, 1);
	/* The running count of characters agrees with the bytes. */
	assert_int_equal(tb.chars, utf8_count(tb.data, tb.len));
	textbuf_free(&tb);

	/* Appends that split characters: the ceiling still keeps whole
	 * characters only. */
	textbuf_init(&tb, 12);
	{
		const char	*s = "abcdefghij\xe2\x82\xac\xe2\x82\xac\nxyz";
		size_t		 i;

		for (i = 0; s[i] != '\0'; i++)
			textbuf_append(&tb, s + i, 1);
	}
	assert_int_equal(tb.len, 10);
	assert_memory_equal(tb.data, "abcdefghij", 10);
	assert_true(tb.cut);
	assert_int_equal(tb.dropped, 10);
	/* The running count of characters agrees with the bytes. */
	assert_int_equal(tb.chars, utf8_count(tb.data, tb.len));
	textbuf_free(&tb);

	/* A ceiling of zero keeps nothing. */
	textbuf_init(&tb, 0);
	textbuf_append(&tb, "abc", 3);
	assert_int_equal(tb.len, 0);
	assert_true(tb.cut);
	assert_int_equal(tb.dropped, 3);
	/* The running count of characters agrees with the bytes. */
	assert_int_equal(tb.chars, utf8_count(tb.data, tb.len));
	textbuf_free(&tb);

	/* A big append past the ceiling. */
	textbuf_init(&tb, 1000);
	{
		char	*big = xmalloc(100000);

		memset(big, 'y', 100000);
		textbuf_append(&tb, big, 100000);
		free(big);
	}
	assert_int_equal(tb.len, 1000);
	assert_int_equal(tb.dropped, 99000);
	assert_true(tb.cap == 1000);
	/* The running count of characters agrees with the bytes. */
	assert_int_equal(tb.chars, utf8_count(tb.data, tb.len));
	textbuf_free(&tb);
}

/* Whole lines only; the final line once the stream has ended. */
static void
test_page_lines(void **state)
{
	struct textbuf	tb;

	(void)state;
	test_make(&tb, "a\nb\nc");
	test_page(&tb, 0, 100, 100, false, 0, "a\nb\n", 2, 4);
	test_page(&tb, 0, 100, 100, true, 0, "a\nb\nc", 3, 5);
	test_page(&tb, 4, 100, 100, false, 4, "", 0, 0);
	test_page(&tb, 4, 100, 100, true, 4, "c", 1, 1);
	test_page(&tb, 5, 100, 100, true, 5, "", 0, 0);
	test_page(&tb, 2, 100, 100, false, 2, "b\n", 1, 2);
	textbuf_free(&tb);

	/* max_lines. */
	test_make(&tb, "1\n2\n3\n4\n5\n6\n7\n");
	test_page(&tb, 0, 3, 100, false, 0, "1\n2\n3\n", 3, 6);
	test_page(&tb, 6, 3, 100, false, 6, "4\n5\n6\n", 3, 6);
	test_page(&tb, 12, 3, 100, false, 12, "7\n", 1, 2);
	test_page(&tb, 0, 1, 100, false, 0, "1\n", 1, 2);
	test_page(&tb, 0, 0, 100, false, 0, "", 0, 0);
	textbuf_free(&tb);

	/* Empty lines are lines. */
	test_make(&tb, "\n\n\nx\n");
	test_page(&tb, 0, 2, 100, false, 0, "\n\n", 2, 2);
	test_page(&tb, 2, 2, 100, false, 2, "\nx\n", 2, 3);
	textbuf_free(&tb);

	/* Nothing at all. */
	test_make(&tb, "");
	test_page(&tb, 0, 10, 10, false, 0, "", 0, 0);
	test_page(&tb, 0, 10, 10, true, 0, "", 0, 0);
	textbuf_free(&tb);
}

/* max_chars counts code points (LF included), not bytes. */
static void
test_page_chars(void **state)
{
	struct textbuf	tb;

	(void)state;
	/* Each line: 3 characters and LF, 7 bytes. */
	test_make(&tb, "\xc3\xa9\xc3\xa9\xc3\xa9\n\xc3\xa9\xc3\xa9\xc3\xa9\n"
	    "\xc3\xa9\xc3\xa9\xc3\xa9\n");
	test_page(&tb, 0, 100, 8, false, 0,
	    "\xc3\xa9\xc3\xa9\xc3\xa9\n\xc3\xa9\xc3\xa9\xc3\xa9\n", 2, 8);
	test_page(&tb, 0, 100, 11, false, 0,
	    "\xc3\xa9\xc3\xa9\xc3\xa9\n\xc3\xa9\xc3\xa9\xc3\xa9\n", 2, 8);
	test_page(&tb, 0, 100, 12, false, 0,
	    "\xc3\xa9\xc3\xa9\xc3\xa9\n\xc3\xa9\xc3\xa9\xc3\xa9\n"
	    "\xc3\xa9\xc3\xa9\xc3\xa9\n", 3, 12);
	test_page(&tb, 0, 100, 7, false, 0, "\xc3\xa9\xc3\xa9\xc3\xa9\n", 1, 4);
	test_page(&tb, 7, 100, 4, false, 7, "\xc3\xa9\xc3\xa9\xc3\xa9\n", 1, 4);
	textbuf_free(&tb);

	/* A page stops before a line that would not fit. */
	test_make(&tb, "ab\ncdefgh\n");
	test_page(&tb, 0, 100, 6, false, 0, "ab\n", 1, 3);
	test_page(&tb, 3, 100, 7, false, 3, "cdefgh\n", 1, 7);
	textbuf_free(&tb);
}

/* A line longer than a page is cut on a code point boundary. */
static void
test_page_long_line(void **state)
{
	struct textbuf	tb;

	(void)state;
	/* Ten euro signs (3 bytes each) and LF, pages of 4 characters. */
	test_make(&tb, "\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac"
	    "\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac"
	    "\xe2\x82\xac\n");
	test_page(&tb, 0, 100, 4, false, 0,
	    "\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac", 1, 4);
	test_page(&tb, 12, 100, 4, false, 12,
	    "\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac", 1, 4);
	test_page(&tb, 24, 100, 4, false, 24, "\xe2\x82\xac\xe2\x82\xac\n",
	    1, 3);
	test_page(&tb, 31, 100, 4, false, 31, "", 0, 0);
	textbuf_free(&tb);

	/* A cut line ends the page even with lines to spare. */
	test_make(&tb, "abcdefgh\nij\n");
	test_page(&tb, 0, 100, 3, false, 0, "abc", 1, 3);
	test_page(&tb, 0, 100, 8, false, 0, "abcdefgh", 1, 8);
	test_page(&tb, 8, 100, 8, false, 8, "\nij\n", 2, 4);
	test_page(&tb, 0, 100, 9, false, 0, "abcdefgh\n", 1, 9);
	textbuf_free(&tb);

	/* Whole lines first; the long line gets the next page. */
	test_make(&tb, "ab\ncdefghijk\n");
	test_page(&tb, 0, 100, 5, false, 0, "ab\n", 1, 3);
	test_page(&tb, 3, 100, 5, false, 3, "cdefg", 1, 5);

	textbuf_free(&tb);

	/* Before its LF: cut once it holds max_chars, not before. */
	test_make(&tb, "abc");
	test_page(&tb, 0, 100, 4, false, 0, "", 0, 0);
	test_page(&tb, 0, 100, 3, false, 0, "abc", 1, 3);
	test_page(&tb, 0, 100, 2, false, 0, "ab", 1, 2);
	test_page(&tb, 2, 100, 2, false, 2, "", 0, 0);
	test_page(&tb, 2, 100, 2, true, 2, "c", 1, 1);
	test_page(&tb, 0, 100, 4, true, 0, "abc", 1, 3);
	textbuf_free(&tb);

	/* A 4-byte character never split. */
	test_make(&tb, "\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xf0\x9f\x98\x80");
	test_page(&tb, 0, 100, 2, false, 0, "\xf0\x9f\x98\x80\xf0\x9f\x98\x80",
	    1, 2);
	test_page(&tb, 8, 100, 2, false, 8, "", 0, 0);
	test_page(&tb, 8, 100, 2, true, 8, "\xf0\x9f\x98\x80", 1, 1);
	textbuf_free(&tb);

	/* max_chars 0: an empty page, never a crash. */
	test_make(&tb, "abc\n");
	test_page(&tb, 0, 100, 0, true, 0, "", 0, 0);
	textbuf_free(&tb);
}

/* Cursors: past the end, at the end, mid-line, mid-character. */
static void
test_page_cursor(void **state)
{
	struct textbuf	 tb;
	struct page	 pg;
	char		*cause = NULL, text[101];

	(void)state;
	memset(text, 'x', 99);
	text[99] = '\n';
	text[100] = '\0';
	test_make(&tb, text);
	assert_int_equal(textbuf_page(&tb, 120, 10, 100, false, &pg, &cause),
	    -1);
	assert_non_null(cause);
	assert_string_equal(cause, "cursor 120 is past the end of the text "
	    "(100 bytes); pass the cursor the last read_program returned");
	free(cause);
	cause = NULL;
	assert_int_equal(textbuf_page(&tb, 101, 10, 100, true, &pg, &cause),
	    -1);
	assert_non_null(cause);
	free(cause);
	test_page(&tb, 100, 10, 100, false, 100, "", 0, 0);
	test_page(&tb, 100, 10, 100, true, 100, "", 0, 0);
	textbuf_free(&tb);

	/* Mid-line: reads from there. */
	test_make(&tb, "hello\nworld\n");
	test_page(&tb, 2, 10, 100, false, 2, "llo\nworld\n", 2, 10);
	test_page(&tb, 5, 10, 100, false, 5, "\nworld\n", 2, 7);
	textbuf_free(&tb);

	/* Mid-character: forward to the next character. */
	test_make(&tb, "\xe2\x82\xac\nx\n");
	test_page(&tb, 1, 10, 100, false, 3, "\nx\n", 2, 3);
	test_page(&tb, 2, 10, 100, false, 3, "\nx\n", 2, 3);
	textbuf_free(&tb);
	test_make(&tb, "a\xf0\x9f\x98\x80");
	test_page(&tb, 2, 10, 100, true, 5, "", 0, 0);
	test_page(&tb, 4, 10, 100, true, 5, "", 0, 0);
	test_page(&tb, 1, 10, 100, true, 1, "\xf0\x9f\x98\x80", 1, 1);
	textbuf_free(&tb);
}

/* A character whose last bytes have not come is not paged yet. */
static void
test_page_partial(void **state)
{
	struct textbuf	tb;

	(void)state;
	test_make(&tb, "ab\xe2\x82");
	test_page(&tb, 0, 10, 2, false, 0, "ab", 1, 2);
	test_page(&tb, 0, 10, 3, false, 0, "", 0, 0);
	test_page(&tb, 2, 10, 1, false, 2, "", 0, 0);
	textbuf_append(&tb, "\xac", 1);
	test_page(&tb, 0, 10, 3, false, 0, "ab\xe2\x82\xac", 1, 3);
	test_page(&tb, 2, 10, 1, false, 2, "\xe2\x82\xac", 1, 1);
	textbuf_free(&tb);

	test_make(&tb, "x\n\xf0\x9f");
	test_page(&tb, 0, 10, 10, true, 0, "x\n\xf0\x9f", 2, 3);
	test_page(&tb, 0, 10, 10, false, 0, "x\n", 1, 2);
	textbuf_free(&tb);
}

/* Pages over a text that was cut by the ceiling. */
static void
test_page_cut(void **state)
{
	struct textbuf	tb;

	(void)state;
	textbuf_init(&tb, 8);
	textbuf_append(&tb, "ab\ncd\nef\n", 9);
	assert_true(tb.cut);
	test_page(&tb, 0, 10, 100, false, 0, "ab\ncd\n", 2, 6);
	test_page(&tb, 6, 10, 100, false, 6, "", 0, 0);
	test_page(&tb, 6, 10, 100, true, 6, "ef", 1, 2);
	textbuf_free(&tb);
}

/* The tail: the last whole lines that fit. */
static void
test_tail_rules(void **state)
{
	struct textbuf	tb;

	(void)state;
	test_make(&tb, "l1\nl2\nl3\n");
	test_tail(&tb, 2, 100, "l2\nl3\n", 2, 6);
	test_tail(&tb, 100, 100, "l1\nl2\nl3\n", 3, 9);
	test_tail(&tb, 100, 5, "l3\n", 1, 3);
	test_tail(&tb, 100, 6, "l2\nl3\n", 2, 6);
	test_tail(&tb, 1, 100, "l3\n", 1, 3);
	test_tail(&tb, 0, 100, "", 0, 0);
	test_tail(&tb, 10, 0, "", 0, 0);
	test_tail(&tb, 10, 2, "3\n", 1, 2);	/* the last line's end */
	textbuf_free(&tb);

	/* An unterminated final line counts as a line. */
	test_make(&tb, "a\nbc");
	test_tail(&tb, 1, 100, "bc", 1, 2);
	test_tail(&tb, 2, 100, "a\nbc", 2, 4);
	test_tail(&tb, 2, 3, "bc", 1, 2);
	test_tail(&tb, 2, 1, "c", 1, 1);
	textbuf_free(&tb);

	/* A final line longer than max_chars: its last characters. */
	test_make(&tb, "short\n\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac"
	    "\xe2\x82\xac\n");
	test_tail(&tb, 10, 4, "\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac\n", 1, 4);
	test_tail(&tb, 10, 6, "\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac"
	    "\xe2\x82\xac\xe2\x82\xac\n", 1, 6);
	test_tail(&tb, 10, 11, "\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac"
	    "\xe2\x82\xac\xe2\x82\xac\n", 1, 6);
	test_tail(&tb, 10, 12, "short\n\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac"
	    "\xe2\x82\xac\xe2\x82\xac\n", 2, 12);
	textbuf_free(&tb);

	/* Empty lines and an empty text. */
	test_make(&tb, "x\n\n\n");
	test_tail(&tb, 2, 100, "\n\n", 2, 2);
	test_tail(&tb, 3, 100, "x\n\n\n", 3, 4);
	textbuf_free(&tb);
	test_make(&tb, "");
	test_tail(&tb, 10, 10, "", 0, 0);
	textbuf_free(&tb);
}

/* A random text of short and long lines, UTF-8, maybe no final LF. */
static size_t
test_random_text(char *s, size_t room)
{
	static const char *const pieces[] = {
		"a", "bc", "def ", "\n", "\n", "\n\n", "\xc3\xa9",
		"\xe2\x82\xac", "\xf0\x9f\x98\x80", "\t",
	};
	size_t	len = 0, n, want = test_rand() % room;
	const char *p;

	while (len < want) {
		p = pieces[test_rand() % (sizeof pieces / sizeof pieces[0])];
		n = strlen(p);
		if (len + n > room)
			break;
		memcpy(s + len, p, n);
		len += n;
	}
	return (len);
}

/* Pages laid end to end give the text; each page keeps the rules. */
static void
test_page_property(void **state)
{
	struct textbuf	 tb;
	struct page	 pg, tl;
	char		 s[600], *cause = NULL;
	size_t		 len, cur, max_lines, max_chars, i, nl, pages;
	bool		 ended;
	int		 iter;

	(void)state;
	for (iter = 0; iter < 20000; iter++) {
		len = test_random_text(s, sizeof s);
		textbuf_init(&tb, 1 << 20);
		textbuf_append(&tb, s, len);
		max_lines = 1 + test_rand() % 8;
		max_chars = 1 + test_rand() % 30;
		ended = test_rand() % 2;
		cur = 0;
		pages = 0;
		for (;;) {
			assert_int_equal(textbuf_page(&tb, cur, max_lines,
			    max_chars, ended, &pg, &cause), 0);
			assert_int_equal(pg.start, cur);
			assert_true(pg.end >= pg.start && pg.end <= len);
			assert_true(pg.lines <= max_lines);
			assert_true(pg.chars <= max_chars);
			assert_int_equal(pg.chars,
			    utf8_count(s + pg.start, pg.end - pg.start));
			for (nl = 0, i = pg.start; i < pg.end; i++)
				nl += s[i] == '\n';
			/* Whole lines, or one cut line, or the final one. */
			if (pg.end > pg.start && s[pg.end - 1] != '\n') {
				assert_true(nl == 0 ||
				    (ended && pg.end == len));
				assert_true(pg.chars == max_chars ||
				    (ended && pg.end == len));
			}
			assert_true(pg.lines == nl ||
			    pg.lines == nl + 1);
			if (pg.end == pg.start)
				break;
			cur = pg.end;
			pages++;
			assert_true(pages <= len);
		}
		if (ended)
			assert_int_equal(cur, len);
		else {
			/* What is left is an unfinished short line. */
			assert_null(memchr(s + cur, '\n', len - cur));
			assert_true(utf8_count(s + cur, len - cur) < max_chars);
		}

		/* The tail: a suffix of whole lines, as long as fits. */
		textbuf_tail(&tb, max_lines, max_chars, &tl);
		assert_int_equal(tl.end, len);
		assert_true(tl.lines <= max_lines);
		assert_true(tl.chars <= max_chars);
		assert_int_equal(tl.chars,
		    utf8_count(s + tl.start, len - tl.start));
		if (len > 0) {
			assert_true(tl.lines >= 1);
			assert_true(tl.start < len);
		}
		if (tl.start > 0 && s[tl.start - 1] != '\n') {
			/* Cut inside the last line: it alone, full size. */
			assert_int_equal(tl.lines, 1);
			assert_int_equal(tl.chars, max_chars);
		} else if (tl.start > 0 && tl.lines < max_lines) {
			/* One more line would not have fit. */
			i = tl.start - 1;
			while (i > 0 && s[i - 1] != '\n')
				i--;
			assert_true(tl.chars + utf8_count(s + i, tl.start - i)
			    > max_chars);
		}
		textbuf_free(&tb);
	}
}

/* A page read early equals the page read once more text has come. */
static void
test_page_stable(void **state)
{
	struct textbuf	 tb;
	struct page	 a, b;
	char		 s[400], *cause = NULL;
	size_t		 len, cut, max_lines, max_chars;
	int		 iter;

	(void)state;
	for (iter = 0; iter < 20000; iter++) {
		len = test_random_text(s, sizeof s);
		cut = len == 0 ? 0 : test_rand() % (len + 1);
		while (cut < len && ((unsigned char)s[cut] & 0xc0) == 0x80)
			cut++;		/* appends are whole characters */
		max_lines = 1 + test_rand() % 6;
		max_chars = 1 + test_rand() % 20;
		textbuf_init(&tb, 1 << 20);
		textbuf_append(&tb, s, cut);
		assert_int_equal(textbuf_page(&tb, 0, max_lines, max_chars,
		    false, &a, &cause), 0);
		textbuf_append(&tb, s + cut, len - cut);
		assert_int_equal(textbuf_page(&tb, 0, max_lines, max_chars,
		    false, &b, &cause), 0);
		/* The later page starts with the earlier one... */
		assert_true(b.end >= a.end);
		/* ...and if the early one was full, it is the same. */
		if (a.lines == max_lines || a.chars == max_chars)
			assert_int_equal(a.end, b.end);
		textbuf_free(&tb);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_count),
		cmocka_unit_test(test_append),
		cmocka_unit_test(test_ceiling),
		cmocka_unit_test(test_page_lines),
		cmocka_unit_test(test_page_chars),
		cmocka_unit_test(test_page_long_line),
		cmocka_unit_test(test_page_cursor),
		cmocka_unit_test(test_page_partial),
		cmocka_unit_test(test_page_cut),
		cmocka_unit_test(test_tail_rules),
		cmocka_unit_test(test_page_property),
		cmocka_unit_test(test_page_stable),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
