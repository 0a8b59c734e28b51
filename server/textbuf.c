/*
 * textbuf.c — a program's text and the pages it is read in (see textbuf.h).
 *
 * The text only grows, so a cursor (a byte offset) names the same place
 * for ever. Storage grows geometrically up to the ceiling and never beyond
 * it, so memory follows the text kept.
 *
 * Counting: a character is a code point, LF included, so a page's chars is
 * utf8_count() of its bytes. A line is its characters up to and including
 * its LF. A line longer than max_chars is cut after max_chars characters;
 * a line whose LF has not arrived is cut as soon as it holds max_chars
 * characters, since it can only grow past max_chars, so a page read early
 * is the same as one read later. The rest of a cut line (perhaps only its
 * LF) starts the next page: pages laid end to end give the text exactly.
 *
 * Once the ceiling has cut the text, nothing later is kept, not even a
 * character that would still fit: the text kept is a prefix of the text
 * offered.
 *
 * Appends may split a character (a caller passes what arrived): until its
 * last byte comes, a character is not paged (unless the stream has ended),
 * and the ceiling never keeps the start of one it cannot keep whole.
 *
 * A window has no ceiling: past twice its size it lets go of its oldest
 * bytes, keeping its size from the start of a line where one is near (so
 * the last page always fits in it: TEXTBUF_WINDOW_MIN), else from a
 * character's. What it let go of is counted as before; only the bytes
 * are gone, and nothing here looks before base.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "compat.h"
#include "textbuf.h"
#include "xmalloc.h"

#define TEXTBUF_MIN_CAP	4096

/* An empty text with a ceiling of max bytes. */
void
textbuf_init(struct textbuf *tb, size_t max)
{
	memset(tb, 0, sizeof *tb);
	tb->max = max;
	tb->base_bol = true;
}

/* An empty window over a text kept elsewhere. */
void
textbuf_init_window(struct textbuf *tb, size_t size)
{
	textbuf_init(tb, SIZE_MAX);
	tb->window = size < TEXTBUF_WINDOW_MIN ? TEXTBUF_WINDOW_MIN : size;
}

/* Free the storage; the textbuf is empty again, same ceiling. */
void
textbuf_free(struct textbuf *tb)
{
	size_t	window = tb->window;

	free(tb->data);
	textbuf_init(tb, tb->max);
	tb->window = window;
}

/* Bytes held. */
static size_t
textbuf_held(const struct textbuf *tb)
{
	return (tb->len - tb->base);
}

/* Hold nothing before off, a line's start. */
void
textbuf_trim(struct textbuf *tb, size_t off)
{
	if (off <= tb->base || off > tb->len)
		return;
	memmove(tb->data, tb->data + (off - tb->base), tb->len - off);
	tb->base = off;
	tb->base_bol = true;
}

/* The text goes on at to: nothing before it is held. */
void
textbuf_skip(struct textbuf *tb, size_t to, size_t lines, size_t chars)
{
	if (to < tb->len)
		return;
	tb->base = tb->len = tb->line_start = to;
	tb->lines = lines;
	tb->chars = chars;
	tb->base_bol = true;
}

/* A window past twice its size: hold its size, from a line's start
 * within half of it if there is one, else from a character's. */
static void
textbuf_slide(struct textbuf *tb)
{
	const char	*lf;
	size_t		 nb;

	if (tb->window == 0 || textbuf_held(tb) <= 2 * tb->window)
		return;
	nb = tb->len - tb->window;
	lf = memchr(tb->data + (nb - tb->base), '\n', tb->window / 2);
	if (lf != NULL)
		textbuf_trim(tb, (size_t)(lf - tb->data) + tb->base + 1);
	else {
		while (nb < tb->len && utf8_is_cont(TEXTBUF_AT(tb, nb)))
			nb++;
		textbuf_trim(tb, nb);
		tb->base_bol = false;
	}
}

/* Make room for need bytes held (need <= max): double, capped at max. */
static void
textbuf_grow(struct textbuf *tb, size_t need)
{
	size_t	cap;

	if (need <= tb->cap)
		return;
	cap = tb->cap < TEXTBUF_MIN_CAP ? TEXTBUF_MIN_CAP : tb->cap;
	while (cap < need && cap <= SIZE_MAX / 2)
		cap *= 2;
	if (cap < need)
		cap = need;
	if (cap > tb->max)
		cap = tb->max;
	/* A window holds at most twice its size and an append of its size
	 * (what its spool reads at a time) before it slides. */
	if (tb->window > 0 && cap > 3 * tb->window && need <= 3 * tb->window)
		cap = 3 * tb->window;
	tb->data = xrealloc(tb->data, cap);
	tb->cap = cap;
}

/*
 * The ceiling fell inside a character that began in an earlier append
 * (callers may split text anywhere): drop the start of that character too,
 * so the text kept still ends on a character boundary.
 */
static void
textbuf_unsplit(struct textbuf *tb)
{
	size_t	i = tb->len;

	while (i > tb->base && utf8_is_cont(TEXTBUF_AT(tb, i - 1)))
		i--;
	if (i == tb->base || utf8_seq_len(TEXTBUF_AT(tb, i - 1)) == 1)
		return;		/* stray continuation bytes: nothing began */
	tb->dropped += tb->len - (i - 1);
	tb->len = i - 1;
	tb->chars--;		/* the lead byte counted one; the rest none */
}

/*
 * Where the complete characters end: len, less the start of a character
 * whose last bytes have not been appended yet.
 */
static size_t
textbuf_whole(const struct textbuf *tb)
{
	size_t	i;

	if (tb->len == tb->base)
		return (tb->len);
	i = utf8_char_start(tb->data, textbuf_held(tb) - 1);
	return (i + utf8_seq_len(tb->data[i]) > textbuf_held(tb) ?
	    tb->base + i : tb->len);
}

/* Keep what fits under the ceiling, on a character boundary. */
void
textbuf_append(struct textbuf *tb, const char *s, size_t n)
{
	const char	*lf;
	size_t		 keep, i;

	if (n == 0)
		return;
	if (tb->cut && tb->window == 0) {	/* (a window's is its spool's) */
		tb->dropped += n;
		return;
	}
	keep = n;
	if (n > tb->max - tb->len) {
		/* Back off to the start of the character that does not fit. */
		keep = tb->max - tb->len;
		while (keep > 0 && utf8_is_cont(s[keep]))
			keep--;
		tb->cut = true;
		tb->dropped += n - keep;
		if (keep == 0 && utf8_is_cont(s[0]))
			textbuf_unsplit(tb);
	}
	if (keep == 0)
		return;
	textbuf_grow(tb, textbuf_held(tb) + keep);
	memcpy(tb->data + textbuf_held(tb), s, keep);
	for (i = 0; i < keep &&
	    (lf = memchr(s + i, '\n', keep - i)) != NULL; tb->lines++) {
		i = (size_t)(lf - s) + 1;
		tb->line_start = tb->len + i;
	}
	tb->len += keep;
	tb->chars += utf8_count(s, keep);
	textbuf_slide(tb);
}

/*
 * Scan the line at pos, up to end, counting characters, but give up once
 * more than budget are seen. Returns the offset after its LF (*lf set), or
 * where the text ends or the budget ran out (*lf clear); *chars is what was
 * counted.
 */
static size_t
textbuf_scan(const struct textbuf *tb, size_t pos, size_t end, size_t budget,
    size_t *chars, bool *lf)
{
	size_t		 n = 0;

	*lf = false;
	for (; pos < end; pos++) {
		if (!utf8_is_cont(TEXTBUF_AT(tb, pos)) && ++n > budget) {
			n--;
			break;
		}
		if (TEXTBUF_AT(tb, pos) == '\n') {
			*lf = true;
			pos++;
			break;
		}
	}
	*chars = n;
	return (pos);
}

/* The page at cursor: whole lines within max_lines and max_chars. */
int
textbuf_page(const struct textbuf *tb, size_t cursor, size_t max_lines,
    size_t max_chars, bool ended, struct page *pg, char **cause)
{
	size_t	pos, end, next, chars, lines = 0, total = 0;
	bool	lf;

	if (cursor > tb->len) {
		xasprintf(cause, "cursor %zu is past the end of the text (%zu "
		    "bytes); pass the cursor the last read_program returned",
		    cursor, tb->len);
		return (-1);
	}
	if (cursor < tb->base)
		cursor = tb->base;	/* (a window holds nothing before) */
	while (cursor < tb->len && utf8_is_cont(TEXTBUF_AT(tb, cursor)))
		cursor++;

	/* A character still arriving is not there yet. */
	end = ended ? tb->len : textbuf_whole(tb);
	pos = cursor;
	while (lines < max_lines && pos < end) {
		next = textbuf_scan(tb, pos, end, max_chars - total, &chars,
		    &lf);
		if (lf || (ended && next == end)) {
			/* A whole line (or the final one) that fits. */
			pos = next;
			total += chars;
			lines++;
			continue;
		}
		/*
		 * It does not fit, or has not ended: cut it only if it alone
		 * fills a page (it can only grow), else leave it for later.
		 */
		if (lines == 0 && total + chars == max_chars && chars > 0) {
			pos = next;
			total += chars;
			lines++;
		}
		break;
	}
	pg->start = cursor;
	pg->end = pos;
	pg->lines = lines;
	pg->chars = total;
	return (0);
}

/*
 * The last whole lines that fit, or the end of a long last line. A line
 * is whole from base only if base starts one (base_bol); a window is
 * large enough (TEXTBUF_WINDOW_MIN) that the budget ends before that.
 */
void
textbuf_tail(const struct textbuf *tb, size_t max_lines, size_t max_chars,
    struct page *pg)
{
	size_t	pos, i, chars, lines = 0, total = 0;
	bool	whole;

	pos = tb->len > tb->base ? tb->len : tb->base;
	pg->end = pos;
	while (lines < max_lines && pos > tb->base && total < max_chars) {
		/* Count the line ending at pos backwards, within the budget. */
		i = pos;
		chars = 0;
		whole = false;
		for (;;) {
			if (i == tb->base) {
				whole = tb->base_bol;
				break;
			}
			if (i < pos && TEXTBUF_AT(tb, i - 1) == '\n') {
				whole = true;
				break;
			}
			if (!utf8_is_cont(TEXTBUF_AT(tb, i - 1))) {
				if (chars == max_chars - total)
					break;
				chars++;
			}
			i--;
		}
		if (!whole) {
			/* Only a last line alone may be cut: keep its end. */
			if (lines == 0) {
				while (i < pos && utf8_is_cont(TEXTBUF_AT(tb, i)))
					i++;
				pos = i;
				total = chars;
				lines = 1;
			}
			break;
		}
		pos = i;
		total += chars;
		lines++;
	}
	pg->start = pos;
	pg->lines = lines;
	pg->chars = total;
}

/* After the last LF in the text, or 0 (counted as it came). */
size_t
textbuf_line_start(const struct textbuf *tb)
{
	return (tb->line_start);
}

/* The unfinished last line after from, whole characters, at most
 * max_chars of its last ones. */
void
textbuf_unfinished(const struct textbuf *tb, size_t from, size_t max_chars,
    size_t *start, size_t *end)
{
	const char	*lf;
	size_t		 s, e, n;

	e = textbuf_whole(tb);
	s = from < e ? from : e;
	if (s < tb->base)
		s = tb->base;	/* (its start: not held, and cut below) */
	if (e > s && (lf = compat_memrchr(tb->data + (s - tb->base), '\n',
	    e - s)) != NULL)
		s = (size_t)(lf - tb->data) + tb->base + 1;
	/* Keep the last max_chars characters. */
	for (n = 0, *end = e; e > s; e--) {
		if (!utf8_is_cont(TEXTBUF_AT(tb, e - 1)) && ++n > max_chars)
			break;
	}
	if (e > s)
		while (e < *end && utf8_is_cont(TEXTBUF_AT(tb, e)))
			e++;
	*start = e > s ? e : s;
}
