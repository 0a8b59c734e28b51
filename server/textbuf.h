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
 *
 * A textbuf is either the whole text, in memory (base 0), or a window
 * on it: the last bytes only (window set), data[0] being the byte at
 * offset base, while len, chars, lines and line_start still count the
 * whole text. A program's text is such a window over its spool
 * (spool.h, set in spool): the pages and the tail of the newest text are
 * read from memory, the rest through spool.c. Offsets are the text's
 * everywhere; nothing before base is looked at. A view (spool.c) is a
 * textbuf made over bytes read from the spool, for the same functions.
 */
#ifndef PROGMUX_TEXTBUF_H
#define PROGMUX_TEXTBUF_H

#include <stdbool.h>
#include <stddef.h>

#include "utf8.h"

#define TEXTBUF_PAGE_CHARS	24000	/* "about 24,000 characters" */
/* Bytes that hold any page's worth of characters, and one more. */
#define TEXTBUF_PAGE_BYTES	(UTF8_MAX * (TEXTBUF_PAGE_CHARS + 1))
/* The least a window holds: a page and a line's start before it. */
#define TEXTBUF_WINDOW_MIN	(128u * 1024)

struct spool;

struct textbuf {
	char	*data;		/* the bytes held: data[0] is at base */
	size_t	 base;		/* where the bytes held begin (0: all) */
	size_t	 len;		/* where the text ends: bytes kept */
	size_t	 chars;		/* code points before len */
	size_t	 lines;		/* LFs before len */
	size_t	 line_start;	/* after the last LF before len, or 0 */
	size_t	 cap;
	size_t	 max;		/* ceiling on len */
	size_t	 window;	/* 0, or hold about this many last bytes */
	bool	 base_bol;	/* base is where a line starts */
	bool	 cut;		/* text was offered past max and not kept */
	size_t	 dropped;	/* bytes not kept because of the ceiling */
	struct spool *spool;	/* the whole text on disk, or NULL */
};

/* The byte at offset off (base <= off < len). */
#define TEXTBUF_AT(tb, off)	((tb)->data[(off) - (tb)->base])

struct page {
	size_t	 start;		/* byte offset of the first byte returned */
	size_t	 end;		/* byte offset after the last; next cursor */
	size_t	 lines;		/* lines in the page (a cut or final line counts) */
	size_t	 chars;		/* code points in the page */
};

void	textbuf_init(struct textbuf *, size_t max);
/* A window of about the last size bytes (no ceiling). */
void	textbuf_init_window(struct textbuf *, size_t size);
void	textbuf_free(struct textbuf *);
/* The text goes on at to (lines and chars before it), nothing between
 * held: what a window does over text that was not kept. */
void	textbuf_skip(struct textbuf *, size_t to, size_t lines,
	    size_t chars);
/* Hold nothing before off (base <= off <= len), which starts a line. */
void	textbuf_trim(struct textbuf *, size_t off);
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

/* Where the line still being written starts: after the last LF (0 if
 * none); after skipped text, where the text goes on. */
size_t	textbuf_line_start(const struct textbuf *);

#endif
