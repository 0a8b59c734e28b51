/*
 * frame.h — msgpack frames (see proto.h for the framing and messages).
 *
 * Writing: msg_begin(&m, MSG_X, nfields), then exactly nfields msg_* field
 * calls, then msg_end(&m, &queue) appends the framed bytes to a queue.
 * Reading: frame_take() takes one whole frame off the front of a buffer,
 * frame_each() hands each one to a callback; msg_get*() read its fields.
 */
#ifndef PROGMUX_FRAME_H
#define PROGMUX_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <msgpack.h>

#include "buf.h"

struct msg_out {
	msgpack_sbuffer	sb;
	msgpack_packer	pk;
	unsigned	want;	/* fields msg_begin declared, "t" too */
	unsigned	have;	/* and written: msg_end holds them equal */
};

void	msg_begin(struct msg_out *, const char *type, unsigned nfields);
void	msg_str(struct msg_out *, const char *key, const char *);
void	msg_strn(struct msg_out *, const char *key, const char *, size_t);
void	msg_bin(struct msg_out *, const char *key, const void *, size_t);
void	msg_int(struct msg_out *, const char *key, int64_t);
void	msg_bool(struct msg_out *, const char *key, bool);
void	msg_nil(struct msg_out *, const char *key);
void	msg_strv(struct msg_out *, const char *key, char *const *, size_t);
void	msg_end(struct msg_out *, struct buf *queue);

struct msg {
	char			*raw;	/* the frame's bytes, which up points into */
	msgpack_unpacked	 up;
	const msgpack_object	*map;
	char			 type[16];
};

/* 1: a frame was taken into *m (msg_free it); 0: not all there yet;
 * -1: a bad frame (*cause allocated); the stream cannot be trusted. */
int			 frame_take(struct buf *, struct msg *, char **cause);
/* Hand each whole frame of a buffer to cb in turn (freed after it), until
 * cb returns non-zero or none is left: 0, or -1 on a bad frame (*cause
 * allocated). The reaper and the launcher read their frames so; the
 * front takes them one at a time (frame_take), as it may close a link
 * between two. */
typedef int		(*frame_cb)(void *arg, struct msg *);
int			 frame_each(struct buf *, frame_cb, void *arg,
			    char **cause);
void			 msg_free(struct msg *);
bool			 msg_is(const struct msg *, const char *type);
const msgpack_object	*msg_get(const struct msg *, const char *key);
/* Field as integer / bool; false if absent or another type. */
bool			 msg_get_int(const struct msg *, const char *key,
			    int64_t *);
bool			 msg_get_bool(const struct msg *, const char *key);
/* Field as bytes (str or bin); NULL if absent. Not NUL-terminated. */
const char		*msg_get_bytes(const struct msg *, const char *key,
			    size_t *len);
/* Field as an allocated C string; NULL if absent. */
char			*msg_dup_str(const struct msg *, const char *key);
/* Field as an allocated NULL-terminated vector of C strings. */
char			**msg_dup_strv(const struct msg *, const char *key,
			    size_t *n);
void			 strv_free(char **);

#endif
