/*
 * wipe.h — clearing memory that held a secret, in a way the compiler may
 * not drop as a dead store (memset before free is one). explicit_bzero
 * is not everywhere (macOS lacks it), so the stores go through a
 * volatile pointer. wipe_buf clears a whole buffer's allocation, the
 * consumed head and the spare room included, then frees it.
 */
#ifndef PROGMUX_WIPE_H
#define PROGMUX_WIPE_H

#include <stddef.h>

#include "buf.h"

void	wipe(void *, size_t);
void	wipe_buf(struct buf *);

#endif
