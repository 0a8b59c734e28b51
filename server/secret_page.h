/*
 * secret_page.h — the one-time page on 127.0.0.1 on which a person types
 * a secret for a program (secret_page.c), its HTTP its own (page_http.c,
 * which only the page uses). Built where PROGMUX_SECRET_PAGE is (not on
 * macOS by default); without it there is no ask_user_secret.
 */
#ifndef PROGMUX_SECRET_PAGE_H
#define PROGMUX_SECRET_PAGE_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

#define SECRET_PAGE_MAX	1024	/* bytes of a secret, its NUL included */

struct secret_page;
/* As a secret comes, before the page says it was taken: NULL if it may
 * be, else why not (the page says so and takes nothing more). */
typedef const char *(*secret_page_check)(void *arg);
/* Once: the secret (cleared once this returns) and why NULL; or secret
 * NULL and why: refused by the check, or NULL: the page expired. */
typedef void	(*secret_page_cb)(void *arg, const char *secret, size_t len,
		    const char *why);

struct secret_page *secret_page_open(const char *what, int64_t ttl_ms,
		    secret_page_check, secret_page_cb, void *arg,
		    char **cause);
const char	*secret_page_url(const struct secret_page *);
void		 secret_page_free(struct secret_page *);

#endif
