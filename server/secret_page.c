/*
 * secret_page.c — the one-time page on which a person types a secret a
 * program asks for (ask_user_secret), so that it goes from the person to
 * the program and never through the agent or its model.
 *
 * Its HTTP is its own and as small as the page: a listening socket on
 * 127.0.0.1 and a port the system picks, in the front's loop (no thread,
 * no library); one request per connection (HTTP/1.1, each answer says
 * Connection: close); GET and POST of /s/TOKEN, TOKEN 32 random bytes in
 * hex; a body by Content-Length alone, of at most PAGE_BODY_MAX bytes.
 * Everything else is refused:
 *
 *   a peer not on the loopback network	closed at once
 *   a request line or header line no browser sends (a header twice that
 *   may be there once, a folded line, a control character)	400
 *   a Host header other than 127.0.0.1:PORT	403 (a DNS rebinding page)
 *   another path (a wrong token, a query)	404
 *   any other method				405
 *   the page once used, or expired		410
 *   a POST whose Origin is not the page's	403 (another site's form)
 *   a POST chunked, or without a length	411
 *   a body over PAGE_BODY_MAX, a head over PAGE_HEAD_MAX	413, 431
 *   a secret with a control character, or not valid UTF-8	400
 *
 * Every answer says Cache-Control: no-store and a Content-Security-Policy
 * that allows nothing but the page's own style (by its hash) and a form
 * posting to itself; the page loads nothing from anywhere.
 *
 * The port is the person's. Any process of any user on the machine can
 * connect to it (the port is in /proc/net/tcp for all to read), so no
 * connection may keep the person out:
 *
 *   - a connection has PAGE_REQUEST_MS from its accept to send its whole
 *     request (one that sent part of one is answered 408, one that sent
 *     nothing is closed), then PAGE_ANSWER_MS to take its answer;
 *   - at most PAGE_CONNS are kept; for one more, one is dropped: one
 *     already answered, else the one that has waited longest without
 *     naming the page's address. The address holds the token, a secret:
 *     a connection whose request line named it is the person's and is
 *     never dropped for another. The person's new connection is read as
 *     soon as it is accepted, is not dropped in the turn of the loop it
 *     came in, and is read again before it is dropped: it is dropped
 *     only if its request has not come by then;
 *   - up to PAGE_ACCEPTS are accepted per turn of the loop, so that a
 *     flood neither fills the listen queue (where the person's connection
 *     would wait) nor keeps the loop from the rest of its work;
 *   - where the system can (Linux's TCP_DEFER_ACCEPT, osdep_defer_accept),
 *     a connection is accepted only once it sent something: the person's
 *     comes with its request line, and is the person's from its accept
 *     on; a connection that sends nothing waits in the kernel first.
 *     (A browser may be slower to write its request than a flood is to
 *     fill PAGE_CONNS places; where the system cannot, the person's
 *     connection has the turn it came in and a last read.)
 *
 * The secret: the POST body is read into the connection's buffer (never
 * moved by a realloc: a bigger buffer is a copy, the old one cleared),
 * decoded into the page's own array, and the buffer cleared at once;
 * given to the owner from a loop timer (never from inside the request's
 * handling, where the owner could not free the page); cleared as soon as
 * the owner returns. Nothing here logs.
 *
 * Its layer is its own (Page): only tool_secret.c calls it; it calls
 * the loop and common/ alone, and knows no tool, program or tmux.
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
#include "randid.h"
#include "secret_page.h"
#include "server.h"
#include "timeutil.h"
#include "utf8.h"
#include "wipe.h"
#include "xmalloc.h"

#define PAGE_TOKEN_BYTES	32
#define PAGE_CONNS		64	/* connections kept at once */
#define PAGE_ACCEPTS		64	/* accepted per turn of the loop */
#define PAGE_HEAD_MAX		16384	/* request line and headers */
#define PAGE_BODY_MAX		(3 * SECRET_PAGE_MAX + 16) /* url-encoded */
#define PAGE_IN_FIRST		2048	/* a connection's first buffer */
#define PAGE_IN_MAX		(PAGE_HEAD_MAX + PAGE_BODY_MAX)
#define PAGE_REQUEST_MS		5000	/* from its accept to its request */
#define PAGE_ANSWER_MS		2000	/* to take its answer */
#define PAGE_GRACE_MS		1000	/* after the secret: racing ones told */
#define PAGE_BACKOFF_MS		100	/* out of descriptors: accept later */
#define PAGE_DEFER_S		1	/* a silent connection waits in the
					   kernel before it is handed over */

/* The page's style, allowed by its hash alone (PAGE_STYLE_HASH is the
 * base64 of its SHA-256, as CSP wants). */
#define PAGE_STYLE "body{font:16px/1.4 system-ui,sans-serif;max-width:36em;" \
	"margin:3em auto;padding:0 1em;color:#222}" \
	"code{background:#eee;padding:0 .3em}" \
	"input{font:inherit;padding:.4em;width:100%;box-sizing:border-box}" \
	"button{font:inherit;margin-top:1em;padding:.4em 1.2em}" \
	".n{color:#555;font-size:.9em}"
#define PAGE_STYLE_HASH "sha256-Cy+40dJvo5TpQiIZW+Pq3fWyzuONe5erDgymPKObmbk="
#define PAGE_CSP "default-src 'none'; style-src '" PAGE_STYLE_HASH "'; " \
	"form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

enum page_state {
	PAGE_READ,		/* its request is coming */
	PAGE_WRITE,		/* its answer is going */
	PAGE_DONE		/* answered: its end is awaited */
};

enum page_method { PAGE_GET, PAGE_POST, PAGE_OTHER };

/* A part of a connection's buffer: a header's value, if it came. */
struct page_span {
	size_t	off;
	size_t	len;
	bool	seen;
};

/* One connection and its one request. */
struct page_conn {
	struct secret_page	*pg;
	int			 fd;
	enum page_state		 state;
	bool			 ours;		/* its request line named the page */
	uint64_t		 turn;		/* the loop's turn it came in */
	char			*in;		/* what it sent */
	size_t			 cap;		/* PAGE_IN_FIRST or PAGE_IN_MAX */
	size_t			 len;
	size_t			 line;		/* where the next line starts */
	size_t			 head;		/* the head's length, once whole */
	size_t			 want;		/* head and body, once known */
	enum page_method	 method;
	struct page_span	 host, origin;
	bool			 has_length, chunked;
	size_t			 length;	/* Content-Length */
	struct buf		 out;		/* its answer */
	struct loop_timer	*timer;		/* its deadline */
	TAILQ_ENTRY(page_conn)	 entry;
};
TAILQ_HEAD(page_conns, page_conn);

struct secret_page {
	int			 lfd;		/* listening, or -1 */
	unsigned		 port;
	char			 path[4 + 2 * PAGE_TOKEN_BYTES];
	char			 url[64 + 4 + 2 * PAGE_TOKEN_BYTES];
	char			 host[32];	/* "127.0.0.1:PORT" */
	char			 origin[48];	/* "http://127.0.0.1:PORT" */
	char			*what;		/* the prompt, shown */
	struct page_conns	 conns;		/* oldest first */
	size_t			 nconns;

	bool			 used;		/* a secret came */
	bool			 expired;
	int64_t			 expires_ms;	/* when it stops taking one */
	bool			 owner_gone;
	bool			 in_cb;
	secret_page_check	 check;
	const char		*not_taken;	/* the check's why */
	secret_page_cb		 cb;
	void			*arg;

	struct loop_timer	*expiry;
	struct loop_timer	*deliver;
	struct loop_timer	*grace;
	struct loop_timer	*backoff;

	char			 secret[SECRET_PAGE_MAX];
	size_t			 secret_len;
	const char		*refused;	/* why the secret was not taken */

	struct secret_page	*next;
};

/* Every page alive, so that one still answering after its owner went
 * is still ours (until it goes, or the process with it). */
static struct secret_page	*page_list;

static void	page_settle(struct secret_page *);

/* Characters of s escaped for HTML text. */
static void
page_html(struct buf *b, const char *s)
{
	for (; *s != '\0'; s++) {
		switch (*s) {
		case '<': buf_adds(b, "&lt;"); break;
		case '>': buf_adds(b, "&gt;"); break;
		case '&': buf_adds(b, "&amp;"); break;
		case '"': buf_adds(b, "&quot;"); break;
		case '\'': buf_adds(b, "&#39;"); break;
		default: buf_addc(b, *s); break;
		}
	}
}

/* The reason phrase of an answer's status line. */
static const char *
page_reason(unsigned status)
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
static void
page_answer(struct page_conn *c, unsigned status, const char *html)
{
	buf_reset(&c->out);
	buf_printf(&c->out, "HTTP/1.1 %u %s\r\n"
	    "Content-Type: text/html; charset=utf-8\r\n"
	    "Content-Length: %zu\r\n"
	    "Connection: close\r\n"
	    "Cache-Control: no-store\r\n"
	    "Pragma: no-cache\r\n"
	    "Content-Security-Policy: " PAGE_CSP "\r\n"
	    "X-Frame-Options: DENY\r\n"
	    "X-Content-Type-Options: nosniff\r\n"
	    /* Not no-referrer: with it a browser sends Origin: null on the
	     * form's POST, and the origin could not be checked. */
	    "Referrer-Policy: same-origin\r\n"
	    "%s\r\n%s", status, page_reason(status), strlen(html),
	    status == 405 ? "Allow: GET, POST\r\n" : "", html);
	c->state = PAGE_WRITE;
	loop_fd_mask(c->fd, LOOP_WRITE);
	loop_timer_set(c->timer, now_ms() + PAGE_ANSWER_MS);
}

/* A short page saying one thing. */
static void
page_say(struct page_conn *c, unsigned status, const char *title,
    const char *text)
{
	struct buf	b = BUF_INIT;

	buf_adds(&b, "<!doctype html><html lang=en><head><meta charset=utf-8>"
	    "<meta name=viewport content=\"width=device-width\"><title>");
	page_html(&b, title);
	buf_adds(&b, "</title><style>" PAGE_STYLE "</style></head><body><h1>");
	page_html(&b, title);
	buf_adds(&b, "</h1><p>");
	page_html(&b, text);
	buf_adds(&b, "</p></body></html>");
	page_answer(c, status, buf_cstr(&b));
	buf_free(&b);
}

/* The form. */
static void
page_form(struct page_conn *c)
{
	struct secret_page	*pg = c->pg;
	struct buf		 b = BUF_INIT;

	buf_adds(&b, "<!doctype html><html lang=en><head><meta charset=utf-8>"
	    "<meta name=viewport content=\"width=device-width\">"
	    "<title>A program asks for a secret</title><style>" PAGE_STYLE
	    "</style></head><body><h1>A program asks for a secret</h1>"
	    "<p>A program that your AI agent runs (through progmux) waits "
	    "for hidden input:</p><p><code>");
	page_html(&b, pg->what);
	buf_adds(&b, "</code></p><form method=post action=\"");
	buf_adds(&b, pg->path);
	buf_adds(&b, "\"><label for=s>Type it here; it goes to that program's "
	    "terminal, followed by Enter, and is not shown to the agent."
	    "</label><input id=s name=secret type=password autocomplete=off "
	    "autofocus required><button type=submit>Send to the program"
	    "</button></form><p class=n>This page works once, for a few "
	    "minutes, from this computer only.</p></body></html>");
	page_answer(c, 200, buf_cstr(&b));
	buf_free(&b);
}

/* Do a (la bytes) and b (NUL-terminated) hold the same bytes? Time
 * independent of where they differ, for the token. */
static bool
page_same(const char *a, size_t la, const char *b)
{
	size_t		lb = strlen(b), i;
	unsigned char	d = la != lb;

	for (i = 0; i < la && i < lb; i++)
		d |= (unsigned char)a[i] ^ (unsigned char)b[i];
	return (d == 0);
}

/* Is span sp of c's buffer the string s? */
static bool
page_is(const struct page_conn *c, const struct page_span *sp, const char *s)
{
	return (sp->seen && sp->len == strlen(s) &&
	    memcmp(c->in + sp->off, s, sp->len) == 0);
}

/* The value of a hex digit, or -1. */
static int
page_hex(int ch)
{
	if (ch >= '0' && ch <= '9')
		return (ch - '0');
	if (ch >= 'a' && ch <= 'f')
		return (ch - 'a' + 10);
	if (ch >= 'A' && ch <= 'F')
		return (ch - 'A' + 10);
	return (-1);
}

/*
 * The body "secret=VALUE" (len bytes at p) decoded into the page's
 * array: true when it is one to type. A control character (a line break
 * would end the program's read early and type the rest as a second
 * answer; NUL cannot be typed) is refused, as is one longer than
 * SECRET_PAGE_MAX - 1 bytes, and one that is not valid UTF-8: tmux's
 * command parser drops a byte 0xFF, and every other byte of invalid
 * UTF-8 would reach the program as bytes no keyboard types (send-keys -l
 * carries every valid character, U+0080 to U+10FFFF, exactly).
 */
static bool
page_decode(struct secret_page *pg, const char *p, size_t len)
{
	const char	*end = p + len;
	size_t		 n = 0;
	int		 hi, lo;
	unsigned char	 ch;

	pg->refused = "the form was not what this page sends";
	if (len < 7 || memcmp(p, "secret=", 7) != 0)
		return (false);
	for (p += 7; p < end && *p != '&'; p++) {
		if (*p == '+')
			ch = ' ';
		else if (*p == '%') {
			if (end - p < 3 || (hi = page_hex(p[1])) == -1 ||
			    (lo = page_hex(p[2])) == -1)
				goto fail;
			ch = (unsigned char)(hi << 4 | lo);
			p += 2;
		} else
			ch = (unsigned char)*p;
		if (ch < 0x20 || ch == 0x7f) {
			pg->refused = "the secret holds a control character "
			    "(such as a line break), which would not reach the "
			    "program as one answer";
			goto fail;
		}
		if (n == sizeof pg->secret - 1) {
			pg->refused = "the secret is too long";
			goto fail;
		}
		pg->secret[n++] = (char)ch;
	}
	if (!utf8_valid(pg->secret, n)) {
		pg->refused = "the secret is not valid UTF-8 text (the browser "
		    "sent bytes no keyboard types), so it could not be typed "
		    "as it is";
		goto fail;
	}
	pg->secret[n] = '\0';
	pg->secret_len = n;
	pg->refused = NULL;
	return (true);
fail:
	wipe(pg->secret, sizeof pg->secret);
	return (false);
}

/* Give the owner what came (or that nothing will), outside a request's
 * handling; the secret is cleared once it returns. */
static void
page_deliver(void *arg)
{
	struct secret_page	*pg = arg;

	if (pg->cb != NULL) {
		pg->in_cb = true;
		if (pg->used && pg->not_taken == NULL)
			pg->cb(pg->arg, pg->secret, pg->secret_len, NULL);
		else
			pg->cb(pg->arg, NULL, 0, pg->not_taken);
		pg->in_cb = false;
	}
	wipe(pg->secret, sizeof pg->secret);
	pg->secret_len = 0;
	page_settle(pg);
}

/* Can the page still take a secret? If its time is up and its timer
 * has not run yet, it stops from the loop. */
static bool
page_open(struct secret_page *pg)
{
	if (!pg->used && !pg->expired && now_ms() >= pg->expires_ms) {
		pg->expired = true;
		loop_timer_set(pg->expiry, now_ms());
	}
	return (!pg->used && !pg->expired && !pg->owner_gone);
}

/* The page took its secret, expired, or its owner let it go. */
static void
page_gone(struct page_conn *c)
{
	page_say(c, 410, "This page is used up", "It took one answer "
	    "already, or it expired. Ask the agent for a new one if the "
	    "program still waits.");
}

/* c's body came whole: the secret, taken or refused. */
static void
page_take(struct page_conn *c)
{
	struct secret_page	*pg = c->pg;
	bool			 ok;

	if (!page_open(pg)) {	/* another connection's came first */
		page_gone(c);
		return;
	}
	ok = page_decode(pg, c->in + c->head, c->length);
	wipe(c->in, c->len);
	if (!ok) {
		page_say(c, 400, "Not sent", pg->refused);
		return;
	}
	pg->used = true;
	loop_timer_clear(pg->expiry);
	loop_timer_set(pg->deliver, now_ms());
	loop_timer_set(pg->grace, now_ms() + PAGE_GRACE_MS);
	if (pg->check != NULL && pg->cb != NULL &&
	    (pg->not_taken = pg->check(pg->arg)) != NULL) {
		wipe(pg->secret, sizeof pg->secret);
		pg->secret_len = 0;
		page_say(c, 409, "Not typed", pg->not_taken);
		return;
	}
	page_say(c, 200, "Sent", "It was typed into the program, followed "
	    "by Enter. You can close this page.");
}

/* c's head came whole: answer it, or wait for its body. */
static void
page_request(struct page_conn *c)
{
	struct secret_page	*pg = c->pg;

	if (!page_is(c, &c->host, pg->host))
		page_say(c, 403, "Refused", "This page answers only at the "
		    "address it was given.");
	else if (!c->ours)
		page_say(c, 404, "Not found", "There is no page here.");
	else if (c->method == PAGE_OTHER)
		page_say(c, 405, "Refused", "Only the form is served here.");
	else if (!page_open(pg))
		page_gone(c);
	else if (c->method == PAGE_GET)
		page_form(c);
	else if (!page_is(c, &c->origin, pg->origin))
		page_say(c, 403, "Refused", "The form must be sent from this "
		    "page itself.");
	else if (c->chunked || !c->has_length)
		page_say(c, 411, "Refused", "The form must say its length.");
	else if (c->length > PAGE_BODY_MAX)
		page_say(c, 413, "Not sent", "The secret is too long.");
	else
		c->want = c->head + c->length;
}

/* Is ch a character of a token (a method, a header's name)? */
static bool
page_tchar(unsigned char ch)
{
	return (ch > 0x20 && ch < 0x7f && strchr("\"(),/:;<=>?@[\\]{}", ch) ==
	    NULL);
}

/* The request line (n bytes at p, its line end cut): 0, or the status
 * that refuses it. */
static unsigned
page_request_line(struct page_conn *c, const char *p, size_t n)
{
	const char	*sp1, *sp2, *v;
	size_t		 i;

	if ((sp1 = memchr(p, ' ', n)) == NULL || sp1 == p ||
	    (sp2 = memchr(sp1 + 1, ' ', n - (size_t)(sp1 + 1 - p))) == NULL ||
	    sp2 == sp1 + 1)
		return (400);
	for (i = 0; p + i < sp1; i++)
		if (!page_tchar((unsigned char)p[i]))
			return (400);
	for (v = sp1 + 1; v < sp2; v++)
		if ((unsigned char)*v <= 0x20 || (unsigned char)*v >= 0x7f)
			return (400);
	v = sp2 + 1;
	if (p + n - v != 8 || (memcmp(v, "HTTP/1.1", 8) != 0 &&
	    memcmp(v, "HTTP/1.0", 8) != 0))
		return (400);
	if (sp1 - p == 3 && memcmp(p, "GET", 3) == 0)
		c->method = PAGE_GET;
	else if (sp1 - p == 4 && memcmp(p, "POST", 4) == 0)
		c->method = PAGE_POST;
	else
		c->method = PAGE_OTHER;
	c->ours = page_same(sp1 + 1, (size_t)(sp2 - sp1 - 1), c->pg->path);
	return (0);
}

/* A header line (n bytes at offset off, its line end cut): 0, or the
 * status that refuses it. */
static unsigned
page_header(struct page_conn *c, size_t off, size_t n)
{
	const char		*p = c->in + off, *colon, *v, *end = p + n;
	struct page_span	*sp = NULL;
	size_t			 name, i;

	if ((colon = memchr(p, ':', n)) == NULL || colon == p)
		return (400);
	name = (size_t)(colon - p);
	for (i = 0; i < name; i++)
		if (!page_tchar((unsigned char)p[i]))
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
			if (c->length > PAGE_IN_MAX)
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

/* The lines of c's head that came whole; then, once the head is whole,
 * its answer, or once its body is whole too, the secret. */
static void
page_parse(struct page_conn *c)
{
	char		*nl;
	size_t		 n, at;
	unsigned	 st = 0;

	while (c->head == 0 && st == 0 && (nl = memchr(c->in + c->line, '\n',
	    c->len - c->line)) != NULL) {
		at = c->line;
		n = (size_t)(nl - (c->in + at));
		c->line = at + n + 1;
		if (n > 0 && c->in[at + n - 1] == '\r')
			n--;
		if (at == 0)
			st = page_request_line(c, c->in, n);
		else if (n == 0)
			c->head = c->line;
		else
			st = page_header(c, at, n);
	}
	if (st == 0 && (c->head > PAGE_HEAD_MAX ||
	    (c->head == 0 && c->len >= PAGE_HEAD_MAX)))
		st = 431;
	if (st != 0) {
		page_say(c, st, "Refused", st == 431 ? "The request's headers "
		    "are too big." : st == 413 ? "The secret is too long." :
		    "This page takes only a browser's request for it.");
		return;
	}
	if (c->head == 0)
		return;
	if (c->want == 0) {
		page_request(c);
		if (c->state != PAGE_READ)
			return;
	}
	if (c->len >= c->want)
		page_take(c);
}

/* c goes: its descriptor closed, every copy of what it sent cleared. */
static void
page_conn_close(struct page_conn *c)
{
	struct secret_page	*pg = c->pg;

	loop_fd_del(c->fd);
	close(c->fd);
	loop_timer_free(c->timer);
	TAILQ_REMOVE(&pg->conns, c, entry);
	pg->nconns--;
	if (c->in != NULL) {
		wipe(c->in, c->cap);
		free(c->in);
	}
	buf_free(&c->out);
	free(c);
	page_settle(pg);
}

/* Read what c sent; false if c is gone. */
static bool
page_conn_read(struct page_conn *c)
{
	char	*bigger, junk[4096];
	ssize_t	 n;

	if (c->state == PAGE_DONE) {	/* answered: its end is awaited */
		n = read(c->fd, junk, sizeof junk);
		wipe(junk, sizeof junk);
		if (n == 0 || (n == -1 && errno != EAGAIN && errno != EINTR)) {
			page_conn_close(c);
			return (false);
		}
		return (true);
	}
	if (c->in == NULL)
		c->in = xmalloc((c->cap = PAGE_IN_FIRST));
	if (c->len == c->cap && c->cap < PAGE_IN_MAX) {
		bigger = xmalloc(PAGE_IN_MAX);
		memcpy(bigger, c->in, c->len);
		wipe(c->in, c->cap);
		free(c->in);
		c->in = bigger;
		c->cap = PAGE_IN_MAX;
	}
	n = read(c->fd, c->in + c->len, c->cap - c->len);
	if (n == -1 && (errno == EAGAIN || errno == EINTR))
		return (true);
	if (n <= 0) {		/* gone before its request was whole */
		page_conn_close(c);
		return (false);
	}
	c->len += (size_t)n;
	page_parse(c);
	return (true);
}

/* Write c's answer; once it went, wait for c's end. */
static void
page_conn_write(struct page_conn *c)
{
	ssize_t	n;

	n = write(c->fd, c->out.data, c->out.len);
	if (n == -1 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		page_conn_close(c);
		return;
	}
	buf_drain(&c->out, (size_t)n);
	if (c->out.len > 0)
		return;
	/* Our end, then whatever it still sends is read and dropped (were
	 * it left unread, closing would reset the connection, and the
	 * answer could be lost before the browser read it). */
	shutdown(c->fd, SHUT_WR);
	c->state = PAGE_DONE;
	loop_fd_mask(c->fd, LOOP_READ);
}

/* c's descriptor is ready for what its state waits on. */
static void
page_conn_ready(int fd, int fired, void *arg)
{
	struct page_conn	*c = arg;

	(void)fd;
	if (c->state == PAGE_WRITE && (fired & LOOP_WRITE))
		page_conn_write(c);
	else if (c->state != PAGE_WRITE && (fired & LOOP_READ))
		page_conn_read(c);
}

/* c's time is up: a request begun is answered 408, anything else ends. */
static void
page_conn_timeout(void *arg)
{
	struct page_conn	*c = arg;

	if (c->state == PAGE_READ && c->len > 0) {
		wipe(c->in, c->len);
		page_say(c, 408, "Too slow", "The request did not come whole "
		    "in time.");
		return;
	}
	page_conn_close(c);
}

/*
 * Room for one more connection: drop one answered, else the one that has
 * waited longest without naming the page, but never one accepted in this
 * turn of the loop (its request may be on its way). What a candidate sent
 * is read first: the person's request may have come since. False if none
 * can go (the newcomer is turned away).
 */
static bool
page_make_room(struct secret_page *pg)
{
	struct page_conn	*c, *next;

	TAILQ_FOREACH(c, &pg->conns, entry)
		if (c->state == PAGE_DONE) {
			page_conn_close(c);
			return (true);
		}
	for (c = TAILQ_FIRST(&pg->conns); c != NULL; c = next) {
		next = TAILQ_NEXT(c, entry);
		if (c->ours || c->turn == loop_turn())
			continue;
		if (c->state == PAGE_READ && !page_conn_read(c))
			return (true);	/* it ended as it was read */
		if (c->ours)
			continue;
		page_conn_close(c);
		return (true);
	}
	return (false);
}

/* A connection accepted: kept, and read at once. */
static void
page_conn_new(struct secret_page *pg, int fd)
{
	struct page_conn	*c;

	if (fd_nonblock(fd, 1) == -1 || fd_cloexec(fd, 1) == -1 ||
	    (pg->nconns == PAGE_CONNS && !page_make_room(pg))) {
		close(fd);
		return;
	}
	c = xcalloc(1, sizeof *c);
	c->pg = pg;
	c->fd = fd;
	c->state = PAGE_READ;
	c->turn = loop_turn();
	c->method = PAGE_OTHER;
	buf_init(&c->out);
	c->timer = loop_timer_new(page_conn_timeout, c);
	loop_timer_set(c->timer, now_ms() + PAGE_REQUEST_MS);
	TAILQ_INSERT_TAIL(&pg->conns, c, entry);
	pg->nconns++;
	loop_fd_add(fd, LOOP_READ, page_conn_ready, c);
	page_conn_read(c);
}

/* Accept what waits, up to PAGE_ACCEPTS this turn; only a peer on the
 * loopback network is kept. */
static void
page_accept(int fd, int fired, void *arg)
{
	struct secret_page	*pg = arg;
	struct sockaddr_in	 sin;
	socklen_t		 slen;
	int			 s, i;

	(void)fd;
	(void)fired;
	for (i = 0; i < PAGE_ACCEPTS && pg->lfd != -1; i++) {
		slen = sizeof sin;
		if ((s = accept(pg->lfd, (struct sockaddr *)&sin, &slen)) ==
		    -1) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			if (errno != EAGAIN && errno != EWOULDBLOCK) {
				/* Out of descriptors (or memory): later. */
				loop_fd_mask(pg->lfd, 0);
				loop_timer_set(pg->backoff, now_ms() +
				    PAGE_BACKOFF_MS);
			}
			return;
		}
		if (slen < sizeof sin || sin.sin_family != AF_INET ||
		    (ntohl(sin.sin_addr.s_addr) >> 24) != 127) {
			close(s);
			continue;
		}
		page_conn_new(pg, s);
	}
}

/* Descriptors may be there again: accept again. */
static void
page_backoff_over(void *arg)
{
	struct secret_page	*pg = arg;

	if (pg->lfd != -1)
		loop_fd_mask(pg->lfd, LOOP_READ);
}

/* No new connection is taken; those there are answered. */
static void
page_stop_listening(struct secret_page *pg)
{
	if (pg->lfd == -1)
		return;
	loop_fd_del(pg->lfd);
	close(pg->lfd);
	pg->lfd = -1;
	loop_timer_clear(pg->backoff);
}

/* The page goes, cleared: its token, its prompt, every timer. */
static void
page_destroy(struct secret_page *pg)
{
	struct secret_page	**pp;

	page_stop_listening(pg);
	for (pp = &page_list; *pp != NULL; pp = &(*pp)->next)
		if (*pp == pg) {
			*pp = pg->next;
			break;
		}
	loop_timer_free(pg->expiry);
	loop_timer_free(pg->deliver);
	loop_timer_free(pg->grace);
	loop_timer_free(pg->backoff);
	free(pg->what);
	wipe(pg, sizeof *pg);
	free(pg);
}

/* A page its owner let go goes once nothing of it is left to do: no
 * listening, no connection, no news for the owner. */
static void
page_settle(struct secret_page *pg)
{
	if (pg->owner_gone && pg->lfd == -1 && TAILQ_EMPTY(&pg->conns) &&
	    !pg->in_cb && !loop_timer_pending(pg->deliver))
		page_destroy(pg);
}

/* The answer to the secret and to any racing it had their time: the
 * page stops listening. */
static void
page_grace_over(void *arg)
{
	struct secret_page	*pg = arg;

	page_stop_listening(pg);
	page_settle(pg);
}

/* Nobody sent a secret in time. */
static void
page_expired(void *arg)
{
	struct secret_page	*pg = arg;

	pg->expired = true;
	page_stop_listening(pg);
	loop_timer_set(pg->deliver, now_ms());
}

/* A socket listening on 127.0.0.1 and a port the system picks; -1. */
static int
page_listen(unsigned *port)
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
	 * the kernel, taking no place here, for PAGE_DEFER_S. */
	(void)osdep_defer_accept(fd, PAGE_DEFER_S);
	return (fd);
}

/*
 * Open a page for a secret, shown with what (the program's prompt), that
 * takes one for ttl_ms. check(arg), as a secret comes, says whether it
 * may be taken. cb is called once: with the secret (cleared when cb
 * returns: copy nothing that outlives it uncleared), or with NULL and
 * the check's why, or NULL and NULL when the page expired first. NULL and *cause
 * if no page could be served.
 */
struct secret_page *
secret_page_open(const char *what, int64_t ttl_ms, secret_page_check check,
    secret_page_cb cb, void *arg, char **cause)
{
	struct secret_page	*pg;
	char			 token[2 * PAGE_TOKEN_BYTES + 1];

	if (randid_hex(token, PAGE_TOKEN_BYTES) == -1) {
		xasprintf(cause, "no random bytes for the page's token");
		return (NULL);
	}
	pg = xcalloc(1, sizeof *pg);
	snprintf(pg->path, sizeof pg->path, "/s/%s", token);
	wipe(token, sizeof token);
	if ((pg->lfd = page_listen(&pg->port)) == -1) {
		xasprintf(cause, "could not serve a page on 127.0.0.1: %s",
		    fd_strerror(errno));
		free(pg);
		return (NULL);
	}
	snprintf(pg->host, sizeof pg->host, "127.0.0.1:%u", pg->port);
	snprintf(pg->origin, sizeof pg->origin, "http://%s", pg->host);
	snprintf(pg->url, sizeof pg->url, "%s%s", pg->origin, pg->path);
	pg->what = xstrdup(what);
	TAILQ_INIT(&pg->conns);
	pg->check = check;
	pg->cb = cb;
	pg->arg = arg;
	pg->expiry = loop_timer_new(page_expired, pg);
	pg->deliver = loop_timer_new(page_deliver, pg);
	pg->grace = loop_timer_new(page_grace_over, pg);
	pg->backoff = loop_timer_new(page_backoff_over, pg);
	pg->expires_ms = now_ms() + ttl_ms;
	loop_timer_set(pg->expiry, pg->expires_ms);
	pg->next = page_list;
	page_list = pg;
	loop_fd_add(pg->lfd, LOOP_READ, page_accept, pg);
	return (pg);
}

/* Its address, for the person (a secret itself until used: it opens
 * the form). */
const char *
secret_page_url(const struct secret_page *pg)
{
	return (pg->url);
}

/* The owner lets go: the page takes nothing more, but answers every
 * request it has (and, once it took the secret, those racing it until
 * its grace is over), then goes. */
void
secret_page_free(struct secret_page *pg)
{
	if (pg == NULL)
		return;
	pg->cb = NULL;
	pg->owner_gone = true;
	if (!pg->used)
		page_stop_listening(pg);
	page_settle(pg);
}
