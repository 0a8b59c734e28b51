/*
 * secret_page.c — the one-time page on which a person types a secret a
 * program asks for (ask_user_secret), so that it goes from the person to
 * the program and never through the agent or its model.
 *
 * Its HTTP is page_http.c (a server of its own on 127.0.0.1 in the
 * front's loop: connections, deadlines, the request's parsing); this
 * file is the page: its address, GET and POST of /s/TOKEN, TOKEN 32
 * random bytes in hex, what each request gets and what the form sends.
 * Beyond what page_http.c refuses itself:
 *
 *   a Host header other than 127.0.0.1:PORT	403 (a DNS rebinding page)
 *   another path (a wrong token, a query)	404
 *   any other method				405
 *   the page once used, or expired		410
 *   a POST whose Origin is not the page's	403 (another site's form)
 *   a secret with a control character, or not valid UTF-8	400
 *
 * Every answer carries a Content-Security-Policy that allows nothing but
 * the page's own style (by its hash) and a form posting to itself; the
 * page loads nothing from anywhere. The address holds the token, a
 * secret: page_http.c never drops a connection whose request named it
 * for another (page_ours says which did).
 *
 * The secret: the POST body, in page_http.c's buffer (cleared once it
 * was handed here), is decoded into the page's own array; given to the
 * owner from a loop timer (never from inside the request's handling,
 * where the owner could not free the page); cleared as soon as the
 * owner returns. Nothing here logs.
 *
 * Its layer is its own (Page): only tool_secret.c calls it; it calls
 * page_http.c, the loop and common/ alone, and knows no tool, program or
 * tmux.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "page_http.h"
#include "randid.h"
#include "secret_page.h"
#include "server.h"
#include "timeutil.h"
#include "utf8.h"
#include "wipe.h"
#include "xmalloc.h"

#define PAGE_TOKEN_BYTES	32
#define PAGE_BODY_MAX		(3 * SECRET_PAGE_MAX + 16) /* url-encoded */
#define PAGE_GRACE_MS		1000	/* after the secret: racing ones told */

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

struct secret_page {
	struct page_http	*http;		/* its server */
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
	struct loop_timer	*deliver;
	struct loop_timer	*grace;

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

/* A short page saying one thing. */
static void
page_say(struct page_http_conn *c, unsigned status, const char *title,
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
	page_http_answer(c, status, buf_cstr(&b));
	buf_free(&b);
}

/* The form. */
static void
page_form(struct secret_page *pg, struct page_http_conn *c)
{
	struct buf	b = BUF_INIT;

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
	page_http_answer(c, 200, buf_cstr(&b));
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

/* Is the header value v (len bytes, NULL if it did not come) s? */
static bool
page_is(const char *v, size_t len, const char *s)
{
	return (v != NULL && len == strlen(s) && memcmp(v, s, len) == 0);
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
page_gone(struct page_http_conn *c)
{
	page_say(c, 410, "This page is used up", "It took one answer "
	    "already, or it expired. Ask the agent for a new one if the "
	    "program still waits.");
}

/* A request's body came whole (len bytes at p): the secret, taken or
 * refused. */
static void
page_body(void *arg, struct page_http_conn *c, const char *p, size_t len)
{
	struct secret_page	*pg = arg;

	if (!page_open(pg)) {	/* another connection's came first */
		page_gone(c);
		return;
	}
	if (!page_decode(pg, p, len)) {
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

/* A request's head came whole: answer it, or true to take its body. */
static bool
page_head(void *arg, struct page_http_conn *c, const struct page_http_req *r)
{
	struct secret_page	*pg = arg;

	if (!page_is(r->host, r->host_len, pg->host))
		page_say(c, 403, "Refused", "This page answers only at the "
		    "address it was given.");
	else if (!r->ours)
		page_say(c, 404, "Not found", "There is no page here.");
	else if (r->method == PAGE_HTTP_OTHER)
		page_say(c, 405, "Refused", "Only the form is served here.");
	else if (!page_open(pg))
		page_gone(c);
	else if (r->method == PAGE_HTTP_GET)
		page_form(pg, c);
	else if (!page_is(r->origin, r->origin_len, pg->origin))
		page_say(c, 403, "Refused", "The form must be sent from this "
		    "page itself.");
	else
		return (true);
	return (false);
}

/* Does a request's target (len bytes at p) name the page? */
static bool
page_ours(void *arg, const char *p, size_t len)
{
	struct secret_page	*pg = arg;

	return (page_same(p, len, pg->path));
}

/* What page_http.c refuses, said as the page says it. */
static void
page_refuse(void *arg, struct page_http_conn *c, unsigned status)
{
	(void)arg;
	switch (status) {
	case 408:
		page_say(c, 408, "Too slow", "The request did not come whole "
		    "in time.");
		break;
	case 411:
		page_say(c, 411, "Refused", "The form must say its length.");
		break;
	case 413:
		page_say(c, 413, "Not sent", "The secret is too long.");
		break;
	case 431:
		page_say(c, 431, "Refused", "The request's headers are too "
		    "big.");
		break;
	default:
		page_say(c, status, "Refused", "This page takes only a "
		    "browser's request for it.");
		break;
	}
}

/* One of its connections ended: the page may be done. */
static void
page_ended(void *arg)
{
	page_settle(arg);
}

/* The page's HTTP: its answers' policy, its limit, its callbacks. */
static const struct page_http_def page_def = {
	.csp = PAGE_CSP,
	.body_max = PAGE_BODY_MAX,
	.ours = page_ours,
	.head = page_head,
	.body = page_body,
	.refuse = page_refuse,
	.ended = page_ended
};

/* The page goes, cleared: its token, its prompt, every timer. */
static void
page_destroy(struct secret_page *pg)
{
	struct secret_page	**pp;

	for (pp = &page_list; *pp != NULL; pp = &(*pp)->next)
		if (*pp == pg) {
			*pp = pg->next;
			break;
		}
	page_http_free(pg->http);
	loop_timer_free(pg->expiry);
	loop_timer_free(pg->deliver);
	loop_timer_free(pg->grace);
	free(pg->what);
	wipe(pg, sizeof *pg);
	free(pg);
}

/* A page its owner let go goes once nothing of it is left to do: no
 * listening, no connection, no news for the owner. */
static void
page_settle(struct secret_page *pg)
{
	if (pg->owner_gone && page_http_idle(pg->http) && !pg->in_cb &&
	    !loop_timer_pending(pg->deliver))
		page_destroy(pg);
}

/* The answer to the secret and to any racing it had their time: the
 * page stops listening. */
static void
page_grace_over(void *arg)
{
	struct secret_page	*pg = arg;

	page_http_stop(pg->http);
	page_settle(pg);
}

/* Nobody sent a secret in time. */
static void
page_expired(void *arg)
{
	struct secret_page	*pg = arg;

	pg->expired = true;
	page_http_stop(pg->http);
	loop_timer_set(pg->deliver, now_ms());
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
	if ((pg->http = page_http_open(&page_def, pg, cause)) == NULL) {
		free(pg);
		return (NULL);
	}
	snprintf(pg->host, sizeof pg->host, "127.0.0.1:%u",
	    page_http_port(pg->http));
	snprintf(pg->origin, sizeof pg->origin, "http://%s", pg->host);
	snprintf(pg->url, sizeof pg->url, "%s%s", pg->origin, pg->path);
	pg->what = xstrdup(what);
	pg->check = check;
	pg->cb = cb;
	pg->arg = arg;
	pg->expiry = loop_timer_new(page_expired, pg);
	pg->deliver = loop_timer_new(page_deliver, pg);
	pg->grace = loop_timer_new(page_grace_over, pg);
	pg->expires_ms = now_ms() + ttl_ms;
	loop_timer_set(pg->expiry, pg->expires_ms);
	pg->next = page_list;
	page_list = pg;
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
		page_http_stop(pg->http);
	page_settle(pg);
}
