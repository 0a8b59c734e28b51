/*
 * probe.c — does an http:// URL on this machine answer, with a status
 * below 400? untilUrl's check, asked from the loop without blocking it.
 *
 * A probe is one GET at a time: a non-blocking connect to the address
 * the URL names (localhost, a loopback address or one of this machine's
 * own: no name is looked up, no request leaves the machine), a request
 * line with Host, Connection: close and nothing else, and the status
 * line of the answer; the socket is closed as soon as that is read, so
 * no body is taken and no redirect is followed. An attempt that gets no
 * status line within PROBE_ATTEMPT_MS ends without one. "localhost" is
 * tried on 127.0.0.1, then on ::1.
 */
#include <sys/socket.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compat.h"
#include "fdutil.h"
#include "server.h"
#include "timeutil.h"
#include "xmalloc.h"

#define PROBE_ATTEMPT_MS	2000	/* an attempt's answer, at most */
#define PROBE_ANSWER_MAX	1024	/* bytes read for the status line */
#define PROBE_URL_MAX		2048

struct probe {
	struct sockaddr_storage	 addr[2];	/* tried in turn */
	socklen_t		 addrlen[2];
	int			 naddr;
	char			*request;	/* the GET, whole */

	int			 fd;		/* the attempt's socket, or -1 */
	int			 tried;		/* of addr, in this attempt */
	struct buf		 in;
	struct loop_timer	*timer;
	bool			 busy;
	bool			 told;		/* of the last attempt's end */
	int			 status;	/* the last attempt's, or 0 */
	char			 why[128];	/* why it had none */
	probe_cb		 done;
	void			*arg;
};

/* Is a an address of this machine: loopback, or one of its own? */
static bool
probe_local(const struct sockaddr_storage *a)
{
	const struct sockaddr_in	*in = (const void *)a;
	const struct sockaddr_in6	*in6 = (const void *)a, *j6;
	struct ifaddrs			*ifs, *i;
	bool				 mine = false;

	if (a->ss_family == AF_INET &&
	    (ntohl(in->sin_addr.s_addr) >> 24) == 127)
		return (true);
	if (a->ss_family == AF_INET6 && IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr))
		return (true);
	if (getifaddrs(&ifs) == -1)
		return (false);
	for (i = ifs; i != NULL && !mine; i = i->ifa_next) {
		if (i->ifa_addr == NULL || i->ifa_addr->sa_family !=
		    a->ss_family)
			continue;
		if (a->ss_family == AF_INET)
			mine = ((const struct sockaddr_in *)(const void *)
			    i->ifa_addr)->sin_addr.s_addr == in->sin_addr.s_addr;
		else {
			j6 = (const void *)i->ifa_addr;
			mine = memcmp(&j6->sin6_addr, &in6->sin6_addr,
			    sizeof in6->sin6_addr) == 0;
		}
	}
	freeifaddrs(ifs);
	return (mine);
}

/* One address of host (a literal, "localhost", unspecified made
 * loopback) with port, into p->addr[p->naddr]. */
static int
probe_addr(struct probe *p, const char *host, unsigned port)
{
	struct sockaddr_in	*in = (void *)&p->addr[p->naddr];
	struct sockaddr_in6	*in6 = (void *)&p->addr[p->naddr];

	memset(&p->addr[p->naddr], 0, sizeof p->addr[p->naddr]);
	if (inet_pton(AF_INET, host, &in->sin_addr) == 1) {
		in->sin_family = AF_INET;
		in->sin_port = htons((uint16_t)port);
		if (in->sin_addr.s_addr == htonl(INADDR_ANY))
			in->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		p->addrlen[p->naddr++] = sizeof *in;
		return (0);
	}
	if (inet_pton(AF_INET6, host, &in6->sin6_addr) == 1) {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons((uint16_t)port);
		if (IN6_IS_ADDR_UNSPECIFIED(&in6->sin6_addr))
			in6->sin6_addr = in6addr_loopback;
		p->addrlen[p->naddr++] = sizeof *in6;
		return (0);
	}
	return (-1);
}

/*
 * Check url and make its probe: NULL with *cause if it is not an http://
 * URL of this machine that a GET can be sent to as it is.
 */
struct probe *
probe_new(const char *url, probe_cb done, void *arg, char **cause)
{
	struct probe	*p;
	const char	*h, *hend, *path, *c;
	char		 host[64];
	unsigned long	 port = 80;
	char		*end;
	size_t		 hlen;

	if (strncmp(url, "http://", 7) != 0) {
		xasprintf(cause, "untilUrl takes an http:// URL (progmux sends "
		    "a plain GET on this machine: no TLS, no other scheme)");
		return (NULL);
	}
	for (c = url; *c != '\0'; c++)
		if ((unsigned char)*c <= 0x20 || *c == 0x7f) {
			xasprintf(cause, "untilUrl holds a space or control "
			    "character: write it percent-encoded (%%20)");
			return (NULL);
		}
	h = url + 7;
	path = h + strcspn(h, "/?#");
	if (memchr(h, '@', (size_t)(path - h)) != NULL) {
		xasprintf(cause, "untilUrl has a user name or password: leave "
		    "them out");
		return (NULL);
	}
	if (*h == '[') {
		hend = memchr(h, ']', (size_t)(path - h));
		if (hend == NULL) {
			xasprintf(cause, "untilUrl's [ has no ]");
			return (NULL);
		}
		h++;
		c = hend + 1;
	} else {
		hend = h + strcspn(h, ":/?#");
		c = hend;
	}
	hlen = (size_t)(hend - h);
	if (*c == ':') {
		port = strtoul(c + 1, &end, 10);
		if (end == c + 1 || end != path || port == 0 || port > 65535) {
			xasprintf(cause, "untilUrl's port is not a number from 1 "
			    "to 65535");
			return (NULL);
		}
	} else if (c != path) {
		xasprintf(cause, "untilUrl's host is not followed by :port or "
		    "a path");
		return (NULL);
	}
	if (hlen == 0 || hlen >= sizeof host) {
		xasprintf(cause, "untilUrl has no host, or one too long");
		return (NULL);
	}
	memcpy(host, h, hlen);
	host[hlen] = '\0';

	p = xcalloc(1, sizeof *p);
	p->fd = -1;
	if (strcasecmp(host, "localhost") == 0) {
		probe_addr(p, "127.0.0.1", (unsigned)port);
		probe_addr(p, "::1", (unsigned)port);
	} else if (probe_addr(p, host, (unsigned)port) == -1 ||
	    !probe_local(&p->addr[0])) {
		xasprintf(cause, "untilUrl must name this machine by address "
		    "(localhost, 127.0.0.1, [::1] or one of its own addresses), "
		    "not \"%s\": progmux looks up no names and sends nothing "
		    "off the machine", host);
		free(p);
		return (NULL);
	}
	if (*path == '\0' || *path == '#')
		path = "/";
	xasprintf(&p->request, "GET %s%.*s HTTP/1.1\r\nHost: %.*s\r\n"
	    "User-Agent: progmux\r\nAccept: */*\r\nConnection: close\r\n\r\n",
	    *path == '?' ? "/" : "", (int)strcspn(path, "#"), path,
	    (int)(path - (url + 7)), url + 7);
	p->done = done;
	p->arg = arg;
	return (p);
}

/* The attempt is over: close; whoever asked is told from the timer, on
 * a later turn, never from inside probe_start. */
static void
probe_over(struct probe *p, int status, const char *why)
{
	if (p->fd != -1) {
		loop_fd_del(p->fd);
		close(p->fd);
		p->fd = -1;
	}
	buf_reset(&p->in);
	p->busy = false;
	p->told = false;
	p->status = status;
	snprintf(p->why, sizeof p->why, "%s", why != NULL ? why : "");
	loop_timer_set(p->timer, now_ms());
}

static void	probe_connect(struct probe *);

/* The status line, if the answer holds it yet: its code, 0 if not yet,
 * -1 if the answer is no HTTP ("HTTP/1.1 200 OK"). */
static int
probe_parse(const struct buf *in)
{
	const char	*d = in->data;

	if (in->len < 12)
		return (memchr(d, '\n', in->len) != NULL ? -1 : 0);
	if (strncmp(d, "HTTP/1.", 7) != 0 || d[8] != ' ' ||
	    d[9] < '1' || d[9] > '9' || d[10] < '0' || d[10] > '9' ||
	    d[11] < '0' || d[11] > '9')
		return (-1);
	return ((d[9] - '0') * 100 + (d[10] - '0') * 10 + (d[11] - '0'));
}

/* The socket is ready: connected (send the GET), or an answer to read. */
static void
probe_event(int fd, int fired, void *arg)
{
	struct probe	*p = arg;
	int		 err = 0, code;
	socklen_t	 len = sizeof err;
	ssize_t		 n;

	if (fired & LOOP_WRITE) {
		if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) == -1)
			err = errno;
		if (err != 0) {
			if (err == ECONNREFUSED && ++p->tried < p->naddr) {
				loop_fd_del(p->fd);
				close(p->fd);
				p->fd = -1;
				probe_connect(p);	/* the next address */
				return;
			}
			probe_over(p, 0, strerror(err));
			return;
		}
		n = write(fd, p->request, strlen(p->request));
		if (n != (ssize_t)strlen(p->request)) {
			probe_over(p, 0, "the request could not be sent");
			return;
		}
		loop_fd_mask(fd, LOOP_READ);
		return;
	}
	n = fd_read_into(fd, &p->in, PROBE_ANSWER_MAX - p->in.len);
	if (n == -1 && (errno == EAGAIN || errno == EINTR))
		return;
	if ((code = probe_parse(&p->in)) > 0)
		probe_over(p, code, NULL);
	else if (code == -1)
		probe_over(p, 0, "it answered, but not with HTTP");
	else if (n <= 0 || p->in.len >= PROBE_ANSWER_MAX)
		probe_over(p, 0, n == 0 ? "it closed the connection without "
		    "an answer" : strerror(errno));
}

/* Connect to the address being tried. */
static void
probe_connect(struct probe *p)
{
	struct sockaddr_storage	*a = &p->addr[p->tried];

	p->fd = compat_socket(a->ss_family, SOCK_STREAM, 0, O_CLOEXEC |
	    O_NONBLOCK);
	if (p->fd == -1) {
		probe_over(p, 0, fd_strerror(errno));
		return;
	}
	if (connect(p->fd, (struct sockaddr *)a, p->addrlen[p->tried]) == -1 &&
	    errno != EINPROGRESS) {
		if (errno == ECONNREFUSED && p->tried + 1 < p->naddr) {
			close(p->fd);
			p->fd = -1;
			p->tried++;
			probe_connect(p);
			return;
		}
		close(p->fd);
		p->fd = -1;
		probe_over(p, 0, strerror(errno));
		return;
	}
	loop_fd_add(p->fd, LOOP_WRITE, probe_event, p);
}

/* The timer: an attempt that took too long ends; one that ended is
 * told. */
static void
probe_timer(void *arg)
{
	struct probe	*p = arg;

	if (p->busy) {
		probe_over(p, 0, "no answer within 2 s");
		return;
	}
	if (!p->told) {
		p->told = true;
		p->done(p->arg);
	}
}

/* Begin an attempt; done(arg) once it is over, from a later loop turn. */
void
probe_start(struct probe *p)
{
	if (p->busy)
		return;
	p->busy = true;
	p->told = true;
	p->tried = 0;
	if (p->timer == NULL)
		p->timer = loop_timer_new(probe_timer, p);
	loop_timer_set(p->timer, now_ms() + PROBE_ATTEMPT_MS);
	probe_connect(p);
}

/* Is an attempt under way? */
bool
probe_busy(const struct probe *p)
{
	return (p->busy);
}

/* The status the last attempt got, 0 for none (probe_why says why). */
int
probe_status(const struct probe *p)
{
	return (p->status);
}

/* Why the last attempt got no status ("" if it got one). */
const char *
probe_why(const struct probe *p)
{
	return (p->why);
}

/* Let go of a probe, mid-attempt or not. */
void
probe_free(struct probe *p)
{
	if (p == NULL)
		return;
	if (p->fd != -1) {
		loop_fd_del(p->fd);
		close(p->fd);
	}
	loop_timer_free(p->timer);
	buf_free(&p->in);
	free(p->request);
	free(p);
}
