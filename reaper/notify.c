/*
 * notify.c — a program's NOTIFY_SOCKET (notify.h), the way systemd gives
 * a service one: a datagram socket of the reaper's in the private 0700
 * runtime directory, bound through the directory the reaper checked
 * (never a path that could have been swapped), named after the program
 * (p3.notify) and removed when the reaper goes. Only READY=1 and STATUS=
 * are read; other assignments (MAINPID=, RELOADING=1, ...) are left.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "compat.h"
#include "fdutil.h"
#include "notify.h"
#include "proto.h"
#include "rundir.h"
#include "utf8.h"
#include "xmalloc.h"

#define NOTIFY_DGRAM_MAX	4096	/* bytes of a datagram read */
#define NOTIFY_ROUNDS		16	/* datagrams read per wakeup */

/* Bind the program's socket in its runtime directory (notify.h). */
int
notify_open(struct notify *n, const char *dir, const char *dir_id,
    const char *id, char **cause)
{
	struct sockaddr_un	sa;

	n->fd = n->dfd = -1;
	n->name = n->path = NULL;
	if (dir == NULL || dir_id == NULL) {
		xasprintf(cause, "no runtime directory was given");
		return (-1);
	}
	xasprintf(&n->name, "%s%s", id, PROTO_NOTIFY_SUFFIX);
	xasprintf(&n->path, "%s/%s", dir, n->name);
	if (strlen(n->path) >= sizeof sa.sun_path) {
		xasprintf(cause, "its path %s is longer than a socket's "
		    "address takes (%zu bytes)", n->path, sizeof sa.sun_path);
		goto fail;
	}
	if ((n->dfd = rundir_open_checked(dir, dir_id, cause)) == -1)
		goto fail;
	n->fd = compat_socket(AF_UNIX, SOCK_DGRAM, 0, O_CLOEXEC | O_NONBLOCK);
	if (n->fd == -1) {
		xasprintf(cause, "socket: %s", fd_strerror(errno));
		goto fail;
	}
	(void)unlinkat(n->dfd, n->name, 0);	/* an older one's, if any */
	if (fd_bind_in(n->fd, n->dfd, n->name) == -1) {
		xasprintf(cause, "bind %s: %s", n->path, strerror(errno));
		goto fail;
	}
	return (0);
fail:
	if (n->fd != -1)
		close(n->fd);
	if (n->dfd != -1)
		close(n->dfd);
	n->fd = n->dfd = -1;
	free(n->name);
	free(n->path);
	n->name = n->path = NULL;
	return (-1);
}

/* One datagram's READY=1 and STATUS= lines. */
bool
notify_parse(const char *p, size_t len, bool *ready, char **status)
{
	bool		 took = false;
	const char	*end = p + len, *lf, *v;
	char		*s;
	size_t		 n, i;

	for (; p < end; p = lf + 1) {
		if ((lf = memchr(p, '\n', (size_t)(end - p))) == NULL)
			lf = end;
		n = (size_t)(lf - p);
		if (n == 7 && memcmp(p, "READY=1", 7) == 0)
			*ready = true;
		else if (n >= 7 && memcmp(p, "STATUS=", 7) == 0) {
			v = p + 7;
			n -= 7;
			if (n > PROTO_STATUS_MAX)
				n = utf8_char_start(v, PROTO_STATUS_MAX);
			s = xmalloc(n + 1);
			for (i = 0; i < n; i++)
				s[i] = (unsigned char)v[i] < 0x20 ||
				    v[i] == 0x7f ? ' ' : v[i];
			s[n] = '\0';
			free(*status);
			*status = s;
			took = true;
		}
	}
	return (took);
}

/* Read what waits on the socket, NOTIFY_ROUNDS datagrams at most. */
bool
notify_read(struct notify *n, bool *ready, char **status)
{
	char		buf[NOTIFY_DGRAM_MAX];
	ssize_t		got;
	bool		any = false;
	int		rounds;

	*ready = false;
	for (rounds = 0; n->fd != -1 && rounds < NOTIFY_ROUNDS; rounds++) {
		got = recv(n->fd, buf, sizeof buf, 0);
		if (got == -1 && errno == EINTR)
			continue;
		if (got == -1)
			break;		/* EAGAIN: nothing more now */
		if (notify_parse(buf, (size_t)got, ready, status))
			any = true;
	}
	return (any || *ready);
}

/* Remove the socket's name and close it. */
void
notify_close(struct notify *n)
{
	if (n->dfd != -1) {
		(void)unlinkat(n->dfd, n->name, 0);
		close(n->dfd);
	}
	if (n->fd != -1)
		close(n->fd);
	n->fd = n->dfd = -1;
	free(n->name);
	free(n->path);
	n->name = n->path = NULL;
}
