/*
 * test_spool_files.c — a program's text on disk: written as the reaper writes
 * it (reaper/spool_write.c), read as the front reads it
 * (server/spool_read.c), in a temporary directory.
 *
 * Pinned: text under the ceiling is kept whole and read back byte for
 * byte, with its lines and characters; past the ceiling the head and
 * the end are kept, exact prefix and suffix of what was offered, the
 * range between them counted (bytes, lines, characters) and starting
 * and ending on lines; a reader that saw nothing (opened later, as a
 * new front would) rebuilds the same text, counts and gap from the
 * directory alone; line numbers and offsets agree with the text offered
 * at every checkpoint's neighbourhood; pages and tails equal those of
 * the same text in memory; a file system that refuses (a file size
 * limit, EFBIG) cuts the head and keeps the end, saying why; a hole
 * (output lost before the reaper) keeps the head and the end after it;
 * a property test over random texts, chunkings and ceilings, the news sometimes
 * held back (segments begun and dropped untold, found by listing the
 * directory); removing a spool leaves nothing.
 */
#include <sys/resource.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "rand.h"

#include "buf.h"
#include "compat.h"
#include "spool.h"
#include "spool_read.h"
#include "spool_write.h"
#include "textbuf.h"
#include "utf8.h"
#include "xmalloc.h"

static uint64_t	test_rng = 88172645463325252ULL;
#define test_rand()	test_xorshift(&test_rng)

/* A temporary spool: its parent, and the directory "p1.text" in it. */
struct tspool {
	char		 parent[64];
	int		 pfd, dfd;
	struct spool_w	 w;
	struct textbuf	 win;
	struct spool	*sp;
	struct buf	 all;		/* every byte offered */
	unsigned	 quiet, writes;	/* news every quiet'th write */
};

static void
ts_open(struct tspool *ts, uint64_t max)
{
	memset(ts, 0, sizeof *ts);
	snprintf(ts->parent, sizeof ts->parent, "%s/spool-test-XXXXXX",
	    getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	assert_non_null(mkdtemp(ts->parent));
	ts->pfd = open(ts->parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(ts->pfd != -1);
	assert_int_equal(mkdirat(ts->pfd, "p1.text", 0700), 0);
	ts->dfd = openat(ts->pfd, "p1.text", O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC);
	assert_true(ts->dfd != -1);
	spool_w_init(&ts->w, ts->dfd, SPOOL_OUT, max);
	textbuf_init_window(&ts->win, 0);
	ts->sp = spool_open(&ts->pfd, "p1.text", SPOOL_OUT, &ts->win);
}

/* What the reaper tells after a write. */
static void
ts_news(struct tspool *ts, struct spool_news *nw)
{
	memset(nw, 0, sizeof *nw);
	nw->len = ts->w.len;
	nw->seg = spool_w_seg_start(&ts->w);
	if (ts->w.drop.why != SPOOL_WHY_NONE)
		nw->drop = ts->w.drop;
}

/* Offer n bytes, and tell the reader (but only every ts->quiet'th
 * time: news the reaper held back, segments begun meanwhile untold). */
static void
ts_write(struct tspool *ts, const char *p, size_t n)
{
	struct spool_news	nw;

	spool_w_write(&ts->w, p, n);
	buf_add(&ts->all, p, n);
	if (ts->quiet > 0 && ++ts->writes % ts->quiet != 0)
		return;
	ts_news(ts, &nw);
	spool_told(ts->sp, &nw);
}

/* Tell the reader what it was not told yet. */
static void
ts_tell(struct tspool *ts)
{
	struct spool_news	nw;

	ts_news(ts, &nw);
	spool_told(ts->sp, &nw);
}

static void
ts_close(struct tspool *ts)
{
	spool_close(ts->sp);
	textbuf_free(&ts->win);
	spool_w_free(&ts->w);
	assert_int_equal(spool_dir_remove(ts->pfd, "p1.text"), 0);
	close(ts->dfd);
	close(ts->pfd);
	assert_int_equal(rmdir(ts->parent), 0);
	buf_free(&ts->all);
}

/* LFs in s[0, n). */
static size_t
count_lf(const char *s, size_t n)
{
	size_t	i, k = 0;

	for (i = 0; i < n; i++)
		k += s[i] == '\n';
	return (k);
}

/*
 * The reader over t (a window with its spool) must agree with the text
 * offered: its length and counts, the head and the end byte for byte,
 * the gap's counts, lines and characters before a sample of offsets.
 */
static void
check_reader(const struct textbuf *t, const struct buf *all,
    const struct spool_w *w)
{
	struct spool_gap	 g;
	struct buf		 got = BUF_INIT;
	size_t			 from, to, i, off, n, k;

	assert_int_equal(t->len, all->len);
	assert_int_equal(t->lines, count_lf(all->data, all->len));
	assert_int_equal(t->chars, utf8_count(all->data, all->len));
	if (spool_gap(t, &g)) {
		from = g.from;
		to = g.to;
		assert_int_equal(g.from, w->drop.from);
		assert_int_equal(g.to, w->drop.to);
		assert_int_equal(g.bytes, to - from);
		assert_int_equal(g.lines, count_lf(all->data + from, to - from));
		assert_true(t->cut);
		/* Not more than the ceiling kept. */
		assert_true(from + (all->len - to) <= w->max);
	} else {
		from = to = all->len;
		assert_false(t->cut);
	}
	spool_copy(t, 0, from, &got);
	assert_int_equal(got.len, from);
	if (from > 0)
		assert_memory_equal(got.data, all->data, from);
	buf_reset(&got);
	spool_copy(t, to, all->len, &got);
	assert_int_equal(got.len, all->len - to);
	if (got.len > 0)
		assert_memory_equal(got.data, all->data + to, got.len);
	buf_free(&got);
	/* Counts before kept offsets (and the gap's edges). */
	for (i = 0; i < 64; i++) {
		n = all->len + 1;
		off = i == 0 ? from : i == 1 ? to : (size_t)(test_rand() % n);
		if (off > from && off < to)
			continue;
		assert_int_equal(spool_lines_before(t, off),
		    count_lf(all->data, off));
		assert_int_equal(spool_chars_before(t, off),
		    utf8_count(all->data, off));
		/* The line holding off starts where line_off says (a line
		 * that starts in the gap, or at its start, starts at its
		 * end). */
		k = count_lf(all->data, off) + 1;
		n = k == 1 ? 0 : (size_t)((const char *)compat_memrchr(
		    all->data, '\n', off) - all->data) + 1;
		if (from != to && ((off >= to && n < to) || (n >= from &&
		    n < to)))
			n = to;
		assert_int_equal(spool_line_off(t, k), n);
	}
}

/* Lines of about width bytes, numbered, with a multi-byte character. */
static void
write_lines(struct tspool *ts, size_t nlines, size_t width)
{
	char	line[512];
	size_t	i, n;

	for (i = 0; i < nlines; i++) {
		n = (size_t)snprintf(line, sizeof line, "line %zu é ", i);
		while (n < width && n < sizeof line - 2)
			line[n++] = (char)('a' + (int)(i % 26));
		line[n++] = '\n';
		ts_write(ts, line, n);
	}
}

/* A reader that saw nothing rebuilds the same text. */
static void
check_restore(struct tspool *ts)
{
	struct textbuf	 win;
	struct spool	*sp;
	struct spool_gap a, b;

	textbuf_init_window(&win, 0);
	sp = spool_open(&ts->pfd, "p1.text", SPOOL_OUT, &win);
	assert_non_null(sp);
	check_reader(&win, &ts->all, &ts->w);
	assert_int_equal(spool_gap(&win, &a), spool_gap(&ts->win, &b));
	if (spool_gap(&win, &a))
		assert_memory_equal(&a, &b, sizeof a);
	assert_int_equal(spool_kept(sp), spool_kept(ts->sp));
	spool_close(sp);
	textbuf_free(&win);
}

/* Under the ceiling: all of it, whole, and no gap. */
static void
test_whole(void **state)
{
	struct tspool	ts;

	(void)state;
	ts_open(&ts, 1 << 20);
	write_lines(&ts, 2000, 60);
	ts_write(&ts, "no end yet", 10);
	check_reader(&ts.win, &ts.all, &ts.w);
	assert_int_equal(spool_kept(ts.sp), ts.all.len);
	assert_int_equal(textbuf_line_start(&ts.win), ts.all.len - 10);
	check_restore(&ts);
	ts_close(&ts);
}

/* Past the ceiling: the head and the end, the middle counted. */
static void
test_ceiling(void **state)
{
	struct tspool	ts;
	struct page	pg;
	struct buf	b = BUF_INIT;

	(void)state;
	ts_open(&ts, 64 * 1024);
	write_lines(&ts, 20000, 70);
	check_reader(&ts.win, &ts.all, &ts.w);
	assert_int_equal(ts.w.drop.why, SPOOL_WHY_CEILING);
	/* On lines: the head ends after a LF, the end starts after one. */
	assert_int_equal(ts.all.data[ts.w.drop.from - 1], '\n');
	assert_int_equal(ts.all.data[ts.w.drop.to - 1], '\n');
	assert_memory_equal(ts.all.data, "line 0 ", 7);
	/* The last line is the last offered, and the tail shows it. */
	spool_tail(&ts.win, 0, ts.win.len, 1, TEXTBUF_PAGE_CHARS, &pg);
	spool_copy(&ts.win, pg.start, pg.end, &b);
	assert_non_null(strstr(buf_cstr(&b), "line 19999 "));
	buf_free(&b);
	/* A cursor in the gap reads from its end. */
	assert_int_equal(spool_skip(&ts.win, ts.w.drop.from + 5),
	    ts.w.drop.to);
	assert_int_equal(spool_page(&ts.win, ts.w.drop.from + 5, 1,
	    TEXTBUF_PAGE_CHARS, false, &pg, NULL), 0);
	assert_int_equal(pg.start, ts.w.drop.to);
	/* A page at the head's end stops there. */
	assert_int_equal(spool_page(&ts.win, 0, SIZE_MAX, TEXTBUF_PAGE_CHARS,
	    false, &pg, NULL), 0);
	assert_true(pg.end <= ts.w.drop.from);
	check_restore(&ts);
	ts_close(&ts);
}

/* Pages and tails over the spool equal those over the text in memory. */
static void
test_pages(void **state)
{
	struct tspool	 ts;
	struct textbuf	 mem;
	struct page	 a, b;
	size_t		 c, ml, i;

	(void)state;
	ts_open(&ts, 1 << 24);
	write_lines(&ts, 30000, 40);	/* past the window */
	textbuf_init(&mem, 1 << 24);
	textbuf_append(&mem, ts.all.data, ts.all.len);
	for (i = 0; i < 200; i++) {
		c = (size_t)(test_rand() % (ts.all.len + 1));
		ml = 1 + (size_t)(test_rand() % 2000);
		assert_int_equal(spool_page(&ts.win, c, ml, TEXTBUF_PAGE_CHARS,
		    i % 2, &a, NULL), 0);
		assert_int_equal(textbuf_page(&mem, c, ml, TEXTBUF_PAGE_CHARS,
		    i % 2, &b, NULL), 0);
		assert_memory_equal(&a, &b, sizeof a);
		spool_tail(&ts.win, 0, c, ml, TEXTBUF_PAGE_CHARS, &a);
		spool_tail(&mem, 0, c, ml, TEXTBUF_PAGE_CHARS, &b);
		assert_int_equal(a.start, b.start);
		assert_int_equal(a.end, b.end);
	}
	textbuf_free(&mem);
	ts_close(&ts);
}

/* A file system that refuses: the head is cut, the end kept, and why. */
static void
test_refused(void **state)
{
	struct tspool	ts;
	struct rlimit	old, lim;

	(void)state;
	signal(SIGXFSZ, SIG_IGN);
	ts_open(&ts, 1 << 30);
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	lim = old;
	lim.rlim_cur = 96 * 1024;
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	write_lines(&ts, 20000, 50);	/* 1 MB in files of 96 KiB at most */
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, SIG_DFL);
	assert_int_equal(ts.w.drop.why, SPOOL_WHY_NOSPACE);
	assert_int_equal(ts.w.drop.err, EFBIG);
	check_reader(&ts.win, &ts.all, &ts.w);
	/* The end is the last line offered. */
	assert_true(ts.w.drop.to < ts.all.len);
	assert_true(ts.all.len - ts.w.drop.to > 50);
	check_restore(&ts);
	ts_close(&ts);
}

/* A hole (output lost before the reaper): the head and the end after it
 * kept, the range between dropped, said as lost. */
static void
test_hole(void **state)
{
	struct tspool	ts;

	(void)state;
	ts_open(&ts, 1 << 20);
	write_lines(&ts, 3000, 60);
	spool_w_hole(&ts.w);
	ts_tell(&ts);
	assert_int_equal(ts.w.drop.why, SPOOL_WHY_LOST);
	assert_int_equal(ts.w.drop.to, ts.all.len);
	write_lines(&ts, 100, 30);
	check_reader(&ts.win, &ts.all, &ts.w);
	/* The head (the first segment) is what it was; the end is the
	 * last lines written. */
	assert_true(ts.w.drop.from > 0);
	assert_true(ts.all.len - ts.w.drop.to == 100 * 31 - 0 ||
	    ts.all.len - ts.w.drop.to > 0);
	check_restore(&ts);
	/* Past the ceiling after it: still one range, the end kept. */
	write_lines(&ts, 40000, 60);
	check_reader(&ts.win, &ts.all, &ts.w);
	assert_int_equal(ts.w.drop.why, SPOOL_WHY_LOST);
	check_restore(&ts);
	ts_close(&ts);
}

/* Random texts, chunkings and ceilings: the reader always agrees. */
static void
test_property(void **state)
{
	static const char *const atoms[] = { "a", "bc", "\n", "é", "€",
	    "𝄞", "xyz ", "\n\n", "1234567890" };
	struct tspool	 ts;
	char		 chunk[4096];
	size_t		 round, total, n, k;
	uint64_t	 max;

	(void)state;
	for (round = 0; round < 40; round++) {
		max = 1024 + test_rand() % (256 * 1024);
		ts_open(&ts, max);
		ts.quiet = round % 3 == 0 ? 1 + (unsigned)(test_rand() % 50) : 0;
		total = (size_t)(test_rand() % (2 * max + 1));
		while (ts.all.len < total) {
			for (n = 0, k = 1 + (size_t)(test_rand() % 60); k-- > 0;) {
				const char *a = atoms[test_rand() % (sizeof atoms /
				    sizeof *atoms)];
				if (n + strlen(a) > sizeof chunk)
					break;
				memcpy(chunk + n, a, strlen(a));
				n += strlen(a);
			}
			/* Split anywhere, a character too. */
			k = (size_t)(test_rand() % (n + 1));
			ts_write(&ts, chunk, k);
			ts_write(&ts, chunk + k, n - k);
			if (test_rand() % 500 == 0)
				spool_w_hole(&ts.w);
		}
		ts_tell(&ts);
		check_reader(&ts.win, &ts.all, &ts.w);
		check_restore(&ts);
		ts_close(&ts);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_whole),
		cmocka_unit_test(test_ceiling),
		cmocka_unit_test(test_pages),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_hole),
		cmocka_unit_test(test_property),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
