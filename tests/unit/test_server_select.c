/*
 * test_server_select.c — the selection engine (server/select.c): what a
 * reply shows of a program's text.
 *
 * A filter's first page: exact outputs for grep -n and grep -C style
 * lines (matches, context before and after, "--" between groups only
 * with context, no line twice, context never before where the scan
 * began), line numbers from a later cursor, the page limit (the group
 * that does not fit starts the next scan), maxLines, a long line cut,
 * the final unterminated line only when final, a scan resumed after new
 * text, a match stopped by a limit naming filter or until; a property
 * test: scans resumed at every cursor a full page leaves show every
 * matching line exactly once. The last lines: until's line with the
 * lines before it (skipped ones counted, maxLines and tail bounding the
 * reply, never the scan), tail alone, a filter's last matching lines
 * (tail) with their context, until with filter; a property test: a
 * filter's last N lines are grep's last N.
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

#include "pattern.h"
#include "server.h"
#include "textbuf.h"
#include "xmalloc.h"

#define TF_BUDGET_US	(10 * 1000 * 1000)	/* never the limit here */

/* A text holding s. */
static void
tf_text(struct textbuf *t, const char *s)
{
	textbuf_init(t, 64 << 20);
	textbuf_append(t, s, strlen(s));
}

static struct pattern *
tf_pat(const char *s)
{
	struct pattern	*p;
	char		*cause = NULL;

	if ((p = pattern_compile(s, strlen(s), 0, &cause)) == NULL)
		fail_msg("%s: %s", s, cause);
	return (p);
}

/* A selection: filter (or NULL), context, max_lines (0: none), from
 * cursor, made ready to scan t. */
static void
tf_sel(struct sel *s, const struct textbuf *t, const char *filter,
    size_t context, size_t max_lines, size_t cursor)
{
	memset(s, 0, sizeof *s);
	s->filter = filter != NULL ? tf_pat(filter) : NULL;
	s->context = context;
	s->max_lines = max_lines > 0 ? max_lines : SIZE_MAX;
	s->start = cursor;
	sel_begin(s, t);
}

/* t holding text, and f a selection of it from 0 (filter, context,
 * max_lines as tf_sel), begun. */
static void
tf_open(struct textbuf *t, struct sel *f, const char *text,
    const char *filter, size_t context, size_t max_lines)
{
	tf_text(t, text);
	tf_sel(f, t, filter, context, max_lines, 0);
}

/* The end of tf_open's two. */
static void
tf_close(struct textbuf *t, struct sel *f)
{
	sel_free(f);
	textbuf_free(t);
}

/* A selection of t from cursor (max_lines, 0 for none) until a line
 * matches until, its last lines shown. */
static void
tf_until(struct sel *s, const struct textbuf *t, const char *until,
    size_t max_lines, size_t cursor)
{
	tf_sel(s, t, NULL, 0, max_lines, cursor);
	s->until = tf_pat(until);
	s->last = true;
}

/* One scan of s over t, not final, within the budget: it must end so. */
static void
tf_scan(struct sel *s, const struct textbuf *t, int want)
{
	assert_int_equal(sel_scan(s, t, false, TF_BUDGET_US), want);
}

/* A selection of t's last tail lines (filter, until: patterns or NULL;
 * context), on all of t, begun. */
static void
tf_last(struct sel *s, const struct textbuf *t, const char *filter,
    const char *until, size_t context, size_t tail)
{
	memset(s, 0, sizeof *s);
	s->filter = filter != NULL ? tf_pat(filter) : NULL;
	s->until = until != NULL ? tf_pat(until) : NULL;
	s->context = context;
	s->max_lines = SIZE_MAX;
	s->tail = tail;
	s->last = true;
	sel_begin(s, t);
}

/* Filter text from cursor; its output must be want, the scan's result
 * rc, and it must have matched the given count. */
static void
tf_check(const char *text, size_t cursor, const char *pat, size_t context,
    size_t max_lines, bool final, int rc, const char *want, size_t matched)
{
	struct textbuf	 t;
	struct sel	 f;

	tf_text(&t, text);
	tf_sel(&f, &t, pat, context, max_lines, cursor);
	assert_int_equal(sel_scan(&f, &t, final, TF_BUDGET_US), rc);
	buf_addc(&f.out, '\0');
	assert_string_equal(f.out.data, want);
	assert_int_equal(f.matched, matched);
	sel_free(&f);
	textbuf_free(&t);
}

static const char tf_20[] = "1\n2\n3\n4 x\n5\n6\n7 x\n8\n9\n10\n11\n12\n"
    "13\n14\n15 x\n16\n17\n18\n19\n20 x\n";

/* Matches and their context, as grep -n and grep -C show them. */
static void
test_lines(void **state)
{
	(void)state;
	tf_check(tf_20, 0, "x$", 0, 0, false, SEL_SCAN_DONE,
	    "4:4 x\n7:7 x\n15:15 x\n20:20 x\n", 4);
	tf_check(tf_20, 0, "x$", 1, 0, false, SEL_SCAN_DONE,
	    "3-3\n4:4 x\n5-5\n6-6\n7:7 x\n8-8\n--\n14-14\n15:15 x\n16-16\n"
	    "--\n19-19\n20:20 x\n", 4);
	tf_check(tf_20, 0, "x$", 3, 0, false, SEL_SCAN_DONE,
	    "1-1\n2-2\n3-3\n4:4 x\n5-5\n6-6\n7:7 x\n8-8\n9-9\n10-10\n--\n"
	    "12-12\n13-13\n14-14\n15:15 x\n16-16\n17-17\n18-18\n19-19\n"
	    "20:20 x\n", 4);
	tf_check(tf_20, 0, "nothing", 2, 0, false, SEL_SCAN_DONE, "", 0);
	/* From line 5 (cursor 10): numbers are still the text's, and no
	 * context reaches back before the cursor. */
	tf_check(tf_20, 10, "x$|^5$", 2, 0, false, SEL_SCAN_DONE,
	    "5:5\n6-6\n7:7 x\n8-8\n9-9\n--\n13-13\n14-14\n15:15 x\n16-16\n"
	    "17-17\n18-18\n19-19\n20:20 x\n", 4);
}

/* The final unterminated line counts only when final. */
static void
test_final(void **state)
{
	(void)state;
	tf_check("a x\nb\nc x", 0, "x", 0, 0, false, SEL_SCAN_DONE, "1:a x\n",
	    1);
	tf_check("a x\nb\nc x", 0, "x", 0, 0, true, SEL_SCAN_DONE,
	    "1:a x\n3:c x\n", 2);
}

/* maxLines and the page: the scan stops before the group that does not
 * fit, and a scan from there shows it. */
static void
test_full(void **state)
{
	struct textbuf	 t;
	struct sel	 f;
	size_t		 at;

	(void)state;
	tf_check(tf_20, 0, "x$", 0, 2, false, SEL_SCAN_FULL, "4:4 x\n7:7 x\n",
	    2);
	tf_check(tf_20, 0, "x$", 1, 4, false, SEL_SCAN_FULL,
	    "3-3\n4:4 x\n5-5\n", 1);
	tf_open(&t, &f, tf_20, "x$", 0, 2);
	tf_scan(&f, &t, SEL_SCAN_FULL);
	at = f.scan;
	assert_int_equal(at, strstr(tf_20, "15 x") - tf_20);
	assert_int_equal(f.scanned, 14);
	sel_free(&f);
	tf_sel(&f, &t, "x$", 0, 2, at);
	tf_scan(&f, &t, SEL_SCAN_DONE);
	buf_addc(&f.out, '\0');
	assert_string_equal(f.out.data, "15:15 x\n20:20 x\n");
	tf_close(&t, &f);
}

/* A long line is cut in the output, saying how much was left out; a
 * page of long matches is full before TEXTBUF_PAGE_CHARS. */
static void
test_long(void **state)
{
	struct textbuf	 t;
	struct sel	 f;
	struct buf	 b = BUF_INIT;
	int		 i;

	(void)state;
	for (i = 0; i < 20; i++) {
		buf_addc(&b, 'x');
		buf_addc(&b, "abc"[i % 3]);
		while (b.len % 5000 != 0)
			buf_addc(&b, 'y');
		buf_addc(&b, '\n');
	}
	buf_addc(&b, '\0');
	tf_open(&t, &f, b.data, "^x", 0, 0);
	tf_scan(&f, &t, SEL_SCAN_FULL);
	assert_true(f.out_chars <= TEXTBUF_PAGE_CHARS);
	assert_true(f.matched >= 10);
	assert_non_null(strstr(f.out.data, " more characters]\n"));
	tf_close(&t, &f);
	buf_free(&b);
}

/* New text: a scan goes on where the last stopped, after-context too. */
static void
test_resume(void **state)
{
	struct textbuf	 t;
	struct sel	 f;

	(void)state;
	tf_open(&t, &f, "a\nb x\n", "x", 1, 0);
	tf_scan(&f, &t, SEL_SCAN_DONE);
	textbuf_append(&t, "c\nd\ne x\npartial", 15);
	tf_scan(&f, &t, SEL_SCAN_DONE);
	buf_addc(&f.out, '\0');
	assert_string_equal(f.out.data, "1-a\n2:b x\n3-c\n4-d\n5:e x\n");
	assert_int_equal(f.scanned, 5);
	assert_int_equal(f.scan, t.len - 7);
	tf_close(&t, &f);
}

/* A match stopped by a limit fails the scan, naming filter and the line. */
static void
test_failed(void **state)
{
	struct textbuf	 t;
	struct sel	 f;

	(void)state;
	tf_open(&t, &f, "ok\naaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n",
	    "(a*)*[^a]", 0, 0);
	tf_scan(&f, &t, SEL_SCAN_FAILED);
	assert_non_null(strstr(f.failed, "filter"));
	assert_non_null(strstr(f.failed, "limit"));
	assert_non_null(strstr(f.failed, "(line 2)"));
	assert_int_equal(f.scan, 3);
	tf_close(&t, &f);
}

/* A random text in t (seed moved on: 1 to 3000 lines of multiples of
 * a number), and in want what grep -n 7 says of it; how many lines that
 * is. */
static size_t
tf_random(uint64_t *seed, struct textbuf *t, struct buf *want)
{
	struct buf	text = BUF_INIT;
	size_t		i, n, k = 0;
	char		num[32];

	buf_reset(want);
	*seed ^= *seed << 13, *seed ^= *seed >> 7, *seed ^= *seed << 17;
	n = 1 + *seed % 3000;
	for (i = 1; i <= n; i++) {
		snprintf(num, sizeof num, "%llu",
		    (unsigned long long)(i * (*seed % 97 + 1)));
		buf_printf(&text, "%s\n", num);
		if (strchr(num, '7') != NULL) {
			buf_printf(want, "%zu:%s\n", i, num);
			k++;
		}
	}
	tf_text(t, buf_cstr(&text));
	buf_free(&text);
	return (k);
}

/* Random texts and page sizes: scans resumed at each full page's cursor
 * show every matching line once, in order, with its number. */
static void
test_property(void **state)
{
	struct textbuf	 t;
	struct sel	 f;
	struct buf	 got = BUF_INIT, want = BUF_INIT;
	uint64_t	 seed = 88172645463325252ULL;
	size_t		 cursor, lines;
	int		 round, rc;

	(void)state;
	for (round = 0; round < 50; round++) {
		buf_reset(&got);
		tf_random(&seed, &t, &want);
		lines = 1 + seed % 50;
		cursor = 0;
		for (;;) {
			tf_sel(&f, &t, "7", 0, lines, cursor);
			rc = sel_scan(&f, &t, false, TF_BUDGET_US);
			buf_add(&got, f.out.data, f.out.len);
			cursor = f.scan;
			sel_free(&f);
			if (rc == SEL_SCAN_DONE)
				break;
			assert_int_equal(rc, SEL_SCAN_FULL);
		}
		assert_int_equal(cursor, t.len);
		assert_string_equal(buf_cstr(&got), buf_cstr(&want));
		textbuf_free(&t);
	}
	buf_free(&got);
	buf_free(&want);
}

/* The numbers 1..n, a line each. */
static void
tf_numbers(struct textbuf *t, size_t n)
{
	struct buf	b = BUF_INIT;
	size_t		i;

	for (i = 1; i <= n; i++)
		buf_printf(&b, "%zu\n", i);
	tf_text(t, buf_cstr(&b));
	buf_free(&b);
}

/* What a selection shows, as a string (freed by the caller), scanned
 * (final or not) to the end. */
static char *
tf_show(struct sel *s, const struct textbuf *t, bool final,
    struct sel_shown *sh)
{
	struct buf	b = BUF_INIT;

	while (sel_scan(s, t, final, TF_BUDGET_US) == SEL_SCAN_MORE)
		;
	sel_show(s, t, final, &b, sh);
	buf_addc(&b, '\0');
	return (b.data);
}

/* What tf_last's selection shows of t must be want. */
static void
tf_last_is(const struct textbuf *t, const char *filter, const char *until,
    size_t context, size_t tail, const char *want)
{
	struct sel		 s;
	struct sel_shown	 sh;
	char			*got;

	tf_last(&s, t, filter, until, context, tail);
	got = tf_show(&s, t, false, &sh);
	assert_string_equal(got, want);
	free(got);
	sel_free(&s);
}

/* until goes straight to its line, however far: the reply is that line
 * and the lines just before it (maxLines or a page), the others skipped
 * and counted, the cursor just after it. */
static void
test_until_last(void **state)
{
	struct textbuf		 t;
	struct sel		 s;
	struct sel_shown	 sh;
	char			*got;

	(void)state;
	tf_numbers(&t, 200000);
	tf_until(&s, &t, "^150000$", 3, 0);
	tf_scan(&s, &t, SEL_SCAN_MATCHED);
	got = tf_show(&s, &t, false, &sh);
	assert_string_equal(got, "149998\n149999\n150000\n");
	assert_int_equal(sh.skipped, 149997);
	assert_int_equal(sh.cursor, strstr(t.data, "\n150001\n") - t.data + 1);
	free(got);
	sel_free(&s);
	/* Without maxLines: a page ending with the line. */
	tf_until(&s, &t, "^150000$", 0, 0);
	got = tf_show(&s, &t, false, &sh);
	assert_true(strlen(got) <= TEXTBUF_PAGE_CHARS);
	assert_true(strlen(got) > TEXTBUF_PAGE_CHARS - 10);
	assert_non_null(strstr(got, "\n149999\n150000\n"));
	assert_int_equal(strcmp(got + strlen(got) - 7, "150000\n"), 0);
	assert_int_equal(sh.skipped + sh.lines, 150000);
	free(got);
	sel_free(&s);
	/* tail: the last lines up to it; from a later cursor, the skipped
	 * lines count from there. */
	tf_until(&s, &t, "^200$", 0, strstr(t.data, "\n100\n") - t.data + 1);
	s.tail = 2;
	got = tf_show(&s, &t, false, &sh);
	assert_string_equal(got, "199\n200\n");
	assert_int_equal(sh.skipped, 99);
	free(got);
	sel_free(&s);
	/* No match: the last lines scanned, the cursor after them. */
	tf_until(&s, &t, "^nothing$", 2, 0);
	got = tf_show(&s, &t, false, &sh);
	assert_string_equal(got, "199999\n200000\n");
	assert_int_equal(sh.cursor, t.len);
	assert_int_equal(s.until_end, 0);
	free(got);
	sel_free(&s);
	textbuf_free(&t);
}

/* tail alone: the last whole lines (the final one once it is final). */
static void
test_tail(void **state)
{
	struct textbuf		 t;
	struct sel		 s;
	struct sel_shown	 sh;
	char			*got;

	(void)state;
	tf_text(&t, "a\nb\nc\nd\npartial");
	tf_sel(&s, &t, NULL, 0, 0, 0);
	s.tail = 2;
	s.last = true;
	got = tf_show(&s, &t, false, &sh);
	assert_string_equal(got, "c\nd\n");
	assert_int_equal(sh.skipped, 2);
	assert_int_equal(sh.cursor, 8);
	free(got);
	got = tf_show(&s, &t, true, &sh);
	assert_string_equal(got, "d\npartial");
	assert_int_equal(sh.cursor, t.len);
	free(got);
	/* maxLines smaller than tail bounds it. */
	s.max_lines = 1;
	got = tf_show(&s, &t, true, &sh);
	assert_string_equal(got, "partial");
	free(got);
	sel_free(&s);
	textbuf_free(&t);
}

/* filter with tail: the last N matching lines, with their context; with
 * until, up to its line. */
static void
test_filter_last(void **state)
{
	struct textbuf		 t;
	struct sel		 s;
	struct sel_shown	 sh;
	char			*got;

	(void)state;
	tf_text(&t, tf_20);
	tf_last(&s, &t, "x$", NULL, 0, 2);
	got = tf_show(&s, &t, false, &sh);
	assert_string_equal(got, "15:15 x\n20:20 x\n");
	assert_int_equal(s.matched, 4);
	assert_int_equal(sh.hits, 2);
	free(got);
	sel_free(&s);
	/* With context: groups that do not touch are parted by "--". */
	tf_last_is(&t, "x$", NULL, 1, 2,
	    "14-14\n15:15 x\n16-16\n--\n19-19\n20:20 x\n");
	/* Context that reaches the previous match: one group, no line
	 * twice. */
	tf_last_is(&t, "x$", NULL, 3, 2,
	    "12-12\n13-13\n14-14\n15:15 x\n16-16\n"
	    "17-17\n18-18\n19-19\n20:20 x\n");

	/* until with filter: the matching lines up to until's line, which
	 * ends the reply whether filter matches it or not. */
	tf_last(&s, &t, "x$", "^16$", 0, 0);
	got = tf_show(&s, &t, false, &sh);
	assert_string_equal(got, "4:4 x\n7:7 x\n15:15 x\n16:16\n");
	assert_int_equal(sh.cursor, strstr(tf_20, "17\n") - tf_20);
	free(got);
	sel_free(&s);
	/* With tail 1: the last match and until's line. */
	tf_last_is(&t, "x$", "^16$", 0, 1, "15:15 x\n16:16\n");
	/* until's line matching the filter is shown once. */
	tf_last_is(&t, "x$", "^15 x$", 0, 1, "15:15 x\n");
	textbuf_free(&t);
}

/* A filter's last page is bounded as the first is: many long matches
 * fill it to no more than a page. */
static void
test_filter_tail_page(void **state)
{
	struct textbuf		 t;
	struct sel		 s;
	struct sel_shown	 sh;
	struct buf		 b = BUF_INIT;
	char			*got;
	int			 i;

	(void)state;
	for (i = 0; i < 100; i++) {
		buf_printf(&b, "x%d ", i);
		while (b.len % 1000 != 0)
			buf_addc(&b, 'y');
		buf_addc(&b, '\n');
	}
	tf_text(&t, buf_cstr(&b));
	tf_last(&s, &t, "^x", NULL, 0, 100);
	got = tf_show(&s, &t, false, &sh);
	assert_true(utf8_count(got, strlen(got)) <= TEXTBUF_PAGE_CHARS);
	assert_true(sh.hits >= 20 && sh.hits < 30);
	assert_non_null(strstr(got, "100:x99 "));
	assert_int_equal(s.matched, 100);
	free(got);
	sel_free(&s);
	textbuf_free(&t);
	buf_free(&b);
}

/* Random texts: a filter's last N lines are the last N of grep -n's. */
static void
test_property_tail(void **state)
{
	struct textbuf		 t;
	struct sel		 s;
	struct sel_shown	 sh;
	struct buf		 want = BUF_INIT;
	uint64_t		 seed = 2463534242ULL;
	size_t			 i, k, tail, nl;
	char			*got;
	const char		*w;
	int			 round;

	(void)state;
	for (round = 0; round < 50; round++) {
		k = tf_random(&seed, &t, &want);
		tail = 1 + seed % 40;
		/* The last tail lines of want. */
		w = buf_cstr(&want);
		for (nl = 0, i = want.len; i > 0; i--)
			if (want.data[i - 1] == '\n' && nl++ == tail) {
				w = want.data + i;
				break;
			}
		tf_last(&s, &t, "7", NULL, 0, tail);
		got = tf_show(&s, &t, false, &sh);
		assert_string_equal(got, w);
		assert_int_equal(s.matched, k);
		free(got);
		sel_free(&s);
		textbuf_free(&t);
	}
	buf_free(&want);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lines),
		cmocka_unit_test(test_final),
		cmocka_unit_test(test_full),
		cmocka_unit_test(test_long),
		cmocka_unit_test(test_resume),
		cmocka_unit_test(test_failed),
		cmocka_unit_test(test_property),
		cmocka_unit_test(test_until_last),
		cmocka_unit_test(test_tail),
		cmocka_unit_test(test_filter_last),
		cmocka_unit_test(test_filter_tail_page),
		cmocka_unit_test(test_property_tail),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
