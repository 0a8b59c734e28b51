/*
 * tool_secret.c — ask_user_secret: a password a program asks for goes
 * from the person to the program, never through the agent or its model.
 *
 * For a program that waits for hidden input (inputHidden: echo off in
 * line mode), a one-time page is served on 127.0.0.1 (secret_page.c); the
 * person opens it and types the secret; it is typed into the program's
 * pane with send-keys -l, then Enter, and nothing of it is kept. The
 * result never holds the secret: how many characters were typed and, as
 * send_keys with timeoutMs, what the program answered.
 *
 * The person gets the page's address by URL-mode elicitation when the
 * client offers it (the protocol layer asks, through tools_elicit_url);
 * otherwise the result gives the address, saying that the person must
 * open it and the model must not, and the call is over: what the program
 * answers is then read with read_program.
 *
 * When the secret comes, the program must still wait for hidden input:
 * one that turned echo back on (or ended, or stopped waiting) gets
 * nothing, and the page and the result say why. The secret is quoted for
 * tmux's parser (tmux_quote) in a buffer made big enough first, sent by
 * tmux_command_secret (never logged, its queue cleared once written),
 * and every buffer that held it is cleared (wipe).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compat.h"
#include "log.h"
#include "randid.h"
#include "secret_page.h"
#include "server.h"
#include "timeutil.h"
#include "wipe.h"
#include "xmalloc.h"

#define TOOL_SECRET_WAIT_MS	5000	/* default timeoutMs: its answer */
#define TOOL_SECRET_PROMPT	200	/* bytes of the prompt shown */

static const struct tool_entry tool_secret_reply_entry;

/* One page for one program's prompt. */
struct secret_ask {
	uint64_t		 prog;		/* program_seq of it */
	char			*pane;
	struct secret_page	*page;
	struct req		*req;		/* the call waiting, or NULL */
	int64_t			 wait_ms;	/* timeoutMs */
	int64_t			 asked_ms;	/* when the page opened */
	char			 eid[33];	/* elicitationId, requestState */
	bool			 mrtr;		/* asked by input_required: the
						   outcome waits for the call
						   made again */
	bool			 over;		/* typed (why NULL) or not */
	size_t			 chars;		/* characters typed */
	size_t			 typed_from, typed_len;
	const char		*why;		/* nothing typed: why */
	struct secret_ask	*next;
};

static struct secret_ask	*asks;		/* every page open */

static void
tool_secret_unlink(struct secret_ask *a)
{
	struct secret_ask	**pp;

	for (pp = &asks; *pp != NULL; pp = &(*pp)->next)
		if (*pp == a) {
			*pp = a->next;
			break;
		}
}

static void
tool_secret_free(struct secret_ask *a)
{
	if (a == NULL)
		return;
	tool_secret_unlink(a);
	secret_page_free(a->page);
	free(a->pane);
	free(a);
}

/* Why the program cannot take the secret now, or NULL if it can. */
static const char *
tool_secret_why_not(struct program *p)
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
static const char *
tool_secret_check(void *arg)
{
	struct secret_ask	*a = arg;

	return (tool_secret_why_not(program_by_seq(a->prog)));
}

/* The call waiting for the secret: answered with why nothing was typed. */
static void
tool_secret_untyped(struct secret_ask *a)
{
	struct toolres	res;
	struct program	*p = program_by_seq(a->prog);
	char		shown[TOOLS_PANE_SHOWN_MAX];

	if (a->req == NULL)
		return;
	toolres_init(&res);
	jw_obj_begin(&res.w);
	jw_key(&res.w, "programId");
	jw_str(&res.w, p != NULL ? program_id(p) : "");
	jw_key(&res.w, "paneId");
	jw_str(&res.w, a->pane);
	jw_key(&res.w, "typed");
	jw_bool(&res.w, false);
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
tool_secret_put(struct jw *w, struct buf *text, void *arg)
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
static void
tool_secret_reply(struct secret_ask *a, struct req *req, struct program *p)
{
	struct tool_read_extra	*x;

	a->req = NULL;
	tools_set_state(req, NULL);
	tools_set_entry(req, &tool_secret_reply_entry);
	x = xcalloc(1, sizeof *x);
	x->put = tool_secret_put;
	x->chars = a->chars;
	x->arg = &x->chars;
	tool_read_reply(req, p, a->pane, a->typed_from, a->typed_len, false,
	    a->wait_ms, x);
	tool_secret_free(a);
}

/* Enter went: the reply, if a call waits for it. Asked by
 * input_required, the outcome waits for the call made again. */
static void
tool_secret_sent(void *arg, bool ok, const char *out, size_t len)
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
		tool_secret_untyped(a);
		tool_secret_free(a);
		return;
	}
	tool_secret_reply(a, a->req, p);
}

/* The secret's send-keys answered (Enter's answer ends it). */
static void
tool_secret_step(void *arg, bool ok, const char *out, size_t len)
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
tool_secret_type(struct secret_ask *a, struct program *p, const char *secret,
    size_t len)
{
	struct buf	b = BUF_INIT;
	char		line[64];

	a->typed_from = textbuf_line_start(program_text(p));
	a->typed_len = program_text(p)->len;
	a->chars = utf8_count(secret, len);
	program_keys_sent(p);
	/* Room for the quoted secret first: it is never moved. */
	buf_reserve(&b, 2 * len + 64);
	buf_printf(&b, "send-keys -t %s -l -- ", a->pane);
	tmux_quote(&b, secret);
	tmux_command_secret(buf_cstr(&b), tool_secret_step, a);
	wipe_buf(&b);
	if (a->why != NULL) {
		/* Refused at once (no attached client): no Enter alone. */
		tool_secret_sent(a, false, a->why, strlen(a->why));
		return;
	}
	snprintf(line, sizeof line, "send-keys -t %s Enter", a->pane);
	tmux_command(line, tool_secret_sent, a);
}

/* The page's news: the secret (cleared when this returns), or why none
 * will be typed. */
static void
tool_secret_came(void *arg, const char *secret, size_t len, const char *why)
{
	struct secret_ask	*a = arg;
	struct program		*p = program_by_seq(a->prog);

	tools_elicit_done(a->eid);
	if (secret != NULL && why == NULL)
		why = tool_secret_why_not(p);
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
		tool_secret_untyped(a);
		tool_secret_free(a);
		return;
	}
	tool_secret_type(a, p, secret, len);
	secret_page_free(a->page);	/* its answer still goes out */
	a->page = NULL;
}

/* The text and fields of a result that gives the person the address. */
static void
tool_secret_url_reply(struct req *req, struct secret_ask *a,
    struct program *p)
{
	struct toolres	res;
	const char	*url = secret_page_url(a->page);

	toolres_init(&res);
	jw_obj_begin(&res.w);
	jw_key(&res.w, "programId");
	jw_str(&res.w, program_id(p));
	jw_key(&res.w, "paneId");
	jw_str(&res.w, a->pane);
	jw_key(&res.w, "typed");
	jw_bool(&res.w, false);
	jw_key(&res.w, "urlForUser");
	jw_str(&res.w, url);
	jw_key(&res.w, "expiresInMs");
	jw_int(&res.w, cfg.secret_page_ms);
	jw_obj_end(&res.w);
	buf_printf(&res.text, "%s waits for a secret. This client cannot show "
	    "the person a page, so give the person this address to open in "
	    "a browser on this computer and type the secret there:\n%s\n"
	    "The person must open it; you, the model, must not open or fetch "
	    "it, and must not ask for the secret in the conversation. It "
	    "takes one answer within %lld s. When the person says it is sent, "
	    "read_program %s shows what the program answered.", program_id(p),
	    url, (long long)(cfg.secret_page_ms / 1000), program_id(p));
	tools_reply(req, &res);
	toolres_free(&res);
}

/* req waits for the secret: until the page expires, and the reply. */
static void
tool_secret_wait(struct secret_ask *a, struct req *req)
{
	a->req = req;
	tools_set_state(req, a);
	tools_set_deadline(req, now_ms() + cfg.secret_page_ms + a->wait_ms +
	    1000);
	tools_progress_start(req);
}

/* A progress note while the person has the page (a client that resets
 * its timeout on progress waits as long as the page does). */
static void
tool_secret_progress(struct req *req)
{
	struct secret_ask	*a = tools_state(req);
	char			 msg[160];
	int64_t			 waited;

	if (a == NULL || a->page == NULL)
		return;
	waited = now_ms() - a->asked_ms;
	snprintf(msg, sizeof msg, "waiting %lld s for the person to send "
	    "the secret on the page", (long long)(waited / 1000));
	tools_progress_send(req, (double)waited, (double)cfg.secret_page_ms,
	    msg);
}

/*
 * The call made again after input_required (2026-07-28), with the
 * person's action: declined, the page goes; accepted, the call waits
 * for the secret, or answers at once if it came (and was typed, or not)
 * meanwhile.
 */
static void
tool_secret_resume(struct req *req, struct program *p, const char *state,
    const char *action)
{
	struct secret_ask	*a;

	for (a = asks; a != NULL; a = a->next)
		if (a->mrtr && a->prog == program_seq(p) &&
		    strcmp(a->eid, state) == 0)
			break;
	if (a == NULL) {
		tools_error(req, "ask_user_secret: %s: no page is open under "
		    "this requestState (it expired, was used, or a newer call "
		    "replaced it); call ask_user_secret again without it",
		    program_id(p));
		return;
	}
	a->mrtr = false;
	if (strcmp(action, "accept") != 0 && !a->over) {
		a->why = strcmp(action, "decline") == 0 ? "the person declined "
		    "to open the page" : "the person dismissed the request";
		a->req = req;
		tool_secret_untyped(a);
		tool_secret_free(a);
		return;
	}
	if (a->over && a->why != NULL) {
		a->req = req;
		tool_secret_untyped(a);
		tool_secret_free(a);
		return;
	}
	if (a->over) {
		tool_secret_reply(a, req, p);
		return;
	}
	tool_secret_wait(a, req);
}

/* The person's answer to the elicitation (2025-11-25): accepted, the
 * call goes on waiting for the secret; else the page goes. */
static void
tool_secret_elicited(struct req *req, const char *action)
{
	struct secret_ask	*a = tools_state(req);

	if (a == NULL || strcmp(action, "accept") == 0)
		return;
	a->why = strcmp(action, "decline") == 0 ? "the person declined to "
	    "open the page" : "the person dismissed the request";
	tools_elicit_done(a->eid);
	tool_secret_untyped(a);
	tool_secret_free(a);
}

/* ask_user_secret. */
static void
tool_secret_run(struct req *req, const struct json *args)
{
	const char		*id = tools_arg_str(args, "programId", NULL);
	struct buf		 msg = BUF_INIT;
	struct program		*p;
	struct secret_ask	*a, *old;
	const char		*why, *state, *action;
	char			*cause = NULL, prompt[TOOL_SECRET_PROMPT + 1];
	char			*message, eid[sizeof a->eid];
	char			 shown[TOOLS_PANE_SHOWN_MAX];
	size_t			 s, e;
	int			 r;

	if ((p = program_find(id)) == NULL) {
		report_unknown(&msg, id);
		tools_error(req, "%s", buf_cstr(&msg));
		buf_free(&msg);
		return;
	}
	if (tools_elicit_resumed(req, &state, &action)) {
		tool_secret_resume(req, p, state, action);
		return;
	}
	/* The same checks as when the secret comes, said for a first ask. */
	why = NULL;
	if (program_ended(p) || program_state(p) != PROGRAM_RUNNING)
		why = tool_secret_why_not(p);
	else if (!program_waiting(p))
		why = "it does not wait for input now (ask when read_program "
		    "says inputHidden)";
	else if (!program_input_hidden(p))
		why = "it waits for input that its terminal echoes (not a "
		    "password prompt): answer it with send_keys";
	if (why != NULL) {
		tools_error(req, "ask_user_secret: %s: %s", program_id(p), why);
		return;
	}
	textbuf_unfinished(program_text(p), 0, TOOL_SECRET_PROMPT, &s, &e);
	snprintf(prompt, sizeof prompt, "%.*s", (int)(e - s),
	    report_text_at(program_text(p), s));

	/* A new page for its prompt replaces one asked before. */
	for (old = asks; old != NULL; old = old->next)
		if (old->prog == program_seq(p))
			break;
	if (old != NULL) {
		old->why = "a newer ask_user_secret call replaced this page";
		tool_secret_untyped(old);
		tool_secret_free(old);
	}

	if (randid_hex(eid, (sizeof eid - 1) / 2) == -1) {
		tools_error(req, "ask_user_secret: no random bytes");
		return;
	}
	a = xcalloc(1, sizeof *a);
	memcpy(a->eid, eid, sizeof eid);
	a->prog = program_seq(p);
	a->asked_ms = now_ms();
	a->pane = xstrdup(program_pane_id(p));
	a->wait_ms = tools_arg_int(args, "timeoutMs", TOOL_SECRET_WAIT_MS);
	if (a->wait_ms > cfg.wait_max_ms)
		a->wait_ms = cfg.wait_max_ms;
	a->page = secret_page_open(prompt, cfg.secret_page_ms,
	    tool_secret_check, tool_secret_came, a, &cause);
	if (a->page == NULL) {
		tools_error(req, "ask_user_secret: %s", cause);
		free(cause);
		free(a->pane);
		free(a);
		return;
	}
	a->next = asks;
	asks = a;
	log_info("ask_user_secret: a page for %s (%s)", program_id(p),
	    a->pane);

	/* The person is asked by the client, if it can; else the address
	 * goes in the result. */
	xasprintf(&message, "A program that the AI agent runs (%s, in tmux "
	    "pane %s) asks for a password or passphrase: \"%s\". Open this "
	    "page on this computer and type it there: it goes to the "
	    "program, not to the agent or its model.", program_id(p),
	    tools_pane_shown(a->pane, shown), prompt);
	r = tools_elicit_url(req, secret_page_url(a->page), message, a->eid);
	free(message);
	if (r == TOOLS_ELICIT_RETURNED) {
		a->mrtr = true;		/* req is answered and gone */
		return;
	}
	if (r == TOOLS_ELICIT_ASKED) {
		tool_secret_wait(a, req);
		return;
	}
	tool_secret_url_reply(req, a, p);
}

/* The client gave up on the call: the page goes. */
static void
tool_secret_cancel(struct req *req)
{
	struct secret_ask	*a = tools_state(req);

	if (a == NULL)
		return;
	a->req = NULL;
	tool_secret_free(a);
}

/* The page outlived its own expiry (it answers first): as cancelled. */
static void
tool_secret_timeout(struct req *req)
{
	struct secret_ask	*a = tools_state(req);

	if (a == NULL)
		return;
	a->why = "the page expired before the person sent the secret";
	tool_secret_untyped(a);
	tool_secret_free(a);
}

/* Once typed, it waits for the program's reply as send_keys does. */
static const struct tool_entry tool_secret_reply_entry =
    WATCH_ENTRY("ask_user_secret", NULL);

const struct tool_entry tool_secret_entry = {
	.name = "ask_user_secret",
	.run = tool_secret_run,
	.cancel = tool_secret_cancel,
	.timeout = tool_secret_timeout,
	.progress = tool_secret_progress,
	.elicited = tool_secret_elicited
};
