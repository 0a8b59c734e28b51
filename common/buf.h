/*
 * buf.h — a growable byte buffer.
 *
 * Used for every queue (stdout replies, frames to and from reapers, tmux
 * commands) and for building JSON. The contents are data[0..len) and
 * there is room for cap bytes from data. Consumed data is dropped from the
 * front with buf_drain(), which only moves data forward: the off bytes
 * before data are the consumed head, and the rest is moved down only once
 * that head is at least as long as the rest, so draining a queue costs
 * time linear in its size however it is consumed. data may be handed to
 * free() only while off is 0 (never drained, or reset since).
 */
#ifndef PROGMUX_BUF_H
#define PROGMUX_BUF_H

#include <stddef.h>

struct buf {
	char	*data;
	size_t	 len;
	size_t	 cap;	/* bytes of room from data */
	size_t	 off;	/* consumed bytes before data, not yet reclaimed */
};

#define BUF_INIT { NULL, 0, 0, 0 }

void	 buf_init(struct buf *);
void	 buf_free(struct buf *);
void	 buf_reset(struct buf *);
void	 buf_reserve(struct buf *, size_t);
void	 buf_add(struct buf *, const void *, size_t);
void	 buf_addc(struct buf *, char);
void	 buf_adds(struct buf *, const char *);
void	 buf_printf(struct buf *, const char *, ...)
	    __attribute__((format(printf, 2, 3)));
void	 buf_drain(struct buf *, size_t);
char	*buf_cstr(struct buf *);

#endif
