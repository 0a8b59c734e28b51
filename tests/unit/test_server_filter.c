/*
 * test_server_filter.c — the lines a filter shows (server/filter.c).
 *
 * Exact outputs for grep -n and grep -C style lines (matches, context
 * before and after, "--" between groups only with context, no line
 * twice, context never before where the scan began), line numbers from
 * a later cursor, the page limit (the group that does not fit starts the
 * next scan), maxLines, a long line cut, the final unterminated line only
 * when final, a scan resumed after new text, a match stopped by a limit
 * naming filter; and a property test: scans resumed at every cursor a
 * full page leaves show every matching line exactly once.
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

/* Filter text from cursor; its output must be want, the scan's result
 * rc, and it must have matched the given count. */
static void
tf_check(const char *text, size_t cursor, const char *pat, size_t context,
    size_t max_lines, bool final, int rc, const char *want, size_t matched)
{
	struct textbuf	 t;
	struct filter	 f;
	struct pattern	*p = tf_pat(pat);

	tf_text(&t, text);
	filter_init(&f, p, context, max_lines, &t, cursor);
	assert_int_equal(filter_scan(&f, &t, final, TF_BUDGET_US), rc);
	buf_addc(&f.out, '\0');
	assert_string_equal(f.out.data, want);
	assert_int_equal(f.matched, matched);
	filter_free(&f);
	pattern_free(p);
	textbuf_free(&t);
}

static const char tf_20[] = "1\n2\n3\n4 x\n5\n6\n7 x\n8\n9\n10\n11\n12\n"
    "13\n14\n15 x\n16\n17\n18\n19\n20 x\n";

/* Matches and their context, as grep -n and grep -C show them. */
static void
test_lines(void **state)
{
	(void)state;
	tf_check(tf_20, 0, "x$", 0, 0, false, FILTER_DONE,
	    "4:4 x\n7:7 x\n15:15 x\n20:20 x\n", 4);
	tf_check(tf_20, 0, "x$", 1, 0, false, FILTER_DONE,
	    "3-3\n4:4 x\n5-5\n6-6\n7:7 x\n8-8\n--\n14-14\n15:15 x\n16-16\n"
	    "--\n19-19\n20:20 x\n", 4);
	tf_check(tf_20, 0, "x$", 3, 0, false, FILTER_DONE,
	    "1-1\n2-2\n3-3\n4:4 x\n5-5\n6-6\n7:7 x\n8-8\n9-9\n10-10\n--\n"
	    "12-12\n13-13\n14-14\n15:15 x\n16-16\n17-17\n18-18\n19-19\n"
	    "20:20 x\n", 4);
	tf_check(tf_20, 0, "nothing", 2, 0, false, FILTER_DONE, "", 0);
	/* From line 5 (cursor 10): numbers are still the text's, and no
	 * context reaches back before the cursor. */
	tf_check(tf_20, 10, "x$|^5$", 2, 0, false, FILTER_DONE,
	    "5:5\n6-6\n7:7 x\n8-8\n9-9\n--\n13-13\n14-14\n15:15 x\n16-16\n"
	    "17-17\n18-18\n19-19\n20:20 x\n", 4);
}

/* The final unterminated line counts only when final. */
static void
test_final(void **state)
{
	(void)state;
	tf_check("a x\nb\nc x", 0, "x", 0, 0, false, FILTER_DONE, "1:a x\n",
	    1);
	tf_check("a x\nb\nc x", 0, "x", 0, 0, true, FILTER_DONE,
	    "1:a x\n3:c x\n", 2);
}

/* maxLines and the page: the scan stops before the group that does not
 * fit, and a scan from there shows it. */
static void
test_full(void **state)
{
	struct textbuf	 t;
	struct filter	 f;
	struct pattern	*p = tf_pat("x$");
	size_t		 at;

	(void)state;
	tf_check(tf_20, 0, "x$", 0, 2, false, FILTER_FULL, "4:4 x\n7:7 x\n",
	    2);
	tf_check(tf_20, 0, "x$", 1, 4, false, FILTER_FULL,
	    "3-3\n4:4 x\n5-5\n", 1);
	tf_text(&t, tf_20);
	filter_init(&f, p, 0, 2, &t, 0);
	assert_int_equal(filter_scan(&f, &t, false, TF_BUDGET_US),
	    FILTER_FULL);
	at = f.scan;
	assert_int_equal(at, strstr(tf_20, "15 x") - tf_20);
	assert_int_equal(f.scanned, 14);
	filter_free(&f);
	filter_init(&f, p, 0, 2, &t, at);
	assert_int_equal(filter_scan(&f, &t, false, TF_BUDGET_US),
	    FILTER_DONE);
	buf_addc(&f.out, '\0');
	assert_string_equal(f.out.data, "15:15 x\n20:20 x\n");
	filter_free(&f);
	pattern_free(p);
	textbuf_free(&t);
}

/* A long line is cut in the output, saying how much was left out; a
 * page of long matches is full before TEXTBUF_PAGE_CHARS. */
static void
test_long(void **state)
{
	struct textbuf	 t;
	struct filter	 f;
	struct pattern	*p = tf_pat("^x");
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
	tf_text(&t, b.data);
	filter_init(&f, p, 0, 0, &t, 0);
	assert_int_equal(filter_scan(&f, &t, false, TF_BUDGET_US),
	    FILTER_FULL);
	assert_true(f.out_chars <= TEXTBUF_PAGE_CHARS);
	assert_true(f.matched >= 10);
	assert_non_null(strstr(f.out.data, " more characters]\n"));
	filter_free(&f);
	pattern_free(p);
	textbuf_free(&t);
	buf_free(&b);
}

/* New text: a scan goes on where the last stopped, after-context too. */
static void
test_resume(void **state)
{
	struct textbuf	 t;
	struct filter	 f;
	struct pattern	*p = tf_pat("x");

	(void)state;
	tf_text(&t, "a\nb x\n");
	filter_init(&f, p, 1, 0, &t, 0);
	assert_int_equal(filter_scan(&f, &t, false, TF_BUDGET_US),
	    FILTER_DONE);
	textbuf_append(&t, "c\nd\ne x\npartial", 15);
	assert_int_equal(filter_scan(&f, &t, false, TF_BUDGET_US),
	    FILTER_DONE);
	buf_addc(&f.out, '\0');
	assert_string_equal(f.out.data, "1-a\n2:b x\n3-c\n4-d\n5:e x\n");
	assert_int_equal(f.scanned, 5);
	assert_int_equal(f.scan, t.len - 7);
	filter_free(&f);
	pattern_free(p);
	textbuf_free(&t);
}

/* A match stopped by a limit fails the scan, naming filter and the line. */
static void
test_failed(void **state)
{
	struct textbuf	 t;
	struct filter	 f;
	struct pattern	*p = tf_pat("(a*)*[^a]");

	(void)state;
	tf_text(&t, "ok\naaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n");
	filter_init(&f, p, 0, 0, &t, 0);
	assert_int_equal(filter_scan(&f, &t, false, TF_BUDGET_US),
	    FILTER_FAILED);
	assert_non_null(strstr(f.failed, "filter"));
	assert_non_null(strstr(f.failed, "limit"));
	assert_non_null(strstr(f.failed, "(line 2)"));
	assert_int_equal(f.scan, 3);
	filter_free(&f);
	pattern_free(p);
	textbuf_free(&t);
}

/* Random texts and page sizes: scans resumed at each full page's cursor
 * show every matching line once, in order, with its number. */
static void
test_property(void **state)
{
	struct textbuf	 t;
	struct filter	 f;
	struct pattern	*p = tf_pat("7");
	struct buf	 text = BUF_INIT, got = BUF_INIT, want = BUF_INIT;
	uint64_t	 seed = 88172645463325252ULL;
	size_t		 cursor, i, n, lines;
	int		 round, rc;

	(void)state;
	for (round = 0; round < 50; round++) {
		buf_reset(&text);
		buf_reset(&want);
		buf_reset(&got);
		seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
		n = 1 + seed % 3000;
		for (i = 1; i <= n; i++)
			buf_printf(&text, "%llu\n",
			    (unsigned long long)(i * (seed % 97 + 1)));
		tf_text(&t, buf_cstr(&text));
		/* What grep -n 7 would say. */
		for (i = 1; i <= n; i++) {
			char	num[32];

			snprintf(num, sizeof num, "%llu",
			    (unsigned long long)(i * (seed % 97 + 1)));
			if (strchr(num, '7') != NULL)
				buf_printf(&want, "%zu:%s\n", i, num);
		}
		lines = 1 + seed % 50;
		cursor = 0;
		for (;;) {
			filter_init(&f, p, 0, lines, &t, cursor);
			rc = filter_scan(&f, &t, false, TF_BUDGET_US);
			buf_add(&got, f.out.data, f.out.len);
			cursor = f.scan;
			filter_free(&f);
			if (rc == FILTER_DONE)
				break;
			assert_int_equal(rc, FILTER_FULL);
		}
		assert_int_equal(cursor, t.len);
		assert_string_equal(buf_cstr(&got), buf_cstr(&want));
		textbuf_free(&t);
	}
	buf_free(&text);
	buf_free(&got);
	buf_free(&want);
	pattern_free(p);
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
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
