/*
 * record.h — the output FIFO's records (proto.h), written by the pane's
 * writer (pipe.c) and read back by the reaper.
 */
#ifndef PROGMUX_RECORD_H
#define PROGMUX_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"

/* Append a record of kind with payload p to b; seq is the writer's
 * count, advanced. */
void	record_put(struct buf *b, uint8_t *seq, char kind, const void *p,
	    size_t len);

/* The reader's side: where it is in the sequence. */
struct record_scan {
	uint8_t	 seq;		/* the next record's */
	bool	 lost_sync;	/* a header out of order was seen */
	size_t	 used;		/* the last record's bytes, to drain */
};

/* What record_take found. */
enum record_kind {
	RECORD_NONE,		/* not a whole record yet: read more */
	RECORD_DATA,		/* *p, *len: pane bytes */
	RECORD_LOST,		/* *lost: bytes the writer dropped */
	RECORD_HELLO,		/* the writer's first record */
	RECORD_BROKEN		/* *lost bytes skipped to the next record */
};

/*
 * Take the next record from the front of b (drained as it goes). A
 * broken stream (someone else read part of it) is skipped up to the next
 * header that reads as one, and said as RECORD_BROKEN. *p points into b
 * and is good until the next call; b must not be added to meanwhile.
 */
enum record_kind record_take(struct record_scan *, struct buf *b,
	    const char **p, size_t *len, uint64_t *lost);

#endif
