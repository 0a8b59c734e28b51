/*
 * randid.h — unguessable ids: random bytes from the system (getentropy),
 * written as hex digits. Tasks' ids, ask_user_secret's page tokens and
 * elicitation ids.
 */
#ifndef PROGMUX_RANDID_H
#define PROGMUX_RANDID_H

#include <stddef.h>

#define RANDID_MAX	256	/* bytes at most, as getentropy gives */

/* n random bytes (at most RANDID_MAX) as 2n hex digits and a NUL in out
 * (2n + 1 bytes). 0, or -1 (errno set) if the system gives none. */
int	randid_hex(char *out, size_t n);

#endif
