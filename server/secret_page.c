/*
 * secret_page.c — the one-time page on which a person types a secret a
 * program asks for (ask_user_secret), so that it goes from the person to
 * the program and never through the agent or its model.
 *
 * HTTP is libmicrohttpd's, driven by our own loop (no thread of its own:
 * its descriptors, from MHD_get_fdset2, are registered with the loop
 * after each MHD_run, and its timeout is a loop timer). It serves one
 * thing: GET and POST of /s/TOKEN, TOKEN 32 random bytes in hex, on
 * 127.0.0.1 and a port the system picks. Everything else is refused:
 *
 *   a peer not on the loopback network	connection refused (accept policy)
 *   a Host header other than 127.0.0.1:PORT	403 (a DNS rebinding page)
 *   another path (a wrong token)		404
 *   a POST whose Origin is not the page's	403 (another site's form)
 *   the page once used, or expired		410
 *   any other method				405
 *
 * Every answer says Cache-Control: no-store and a Content-Security-Policy
 * that allows nothing but the page's own style (by its hash) and a form
 * posting to itself; the page loads nothing from anywhere.
 *
 * The secret: the POST body (form-urlencoded, one field) is copied out of
 * libmicrohttpd's read buffer into the connection's state, and that part
 * of the read buffer cleared at once; decoded into the page's own array;
 * given to the owner from a loop timer (never from inside the HTTP
 * handler, where the owner could not stop the daemon); cleared as soon as
 * the owner returns. Nothing here logs.
 *
 * Its layer is its own (Page): only tool_secret.c calls it; it calls
 * the loop and common/ alone, and knows no tool, program or tmux.
 */
#include <sys/types.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <microhttpd.h>

#include "compat.h"
#include "randid.h"
#include "secret_page.h"
#include "server.h"
#include "timeutil.h"
#include "wipe.h"
#include "xmalloc.h"

#if MHD_VERSION >= 0x00097002
typedef enum MHD_Result mhd_result;
#else
typedef int mhd_result;
#endif

#define PAGE_TOKEN_BYTES	32
#define PAGE_CONNS		4	/* connections at once */
#define PAGE_FDS		(PAGE_CONNS + 1)
#define PAGE_BODY_MAX		(3 * SECRET_PAGE_MAX + 16) /* url-encoded */
#define PAGE_GRACE_MS		1000	/* after the secret: its answer goes */
#define PAGE_CONN_TIMEOUT_S	30

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

/* One connection's request: its POST body so far. */
struct page_req {
	char	body[PAGE_BODY_MAX];
	size_t	len;
	bool	too_big;
};

struct secret_page {
	struct MHD_Daemon	*d;
	unsigned		 port;
	char			 path[4 + 2 * PAGE_TOKEN_BYTES];
	char			 url[64 + 4 + 2 * PAGE_TOKEN_BYTES];
	char			 host[32];	/* "127.0.0.1:PORT" */
	char			 origin[48];	/* "http://127.0.0.1:PORT" */
	char			*what;		/* the prompt, shown */

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
	struct loop_timer	*mhd_timer;
	struct loop_timer	*deliver;
	struct loop_timer	*grace;
	int			 fd[PAGE_FDS];
	int			 nfd;

	char			 secret[SECRET_PAGE_MAX];
	size_t			 secret_len;
	const char		*refused;	/* why the secret was not taken */

	struct secret_page	*next;
};

/* Every page alive, so that one in its grace after its owner went is
 * still ours (until it goes, or the process with it). */
static struct secret_page	*page_list;

static void	page_destroy(struct secret_page *);

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

/* Queue an answer with our headers. */
static mhd_result
page_answer(struct MHD_Connection *c, unsigned status, const char *html)
{
	struct MHD_Response	*r;
	mhd_result		 ret;

	r = MHD_create_response_from_buffer(strlen(html), (void *)html,
	    MHD_RESPMEM_MUST_COPY);
	if (r == NULL)
		return (MHD_NO);
	MHD_add_response_header(r, "Content-Type", "text/html; charset=utf-8");
	MHD_add_response_header(r, "Cache-Control", "no-store");
	MHD_add_response_header(r, "Pragma", "no-cache");
	MHD_add_response_header(r, "Content-Security-Policy", PAGE_CSP);
	MHD_add_response_header(r, "X-Frame-Options", "DENY");
	MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	/* Not no-referrer: with it a browser sends Origin: null on the
	 * form's POST, and the origin could not be checked. */
	MHD_add_response_header(r, "Referrer-Policy", "same-origin");
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, "Allow", "GET, POST");
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return (ret);
}

/* A short page saying one thing. */
static mhd_result
page_say(struct MHD_Connection *c, unsigned status, const char *title,
    const char *text)
{
	struct buf	b = BUF_INIT;
	mhd_result	ret;

	buf_adds(&b, "<!doctype html><html lang=en><head><meta charset=utf-8>"
	    "<meta name=viewport content=\"width=device-width\"><title>");
	page_html(&b, title);
	buf_adds(&b, "</title><style>" PAGE_STYLE "</style></head><body><h1>");
	page_html(&b, title);
	buf_adds(&b, "</h1><p>");
	page_html(&b, text);
	buf_adds(&b, "</p></body></html>");
	ret = page_answer(c, status, buf_cstr(&b));
	buf_free(&b);
	return (ret);
}

/* The form. */
static mhd_result
page_form(struct secret_page *pg, struct MHD_Connection *c)
{
	struct buf	b = BUF_INIT;
	mhd_result	ret;

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
	ret = page_answer(c, MHD_HTTP_OK, buf_cstr(&b));
	buf_free(&b);
	return (ret);
}

/* Do a and b (NUL-terminated) hold the same bytes? Time independent of
 * where they differ, for the token. */
static bool
page_same(const char *a, const char *b)
{
	size_t		la = strlen(a), lb = strlen(b), i;
	unsigned char	d = la != lb;

	for (i = 0; i < la && i < lb; i++)
		d |= (unsigned char)a[i] ^ (unsigned char)b[i];
	return (d == 0);
}

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
 * The body "secret=VALUE" decoded into the page's array: true when it is
 * one to type. A control character (a line break would end the program's
 * read early and type the rest as a second answer; NUL cannot be typed)
 * is refused, as is one longer than SECRET_PAGE_MAX - 1 bytes.
 */
static bool
page_decode(struct secret_page *pg, const struct page_req *pr)
{
	const char	*p = pr->body, *end = pr->body + pr->len;
	size_t		 n = 0;
	int		 hi, lo;
	unsigned char	 ch;

	pg->refused = "the form was not what this page sends";
	if (pr->too_big) {
		pg->refused = "the secret is too long";
		return (false);
	}
	if (pr->len < 7 || memcmp(p, "secret=", 7) != 0)
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
	pg->secret[n] = '\0';
	pg->secret_len = n;
	pg->refused = NULL;
	return (true);
fail:
	wipe(pg->secret, sizeof pg->secret);
	return (false);
}

/* Give the owner what came (or that nothing will), outside the HTTP
 * handler; the secret is cleared once it returns. */
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
	if (pg->owner_gone && pg->d == NULL)
		page_destroy(pg);
}

/* The libmicrohttpd request handler: see the top of the file. */
static mhd_result
page_handle(void *cls, struct MHD_Connection *c, const char *url,
    const char *method, const char *version, const char *upload,
    size_t *upload_size, void **con_cls)
{
	struct secret_page	*pg = cls;
	struct page_req		*pr = *con_cls;
	const char		*host, *origin;
	size_t			 n;

	(void)version;
	host = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Host");
	if (host == NULL || strcmp(host, pg->host) != 0)
		return (page_say(c, MHD_HTTP_FORBIDDEN, "Refused",
		    "This page answers only at the address it was given."));
	if (!page_same(url, pg->path))
		return (page_say(c, MHD_HTTP_NOT_FOUND, "Not found",
		    "There is no page here."));
	if (strcmp(method, "GET") != 0 && strcmp(method, "POST") != 0)
		return (page_say(c, MHD_HTTP_METHOD_NOT_ALLOWED, "Refused",
		    "Only the form is served here."));
	if (!pg->used && !pg->expired && now_ms() >= pg->expires_ms) {
		/* Its timer has not run yet: it stops from the loop. */
		pg->expired = true;
		loop_timer_set(pg->expiry, now_ms());
	}
	if (pg->used || pg->expired || pg->owner_gone)
		return (page_say(c, MHD_HTTP_GONE, "This page is used up",
		    "It took one answer already, or it expired. Ask the agent "
		    "for a new one if the program still waits."));
	if (strcmp(method, "GET") == 0)
		return (page_form(pg, c));

	origin = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Origin");
	if (origin == NULL || strcmp(origin, pg->origin) != 0)
		return (page_say(c, MHD_HTTP_FORBIDDEN, "Refused",
		    "The form must be sent from this page itself."));
	if (pr == NULL) {		/* the headers: the body comes next */
		*con_cls = xcalloc(1, sizeof *pr);
		return (MHD_YES);
	}
	if (*upload_size > 0) {
		n = *upload_size;
		if (pr->len + n > sizeof pr->body) {
			pr->too_big = true;
			n = 0;
		}
		memcpy(pr->body + pr->len, upload, n);
		pr->len += n;
		/* Its copy in the read buffer (ours to consume) goes now. */
		wipe((void *)(uintptr_t)upload, *upload_size);
		*upload_size = 0;
		return (MHD_YES);
	}
	if (!page_decode(pg, pr))
		return (page_say(c, MHD_HTTP_BAD_REQUEST, "Not sent",
		    pg->refused));
	pg->used = true;
	loop_timer_clear(pg->expiry);
	loop_timer_set(pg->deliver, now_ms());
	loop_timer_set(pg->grace, now_ms() + PAGE_GRACE_MS);
	if (pg->check != NULL && pg->cb != NULL &&
	    (pg->not_taken = pg->check(pg->arg)) != NULL) {
		wipe(pg->secret, sizeof pg->secret);
		pg->secret_len = 0;
		return (page_say(c, MHD_HTTP_CONFLICT, "Not typed",
		    pg->not_taken));
	}
	return (page_say(c, MHD_HTTP_OK, "Sent",
	    "It was typed into the program, followed by Enter. You can close "
	    "this page."));
}

/* A request is over: its body goes, cleared. */
static void
page_completed(void *cls, struct MHD_Connection *c, void **con_cls,
    enum MHD_RequestTerminationCode toe)
{
	(void)cls;
	(void)c;
	(void)toe;
	if (*con_cls != NULL) {
		wipe(*con_cls, sizeof (struct page_req));
		free(*con_cls);
		*con_cls = NULL;
	}
}

/* Only a peer on the loopback network is let in. */
static mhd_result
page_accept(void *cls, const struct sockaddr *sa, socklen_t len)
{
	const struct sockaddr_in	*sin = (const struct sockaddr_in *)sa;

	(void)cls;
	if (sa == NULL || sa->sa_family != AF_INET || len < sizeof *sin)
		return (MHD_NO);
	return ((ntohl(sin->sin_addr.s_addr) >> 24) == 127 ? MHD_YES : MHD_NO);
}

static void	page_sync(struct secret_page *);

/* One of its descriptors is ready, or its timeout came: let it work. */
static void
page_run(struct secret_page *pg)
{
	if (pg->d == NULL)
		return;
	MHD_run(pg->d);
	page_sync(pg);
}

static void
page_fd_ready(int fd, int fired, void *arg)
{
	(void)fd;
	(void)fired;
	page_run(arg);
}

static void
page_timeout(void *arg)
{
	page_run(arg);
}

/* Register with the loop what it waits on now, and nothing else. */
static void
page_sync(struct secret_page *pg)
{
	fd_set			rs, ws, es;
	MHD_socket		max = -1;
	int			fd, mask, keep[PAGE_FDS], nkeep = 0, i;
	MHD_UNSIGNED_LONG_LONG	to;

	FD_ZERO(&rs);
	FD_ZERO(&ws);
	FD_ZERO(&es);
	if (MHD_get_fdset2(pg->d, &rs, &ws, &es, &max, FD_SETSIZE) != MHD_YES)
		max = -1;
	for (fd = 0; fd <= max && fd < FD_SETSIZE; fd++) {
		mask = (FD_ISSET(fd, &rs) ? LOOP_READ : 0) |
		    (FD_ISSET(fd, &ws) ? LOOP_WRITE : 0);
		if (mask == 0 || nkeep == PAGE_FDS)
			continue;
		loop_fd_add(fd, mask, page_fd_ready, pg);
		keep[nkeep++] = fd;
	}
	for (i = 0; i < pg->nfd; i++) {
		for (fd = 0; fd < nkeep; fd++)
			if (keep[fd] == pg->fd[i])
				break;
		if (fd == nkeep)
			loop_fd_del(pg->fd[i]);
	}
	memcpy(pg->fd, keep, sizeof keep);
	pg->nfd = nkeep;
	if (MHD_get_timeout(pg->d, &to) == MHD_YES)
		loop_timer_set(pg->mhd_timer, now_ms() + (int64_t)to);
	else
		loop_timer_clear(pg->mhd_timer);
}

/* The daemon goes: nothing more is served, the port is closed. */
static void
page_stop(struct secret_page *pg)
{
	int	i;

	for (i = 0; i < pg->nfd; i++)
		loop_fd_del(pg->fd[i]);
	pg->nfd = 0;
	if (pg->d != NULL)
		MHD_stop_daemon(pg->d);
	pg->d = NULL;
	loop_timer_clear(pg->mhd_timer);
}

/* The answer to the secret's POST had its time to go. */
static void
page_grace_over(void *arg)
{
	struct secret_page	*pg = arg;

	page_stop(pg);
	if (pg->owner_gone && !pg->in_cb && !loop_timer_pending(pg->deliver))
		page_destroy(pg);
}

/* Nobody sent a secret in time. */
static void
page_expired(void *arg)
{
	struct secret_page	*pg = arg;

	pg->expired = true;
	page_stop(pg);
	loop_timer_set(pg->deliver, now_ms());
}

static void
page_destroy(struct secret_page *pg)
{
	struct secret_page	**pp;

	page_stop(pg);
	for (pp = &page_list; *pp != NULL; pp = &(*pp)->next)
		if (*pp == pg) {
			*pp = pg->next;
			break;
		}
	loop_timer_free(pg->expiry);
	loop_timer_free(pg->mhd_timer);
	loop_timer_free(pg->deliver);
	loop_timer_free(pg->grace);
	free(pg->what);
	wipe(pg, sizeof *pg);
	free(pg);
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
	struct secret_page		*pg;
	struct sockaddr_in		 sin;
	socklen_t			 slen = sizeof sin;
	const union MHD_DaemonInfo	*info;
	char				 token[2 * PAGE_TOKEN_BYTES + 1];

	if (randid_hex(token, PAGE_TOKEN_BYTES) == -1) {
		xasprintf(cause, "no random bytes for the page's token");
		return (NULL);
	}
	pg = xcalloc(1, sizeof *pg);
	snprintf(pg->path, sizeof pg->path, "/s/%s", token);
	wipe(token, sizeof token);

	memset(&sin, 0, sizeof sin);
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sin.sin_port = 0;
	pg->d = MHD_start_daemon(MHD_NO_FLAG, 0, page_accept, NULL,
	    page_handle, pg,
	    MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sin,
	    MHD_OPTION_CONNECTION_LIMIT, (unsigned)PAGE_CONNS,
	    MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)PAGE_CONN_TIMEOUT_S,
	    MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(32 * 1024),
	    MHD_OPTION_NOTIFY_COMPLETED, page_completed, NULL,
	    MHD_OPTION_END);
	if (pg->d == NULL ||
	    (info = MHD_get_daemon_info(pg->d, MHD_DAEMON_INFO_LISTEN_FD)) ==
	    NULL || getsockname(info->listen_fd, (struct sockaddr *)&sin,
	    &slen) == -1 || info->listen_fd >= FD_SETSIZE) {
		xasprintf(cause, "could not serve a page on 127.0.0.1");
		if (pg->d != NULL)
			MHD_stop_daemon(pg->d);
		free(pg);
		return (NULL);
	}
	pg->port = ntohs(sin.sin_port);
	snprintf(pg->host, sizeof pg->host, "127.0.0.1:%u", pg->port);
	snprintf(pg->origin, sizeof pg->origin, "http://%s", pg->host);
	snprintf(pg->url, sizeof pg->url, "%s%s", pg->origin, pg->path);
	pg->what = xstrdup(what);
	pg->check = check;
	pg->cb = cb;
	pg->arg = arg;
	pg->expiry = loop_timer_new(page_expired, pg);
	pg->mhd_timer = loop_timer_new(page_timeout, pg);
	pg->deliver = loop_timer_new(page_deliver, pg);
	pg->grace = loop_timer_new(page_grace_over, pg);
	pg->expires_ms = now_ms() + ttl_ms;
	loop_timer_set(pg->expiry, pg->expires_ms);
	pg->next = page_list;
	page_list = pg;
	page_sync(pg);
	return (pg);
}

/* Its address, for the person (a secret itself until used: it opens
 * the form). */
const char *
secret_page_url(const struct secret_page *pg)
{
	return (pg->url);
}

/* The owner lets go: the page takes nothing more. One whose answer to
 * the secret is still going lives until it went. */
void
secret_page_free(struct secret_page *pg)
{
	if (pg == NULL)
		return;
	pg->cb = NULL;
	pg->owner_gone = true;
	if (pg->in_cb || loop_timer_pending(pg->deliver) ||
	    (pg->d != NULL && pg->used))
		return;
	page_destroy(pg);
}
