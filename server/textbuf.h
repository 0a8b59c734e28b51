/*
 * textbuf.h — a program's text, and the pages an agent reads it in.
 *
 * The text is what strip.c produced: valid UTF-8, lines ending in LF. It is
 * kept up to a ceiling (bytes); past it, later text is not kept and `cut`
 * is set (the cut falls on a code-point boundary).
 *
 * Cursors are byte offsets into the text (UTF-8 bytes from the start of
 * the program's output). They are stable: text is only ever appended.
 *
 * A page starting at a cursor holds whole lines only: at most max_chars
 * characters (code points) and at most max_lines lines, ending on a LF.
 * Exceptions: a single line longer than max_chars is cut at a code-point
 * boundary after max_chars characters (even before its LF has arrived);
 * and once the stream has ended, the final unterminated line is returned.
 * A cursor inside a multi-byte character is moved forward to the next
 * character; a cursor past the end is an error.
 */
#ifndef PROGMUX_TEXTBUF_H
#define PROGMUX_TEXTBUF_H

#include <stdbool.h>
#include <stddef.h>

#include "utf8.h"

#define TEXTBUF_PAGE_CHARS	24000	/* "about 24,000 characters" */

struct textbuf {
	char	*data;
	size_t	 len;		/* bytes kept */
	size_t	 chars;		/* code points kept: utf8_count(data, len) */
	size_t	 cap;
	size_t	 max;		/* ceiling on len */
	bool	 cut;		/* text was offered past max and not kept */
	size_t	 dropped;	/* bytes not kept because of the ceiling */
};

struct page {
	size_t	 start;		/* byte offset of the first byte returned */
	size_t	 end;		/* byte offset after the last; next cursor */
	size_t	 lines;		/* lines in the page (a cut or final line counts) */
	size_t	 chars;		/* code points in the page */
};

void	textbuf_init(struct textbuf *, size_t max);
void	textbuf_free(struct textbuf *);
/* Append text; keeps what fits under the ceiling (on a code-point
 * boundary), sets cut and counts the rest as dropped. */
void	textbuf_append(struct textbuf *, const char *, size_t);

/*
 * The page at cursor. ended says the stream is over (so a final line
 * without LF is whole). Returns 0 and fills *pg (pg->start == pg->end when
 * nothing complete is there yet), or -1 with *cause allocated when cursor
 * is past the end.
 */
int	textbuf_page(const struct textbuf *, size_t cursor, size_t max_lines,
	    size_t max_chars, bool ended, struct page *pg, char **cause);

/*
 * The last page of the text: the longest run of whole lines at the end that
 * fits max_lines and max_chars (for a one-shot run, where the end of a build
 * log matters most). A final line longer than max_chars gives its last
 * max_chars characters. pg->start is how many bytes came before.
 */
void	textbuf_tail(const struct textbuf *, size_t max_lines, size_t max_chars,
	    struct page *pg);

/*
 * The line still being written: [*start, *end) is the text after the last
 * LF (but not before from), up to the last whole character, at most its
 * last max_chars characters. Empty (start == end) when the text ends on
 * a LF.
 */
void	textbuf_unfinished(const struct textbuf *, size_t from,
	    size_t max_chars, size_t *start, size_t *end);

/* Where the line still being written starts: after the last LF. */
size_t	textbuf_line_start(const struct textbuf *);

#endif
