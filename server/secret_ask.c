/*
 * secret_ask.c — one ask of ask_user_secret (tool_secret.c), from its page
 * to the pane: the asks open, whether the program can still take the
 * secret, the secret typed when the page hands it over, and the reply.
 *
 * When the secret comes (secret_ask_came, the page's callback), the
 * program must still wait for hidden input: one that turned echo back on
 * (or ended, or stopped waiting) gets nothing, and the page and the
 * result say why. The secret is quoted for tmux's parser in a buffer
 * made big enough first and sent by the control client's secret command
 * (tool_pane_type_secret: never logged, its queue cleared once
 * written), then Enter; the reply to it is read as send_keys with
 * timeoutMs reads one (tool_read_reply). The result never holds the
 * secret: how many characters were typed and what the program answered.
 *
 * Layer: tools (with tool_secret.c); the page (secret_page.c) calls back
 * through the functions it was given.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "secret_page.h"
#include "server.h"
#include "xmalloc.h"

static struct secret_ask	*asks;		/* every page open */

/* Once typed, the call waits for the program's reply as send_keys'
 * does. */
static const struct tool_entry secret_ask_reply_entry =
    WATCH_ENTRY("ask_user_secret", NULL);

/* A new ask is open: kept until secret_ask_free. */
void
secret_ask_add(struct secret_ask *a)
{
	a->next = asks;
	asks = a;
}

/* The ask open for program prog (with this elicitationId, if eid is not
 * NULL, asked by input_required), or NULL. */
struct secret_ask *
secret_ask_find(uint64_t prog, const char *eid)
{
	struct secret_ask	*a;

	for (a = asks; a != NULL; a = a->next)
		if (a->prog == prog && (eid == NULL || (a->mrtr &&
		    strcmp(a->eid, eid) == 0)))
			return (a);
	return (NULL);
}

static void
secret_ask_unlink(struct secret_ask *a)
{
	struct secret_ask	**pp;

	for (pp = &asks; *pp != NULL; pp = &(*pp)->next)
		if (*pp == a) {
			*pp = a->next;
			break;
		}
}

void
secret_ask_free(struct secret_ask *a)
{
	if (a == NULL)
		return;
	secret_ask_unlink(a);
	secret_page_free(a->page);
	free(a->pane);
	free(a);
}

/* Why the program cannot take the secret now, or NULL if it can. */
const char *
secret_ask_why_not(struct program *p)
{
	if (p == NULL || program_ended(p) ||
	    program_state(p) != PROGRAM_RUNNING)
		return ("the program is no longer running");
	if (!program_waiting(p))
		return ("the program no longer waits for input");
	if (!program_input_hidden(p))
		return ("the program no longer reads with echo off (echo was "
		    "turned back on): what is typed would be shown on its "
		    "screen and kept in its text, so nothing was typed");
	return (NULL);
}

/* The page asks, as the secret comes in: may it be typed? */
const char *
secret_ask_check(void *arg)
{
	struct secret_ask	*a = arg;

	return (secret_ask_why_not(program_by_seq(a->prog)));
}

/* A result of nothing typed (yet): its ids and typed false. */
void
secret_ask_result(struct toolres *res, struct secret_ask *a,
    struct program *p)
{
	toolres_init(res);
	jw_obj_begin(&res->w);
	jw_key(&res->w, "programId");
	jw_str(&res->w, p != NULL ? program_id(p) : "");
	jw_key(&res->w, "paneId");
	jw_str(&res->w, a->pane);
	jw_key(&res->w, "typed");
	jw_bool(&res->w, false);
}

/* The call waiting for the secret: answered with why nothing was typed. */
void
secret_ask_untyped(struct secret_ask *a)
{
	struct toolres	res;
	char		shown[TOOLS_PANE_SHOWN_MAX];

	if (a->req == NULL)
		return;
	secret_ask_result(&res, a, program_by_seq(a->prog));
	jw_key(&res.w, "notTyped");
	jw_str(&res.w, a->why);
	jw_obj_end(&res.w);
	buf_printf(&res.text, "nothing was typed into %s: %s",
	    tools_pane_shown(a->pane, shown), a->why);
	tools_set_state(a->req, NULL);
	tools_reply(a->req, &res);
	toolres_free(&res);
	a->req = NULL;
}

/* The reply's own fields, beside send_keys' (tool_read_answer). */
static void
secret_ask_put(struct jw *w, struct buf *text, void *arg)
{
	size_t	*chars = arg;

	if (w != NULL) {
		jw_key(w, "typed");
		jw_bool(w, true);
		jw_key(w, "typedCharacters");
		jw_int(w, (int64_t)*chars);
	} else
		buf_printf(text, "typed the secret the person gave (%zu "
		    "characters, not shown) and Enter\n", *chars);
}

/* The reply to what was typed, read for req as send_keys with
 * timeoutMs reads it; a is freed. */
void
secret_ask_reply(struct secret_ask *a, struct req *req, struct program *p)
{
	struct tool_read_extra	*x;

	a->req = NULL;
	tools_set_state(req, NULL);
	tools_set_entry(req, &secret_ask_reply_entry);
	x = xcalloc(1, sizeof *x);
	x->put = secret_ask_put;
	x->chars = a->chars;
	x->arg = &x->chars;
	tool_read_reply(req, p, a->pane, a->typed_from, a->typed_len, false,
	    a->wait_ms, x);
	secret_ask_free(a);
}

/* Enter went: the reply, if a call waits for it. Asked by
 * input_required, the outcome waits for the call made again. */
static void
secret_ask_sent(void *arg, bool ok, const char *out, size_t len)
{
	struct secret_ask	*a = arg;
	struct program		*p = program_by_seq(a->prog);

	if (!ok) {
		log_warn("ask_user_secret: %s: %.*s", a->pane, (int)len, out);
		if (a->why == NULL)
			a->why = "tmux did not take the keys";
	}
	if (a->why == NULL && p == NULL)
		a->why = "the program was removed";
	if (a->req == NULL && a->mrtr) {
		a->over = true;
		return;
	}
	if (a->req == NULL || a->why != NULL) {
		secret_ask_untyped(a);
		secret_ask_free(a);
		return;
	}
	secret_ask_reply(a, a->req, p);
}

/* The secret's send-keys answered (Enter's answer ends it). */
static void
secret_ask_step(void *arg, bool ok, const char *out, size_t len)
{
	struct secret_ask	*a = arg;

	(void)out;
	(void)len;
	if (!ok)
		a->why = "tmux did not take the keys (the tmux control client "
		    "was not attached, or the pane is gone)";
}

/* Type secret (len bytes) and Enter into the ask's pane. */
static void
secret_ask_type(struct secret_ask *a, struct program *p, const char *secret,
    size_t len)
{
	a->typed_from = textbuf_line_start(program_text(p));
	a->typed_len = program_text(p)->len;
	a->chars = utf8_count(secret, len);
	program_keys_sent(p);
	tool_pane_type_secret(a->pane, secret, secret_ask_step, a);
	if (a->why != NULL) {
		/* Refused at once (no attached client): no Enter alone. */
		secret_ask_sent(a, false, a->why, strlen(a->why));
		return;
	}
	tool_pane_enter(a->pane, secret_ask_sent, a);
}

/* The page's news: the secret (cleared when this returns), or why none
 * will be typed. */
void
secret_ask_came(void *arg, const char *secret, size_t len, const char *why)
{
	struct secret_ask	*a = arg;
	struct program		*p = program_by_seq(a->prog);

	tools_elicit_done(a->eid);
	if (secret != NULL && why == NULL)
		why = secret_ask_why_not(p);
	if (secret == NULL || why != NULL) {
		a->why = why != NULL ? why : "the page expired before the "
		    "person sent the secret";
		log_info("ask_user_secret: %s: nothing typed: %s", a->pane,
		    a->why);
		secret_page_free(a->page);
		a->page = NULL;
		if (a->req == NULL && a->mrtr && secret != NULL) {
			a->over = true;	/* told to the call made again */
			return;
		}
		secret_ask_untyped(a);
		secret_ask_free(a);
		return;
	}
	secret_ask_type(a, p, secret, len);
	secret_page_free(a->page);	/* its answer still goes out */
	a->page = NULL;
}
