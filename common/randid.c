/*
 * randid.c — unguessable ids (randid.h).
 */
#include <errno.h>

#include "compat.h"
#include "randid.h"
#include "wipe.h"

int
randid_hex(char *out, size_t n)
{
	static const char	 hex[] = "0123456789abcdef";
	unsigned char		 rnd[RANDID_MAX];
	size_t			 i;

	if (n > sizeof rnd) {
		errno = EINVAL;
		return (-1);
	}
	if (getentropy(rnd, n) == -1)
		return (-1);
	for (i = 0; i < n; i++) {
		out[2 * i] = hex[rnd[i] >> 4];
		out[2 * i + 1] = hex[rnd[i] & 15];
	}
	out[2 * n] = '\0';
	wipe(rnd, n);		/* (a page's token is a secret) */
	return (0);
}
