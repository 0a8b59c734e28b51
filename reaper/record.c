/*
 * record.c — the output FIFO's records (proto.h): the writer frames the
 * pane's bytes, so that the reaper knows what it reads is whole and in
 * order, and can say when it is not.
 */
#include <string.h>

#include "proto.h"
#include "record.h"

/* The trailer that closes record seq of kind: a record whose bytes were
 * partly read by someone else does not end with it. */
static void
record_trailer(unsigned char *t, unsigned char seq, unsigned char kind)
{
	t[0] = PIPE_MAGIC1;
	t[1] = PIPE_MAGIC0;
	t[2] = seq;
	t[3] = kind;
}

/* Append one record to b. */
void
record_put(struct buf *b, uint8_t *seq, char kind, const void *p, size_t len)
{
	unsigned char	h[PIPE_HEADER];

	h[0] = PIPE_MAGIC0;
	h[1] = PIPE_MAGIC1;
	h[2] = (unsigned char)kind;
	h[3] = (*seq)++;
	h[4] = (unsigned char)(len >> 24);
	h[5] = (unsigned char)(len >> 16);
	h[6] = (unsigned char)(len >> 8);
	h[7] = (unsigned char)len;
	buf_add(b, h, sizeof h);
	buf_add(b, p, len);
	record_trailer(h, h[3], (unsigned char)kind);
	buf_add(b, h, PIPE_TRAILER);
}

/* Does h read as a record's header (any sequence number)? Its length. */
static bool
record_header(const unsigned char *h, size_t *len)
{
	*len = (size_t)h[4] << 24 | (size_t)h[5] << 16 | (size_t)h[6] << 8 |
	    h[7];
	if (h[0] != PIPE_MAGIC0 || h[1] != PIPE_MAGIC1)
		return (false);
	if (h[2] == PIPE_DATA)
		return (*len > 0 && *len <= PIPE_RECORD_MAX);
	if (h[2] == PIPE_HELLO)
		return (*len == 0);
	return (h[2] == PIPE_LOST && *len == 8);
}

/* A broken stream: skip to the next place a header could start. */
static enum record_kind
record_skip(struct record_scan *rs, struct buf *b, uint64_t *lost)
{
	const unsigned char	*d = (const unsigned char *)b->data;
	size_t			 i, len;

	for (i = 1; i + 1 < b->len; i++)
		if (d[i] == PIPE_MAGIC0 && d[i + 1] == PIPE_MAGIC1 &&
		    (i + PIPE_HEADER > b->len || record_header(d + i, &len)))
			break;
	if (i + 1 >= b->len)
		i = b->len > 0 && d[b->len - 1] == PIPE_MAGIC0 ? b->len - 1 :
		    b->len;
	buf_drain(b, i);
	rs->lost_sync = true;
	*lost = i;
	return (RECORD_BROKEN);
}

enum record_kind
record_take(struct record_scan *rs, struct buf *b, const char **p,
    size_t *len, uint64_t *lost)
{
	const unsigned char	*h = (const unsigned char *)b->data;
	unsigned char		 t[PIPE_TRAILER];
	size_t			 n;
	int			 i;

	*lost = 0;
	if (rs->used > 0) {
		buf_drain(b, rs->used);
		rs->used = 0;
		h = (const unsigned char *)b->data;
	}
	if (b->len < PIPE_HEADER)
		return (RECORD_NONE);
	if (!record_header(h, &n))
		return (record_skip(rs, b, lost));
	if (h[3] != rs->seq) {
		/* Whole records went to someone else: their count is not
		 * known; go on from this one. */
		rs->seq = h[3];
		rs->lost_sync = true;
		return (RECORD_BROKEN);
	}
	if (b->len < PIPE_HEADER + n + PIPE_TRAILER)
		return (RECORD_NONE);
	record_trailer(t, h[3], h[2]);
	if (memcmp(h + PIPE_HEADER + n, t, PIPE_TRAILER) != 0)
		return (record_skip(rs, b, lost));
	rs->seq++;
	if (h[2] == PIPE_HELLO) {
		buf_drain(b, PIPE_HEADER + PIPE_TRAILER);
		return (RECORD_HELLO);
	}
	if (h[2] == PIPE_LOST) {
		for (i = 0; i < 8; i++)
			*lost = *lost << 8 | h[PIPE_HEADER + i];
		buf_drain(b, PIPE_HEADER + n + PIPE_TRAILER);
		return (RECORD_LOST);
	}
	*p = b->data + PIPE_HEADER;
	*len = n;
	rs->used = PIPE_HEADER + n + PIPE_TRAILER; /* drained next call */
	return (RECORD_DATA);
}
