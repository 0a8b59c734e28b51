/*
 * spool_text.c — a program's text as the calls read it (spool_read.h):
 * the functions on a text (const struct textbuf *), over the whole of it.
 *
 * A text is its window's spool when it has one (spool_read.c, the
 * reader, keeps the files, the index and the gap), else the textbuf
 * itself (a text in memory, as the unit tests and fixtures make). Kept
 * text comes in runs: the head up to the gap, and from the gap's end on;
 * no page, line or tail spans the gap, and a cursor in it reads from its
 * end. The bytes come from the window when it holds them, else through a
 * view (struct spool_view) that copies SPOOL_CHUNK bytes at a time from
 * the reader (spool_fetch); counts of lines and characters come from
 * its index (spool_counts_at). Nothing here opens a file.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "spool_read.h"
#include "utf8.h"
#include "xmalloc.h"

/* The spool of a text, or NULL when it is all in memory. */
static struct spool *
spool_of(const struct textbuf *t)
{
	return (t->spool);
}

/* What the text's spool dropped, or NULL (all kept, or no spool). */
static const struct spool_drop *
spool_text_drop(const struct textbuf *t)
{
	return (t->spool != NULL ? spool_drop_of(t->spool) : NULL);
}

/* The gap, if any. */
bool
spool_gap(const struct textbuf *t, struct spool_gap *g)
{
	const struct spool_drop	*d = spool_text_drop(t);

	if (d == NULL)
		return (false);
	if (g != NULL) {
		g->from = d->from;
		g->to = d->to;
		g->bytes = d->to - d->from;
		g->lines = d->lines;
		g->chars = d->chars;
		g->why = d->why;
		g->err = d->err;
	}
	return (true);
}

/* Does [from, to) take in some of the gap (or jump it)? */
bool
spool_crossed(const struct textbuf *t, size_t from, size_t to,
    struct spool_gap *g)
{
	struct spool_gap	gap;

	if (!spool_gap(t, &gap) || from >= gap.to || to <= gap.from)
		return (false);
	if (g != NULL)
		*g = gap;
	return (true);
}

/* Past the gap, if off is in it. */
size_t
spool_skip(const struct textbuf *t, size_t off)
{
	const struct spool_drop	*d = spool_text_drop(t);

	if (d != NULL && off >= d->from && off < d->to)
		return (d->to);
	return (off);
}

/* Where the kept run holding off ends. */
size_t
spool_run_end(const struct textbuf *t, size_t off, bool *hard)
{
	const struct spool_drop	*d = spool_text_drop(t);

	if (d != NULL && off < d->from) {
		*hard = true;
		return (d->from < t->len ? d->from : t->len);
	}
	*hard = false;
	return (t->len);
}

/* LFs in t's memory before off. */
static size_t
spool_mem_lines(const struct textbuf *t, size_t off)
{
	const char	*p = t->data, *e;
	size_t		 n = 0;

	if (p == NULL)
		return (0);
	e = p + (off < t->len ? off : t->len);
	while (p < e && (p = memchr(p, '\n', (size_t)(e - p))) != NULL) {
		n++;
		p++;
	}
	return (n);
}

size_t
spool_lines_before(const struct textbuf *t, size_t off)
{
	size_t	lines, chars;

	if (spool_of(t) == NULL)
		return (spool_mem_lines(t, off));
	spool_counts_at(spool_of(t), off, &lines, &chars);
	return (lines);
}

size_t
spool_chars_before(const struct textbuf *t, size_t off)
{
	size_t	lines, chars;

	if (spool_of(t) == NULL)
		return (t->data != NULL ? utf8_count(t->data, off < t->len ?
		    off : t->len) : 0);
	spool_counts_at(spool_of(t), off, &lines, &chars);
	return (chars);
}

/* The first LF in [from, to). */
bool
spool_find_lf(const struct textbuf *t, size_t from, size_t to, size_t *at)
{
	struct spool_view	 v;
	const char		*p, *lf;
	size_t			 n;
	bool			 found = false;

	spool_view_init(&v, t);
	while (from < to) {
		n = to - from;
		if ((p = spool_view_get(&v, from, &n, 1)) == NULL || n == 0)
			break;
		if ((lf = memchr(p, '\n', n)) != NULL) {
			*at = from + (size_t)(lf - p);
			found = true;
			break;
		}
		from += n;
	}
	spool_view_free(&v);
	return (found);
}

/* A textbuf over bytes [base, base + n) at p, for the page functions. */
static void
spool_over(struct textbuf *vt, const char *p, size_t base, size_t n,
    bool bol)
{
	textbuf_init(vt, SIZE_MAX);
	vt->data = (char *)(uintptr_t)p;
	vt->base = base;
	vt->len = base + n;
	vt->base_bol = bol;
}

/* The page at cursor, over the whole text. */
int
spool_page(const struct textbuf *t, size_t cursor, size_t max_lines,
    size_t max_chars, bool ended, struct page *pg, char **cause)
{
	struct spool_view	 v;
	struct textbuf		 vt;
	const char		*p;
	size_t			 c, e, n;
	bool			 hard;

	if (spool_of(t) == NULL || cursor > t->len)
		return (textbuf_page(t, cursor, max_lines, max_chars, ended,
		    pg, cause));
	c = spool_skip(t, cursor);
	e = spool_run_end(t, c, &hard);
	n = e - c;
	if (n > UTF8_MAX * (max_chars + 1))
		n = UTF8_MAX * (max_chars + 1);
	spool_view_init(&v, t);
	if ((p = spool_view_get(&v, c, &n, n)) == NULL)
		n = 0;
	spool_over(&vt, p, c, n, true);
	textbuf_page(&vt, c, max_lines, max_chars, c + n == e &&
	    (hard || ended), pg, NULL);
	spool_view_free(&v);
	return (0);
}

/* The last lines of [from, end). */
void
spool_tail(const struct textbuf *t, size_t from, size_t end,
    size_t max_lines, size_t max_chars, struct page *pg)
{
	struct spool_view	 v;
	struct textbuf		 vt;
	const char		*p;
	size_t			 lo, n, vb, one;
	char			 before = '\n';

	if (spool_of(t) == NULL) {
		vt = *t;
		vt.len = end;
		textbuf_tail(&vt, max_lines, max_chars, pg);
	} else {
		lo = spool_skip(t, from);
		if (spool_crossed(t, lo, end, NULL))
			lo = spool_skip(t, spool_text_drop(t)->from);
		if (end < lo)
			end = lo;
		n = end - lo;
		if (n > UTF8_MAX * (max_chars + 1) + 1)
			n = UTF8_MAX * (max_chars + 1) + 1;
		vb = end - n;
		spool_view_init(&v, t);
		if (vb > lo) {
			one = 1;
			if ((p = spool_view_get(&v, vb - 1, &one, 1)) != NULL &&
			    one == 1)
				before = *p;
		}
		if ((p = spool_view_get(&v, vb, &n, n)) == NULL)
			n = 0;
		spool_over(&vt, p, vb, n, before == '\n');
		textbuf_tail(&vt, max_lines, max_chars, pg);
		spool_view_free(&v);
		from = lo;
	}
	if (pg->start < from)
		pg->start = from;
	if (pg->end < pg->start)
		pg->end = pg->start;
}

/* Append [from, to) to b. */
void
spool_copy(const struct textbuf *t, size_t from, size_t to, struct buf *b)
{
	struct spool_view	 v;
	const char		*p;
	size_t			 n;

	spool_view_init(&v, t);
	while (from < to) {
		n = to - from;
		if ((p = spool_view_get(&v, from, &n, 1)) == NULL || n == 0)
			break;
		buf_add(b, p, n);
		from += n;
	}
	spool_view_free(&v);
}

void
spool_view_init(struct spool_view *v, const struct textbuf *t)
{
	memset(v, 0, sizeof *v);
	v->t = t;
}

void
spool_view_free(struct spool_view *v)
{
	free(v->buf);
	v->buf = NULL;
	v->cap = v->base = v->len = 0;
}

/* Bytes [off, off + *n) in one piece (at least min of them if there
 * are, else all it can). */
const char *
spool_view_get(struct spool_view *v, size_t off, size_t *n, size_t min)
{
	const struct textbuf	*t = v->t;
	struct spool		*sp = spool_of(t);
	size_t			 e, want;
	bool			 hard;

	e = spool_run_end(t, off, &hard);
	if (off >= e) {
		*n = 0;
		return (t->data);
	}
	if (*n > e - off)
		*n = e - off;
	if (min > *n)
		min = *n;
	if (off >= t->base)		/* held in memory */
		return (t->data + (off - t->base));
	if (sp == NULL) {
		*n = 0;
		return (NULL);
	}
	if (off >= v->base && off + min <= v->len && off < v->len) {
		if (*n > v->len - off)
			*n = v->len - off;
		return (v->buf + (off - v->base));
	}
	want = min > SPOOL_CHUNK ? min : SPOOL_CHUNK;
	if (want > *n)
		want = *n;
	if (want > v->cap) {
		free(v->buf);
		v->buf = xmalloc(want);
		v->cap = want;
	}
	v->base = off;
	v->len = off + spool_fetch(sp, off, want, v->buf);
	if (*n > v->len - off)
		*n = v->len - off;
	return (v->buf);
}
