/*
 * buf.c — growable byte buffer (see buf.h).
 *
 * A drained head is reclaimed lazily: moving the rest down costs as many
 * bytes as are left, so it is done only when at least that many have been
 * drained since (each byte drained pays for at most one byte moved), and
 * when the buffer must grow anyway.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "buf.h"
#include <stdlib.h>

#include "xmalloc.h"

/* An empty buffer with no storage. */
void
buf_init(struct buf *b)
{
	b->data = NULL;
	b->len = b->cap = b->off = 0;
}

/* The start of the storage (data less the consumed head). */
static char *
buf_base(struct buf *b)
{
	return (b->off > 0 ? b->data - b->off : b->data);
}

/* Release the storage. */
void
buf_free(struct buf *b)
{
	free(buf_base(b));
	buf_init(b);
}

/* Move the contents to the start of the storage. */
static void
buf_compact(struct buf *b)
{
	char	*base;

	if (b->off == 0)
		return;
	base = b->data - b->off;
	if (b->len > 0)
		memmove(base, b->data, b->len);
	b->data = base;
	b->cap += b->off;
	b->off = 0;
}

/* Forget the contents, keep the storage. */
void
buf_reset(struct buf *b)
{
	b->len = 0;
	if (b->off > 0) {
		b->data -= b->off;
		b->cap += b->off;
		b->off = 0;
	}
}

/* Make room for n more bytes (plus a NUL that buf_cstr may add). */
void
buf_reserve(struct buf *b, size_t n)
{
	size_t	total, need;

	if (b->len + n + 1 <= b->cap)
		return;
	/* Reclaim the head only where that costs no more than it drained. */
	if (b->off >= b->len) {
		buf_compact(b);
		if (b->len + n + 1 <= b->cap)
			return;
	}
	total = b->off + b->cap;
	need = b->off + b->len + n + 1;
	if (total < 256)
		total = 256;
	while (total < need)
		total *= 2;
	b->data = (char *)xrealloc(buf_base(b), total) + b->off;
	b->cap = total - b->off;
}

/* Append n bytes. */
void
buf_add(struct buf *b, const void *p, size_t n)
{
	if (n == 0)
		return;
	buf_reserve(b, n);
	memcpy(b->data + b->len, p, n);
	b->len += n;
}

/* Append one byte. */
void
buf_addc(struct buf *b, char c)
{
	buf_reserve(b, 1);
	b->data[b->len++] = c;
}

/* Append a string, without its NUL. */
void
buf_adds(struct buf *b, const char *s)
{
	buf_add(b, s, strlen(s));
}

/* Append printf-formatted text. */
void
buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list	ap;
	int	n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n <= 0)
		return;
	buf_reserve(b, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

/* Drop the first n bytes; move the rest down once the head is as long. */
void
buf_drain(struct buf *b, size_t n)
{
	if (n >= b->len) {
		buf_reset(b);
		return;
	}
	b->data += n;
	b->len -= n;
	b->cap -= n;
	b->off += n;
	if (b->off >= b->len)
		buf_compact(b);
}

/* The contents as a NUL-terminated string (the NUL is not counted). */
char *
buf_cstr(struct buf *b)
{
	buf_reserve(b, 0);
	b->data[b->len] = '\0';
	return (b->data);
}
