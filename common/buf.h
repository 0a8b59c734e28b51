/*
 * buf.h — a growable byte buffer.
 *
 * Used for every queue (stdout replies, frames to and from reapers, tmux
 * commands) and for building JSON. Consumed data is dropped from the front
 * with buf_drain(); the storage is reused.
 */
#ifndef PROGMUX_BUF_H
#define PROGMUX_BUF_H

#include <stddef.h>

struct buf {
	char	*data;
	size_t	 len;
	size_t	 cap;
};

#define BUF_INIT { NULL, 0, 0 }

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
