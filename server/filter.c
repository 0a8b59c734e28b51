/*
 * filter.c — the lines of a program's text that match a pattern, with
 * grep -C style context, as read_program's and run_program's filter
 * return them.
 *
 * A filter scans whole lines from a cursor, numbering them from the
 * start of the text (1 is the first line), and writes each shown line as
 * grep -n does: "12:text" for a match, "11-text" for a context line, and
 * "--" between groups that do not touch (with context). Its output is one
 * page at most (TEXTBUF_PAGE_CHARS characters, max_lines lines); a shown
 * line longer than FILTER_LINE_CHARS is cut there and says how much it
 * left out. It
 * stops at the end of what it was given, when the next group would not
 * fit (full: the cursor is then that group's line, so the next read
 * starts with it), or when its time for one scan is spent (it goes on
 * from there at the next). Context before a match never reaches back
 * before where the scan began, nor repeats a line already shown.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compat.h"
#include "pattern.h"
#include "server.h"
#include "timeutil.h"
#include "xmalloc.h"

#define FILTER_LINE_CHARS	2000	/* a shown line is cut after this */

/* Number the lines of t from cursor, for pattern pat. */
void
filter_init(struct filter *f, struct pattern *pat, size_t context,
    size_t max_lines, const struct textbuf *t, size_t cursor)
{
	const char	*p, *e;

	memset(f, 0, sizeof *f);
	f->pat = pat;
	f->context = context;
	f->max_lines = max_lines > 0 ? max_lines : SIZE_MAX;
	f->start = f->scan = f->shown_end = cursor;
	f->line = 1;
	if (t->data != NULL) {
		p = t->data;
		e = t->data + cursor;
		while (p < e &&
		    (p = memchr(p, '\n', (size_t)(e - p))) != NULL) {
			f->line++;
			p++;
		}
	}
	buf_init(&f->out);
}

void
filter_free(struct filter *f)
{
	buf_free(&f->out);
	free(f->failed);
	f->failed = NULL;
}

/* Show text[s, e) as line number n, marked ':' (a match) or '-'. */
static void
filter_put(struct buf *b, size_t *chars, size_t *raw, const char *s,
    size_t len, size_t n, char mark)
{
	size_t	cps = utf8_count(s, len), cut, k, start = b->len;

	buf_printf(b, "%zu%c", n, mark);
	if (cps > FILTER_LINE_CHARS) {
		for (cut = k = 0; k < FILTER_LINE_CHARS && cut < len; k++)
			cut += utf8_seq_len(s[cut]);
		buf_add(b, s, cut > len ? len : cut);
		buf_printf(b, " [%zu more characters]", cps -
		    FILTER_LINE_CHARS);
		*raw += FILTER_LINE_CHARS;
	} else {
		buf_add(b, s, len);
		*raw += cps;
	}
	buf_addc(b, '\n');
	*chars += utf8_count(b->data + start, b->len - start);
}

/* The end of the line at off (its LF or the end of the text), and where
 * the next begins; false if it is not whole (and final is not set). */
static bool
filter_line(const struct textbuf *t, size_t off, bool final, size_t *end,
    size_t *next)
{
	const char	*lf;

	lf = memchr(t->data + off, '\n', t->len - off);
	if (lf == NULL) {
		if (!final || off == t->len)
			return (false);
		*end = *next = t->len;
		return (true);
	}
	*end = (size_t)(lf - t->data);
	*next = *end + 1;
	return (true);
}

/*
 * Add a group to the output: the lines from s (line number n) up to the
 * line at scan, that one marked mark, with a separator if it does not
 * touch what was shown. False if it would not fit in the page (unless
 * the output is empty: a group always goes into an empty page).
 */
static bool
filter_group(struct filter *f, const struct textbuf *t, size_t s, size_t n,
    char mark)
{
	struct buf	 g;
	size_t		 chars = 0, raw = 0, lines = 0, end, next, off = s;
	bool		 ok = true;

	buf_init(&g);
	if (f->context > 0 && f->out.len > 0 && s != f->shown_end) {
		buf_adds(&g, "--\n");
		chars += 3;
		lines++;
	}
	while (off <= f->scan) {
		if (!filter_line(t, off, true, &end, &next))
			break;
		filter_put(&g, &chars, &raw, t->data + off, end - off, n,
		    off == f->scan ? mark : '-');
		lines++;
		n++;
		if (next == off)
			break;
		off = next;
	}
	if (f->out_lines > 0 && (f->out_chars + chars > TEXTBUF_PAGE_CHARS ||
	    f->out_lines + lines > f->max_lines))
		ok = false;
	else {
		buf_add(&f->out, g.data, g.len);
		f->out_chars += chars;
		f->out_lines += lines;
		f->shown_raw += raw;
		f->shown_end = off;
	}
	buf_free(&g);
	return (ok);
}

/* Where the context before the line at off (number n) starts: up to
 * f->context lines back, not before the scan's start or a line shown. */
static size_t
filter_before(struct filter *f, const struct textbuf *t, size_t off,
    size_t *n)
{
	size_t		 lo = f->shown_end > f->start ? f->shown_end : f->start;
	size_t		 k;
	const char	*lf;

	for (k = 0; k < f->context && off > lo; k++) {
		/* off - 1 is the LF ending the line before. */
		lf = off - 1 > lo ? compat_memrchr(t->data + lo, '\n',
		    off - 1 - lo) : NULL;
		off = lf != NULL ? (size_t)(lf - t->data) + 1 : lo;
		(*n)--;
	}
	return (off);
}

/*
 * Scan the whole lines from f->scan (with final, the unterminated last
 * line too) for budget_us at most. FILTER_DONE: all of them scanned;
 * FILTER_MORE: its time ran out first; FILTER_FULL: the next line to
 * show does not fit in the page; FILTER_FAILED: a limit stopped a match
 * (f->failed says which, naming filter).
 */
int
filter_scan(struct filter *f, const struct textbuf *t, bool final,
    int64_t budget_us)
{
	size_t	 end, next, s, n;
	char	*cause = NULL;
	int64_t	 t0 = now_us();
	int	 rc;

	if (f->failed != NULL)
		return (FILTER_FAILED);
	if (f->full)
		return (FILTER_FULL);
	while (f->scan < t->len) {
		if (now_us() - t0 >= budget_us)
			return (FILTER_MORE);
		if (!filter_line(t, f->scan, final, &end, &next))
			break;
		rc = pattern_match(f->pat, t->data + f->scan, end - f->scan,
		    &cause);
		if (rc == -1) {
			xasprintf(&f->failed, "filter %s (line %zu)", cause,
			    f->line);
			free(cause);
			return (FILTER_FAILED);
		}
		if (rc == 1) {
			n = f->line;
			s = filter_before(f, t, f->scan, &n);
			if (!filter_group(f, t, s, n, ':')) {
				f->full = true;
				return (FILTER_FULL);
			}
			f->matched++;
			f->after = f->context;
		} else if (f->after > 0) {
			if (!filter_group(f, t, f->scan, f->line, '-')) {
				f->full = true;
				return (FILTER_FULL);
			}
			f->after--;
		}
		f->scan = next;
		f->line++;
		f->scanned++;
	}
	return (FILTER_DONE);
}

/* The text's status line: "[12 of 200000 lines matched; cursor 1288895]". */
void
filter_line_text(struct buf *b, const struct filter *f)
{
	buf_printf(b, "[%zu of %zu line%s matched", f->matched, f->scanned,
	    f->scanned == 1 ? "" : "s");
	if (f->scanned > 0)
		buf_printf(b, " (lines %zu to %zu)", f->line - f->scanned,
		    f->line - 1);
	if (f->full)
		buf_adds(b, ", the page is full");
	buf_printf(b, "; cursor %zu]\n", f->scan);
}
