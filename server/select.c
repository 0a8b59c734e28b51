/*
 * select.c — what a reply shows of a program's text: the one selection
 * engine of read_program, run_program and send_keys' reply.
 *
 * A selection is asked for by a call's arguments (sel_parse holds the one
 * copy of their rules) and made in two steps. sel_scan looks at the whole
 * lines from the cursor, a time slice at a time so that no pattern holds
 * up other calls: until's pattern ends the range at the first line it
 * matches; filter's picks the lines shown. sel_show then renders what the
 * reply holds, within one page (about TEXTBUF_PAGE_CHARS characters, and
 * maxLines lines): the first page of the range (a plain read, a filter),
 * or its last lines (until: the matched line and the lines before it;
 * tail: the last N lines or N matching lines; a run: the end of its
 * output), the lines before them skipped and counted. maxLines bounds the
 * reply, never the scan. Lines a filter shows are grep -n's: "12:text"
 * for a match, "11-text" for a context line, "--" between groups that do
 * not touch; each cut after SEL_LINE_CHARS characters.
 *
 * When a read answers is the wait's (watch.c), by the selection's kind
 * (enum sel_wait); why it answered is said by enum sel_reason, in the
 * structured result (reason) and in the text alike.
 *
 * The text is read through the spool (spool_read.h): lines through a
 * view a chunk at a time, line numbers and counts through its index, so
 * a scan costs the text it scans and a reply what it shows, whatever
 * came before. A line is matched on its first SEL_MATCH_MAX bytes. No
 * line or page spans the gap, the middle a ceiling dropped: the scan
 * goes on past it with the lines numbered as they were, context stops
 * at it, and a reply whose range crossed it says so (sh->crossed).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compat.h"
#include "pattern.h"
#include "server.h"
#include "timeutil.h"
#include "xmalloc.h"

#define SEL_LINE_CHARS	2000	/* a line a filter shows is cut after this */
#define SEL_RING_MAX	4096	/* matching lines kept for a last page */
#define SEL_MATCH_MAX	(1024u * 1024)	/* bytes of a line matched */
#define SEL_PASS_MIN	512		/* bytes sel_pass looks at, at least */
#define SEL_PASS_SKIP	32		/* lines it leaves alone when dense */

/* A line of the text: [off, end), the next at next; its first n bytes
 * at p (all of it unless it is longer than SEL_MATCH_MAX). */
struct sel_ln {
	size_t		 off, end, next;
	const char	*p;
	size_t		 n;
};

static const char *const sel_reasons[] = {
	[SEL_R_TEXT] = "text",
	[SEL_R_FULL] = "pageFull",
	[SEL_R_MATCHED] = "matched",
	[SEL_R_ENDED] = "ended",
	[SEL_R_INPUT] = "waitingForInput",
	[SEL_R_TIMEOUT] = "timeout",
	[SEL_R_SCAN] = "scanLimit",
	[SEL_R_SCREEN] = "screen",
	[SEL_R_PORT] = "port",
	[SEL_R_URL] = "url",
	[SEL_R_FILE] = "file",
	[SEL_R_QUIET] = "quiet",
	[SEL_R_READY] = "ready"
};

/* The reason's name, as the schemas list it. */
const char *
sel_reason_name(enum sel_reason r)
{
	return (sel_reasons[r]);
}

/* Why the read returned, in words, for the end of the status line; the
 * wait it was given is said too, as the wait, never as the reason. */
void
sel_reason_text(struct buf *b, enum sel_reason r, int64_t timeout_ms)
{
	static const char *const why[] = {
		[SEL_R_TEXT] = "new lines came",
		[SEL_R_FULL] = "a page is full",
		[SEL_R_MATCHED] = "until matched",
		[SEL_R_ENDED] = "the end",
		[SEL_R_INPUT] = "it waits for input",
		[SEL_R_SCREEN] = "the screen settled",
		[SEL_R_PORT] = "it listens on untilPort's port",
		[SEL_R_URL] = "untilUrl answered below 400",
		[SEL_R_FILE] = "untilFile is there",
		[SEL_R_QUIET] = "untilQuietMs of quiet after a line",
		[SEL_R_READY] = "it said READY=1 on NOTIFY_SOCKET"
	};

	if (r == SEL_R_TIMEOUT)
		buf_printf(b, " (returned: its %lld ms wait ran out)",
		    (long long)timeout_ms);
	else if (r == SEL_R_SCAN)
		buf_printf(b, " (returned: scanning the text already there "
		    "ran out of time, past its %lld ms wait; read on from the "
		    "cursor)", (long long)timeout_ms);
	else
		buf_printf(b, " (returned: %s, within its %lld ms wait%s)",
		    why[r], (long long)timeout_ms, r == SEL_R_FULL ? "; read "
		    "on from the cursor" : "");
}

/* A pattern argument compiled, or an error naming it. */
static int
sel_pattern(const struct json *args, const char *key, struct pattern **pat,
    char **cause)
{
	const char	*s;
	char		*why = NULL;
	size_t		 len;

	if ((s = tools_arg_str(args, key, &len)) == NULL)
		return (0);
	if ((*pat = pattern_compile(s, len, 0, &why)) != NULL)
		return (0);
	xasprintf(cause, "%s %s; %s takes a PCRE2 pattern, as JavaScript or "
	    "Python write them (\\d, \\s, \\w, \\b, (?i), lazy quantifiers, "
	    "lookaround)", key, why, key);
	free(why);
	return (-1);
}

/*
 * A selection as a call's arguments ask (those of what: SEL_ARG_*):
 * cursor, maxLines, until, tail, filter, context. Every combination is
 * taken but context without filter. The kind of wait follows: until's
 * line, the end (tail), matching lines (filter), or new lines.
 */
int
sel_parse(struct sel *s, const struct json *args, unsigned what,
    char **cause)
{
	int64_t	context;

	memset(s, 0, sizeof *s);
	if (what & SEL_ARG_CURSOR)
		s->start = (size_t)tools_arg_int(args, "cursor", 0);
	s->max_lines = (size_t)tools_arg_int(args, "maxLines", 0);
	if (s->max_lines == 0)
		s->max_lines = SIZE_MAX;
	s->tail = (size_t)tools_arg_int(args, "tail", 0);
	context = tools_arg_int(args, "context", -1);
	if (context >= 0 && tools_arg_str(args, "filter", NULL) == NULL) {
		xasprintf(cause, "context goes with filter: it is how many "
		    "lines to show around each line filter matches");
		return (-1);
	}
	s->context = context > 0 ? (size_t)context : 0;
	if (((what & SEL_ARG_UNTIL) &&
	    sel_pattern(args, "until", &s->until, cause) == -1) ||
	    sel_pattern(args, "filter", &s->filter, cause) == -1) {
		sel_free(s);
		return (-1);
	}
	s->last = s->tail > 0 || s->until != NULL;
	if (s->until != NULL)
		s->wait = SEL_WAIT_MATCH;
	else if (s->tail > 0)
		s->wait = SEL_WAIT_END;
	else if (s->filter != NULL)
		s->wait = SEL_WAIT_MATCHES;
	else
		s->wait = SEL_WAIT_LINES;
	return (0);
}

/* Ready to scan t from s->start (a cursor within t): number its line. */
void
sel_begin(struct sel *s, const struct textbuf *t)
{
	s->scan = s->shown_end = s->start;
	s->line = 1;
	if (s->filter != NULL)
		s->line += spool_lines_before(t, spool_skip(t, s->start));
	s->start_line = s->line;
	spool_view_init(&s->v, t);
	spool_view_init(&s->cv, t);
	buf_init(&s->out);
	if (s->filter != NULL && s->last) {
		s->ring_cap = s->tail > 0 && s->tail < SEL_RING_MAX ? s->tail :
		    SEL_RING_MAX;
		s->ring = xcalloc(s->ring_cap + 1, sizeof *s->ring);
	}
}

/* Let go of what a selection holds. */
void
sel_free(struct sel *s)
{
	pattern_free(s->until);
	pattern_free(s->filter);
	buf_free(&s->out);
	free(s->failed);
	free(s->ring);
	spool_view_free(&s->v);
	spool_view_free(&s->cv);
	s->until = s->filter = NULL;
	s->failed = NULL;
	s->ring = NULL;
}

/*
 * The line at off (within a run of kept text), read through view v: its
 * end (its LF, or the run's end when final or at the head's end) and
 * where the next begins; false if it is not whole yet.
 */
static bool
sel_line(struct spool_view *v, const struct textbuf *t, size_t off,
    bool final, struct sel_ln *ln)
{
	const char	*p, *lf;
	size_t		 e, n, cap, at;
	bool		 hard;

	e = spool_run_end(t, off, &hard);
	if (off >= e)
		return (false);
	cap = t->spool != NULL && e - off > SEL_MATCH_MAX ? SEL_MATCH_MAX :
	    e - off;
	n = cap;
	if ((p = spool_view_get(v, off, &n, 1)) == NULL || n == 0)
		return (false);
	/* The view held less of it: a chunk from off, then all it may. */
	if ((lf = memchr(p, '\n', n)) == NULL && n < cap) {
		n = cap;
		if ((p = spool_view_get(v, off, &n, cap < SPOOL_CHUNK ? cap :
		    SPOOL_CHUNK)) == NULL || n == 0)
			return (false);
		lf = memchr(p, '\n', n);
	}
	if (lf == NULL && n < cap) {
		n = cap;
		if ((p = spool_view_get(v, off, &n, cap)) == NULL || n == 0)
			return (false);
		lf = memchr(p, '\n', n);
	}
	ln->off = off;
	ln->p = p;
	if (lf != NULL)
		ln->end = off + (size_t)(lf - p);
	else if (off + n < e && spool_find_lf(t, off + n, e, &at))
		ln->end = at;		/* longer than SEL_MATCH_MAX */
	else if (final || hard)
		ln->end = e;
	else
		return (false);
	ln->next = ln->end < e ? ln->end + 1 : e;
	ln->n = ln->end - off < n ? ln->end - off : n;
	if (ln->n < ln->end - off)	/* cut on a character */
		ln->n = utf8_char_start(p, ln->n);
	return (true);
}

/* The characters of the line (its LF not counted). */
static size_t
sel_line_chars(const struct textbuf *t, const struct sel_ln *ln)
{
	if (ln->n == ln->end - ln->off)
		return (utf8_count(ln->p, ln->n));
	return (spool_chars_before(t, ln->end) - spool_chars_before(t,
	    ln->off));
}

/* Show the line as line number n, marked ':' (a match) or '-'. Adds
 * its characters to *chars and those of the text shown to *raw. */
static void
sel_put_line(struct buf *b, size_t *chars, size_t *raw,
    const struct textbuf *t, const struct sel_ln *ln, size_t n, char mark)
{
	const char	*s = ln->p;
	size_t		 len = ln->n, cps, cut, k, start = b->len;

	cps = sel_line_chars(t, ln);
	buf_printf(b, "%zu%c", n, mark);
	if (cps > SEL_LINE_CHARS) {
		for (cut = k = 0; k < SEL_LINE_CHARS && cut < len; k++)
			cut += utf8_seq_len(s[cut]);
		buf_add(b, s, cut > len ? len : cut);
		buf_printf(b, " [%zu more characters]", cps - SEL_LINE_CHARS);
		*raw += SEL_LINE_CHARS;
	} else {
		buf_add(b, s, len);
		*raw += cps;
	}
	buf_addc(b, '\n');
	*chars += utf8_count(b->data + start, b->len - start);
}

/*
 * Lines from off (number n) to the line at hit (whole lines, hit's the
 * last) as a group of the first page, with a separator if it does not
 * touch what was shown. False if it would not fit in the page (a group
 * always goes into an empty page).
 */
static bool
sel_group(struct sel *s, const struct textbuf *t, size_t off, size_t n,
    size_t hit, char mark)
{
	struct buf	 g = BUF_INIT;
	struct sel_ln	 ln;
	size_t		 chars = 0, raw = 0, lines = 0;
	bool		 ok = true;

	if (s->context > 0 && s->out.len > 0 && off != s->shown_end) {
		buf_adds(&g, "--\n");
		chars += 3;
		lines++;
	}
	while (off <= hit && sel_line(&s->cv, t, off, true, &ln)) {
		sel_put_line(&g, &chars, &raw, t, &ln, n++, off == hit ? mark :
		    '-');
		lines++;
		if (ln.next == off)
			break;
		off = ln.next;
	}
	if (s->out_lines > 0 && (s->out_chars + chars > TEXTBUF_PAGE_CHARS ||
	    s->out_lines + lines > s->max_lines))
		ok = false;
	else {
		buf_add(&s->out, g.data, g.len);
		s->out_chars += chars;
		s->out_lines += lines;
		s->shown_raw += raw;
		s->shown_end = off;
	}
	buf_free(&g);
	return (ok);
}

/*
 * Back up to k lines from the line at off (number *n), not before lo nor
 * before the gap's end when off is after it: in memory, LF by LF; on
 * disk, through the index.
 */
static size_t
sel_back(const struct textbuf *t, size_t off, size_t k, size_t lo, size_t *n)
{
	struct spool_gap	 g;
	const char		*lf;
	size_t			 want, first, x;

	if (t->spool != NULL) {
		if (k == 0 || off <= lo)
			return (off);
		if (spool_gap(t, &g) && off >= g.to && lo < g.to)
			lo = g.to;
		first = spool_lines_before(t, lo) + 1;
		want = *n > k ? *n - k : 1;
		if (want < first)
			want = first;
		if ((x = spool_line_off(t, want)) < lo)
			x = lo;
		*n = want;
		return (x);
	}
	for (; k > 0 && off > lo; k--) {
		/* off - 1 is the LF ending the line before. */
		lf = off - 1 > lo ? compat_memrchr(t->data + lo, '\n',
		    off - 1 - lo) : NULL;
		off = lf != NULL ? (size_t)(lf - t->data) + 1 : lo;
		(*n)--;
	}
	return (off);
}

/* A hit for the last page: kept in the ring, the oldest going. */
static void
sel_ring_put(struct sel *s, size_t off, size_t line, bool until)
{
	struct sel_hit	*h = &s->ring[s->ring_next];

	h->off = off;
	h->line = line;
	h->until = until;
	s->ring_next = (s->ring_next + 1) % (s->ring_cap + 1);
	if (s->ring_n < s->ring_cap + 1)
		s->ring_n++;
}

/* A filter's match at the line at off: into the first page (head) or
 * the ring (last); false if the first page is full. */
static bool
sel_hit(struct sel *s, const struct textbuf *t, size_t off)
{
	size_t	lo, n = s->line, from;

	if (s->ring != NULL) {
		sel_ring_put(s, off, s->line, false);
		return (true);
	}
	lo = s->shown_end > s->start ? s->shown_end : s->start;
	from = sel_back(t, off, s->context, lo, &n);
	if (!sel_group(s, t, from, n, off, ':'))
		return (false);
	s->after = s->context;
	return (true);
}

/* Lines in s[0, n): their LFs. */
static size_t
sel_lfs(const char *p, size_t n)
{
	const char	*e = p + n;
	size_t		 k = 0;

	while (p < e && (p = memchr(p, '\n', (size_t)(e - p))) != NULL) {
		k++;
		p++;
	}
	return (k);
}

/*
 * Pass over the lines from s->scan that cannot match: those before the
 * first line the patterns may match when read over many lines at once
 * (pattern_find), in the whole lines of the next s->pass bytes; they are
 * scanned and counted, not matched one by one. The stretch looked at
 * doubles while it holds no candidate and halves while candidates come
 * early in it, and when the first line is a candidate at the least
 * stretch the next SEL_PASS_SKIP lines go line by line: dense matches
 * cost little more than line by line.
 * True if it passed some; s->cand is then where the next candidate is.
 */
static bool
sel_pass(struct sel *s, const struct textbuf *t)
{
	struct pattern	*pat[2] = { s->filter, s->until };
	const char	*p, *lf;
	size_t		 n, e, at, a, k, i;
	bool		 hard;

	if (s->pass_skip > 0) {		/* dense: line by line a while */
		s->pass_skip--;
		return (false);
	}
	if (s->cand < s->scan) {	/* (at scan: its line may match) */
		if (s->pass == 0)
			s->pass = SEL_PASS_MIN;
		e = spool_run_end(t, s->scan, &hard);
		n = e - s->scan < s->pass ? e - s->scan : s->pass;
		if (n == 0 || (p = spool_view_get(&s->v, s->scan, &n, n)) ==
		    NULL || (lf = compat_memrchr(p, '\n', n)) == NULL)
			return (false);
		n = (size_t)(lf - p) + 1;	/* whole lines */
		for (at = n, i = 0; i < 2; i++)
			if (pat[i] != NULL) {
				if (!pattern_lines(pat[i]) ||
				    pattern_find(pat[i], p, n, &a) == -1) {
					s->cand = SIZE_MAX;	/* never */
					return (false);
				}
				if (a < at)
					at = a;
			}
		if (at == n && s->pass < SPOOL_CHUNK)
			s->pass *= 2;
		else if (at < n / 4 && s->pass > SEL_PASS_MIN)
			s->pass /= 2;
		else if (at == 0)
			s->pass_skip = SEL_PASS_SKIP;
		s->cand = s->scan + at;
	}
	if (s->cand == SIZE_MAX || s->cand <= s->scan)
		return (false);
	n = s->cand - s->scan;
	if ((p = spool_view_get(&s->v, s->scan, &n, n)) == NULL ||
	    n != s->cand - s->scan)
		return (false);
	k = sel_lfs(p, n);
	s->scan = s->cand;
	s->line += k;
	s->scanned += k;
	return (true);
}

/*
 * Look at the whole lines from s->scan (with final, the unterminated last
 * line too) for budget_us at most. SEL_SCAN_DONE: all there is scanned;
 * SEL_SCAN_MORE: its time ran out first; SEL_SCAN_MATCHED: until's line
 * (s->until_end after it); SEL_SCAN_FULL: a filter's first page is full
 * (the scan stops at the group that did not fit); SEL_SCAN_FAILED: a
 * limit stopped a match (s->failed says which, naming the argument).
 */
int
sel_scan(struct sel *s, const struct textbuf *t, bool final,
    int64_t budget_us)
{
	struct sel_ln	 ln;
	size_t		 off;
	char		*cause = NULL;
	const char	*which;
	int64_t		 t0 = now_us();
	int		 rc;

	if (s->failed != NULL)
		return (SEL_SCAN_FAILED);
	if (s->full)
		return (SEL_SCAN_FULL);
	if (s->until_end != 0)
		return (SEL_SCAN_MATCHED);
	if (s->until == NULL && s->filter == NULL) {
		s->scan = final ? t->len : textbuf_line_start(t);
		return (SEL_SCAN_DONE);
	}
	for (;;) {
		/* Past the gap, the lines are numbered as they were. */
		if ((off = spool_skip(t, s->scan)) != s->scan) {
			s->scan = off;
			s->line = spool_lines_before(t, off) + 1;
		}
		if (s->after == 0 && sel_pass(s, t))
			continue;
		if (!sel_line(&s->v, t, s->scan, final, &ln))
			break;
		if (now_us() - t0 >= budget_us)
			return (SEL_SCAN_MORE);
		if (s->filter != NULL) {
			which = "filter";
			rc = pattern_match(s->filter, ln.p, ln.n, &cause);
			if (rc == -1)
				goto failed;
			if (rc == 1) {
				s->matched++;
				if (!sel_hit(s, t, ln.off)) {
					s->matched--;
					s->full = true;
					return (SEL_SCAN_FULL);
				}
			} else if (s->after > 0 && s->ring == NULL) {
				if (!sel_group(s, t, s->scan, s->line, s->scan,
				    '-')) {
					s->full = true;
					return (SEL_SCAN_FULL);
				}
				s->after--;
			}
		}
		if (s->until != NULL) {
			which = "until";
			rc = pattern_match(s->until, ln.p, ln.n, &cause);
			if (rc == -1)
				goto failed;
			if (rc == 1) {
				if (s->ring != NULL && (s->ring_n == 0 ||
				    s->ring[(s->ring_next + s->ring_cap) %
				    (s->ring_cap + 1)].off != s->scan))
					sel_ring_put(s, s->scan, s->line, true);
				s->until_end = ln.next;
			}
		}
		s->scan = ln.next;
		s->line++;
		s->scanned++;
		if (s->until_end != 0)
			return (SEL_SCAN_MATCHED);
	}
	/* Waiting for more: hold no copy of the text meanwhile. */
	spool_view_free(&s->v);
	spool_view_free(&s->cv);
	return (SEL_SCAN_DONE);

failed:
	xasprintf(&s->failed, "%s %s (line %zu)", which, cause, s->line);
	free(cause);
	return (SEL_SCAN_FAILED);
}

/* Lines (LFs) in text[a, b) that are kept (not in the gap). */
static size_t
sel_count_lines(const struct textbuf *t, size_t a, size_t b)
{
	struct spool_gap	g;
	size_t			n;

	if (b <= a)
		return (0);
	n = spool_lines_before(t, b) - spool_lines_before(t, a);
	if (spool_crossed(t, a, b, &g) && n >= g.lines)
		n -= g.lines;
	return (n);
}

/* Where the range a reply covers ends: until's line, or all scanned. */
static size_t
sel_range_end(const struct sel *s)
{
	return (s->until_end != 0 ? s->until_end : s->scan);
}

/* The cost of showing the line ln (number n): its characters as
 * sel_put_line writes them. */
static size_t
sel_line_cost(const struct textbuf *t, const struct sel_ln *ln, size_t n)
{
	size_t	cps;
	char	num[32];

	cps = sel_line_chars(t, ln);
	if (cps > SEL_LINE_CHARS)
		cps = SEL_LINE_CHARS + 32;
	return ((size_t)snprintf(num, sizeof num, "%zu:", n) + cps + 1);
}

/* The ring's k-th hit, oldest first. */
static struct sel_hit *
sel_ring_at(const struct sel *s, size_t k)
{
	return (&s->ring[(s->ring_next + s->ring_cap + 1 - s->ring_n + k) %
	    (s->ring_cap + 1)]);
}

/*
 * The last page of a filter's hits (and until's line), with their
 * context: hits are taken from the last back (tail: at most tail
 * matches) while their lines fit, each adding the lines of its group not
 * already shown; then the groups are written in order.
 */
static void
sel_show_ring(struct sel *s, const struct textbuf *t, struct buf *out,
    struct sel_shown *sh)
{
	struct sel_iv {
		size_t	 off, n;	/* its first line */
		size_t	 last;		/* its last line's number */
		bool	 gap;		/* "--" before it */
	}		*iv;
	struct sel_hit	*h;
	struct sel_ln	 ln;
	size_t		 k, i, niv = 0, low = SIZE_MAX, lines = 0, chars = 0;
	size_t		 hi_n, x, xn, off, cost, cl, raw = 0;

	if (s->ring_n == 0)
		return;
	iv = xcalloc(s->ring_n, sizeof *iv);
	/* The number of the last line of the range. */
	hi_n = s->line - 1;
	for (k = s->ring_n; k-- > 0;) {
		h = sel_ring_at(s, k);
		if (!h->until && s->tail > 0 && sh->hits == s->tail)
			break;
		xn = h->line;
		x = sel_back(t, h->off, s->context, s->start, &xn);
		iv[niv].off = x;
		iv[niv].n = xn;
		iv[niv].last = h->line + (h->until ? 0 : s->context);
		if (iv[niv].last > hi_n)
			iv[niv].last = hi_n;
		if (low != SIZE_MAX && iv[niv].last >= low)
			iv[niv].last = low - 1;
		if (iv[niv].last < xn) {	/* all shown already */
			if (!h->until)
				sh->hits++;
			continue;
		}
		/* What its lines cost. */
		cost = cl = 0;
		for (off = x, i = xn; i <= iv[niv].last && sel_line(&s->cv, t,
		    off, true, &ln); i++, off = ln.next) {
			cost += sel_line_cost(t, &ln, i);
			cl++;
		}
		if (low != SIZE_MAX && iv[niv].last + 1 < low &&
		    s->context > 0) {
			iv[niv - 1].gap = true;	/* (the later group's) */
			cost += 3;
			cl++;
		}
		if (niv > 0 && (lines + cl > s->max_lines ||
		    chars + cost > TEXTBUF_PAGE_CHARS)) {
			iv[niv - 1].gap = false;
			break;
		}
		lines += cl;
		chars += cost;
		low = xn;
		if (!h->until)
			sh->hits++;
		niv++;
	}
	/* Written in order, the oldest group first; a line is a hit's
	 * (':') when the next hit in the ring is at it. */
	k = 0;
	for (i = niv; i-- > 0;) {
		if (i + 1 < niv && iv[i].gap)
			buf_adds(out, "--\n");
		if (i == niv - 1)
			sh->first = iv[i].off;
		for (off = iv[i].off, xn = iv[i].n; xn <= iv[i].last &&
		    sel_line(&s->cv, t, off, true, &ln); xn++, off = ln.next) {
			while (k < s->ring_n && sel_ring_at(s, k)->off < off)
				k++;
			sel_put_line(out, &chars, &raw, t, &ln, xn,
			    k < s->ring_n && sel_ring_at(s, k)->off == off ?
			    ':' : '-');
		}
	}
	sh->lines = lines;
	sh->shown_raw = raw;
	free(iv);
}

/*
 * What the reply holds, into out (its text) and sh: the first page of
 * the range or its last lines, and the cursor after what it covers.
 * over: the program has ended (its final line counts).
 */
void
sel_show(struct sel *s, const struct textbuf *t, bool over, struct buf *out,
    struct sel_shown *sh)
{
	struct page	 pg;
	size_t		 n, at = out->len;

	memset(sh, 0, sizeof *sh);
	sh->first = s->start;
	if (s->filter != NULL && s->ring == NULL) {
		/* A filter's first page, as scanned. */
		buf_add(out, s->out.data, s->out.len);
		sh->cursor = s->scan;
		sh->lines = s->out_lines;
		sh->shown_raw = s->shown_raw;
	} else if (s->filter != NULL) {
		sh->cursor = sel_range_end(s);
		sel_show_ring(s, t, out, sh);
		sh->skipped = sel_count_lines(t, s->start, sh->first);
	} else if (!s->last) {
		/* The seed's page at the cursor. */
		if (spool_page(t, s->start, s->max_lines,
		    TEXTBUF_PAGE_CHARS, over, &pg, NULL) == -1 ||
		    (pg.end == pg.start && !over))
			pg.end = pg.start = s->start;
		spool_copy(t, pg.start, pg.end, out);
		sh->cursor = pg.end;
		sh->lines = pg.lines;
		sh->shown_raw = pg.chars;
	} else {
		/* The last lines of the range: until's line and the page
		 * before it, or the last tail lines (whole lines while it
		 * runs). */
		if (s->until == NULL)
			s->scan = over ? t->len : textbuf_line_start(t);
		if (s->scan < s->start)
			s->scan = s->start;
		sh->cursor = sel_range_end(s);
		n = s->tail > 0 && s->tail < s->max_lines ? s->tail :
		    s->max_lines;
		spool_tail(t, s->start, sh->cursor, n, TEXTBUF_PAGE_CHARS,
		    &pg);
		spool_copy(t, pg.start, pg.end, out);
		sh->first = pg.start;
		for (n = at; n < out->len; n++)
			sh->lines += out->data[n] == '\n';
		if (out->len > at && out->data[out->len - 1] != '\n')
			sh->lines++;
		sh->shown_raw = utf8_count(out->data + at, out->len - at);
		sh->skipped = sel_count_lines(t, s->start, pg.start);
	}
	sh->crossed = spool_crossed(t, s->start, sh->cursor, &sh->gap);
}

/* The fields a selection adds to a read's result. */
void
sel_put(struct jw *w, const struct sel *s, const struct sel_shown *sh)
{
	if (s->until != NULL) {
		jw_key(w, "matched");
		jw_bool(w, s->until_end != 0);
	}
	if (s->last) {
		jw_key(w, "skippedLines");
		jw_int(w, (int64_t)sh->skipped);
	}
	if (s->filter != NULL) {
		jw_key(w, "matchedLines");
		jw_int(w, (int64_t)s->matched);
		jw_key(w, "scannedLines");
		jw_int(w, (int64_t)s->scanned);
	}
}

/* What the selection did, in words, after the text: "[until matched the
 * last line; 199995 lines before it skipped, read_program from cursor 0
 * has them]", "[12 of 20000 lines matched (lines 1 to 20000); cursor N]",
 * "[the last 5 lines; 199996 lines before them skipped, ...]". */
void
sel_note(struct buf *b, const struct sel *s, const struct sel_shown *sh)
{
	const char	*lines = sh->skipped == 1 ? "line" : "lines";

	if (s->filter != NULL) {
		buf_printf(b, "[%zu of %zu line%s matched", s->matched,
		    s->scanned, s->scanned == 1 ? "" : "s");
		if (s->scanned > 0)
			buf_printf(b, " (lines %zu to %zu)", s->start_line,
			    s->line - 1);
		if (s->ring != NULL && sh->hits < s->matched)
			buf_printf(b, ", the last %zu shown", sh->hits);
		if (s->full)
			buf_adds(b, ", the page is full");
		buf_printf(b, "; cursor %zu]\n", sh->cursor);
	}
	if (s->until != NULL)
		buf_adds(b, s->until_end != 0 ? "[until matched the last "
		    "line" : "[until matched no line yet");
	else if (s->last && s->filter == NULL && sh->skipped > 0)
		buf_printf(b, "[the last %zu line%s", sh->lines,
		    sh->lines == 1 ? "" : "s");
	else
		return;	/* (a tail that skipped nothing is the whole text) */
	if (sh->skipped > 0)
		buf_printf(b, "; %zu %s before %s skipped, read_program from "
		    "cursor %zu has %s", sh->skipped, lines, sh->lines == 1 ?
		    "it" : "them", s->start, sh->skipped == 1 ? "it" : "them");
	buf_adds(b, "]\n");
}
