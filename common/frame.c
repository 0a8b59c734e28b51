/*
 * frame.c — msgpack frames between front, reaper and launcher (frame.h).
 */
#include <stdlib.h>
#include <string.h>

#include "frame.h"
#include "log.h"
#include "proto.h"
#include "xmalloc.h"

static void
msg_key(struct msg_out *m, const char *key)
{
	size_t	len = strlen(key);

	m->have++;
	msgpack_pack_str(&m->pk, len);
	msgpack_pack_str_body(&m->pk, key, len);
}

void
msg_begin(struct msg_out *m, const char *type, unsigned nfields)
{
	msgpack_sbuffer_init(&m->sb);
	msgpack_packer_init(&m->pk, &m->sb, msgpack_sbuffer_write);
	msgpack_pack_map(&m->pk, nfields + 1);
	m->want = nfields + 1;
	m->have = 0;
	msg_str(m, "t", type);
}

void
msg_str(struct msg_out *m, const char *key, const char *s)
{
	if (s == NULL) {
		msg_nil(m, key);
		return;
	}
	msg_strn(m, key, s, strlen(s));
}

void
msg_strn(struct msg_out *m, const char *key, const char *s, size_t len)
{
	msg_key(m, key);
	msgpack_pack_str(&m->pk, len);
	msgpack_pack_str_body(&m->pk, s, len);
}

void
msg_bin(struct msg_out *m, const char *key, const void *p, size_t len)
{
	msg_key(m, key);
	msgpack_pack_bin(&m->pk, len);
	msgpack_pack_bin_body(&m->pk, p, len);
}

void
msg_int(struct msg_out *m, const char *key, int64_t v)
{
	msg_key(m, key);
	msgpack_pack_int64(&m->pk, v);
}

void
msg_bool(struct msg_out *m, const char *key, bool v)
{
	msg_key(m, key);
	if (v)
		msgpack_pack_true(&m->pk);
	else
		msgpack_pack_false(&m->pk);
}

void
msg_nil(struct msg_out *m, const char *key)
{
	msg_key(m, key);
	msgpack_pack_nil(&m->pk);
}

void
msg_strv(struct msg_out *m, const char *key, char *const *v, size_t n)
{
	size_t	i, len;

	msg_key(m, key);
	msgpack_pack_array(&m->pk, n);
	for (i = 0; i < n; i++) {
		len = strlen(v[i]);
		msgpack_pack_str(&m->pk, len);
		msgpack_pack_str_body(&m->pk, v[i], len);
	}
}

/* Frame the message onto a queue and release it. */
void
msg_end(struct msg_out *m, struct buf *queue)
{
	unsigned char	hdr[4];
	uint32_t	len = (uint32_t)m->sb.size;

	/* A map whose count is not its fields' is not msgpack the peer can
	 * read: a frame written wrong, which no input can cause. */
	if (m->have != m->want)
		fatalx("msg_end: a frame declared %u fields and wrote %u",
		    m->want - 1, m->have - 1);
	hdr[0] = len >> 24;
	hdr[1] = len >> 16;
	hdr[2] = len >> 8;
	hdr[3] = len;
	buf_add(queue, hdr, 4);
	buf_add(queue, m->sb.data, m->sb.size);
	msgpack_sbuffer_destroy(&m->sb);
}

int
frame_take(struct buf *in, struct msg *m, char **cause)
{
	const unsigned char	*p = (const unsigned char *)in->data;
	uint32_t		 len;
	size_t			 off = 0;
	msgpack_unpack_return	 ret;
	const msgpack_object	*t;
	size_t			 n;

	if (in->len < 4)
		return (0);
	len = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	    (uint32_t)p[2] << 8 | p[3];
	if (len == 0 || len > PROTO_FRAME_MAX) {
		xasprintf(cause, "frame of %u bytes is out of bounds", len);
		return (-1);
	}
	if (in->len < 4 + (size_t)len)
		return (0);
	/* The unpacked objects point into the bytes: keep them apart. */
	m->raw = xmemdup(in->data + 4, len);
	buf_drain(in, 4 + (size_t)len);
	msgpack_unpacked_init(&m->up);
	ret = msgpack_unpack_next(&m->up, m->raw, len, &off);
	if (ret != MSGPACK_UNPACK_SUCCESS || off != len ||
	    m->up.data.type != MSGPACK_OBJECT_MAP) {
		msg_free(m);
		xasprintf(cause, "frame is not one msgpack map");
		return (-1);
	}
	m->map = &m->up.data;
	t = msg_get(m, "t");
	if (t == NULL || t->type != MSGPACK_OBJECT_STR ||
	    (n = t->via.str.size) >= sizeof m->type) {
		msg_free(m);
		xasprintf(cause, "frame has no message type");
		return (-1);
	}
	memcpy(m->type, t->via.str.ptr, n);
	m->type[n] = '\0';
	return (1);
}

int
frame_each(struct buf *in, frame_cb cb, void *arg, char **cause)
{
	struct msg	m;
	int		ret, stop;

	while ((ret = frame_take(in, &m, cause)) == 1) {
		stop = cb(arg, &m);
		msg_free(&m);
		if (stop)
			return (0);
	}
	return (ret);
}

void
msg_free(struct msg *m)
{
	msgpack_unpacked_destroy(&m->up);
	free(m->raw);
	m->raw = NULL;
}

bool
msg_is(const struct msg *m, const char *type)
{
	return (strcmp(m->type, type) == 0);
}

const msgpack_object *
msg_get(const struct msg *m, const char *key)
{
	const msgpack_object_map	*map = &m->map->via.map;
	size_t				 len = strlen(key);
	uint32_t			 i;

	for (i = 0; i < map->size; i++) {
		const msgpack_object *k = &map->ptr[i].key;

		if (k->type == MSGPACK_OBJECT_STR && k->via.str.size == len &&
		    memcmp(k->via.str.ptr, key, len) == 0)
			return (&map->ptr[i].val);
	}
	return (NULL);
}

bool
msg_get_int(const struct msg *m, const char *key, int64_t *v)
{
	const msgpack_object	*o = msg_get(m, key);

	if (o == NULL)
		return (false);
	if (o->type == MSGPACK_OBJECT_POSITIVE_INTEGER) {
		if (o->via.u64 > INT64_MAX)
			return (false);
		*v = (int64_t)o->via.u64;
		return (true);
	}
	if (o->type == MSGPACK_OBJECT_NEGATIVE_INTEGER) {
		*v = o->via.i64;
		return (true);
	}
	return (false);
}

bool
msg_get_bool(const struct msg *m, const char *key)
{
	const msgpack_object	*o = msg_get(m, key);

	return (o != NULL && o->type == MSGPACK_OBJECT_BOOLEAN &&
	    o->via.boolean);
}

static const char *
obj_bytes(const msgpack_object *o, size_t *len)
{
	if (o == NULL)
		return (NULL);
	if (o->type == MSGPACK_OBJECT_STR) {
		*len = o->via.str.size;
		return (o->via.str.ptr);
	}
	if (o->type == MSGPACK_OBJECT_BIN) {
		*len = o->via.bin.size;
		return (o->via.bin.ptr);
	}
	return (NULL);
}

const char *
msg_get_bytes(const struct msg *m, const char *key, size_t *len)
{
	return (obj_bytes(msg_get(m, key), len));
}

char *
msg_dup_str(const struct msg *m, const char *key)
{
	const char	*p;
	size_t		 len;

	if ((p = msg_get_bytes(m, key, &len)) == NULL)
		return (NULL);
	return (xstrndup(p, len));
}

char **
msg_dup_strv(const struct msg *m, const char *key, size_t *n)
{
	const msgpack_object	*o = msg_get(m, key);
	char			**v;
	const char		*p;
	size_t			 len;
	uint32_t		 i;

	if (o == NULL || o->type != MSGPACK_OBJECT_ARRAY)
		return (NULL);
	v = xcalloc(o->via.array.size + 1, sizeof *v);
	for (i = 0; i < o->via.array.size; i++) {
		if ((p = obj_bytes(&o->via.array.ptr[i], &len)) == NULL) {
			strv_free(v);
			return (NULL);
		}
		v[i] = xstrndup(p, len);
	}
	if (n != NULL)
		*n = o->via.array.size;
	return (v);
}

void
strv_free(char **v)
{
	char	**p;

	if (v == NULL)
		return;
	for (p = v; *p != NULL; p++)
		free(*p);
	free(v);
}
