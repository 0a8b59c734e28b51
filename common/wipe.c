/*
 * wipe.c — clearing secrets from memory (wipe.h).
 */
#include <stdlib.h>

#include "buf.h"
#include "wipe.h"

void
wipe(void *p, size_t len)
{
	volatile unsigned char	*v = p;

	while (len-- > 0)
		*v++ = 0;
}

/* Clear all b ever held in its present allocation and free it: data
 * back to the allocation's start (off), and its room (cap). */
void
wipe_buf(struct buf *b)
{
	if (b->data != NULL)
		wipe(b->data - b->off, b->off + b->cap);
	buf_free(b);
}
