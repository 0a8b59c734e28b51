/*
 * notify.h — a program's NOTIFY_SOCKET, the sd_notify(3) protocol: a
 * datagram socket the reaper binds in the runtime directory, whose path
 * the program gets, and on which it says READY=1 and STATUS=... lines.
 */
#ifndef PROGMUX_NOTIFY_H
#define PROGMUX_NOTIFY_H

#include <stdbool.h>
#include <stddef.h>

struct notify {
	int	 fd;		/* the socket, or -1 */
	int	 dfd;		/* the runtime directory it is in, or -1 */
	char	*name;		/* "p3.notify" */
	char	*path;		/* its path, for NOTIFY_SOCKET */
};

/* Bind the socket of program id in dir (checked to be the directory
 * dir_id names): 0, or -1 with *cause (no socket: n->fd is -1). */
int	notify_open(struct notify *, const char *dir, const char *dir_id,
	    const char *id, char **cause);
/*
 * Read the datagrams that wait (a bounded number): *ready if one said
 * READY=1, and the last STATUS= into *status (allocated, replacing what
 * was there: at most PROTO_STATUS_MAX bytes, its control characters made
 * spaces). Whether anything came that the front should hear.
 */
bool	notify_read(struct notify *, bool *ready, char **status);
/* One datagram's lines, as notify_read takes them; whether it held a
 * STATUS=. */
bool	notify_parse(const char *, size_t, bool *ready, char **status);
/* Remove the socket's name and close it. */
void	notify_close(struct notify *);

#endif
