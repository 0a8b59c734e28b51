/*
 * buf.c — growable byte buffer (see buf.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "buf.h"
#include <stdlib.h>

#include "xmalloc.h"

void
buf_init(struct buf *b)
{
	b->data = NULL;
	b->len = b->cap = 0;
}

void
buf_free(struct buf *b)
{
	free(b->data);
	buf_init(b);
}

/* Forget the contents, keep the storage. */
void
buf_reset(struct buf *b)
{
	b->len = 0;
}

/* Make room for n more bytes (plus a NUL that buf_cstr may add). */
void
buf_reserve(struct buf *b, size_t n)
{
	size_t	cap;

	if (b->len + n + 1 <= b->cap)
		return;
	cap = b->cap < 256 ? 256 : b->cap;
	while (cap < b->len + n + 1)
		cap *= 2;
	b->data = xrealloc(b->data, cap);
	b->cap = cap;
}

void
buf_add(struct buf *b, const void *p, size_t n)
{
	if (n == 0)
		return;
	buf_reserve(b, n);
	memcpy(b->data + b->len, p, n);
	b->len += n;
}

void
buf_addc(struct buf *b, char c)
{
	buf_reserve(b, 1);
	b->data[b->len++] = c;
}

void
buf_adds(struct buf *b, const char *s)
{
	buf_add(b, s, strlen(s));
}

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

/* Drop the first n bytes. */
void
buf_drain(struct buf *b, size_t n)
{
	if (n >= b->len) {
		b->len = 0;
		return;
	}
	memmove(b->data, b->data + n, b->len - n);
	b->len -= n;
}

/* The contents as a NUL-terminated string (the NUL is not counted). */
char *
buf_cstr(struct buf *b)
{
	buf_reserve(b, 0);
	b->data[b->len] = '\0';
	return (b->data);
}
