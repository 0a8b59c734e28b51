/*
 * spool_read.h — a program's text as the front reads it: from its spool's
 * files (common/spool.h), with an index and the newest bytes in memory.
 *
 * The reaper writes the text and tells the front how far it goes (a
 * "text" frame: spool_told); the front reads the new bytes from the
 * files once, into the program's window (a textbuf, textbuf.h) and its
 * index: a checkpoint of lines and characters every SPOOL_CP bytes of
 * the text kept. Memory is the window, the index (16 bytes per
 * SPOOL_CP) and, while a call reads, its view; never the text.
 *
 * The functions on a text (const struct textbuf *) work on the whole of
 * it: the window's spool when it has one, else the textbuf itself (a
 * text in memory, as the unit tests and fixtures make). A text may have
 * a gap: the middle that was not kept, between the head's end and where
 * the text goes on (spool_gap). A cursor in the gap reads from its end;
 * no page, line or tail spans it.
 */
#ifndef PROGMUX_SPOOL_READ_H
#define PROGMUX_SPOOL_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "spool.h"
#include "textbuf.h"

#define SPOOL_CP	(128u * 1024)	/* bytes between checkpoints */
#define SPOOL_CHUNK	(128u * 1024)	/* bytes read at a time */

/* What the reaper tells: the text's length, the segment it writes,
 * what was dropped. */
struct spool_news {
	uint64_t		 len;
	uint64_t		 seg;
	struct spool_drop	 drop;
};

/* The gap, as a reply says it: not kept between cursors from and to. */
struct spool_gap {
	size_t		 from, to;
	size_t		 lines, bytes, chars;
	enum spool_why	 why;
	int		 err;
};

/* A reader's view of the text: bytes copied from the spool, or pointed
 * at in memory. */
struct spool_view {
	const struct textbuf	*t;
	char			*buf;
	size_t			 cap;
	size_t			 base, len;	/* buf holds [base, len) */
};

/* The reader of stream in the spool directory name in *parentfd (the
 * runtime directory's descriptor, whichever it is when a read opens the
 * spool again), whose text goes into win (a window:
 * textbuf_init_window), with what it already holds: a reader that comes
 * later (a new front) rebuilds the text, its counts and its gap from
 * the directory alone. NULL with errno. */
struct spool	*spool_open(const int *parentfd, const char *name,
		     char stream, struct textbuf *win);
/* The text is complete: the reader holds no descriptor from now on. */
void		 spool_rest(struct spool *);
void		 spool_close(struct spool *);
/* The reaper's news: read the new text. */
void		 spool_told(struct spool *, const struct spool_news *);
/* Bytes of the text kept on disk. */
uint64_t	 spool_kept(const struct spool *);

/* For spool_text.c, the functions on a text: what was dropped (NULL:
 * all of the text is kept); LFs and characters before off (a kept
 * offset or an edge of the gap); bytes [off, off + n) of the text kept,
 * into dst, fewer if the files have fewer. */
const struct spool_drop *spool_drop_of(const struct spool *);
void		 spool_counts_at(struct spool *, size_t off, size_t *lines,
		     size_t *chars);
size_t		 spool_fetch(struct spool *, size_t off, size_t n, char *dst);

/* spool_text.c — the functions on a text, over the whole of it. */
/* The gap, if there is one (false: all of the text is kept). */
bool	 spool_gap(const struct textbuf *, struct spool_gap *);
/* Did a reply covering [from, to) cross the gap (and g say it)? */
bool	 spool_crossed(const struct textbuf *, size_t from, size_t to,
	    struct spool_gap *g);
/* off, or the gap's end when off is in the gap. */
size_t	 spool_skip(const struct textbuf *, size_t off);
/* Where the run of kept text holding off ends: the head's end, or the
 * text's (*hard: the head's, an end that does not grow). */
size_t	 spool_run_end(const struct textbuf *, size_t off, bool *hard);
/* LFs and characters before off (a kept offset or an edge of the gap). */
size_t	 spool_lines_before(const struct textbuf *, size_t off);
size_t	 spool_chars_before(const struct textbuf *, size_t off);
/* Where line n (from 1) starts: in the gap, the gap's end. */
size_t	 spool_line_off(const struct textbuf *, size_t n);
/* The first LF in [from, to) (within a run): *at, or false. */
bool	 spool_find_lf(const struct textbuf *, size_t from, size_t to,
	    size_t *at);
/* The page at cursor (textbuf_page), over the whole text. */
int	 spool_page(const struct textbuf *, size_t cursor, size_t max_lines,
	    size_t max_chars, bool ended, struct page *, char **cause);
/* The last lines of [from, end) (textbuf_tail); never before from, nor
 * across the gap. */
void	 spool_tail(const struct textbuf *, size_t from, size_t end,
	    size_t max_lines, size_t max_chars, struct page *);
/* Append the text [from, to) (within a run) to b. */
void	 spool_copy(const struct textbuf *, size_t from, size_t to,
	    struct buf *);

void	 spool_view_init(struct spool_view *, const struct textbuf *);
void	 spool_view_free(struct spool_view *);
/* The bytes [off, off + *n) contiguous, *n cut at the run's end and at
 * what the text has, and to what the view already holds if that is at
 * least min bytes; valid until the view's next use. */
const char *spool_view_get(struct spool_view *, size_t off, size_t *n,
	    size_t min);

#endif
