/*
 * spool_write.h — the reaper's side of a stream of a program's spool
 * (common/spool.h): its text appended to segment files as it is
 * stripped, the ceiling kept by removing the oldest segments after the
 * head, and a full file system met the same way.
 *
 * The text offered is counted whole (bytes, lines, characters), kept or
 * not; what is kept is the head and the most recent text. Memory is a
 * few segments' particulars, whatever the text.
 */
#ifndef PROGMUX_SPOOL_WRITE_H
#define PROGMUX_SPOOL_WRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "spool.h"

struct spool_w_seg {
	uint64_t	 start;		/* its first byte's offset */
	uint64_t	 lines, chars;	/* LFs and characters before it */
	uint64_t	 cs;		/* its first character's start, or 0 */
	uint64_t	 lf;		/* after its first LF, or 0 */
	uint64_t	 lf_chars;	/* characters before lf */
};

struct spool_w {
	int			 dfd;		/* the spool's directory */
	char			 stream;	/* SPOOL_OUT or SPOOL_ERR */
	uint64_t		 max;		/* bytes kept at most */
	uint64_t		 seg;		/* bytes a segment holds */
	uint64_t		 len;		/* bytes offered */
	uint64_t		 lines, chars;	/* LFs, characters offered */
	struct spool_w_seg	*segs;		/* the files, oldest first */
	size_t			 nsegs, segs_cap;
	int			 fd;		/* the last segment's, or -1 */
	struct spool_drop	 drop;
	uint64_t		 head_lines;	/* LFs before drop.from */
	uint64_t		 head_chars;
	bool			 changed;	/* drop changed since told */
	bool			 stopped;
};

/* A stream of the spool directory dfd (not taken) kept to max bytes. */
void	spool_w_init(struct spool_w *, int dfd, char stream, uint64_t max);
/* Append text; what cannot be kept is counted and dropped, never
 * waited for. */
void	spool_w_write(struct spool_w *, const char *, size_t);
/* Some of the text never came (the pane's bytes were lost before us):
 * what was kept after the head goes with the hole, and the text goes on
 * after it, so the end is kept. */
void	spool_w_hole(struct spool_w *);
/* Write nothing more (the program is forgotten); close the file. */
void	spool_w_stop(struct spool_w *);
void	spool_w_free(struct spool_w *);
/* Bytes kept now. */
uint64_t spool_w_kept(const struct spool_w *);
/* The start of the segment being written (0 before any). */
uint64_t spool_w_seg_start(const struct spool_w *);

#endif
