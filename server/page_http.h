/*
 * page_http.h — a small HTTP/1.1 server of its own on 127.0.0.1, run
 * from the front's loop (page_http.c), for one page at one address. Its
 * owner (secret_page.c) gives it a page_http_def: the answers' policy,
 * the body's limit and the callbacks through which it judges and
 * answers each request.
 */
#ifndef PROGMUX_PAGE_HTTP_H
#define PROGMUX_PAGE_HTTP_H

#include <stdbool.h>
#include <stddef.h>

enum page_http_method { PAGE_HTTP_GET, PAGE_HTTP_POST, PAGE_HTTP_OTHER };

struct page_http;		/* the server: its socket, its connections */
struct page_http_conn;		/* one connection and its one request */

/* A request's head, whole, as its owner sees it. */
struct page_http_req {
	enum page_http_method	 method;
	bool			 ours;		/* its target named the page */
	const char		*host;		/* its Host, or NULL */
	size_t			 host_len;
	const char		*origin;	/* its Origin, or NULL */
	size_t			 origin_len;
};

/* What the owner gives; each callback is called with the open's arg. */
struct page_http_def {
	const char	*csp;		/* each answer's Content-Security-Policy */
	size_t		 body_max;	/* bytes of a body, at most */
	/* Does a request's target (len bytes at p) name the page? A
	 * connection whose request does is never dropped for another. */
	bool		(*ours)(void *arg, const char *p, size_t len);
	/* c's head came whole: answer it and return false, or return true
	 * to take its body (by Content-Length alone, at most body_max
	 * bytes: anything else is refused with 411 or 413). */
	bool		(*head)(void *arg, struct page_http_conn *c,
			    const struct page_http_req *);
	/* c's body came whole (len bytes at p, cleared once this
	 * returns): answer it. */
	void		(*body)(void *arg, struct page_http_conn *c,
			    const char *p, size_t len);
	/* c is refused with status (400, 408, 411, 413 or 431): answer it. */
	void		(*refuse)(void *arg, struct page_http_conn *c,
			    unsigned status);
	/* A connection ended: the server may be idle now (the owner may
	 * free it from here). */
	void		(*ended)(void *arg);
};

struct page_http *page_http_open(const struct page_http_def *, void *arg,
		    char **cause);
unsigned	 page_http_port(const struct page_http *);
void		 page_http_answer(struct page_http_conn *, unsigned status,
		    const char *html);
void		 page_http_stop(struct page_http *);
bool		 page_http_idle(const struct page_http *);
void		 page_http_free(struct page_http *);

#endif
