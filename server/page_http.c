/*
 * page_http.c — the HTTP of ask_user_secret's page, its own and as small
 * as the page: a listening socket on 127.0.0.1 and a port the system
 * picks, in the front's loop (no thread, no library); one request per
 * connection (HTTP/1.1, each answer says Connection: close); a body by
 * Content-Length alone, of at most the owner's body_max bytes. It knows
 * one page at one address and nothing of what the page asks for: its
 * owner (secret_page.c) says whether a request's target names the page,
 * judges each request whose head came whole, takes its body and words
 * every answer, through the callbacks of its page_http_def. What it
 * refuses itself, through the owner's refuse callback:
 *
 *   a peer not on the loopback network	closed at once
 *   a request line or header line no browser sends (a header twice that
 *   may be there once, a folded line, a control character)	400
 *   a body the owner takes, chunked or without a length	411
 *   a body over body_max, a head over PAGE_HTTP_HEAD_MAX	413, 431
 *
 * Every answer says Cache-Control: no-store and the owner's
 * Content-Security-Policy.
 *
 * The port is the person's. Any process of any user on the machine can
 * connect to it (the port is in /proc/net/tcp for all to read), so no
 * connection may keep the person out:
 *
 *   - a connection has PAGE_HTTP_REQUEST_MS from its accept to send its
 *     whole request (one that sent part of one is answered 408, one that
 *     sent nothing is closed), then PAGE_HTTP_ANSWER_MS to take its
 *     answer;
 *   - at most PAGE_HTTP_CONNS are kept; for one more, one is dropped: one
 *     already answered, else the one that has waited longest without
 *     naming the page's address. The address holds the page's token, a
 *     secret: a connection whose request line named it is the person's
 *     and is never dropped for another. The person's new connection is
 *     read as soon as it is accepted, is not dropped in the turn of the
 *     loop it came in, and is read again before it is dropped: it is
 *     dropped only if its request has not come by then;
 *   - up to PAGE_HTTP_ACCEPTS are accepted per turn of the loop, so that
 *     a flood neither fills the listen queue (where the person's
 *     connection would wait) nor keeps the loop from the rest of its
 *     work;
 *   - where the system can (Linux's TCP_DEFER_ACCEPT, osdep_defer_accept),
 *     a connection is accepted only once it sent something: the person's
 *     comes with its request line, and is the person's from its accept
 *     on; a connection that sends nothing waits in the kernel first.
 *     (A browser may be slower to write its request than a flood is to
 *     fill PAGE_HTTP_CONNS places; where the system cannot, the person's
 *     connection has the turn it came in and a last read.)
 *
 * What a connection sent is read into its buffer, never moved by a
 * realloc (a bigger buffer is a copy, the old one cleared); the buffer
 * is cleared once its body was handed over, and again as it goes.
 * Nothing here logs.
 *
 * Layer: Page, below secret_page.c; it calls the loop and common/ alone.
 */
#include <sys/types.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "fdutil.h"
#include "osdep.h"
#include "page_http.h"
#include "server.h"
#include "timeutil.h"
#include "wipe.h"
#include "xmalloc.h"

#define PAGE_HTTP_CONNS		64	/* connections kept at once */
#define PAGE_HTTP_ACCEPTS	64	/* accepted per turn of the loop */
#define PAGE_HTTP_HEAD_MAX	16384	/* request line and headers */
#define PAGE_HTTP_IN_FIRST	2048	/* a connection's first buffer */
#define PAGE_HTTP_REQUEST_MS	5000	/* from its accept to its request */
#define PAGE_HTTP_ANSWER_MS	2000	/* to take its answer */
#define PAGE_HTTP_BACKOFF_MS	100	/* out of descriptors: accept later */
#define PAGE_HTTP_DEFER_S	1	/* a silent connection waits in the
					   kernel before it is handed over */

enum page_http_state {
	PAGE_HTTP_READ,		/* its request is coming */
	PAGE_HTTP_WRITE,	/* its answer is going */
	PAGE_HTTP_DONE		/* answered: its end is awaited */
};

/* A part of a connection's buffer: a header's value, if it came. */
struct page_http_span {
	size_t	off;
	size_t	len;
	bool	seen;
};

/* One connection and its one request. */
struct page_http_conn {
	struct page_http	*h;
	int			 fd;
	enum page_http_state	 state;
	bool			 ours;		/* its request line named the page */
	uint64_t		 turn;		/* the loop's turn it came in */
	char			*in;		/* what it sent */
	size_t			 cap;		/* PAGE_HTTP_IN_FIRST or in_max */
	size_t			 len;
	size_t			 line;		/* where the next line starts */
	size_t			 head;		/* the head's length, once whole */
	size_t			 want;		/* head and body, once known */
	enum page_http_method	 method;
	struct page_http_span	 host, origin;
	bool			 has_length, chunked;
	size_t			 length;	/* Content-Length */
	struct buf		 out;		/* its answer */
	struct loop_timer	*timer;		/* its deadline */
	TAILQ_ENTRY(page_http_conn) entry;
};
TAILQ_HEAD(page_http_conns, page_http_conn);

struct page_http {
	const struct page_http_def *def;
	void			*arg;
	int			 lfd;		/* listening, or -1 */
	unsigned		 port;
	size_t			 in_max;	/* a head and a body, at most */
	struct page_http_conns	 conns;		/* oldest first */
	size_t			 nconns;
	struct loop_timer	*backoff;
};

/* The reason phrase of an answer's status line. */
static const char *
page_http_reason(unsigned status)
{
	switch (status) {
	case 200: return ("OK");
	case 400: return ("Bad Request");
	case 403: return ("Forbidden");
	case 404: return ("Not Found");
	case 405: return ("Method Not Allowed");
	case 408: return ("Request Timeout");
	case 409: return ("Conflict");
	case 410: return ("Gone");
	case 411: return ("Length Required");
	case 413: return ("Content Too Large");
	case 431: return ("Request Header Fields Too Large");
	}
	return ("Error");
}

/* Queue c's answer with our headers; the loop writes it. */
void
page_http_answer(struct page_http_conn *c, unsigned status, const char *html)
{
	buf_reset(&c->out);
	buf_printf(&c->out, "HTTP/1.1 %u %s\r\n"
	    "Content-Type: text/html; charset=utf-8\r\n"
	    "Content-Length: %zu\r\n"
	    "Connection: close\r\n"
	    "Cache-Control: no-store\r\n"
	    "Pragma: no-cache\r\n"
	    "Content-Security-Policy: %s\r\n"
	    "X-Frame-Options: DENY\r\n"
	    "X-Content-Type-Options: nosniff\r\n"
	    /* Not no-referrer: with it a browser sends Origin: null on a
	     * form's POST, and the origin could not be checked. */
	    "Referrer-Policy: same-origin\r\n"
	    "%s\r\n%s", status, page_http_reason(status), strlen(html),
	    c->h->def->csp, status == 405 ? "Allow: GET, POST\r\n" : "", html);
	c->state = PAGE_HTTP_WRITE;
	loop_fd_mask(c->fd, LOOP_WRITE);
	loop_timer_set(c->timer, now_ms() + PAGE_HTTP_ANSWER_MS);
}

/* Is ch a character of a token (a method, a header's name)? */
static bool
page_http_tchar(unsigned char ch)
{
	return (ch > 0x20 && ch < 0x7f && strchr("\"(),/:;<=>?@[\\]{}", ch) ==
	    NULL);
}

/* The request line (n bytes at p, its line end cut): 0, or the status
 * that refuses it. */
static unsigned
page_http_request_line(struct page_http_conn *c, const char *p, size_t n)
{
	const char	*sp1, *sp2, *v;
	size_t		 i;

	if ((sp1 = memchr(p, ' ', n)) == NULL || sp1 == p ||
	    (sp2 = memchr(sp1 + 1, ' ', n - (size_t)(sp1 + 1 - p))) == NULL ||
	    sp2 == sp1 + 1)
		return (400);
	for (i = 0; p + i < sp1; i++)
		if (!page_http_tchar((unsigned char)p[i]))
			return (400);
	for (v = sp1 + 1; v < sp2; v++)
		if ((unsigned char)*v <= 0x20 || (unsigned char)*v >= 0x7f)
			return (400);
	v = sp2 + 1;
	if (p + n - v != 8 || (memcmp(v, "HTTP/1.1", 8) != 0 &&
	    memcmp(v, "HTTP/1.0", 8) != 0))
		return (400);
	if (sp1 - p == 3 && memcmp(p, "GET", 3) == 0)
		c->method = PAGE_HTTP_GET;
	else if (sp1 - p == 4 && memcmp(p, "POST", 4) == 0)
		c->method = PAGE_HTTP_POST;
	else
		c->method = PAGE_HTTP_OTHER;
	c->ours = c->h->def->ours(c->h->arg, sp1 + 1, (size_t)(sp2 - sp1 - 1));
	return (0);
}

/* A header line (n bytes at offset off, its line end cut): 0, or the
 * status that refuses it. */
static unsigned
page_http_header(struct page_http_conn *c, size_t off, size_t n)
{
	const char		*p = c->in + off, *colon, *v, *end = p + n;
	struct page_http_span	*sp = NULL;
	size_t			 name, i;

	if ((colon = memchr(p, ':', n)) == NULL || colon == p)
		return (400);
	name = (size_t)(colon - p);
	for (i = 0; i < name; i++)
		if (!page_http_tchar((unsigned char)p[i]))
			return (400);	/* a folded line, a space before ':' */
	for (v = colon + 1; v < end && (*v == ' ' || *v == '\t'); v++)
		;
	while (end > v && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	for (i = 0; v + i < end; i++)
		if (((unsigned char)v[i] < 0x20 && v[i] != '\t') ||
		    v[i] == 0x7f)
			return (400);
	if (name == 4 && strncasecmp(p, "host", 4) == 0)
		sp = &c->host;
	else if (name == 6 && strncasecmp(p, "origin", 6) == 0)
		sp = &c->origin;
	else if (name == 17 && strncasecmp(p, "transfer-encoding", 17) == 0)
		c->chunked = true;
	else if (name == 14 && strncasecmp(p, "content-length", 14) == 0) {
		if (c->has_length || v == end)
			return (400);
		c->has_length = true;
		for (; v < end; v++) {
			if (*v < '0' || *v > '9')
				return (400);
			if (c->length > c->h->in_max)
				return (413);
			c->length = c->length * 10 + (size_t)(*v - '0');
		}
	}
	if (sp != NULL) {
		if (sp->seen)
			return (400);
		sp->seen = true;
		sp->off = (size_t)(v - c->in);
		sp->len = (size_t)(end - v);
	}
	return (0);
}

/* c's head came whole: the owner answers it, or wants its body. */
static void
page_http_request(struct page_http_conn *c)
{
	struct page_http	*h = c->h;
	struct page_http_req	 req;

	memset(&req, 0, sizeof req);
	req.method = c->method;
	req.ours = c->ours;
	if (c->host.seen) {
		req.host = c->in + c->host.off;
		req.host_len = c->host.len;
	}
	if (c->origin.seen) {
		req.origin = c->in + c->origin.off;
		req.origin_len = c->origin.len;
	}
	if (!h->def->head(h->arg, c, &req))
		return;
	if (c->chunked || !c->has_length)
		h->def->refuse(h->arg, c, 411);
	else if (c->length > h->def->body_max)
		h->def->refuse(h->arg, c, 413);
	else
		c->want = c->head + c->length;
}

/* The lines of c's head that came whole; then, once the head is whole,
 * its answer, or once its body is whole too, the owner's. */
static void
page_http_parse(struct page_http_conn *c)
{
	struct page_http	*h = c->h;
	char			*nl;
	size_t			 n, at;
	unsigned		 st = 0;

	while (c->head == 0 && st == 0 && (nl = memchr(c->in + c->line, '\n',
	    c->len - c->line)) != NULL) {
		at = c->line;
		n = (size_t)(nl - (c->in + at));
		c->line = at + n + 1;
		if (n > 0 && c->in[at + n - 1] == '\r')
			n--;
		if (at == 0)
			st = page_http_request_line(c, c->in, n);
		else if (n == 0)
			c->head = c->line;
		else
			st = page_http_header(c, at, n);
	}
	if (st == 0 && (c->head > PAGE_HTTP_HEAD_MAX ||
	    (c->head == 0 && c->len >= PAGE_HTTP_HEAD_MAX)))
		st = 431;
	if (st != 0) {
		h->def->refuse(h->arg, c, st);
		return;
	}
	if (c->head == 0)
		return;
	if (c->want == 0) {
		page_http_request(c);
		if (c->state != PAGE_HTTP_READ || c->want == 0)
			return;
	}
	if (c->len >= c->want) {
		h->def->body(h->arg, c, c->in + c->head, c->length);
		wipe(c->in, c->len);
	}
}

/* c goes: its descriptor closed, every copy of what it sent cleared. */
static void
page_http_conn_free(struct page_http_conn *c)
{
	struct page_http	*h = c->h;

	loop_fd_del(c->fd);
	close(c->fd);
	loop_timer_free(c->timer);
	TAILQ_REMOVE(&h->conns, c, entry);
	h->nconns--;
	if (c->in != NULL) {
		wipe(c->in, c->cap);
		free(c->in);
	}
	buf_free(&c->out);
	free(c);
}

/* c ended: gone, and the owner told (it may free the server). */
static void
page_http_conn_close(struct page_http_conn *c)
{
	struct page_http	*h = c->h;

	page_http_conn_free(c);
	h->def->ended(h->arg);
}

/* Read what c sent; false if c is gone. */
static bool
page_http_conn_read(struct page_http_conn *c)
{
	char	*bigger, junk[4096];
	ssize_t	 n;

	if (c->state == PAGE_HTTP_DONE) {	/* its end is awaited */
		n = read(c->fd, junk, sizeof junk);
		wipe(junk, sizeof junk);
		if (n == 0 || (n == -1 && errno != EAGAIN && errno != EINTR)) {
			page_http_conn_close(c);
			return (false);
		}
		return (true);
	}
	if (c->in == NULL)
		c->in = xmalloc((c->cap = PAGE_HTTP_IN_FIRST));
	if (c->len == c->cap && c->cap < c->h->in_max) {
		bigger = xmalloc(c->h->in_max);
		memcpy(bigger, c->in, c->len);
		wipe(c->in, c->cap);
		free(c->in);
		c->in = bigger;
		c->cap = c->h->in_max;
	}
	n = read(c->fd, c->in + c->len, c->cap - c->len);
	if (n == -1 && (errno == EAGAIN || errno == EINTR))
		return (true);
	if (n <= 0) {		/* gone before its request was whole */
		page_http_conn_close(c);
		return (false);
	}
	c->len += (size_t)n;
	page_http_parse(c);
	return (true);
}

/* Write c's answer; once it went, wait for c's end. */
static void
page_http_conn_write(struct page_http_conn *c)
{
	ssize_t	n;

	n = write(c->fd, c->out.data, c->out.len);
	if (n == -1 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		page_http_conn_close(c);
		return;
	}
	buf_drain(&c->out, (size_t)n);
	if (c->out.len > 0)
		return;
	/* Our end, then whatever it still sends is read and dropped (were
	 * it left unread, closing would reset the connection, and the
	 * answer could be lost before the browser read it). */
	shutdown(c->fd, SHUT_WR);
	c->state = PAGE_HTTP_DONE;
	loop_fd_mask(c->fd, LOOP_READ);
}

/* c's descriptor is ready for what its state waits on. */
static void
page_http_conn_ready(int fd, int fired, void *arg)
{
	struct page_http_conn	*c = arg;

	(void)fd;
	if (c->state == PAGE_HTTP_WRITE && (fired & LOOP_WRITE))
		page_http_conn_write(c);
	else if (c->state != PAGE_HTTP_WRITE && (fired & LOOP_READ))
		page_http_conn_read(c);
}

/* c's time is up: a request begun is answered 408, anything else ends. */
static void
page_http_conn_timeout(void *arg)
{
	struct page_http_conn	*c = arg;

	if (c->state == PAGE_HTTP_READ && c->len > 0) {
		wipe(c->in, c->len);
		c->h->def->refuse(c->h->arg, c, 408);
		return;
	}
	page_http_conn_close(c);
}

/*
 * Room for one more connection: drop one answered, else the one that has
 * waited longest without naming the page, but never one accepted in this
 * turn of the loop (its request may be on its way). What a candidate sent
 * is read first: the person's request may have come since. False if none
 * can go (the newcomer is turned away).
 */
static bool
page_http_make_room(struct page_http *h)
{
	struct page_http_conn	*c, *next;

	TAILQ_FOREACH(c, &h->conns, entry)
		if (c->state == PAGE_HTTP_DONE) {
			page_http_conn_close(c);
			return (true);
		}
	for (c = TAILQ_FIRST(&h->conns); c != NULL; c = next) {
		next = TAILQ_NEXT(c, entry);
		if (c->ours || c->turn == loop_turn())
			continue;
		if (c->state == PAGE_HTTP_READ && !page_http_conn_read(c))
			return (true);	/* it ended as it was read */
		if (c->ours)
			continue;
		page_http_conn_close(c);
		return (true);
	}
	return (false);
}

/* A connection accepted: kept, and read at once. */
static void
page_http_conn_new(struct page_http *h, int fd)
{
	struct page_http_conn	*c;

	if (fd_nonblock(fd, 1) == -1 || fd_cloexec(fd, 1) == -1 ||
	    (h->nconns == PAGE_HTTP_CONNS && !page_http_make_room(h))) {
		close(fd);
		return;
	}
	c = xcalloc(1, sizeof *c);
	c->h = h;
	c->fd = fd;
	c->state = PAGE_HTTP_READ;
	c->turn = loop_turn();
	c->method = PAGE_HTTP_OTHER;
	buf_init(&c->out);
	c->timer = loop_timer_new(page_http_conn_timeout, c);
	loop_timer_set(c->timer, now_ms() + PAGE_HTTP_REQUEST_MS);
	TAILQ_INSERT_TAIL(&h->conns, c, entry);
	h->nconns++;
	loop_fd_add(fd, LOOP_READ, page_http_conn_ready, c);
	page_http_conn_read(c);
}

/* Accept what waits, up to PAGE_HTTP_ACCEPTS this turn; only a peer on
 * the loopback network is kept. */
static void
page_http_accept(int fd, int fired, void *arg)
{
	struct page_http	*h = arg;
	struct sockaddr_in	 sin;
	socklen_t		 slen;
	int			 s, i;

	(void)fd;
	(void)fired;
	for (i = 0; i < PAGE_HTTP_ACCEPTS && h->lfd != -1; i++) {
		slen = sizeof sin;
		if ((s = accept(h->lfd, (struct sockaddr *)&sin, &slen)) ==
		    -1) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			if (errno != EAGAIN && errno != EWOULDBLOCK) {
				/* Out of descriptors (or memory): later. */
				loop_fd_mask(h->lfd, 0);
				loop_timer_set(h->backoff, now_ms() +
				    PAGE_HTTP_BACKOFF_MS);
			}
			return;
		}
		if (slen < sizeof sin || sin.sin_family != AF_INET ||
		    (ntohl(sin.sin_addr.s_addr) >> 24) != 127) {
			close(s);
			continue;
		}
		page_http_conn_new(h, s);
	}
}

/* Descriptors may be there again: accept again. */
static void
page_http_backoff_over(void *arg)
{
	struct page_http	*h = arg;

	if (h->lfd != -1)
		loop_fd_mask(h->lfd, LOOP_READ);
}

/* A socket listening on 127.0.0.1 and a port the system picks; -1. */
static int
page_http_listen(unsigned *port)
{
	struct sockaddr_in	sin;
	socklen_t		slen = sizeof sin;
	int			fd;

	if ((fd = socket(AF_INET, SOCK_STREAM, 0)) == -1)
		return (-1);
	memset(&sin, 0, sizeof sin);
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd_cloexec(fd, 1) == -1 || fd_nonblock(fd, 1) == -1 ||
	    bind(fd, (struct sockaddr *)&sin, sizeof sin) == -1 ||
	    listen(fd, SOMAXCONN) == -1 ||
	    getsockname(fd, (struct sockaddr *)&sin, &slen) == -1) {
		close(fd);
		return (-1);
	}
	*port = ntohs(sin.sin_port);
	/* Where the system can (Linux), a connection is handed over only
	 * once it sent something: the person's comes with its request, and
	 * is the page's from its accept on; one that sends nothing waits in
	 * the kernel, taking no place here, for PAGE_HTTP_DEFER_S. */
	(void)osdep_defer_accept(fd, PAGE_HTTP_DEFER_S);
	return (fd);
}

/* Serve on 127.0.0.1 for the owner's def and arg (both kept); NULL and
 * *cause if no socket could listen. */
struct page_http *
page_http_open(const struct page_http_def *def, void *arg, char **cause)
{
	struct page_http	*h;

	h = xcalloc(1, sizeof *h);
	if ((h->lfd = page_http_listen(&h->port)) == -1) {
		xasprintf(cause, "could not serve a page on 127.0.0.1: %s",
		    fd_strerror(errno));
		free(h);
		return (NULL);
	}
	h->def = def;
	h->arg = arg;
	h->in_max = PAGE_HTTP_HEAD_MAX + def->body_max;
	TAILQ_INIT(&h->conns);
	h->backoff = loop_timer_new(page_http_backoff_over, h);
	loop_fd_add(h->lfd, LOOP_READ, page_http_accept, h);
	return (h);
}

/* The port it listens on. */
unsigned
page_http_port(const struct page_http *h)
{
	return (h->port);
}

/* No new connection is taken; those there are answered. */
void
page_http_stop(struct page_http *h)
{
	if (h->lfd == -1)
		return;
	loop_fd_del(h->lfd);
	close(h->lfd);
	h->lfd = -1;
	loop_timer_clear(h->backoff);
}

/* Nothing going on: not listening, no connection. */
bool
page_http_idle(const struct page_http *h)
{
	return (h->lfd == -1 && TAILQ_EMPTY(&h->conns));
}

/* The server goes, with any connection it still has (the owner is not
 * told). */
void
page_http_free(struct page_http *h)
{
	if (h == NULL)
		return;
	page_http_stop(h);
	while (!TAILQ_EMPTY(&h->conns))
		page_http_conn_free(TAILQ_FIRST(&h->conns));
	loop_timer_free(h->backoff);
	free(h);
}
