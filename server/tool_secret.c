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
 * What happens once the page has the secret (the check that the program
 * still takes it, the typing, the reply) is secret_ask.c's; this file is
 * the tool: its checks, the page opened, the person asked in either
 * protocol era, and the call's waits.
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
#include "xmalloc.h"

#define TOOL_SECRET_WAIT_MS	5000	/* default timeoutMs: its answer */
#define TOOL_SECRET_PROMPT	200	/* bytes of the prompt shown */

/* The text and fields of a result that gives the person the address. */
static void
tool_secret_url_reply(struct req *req, struct secret_ask *a,
    struct program *p)
{
	struct toolres	res;
	const char	*url = secret_page_url(a->page);

	secret_ask_result(&res, a, p);
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

	if ((a = secret_ask_find(program_seq(p), state)) == NULL) {
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
		secret_ask_untyped(a);
		secret_ask_free(a);
		return;
	}
	if (a->over && a->why != NULL) {
		a->req = req;
		secret_ask_untyped(a);
		secret_ask_free(a);
		return;
	}
	if (a->over) {
		secret_ask_reply(a, req, p);
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
	secret_ask_untyped(a);
	secret_ask_free(a);
}

/* Why a first ask for p is refused now, or NULL: the checks made when
 * the secret comes, said for an ask. */
static const char *
tool_secret_refused(struct program *p)
{
	if (program_ended(p) || program_state(p) != PROGRAM_RUNNING)
		return (secret_ask_why_not(p));
	if (!program_waiting(p))
		return ("it does not wait for input now (ask when read_program "
		    "says inputHidden)");
	if (!program_input_hidden(p))
		return ("it waits for input that its terminal echoes (not a "
		    "password prompt): answer it with send_keys");
	return (NULL);
}

/* A new ask and its page for p's prompt (replacing one asked before),
 * or NULL having answered req. */
static struct secret_ask *
tool_secret_open(struct req *req, const struct json *args, struct program *p,
    const char *prompt)
{
	struct secret_ask	*a, *old;
	char			*cause = NULL, eid[sizeof a->eid];

	if ((old = secret_ask_find(program_seq(p), NULL)) != NULL) {
		old->why = "a newer ask_user_secret call replaced this page";
		secret_ask_untyped(old);
		secret_ask_free(old);
	}
	if (randid_hex(eid, (sizeof eid - 1) / 2) == -1) {
		tools_error(req, "ask_user_secret: no random bytes");
		return (NULL);
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
	    secret_ask_check, secret_ask_came, a, &cause);
	if (a->page == NULL) {
		tools_error(req, "ask_user_secret: %s", cause);
		free(cause);
		free(a->pane);
		free(a);
		return (NULL);
	}
	secret_ask_add(a);
	log_info("ask_user_secret: a page for %s (%s)", program_id(p),
	    a->pane);
	return (a);
}

/* ask_user_secret: a page for the program's prompt; the person is asked
 * by the client, if it can, else the address goes in the result. */
static void
tool_secret_run(struct req *req, const struct json *args)
{
	const char		*id = tools_arg_str(args, "programId", NULL);
	struct buf		 msg = BUF_INIT;
	struct program		*p;
	struct secret_ask	*a;
	const char		*why, *state, *action;
	char			*message, prompt[TOOL_SECRET_PROMPT + 1];
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
	if ((why = tool_secret_refused(p)) != NULL) {
		tools_error(req, "ask_user_secret: %s: %s", program_id(p), why);
		return;
	}
	textbuf_unfinished(program_text(p), 0, TOOL_SECRET_PROMPT, &s, &e);
	snprintf(prompt, sizeof prompt, "%.*s", (int)(e - s),
	    report_text_at(program_text(p), s));
	if ((a = tool_secret_open(req, args, p, prompt)) == NULL)
		return;
	xasprintf(&message, "A program that the AI agent runs (%s, in tmux "
	    "pane %s) asks for a password or passphrase: \"%s\". Open this "
	    "page on this computer and type it there: it goes to the "
	    "program, not to the agent or its model.", program_id(p),
	    tools_pane_shown(a->pane, shown), prompt);
	r = tools_elicit_url(req, secret_page_url(a->page), message, a->eid);
	free(message);
	if (r == TOOLS_ELICIT_RETURNED)
		a->mrtr = true;		/* req is answered and gone */
	else if (r == TOOLS_ELICIT_ASKED)
		tool_secret_wait(a, req);
	else
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
	secret_ask_free(a);
}

/* The page outlived its own expiry (it answers first): as cancelled. */
static void
tool_secret_timeout(struct req *req)
{
	struct secret_ask	*a = tools_state(req);

	if (a == NULL)
		return;
	a->why = "the page expired before the person sent the secret";
	secret_ask_untyped(a);
	secret_ask_free(a);
}

const struct tool_entry tool_secret_entry = {
	.name = "ask_user_secret",
	.run = tool_secret_run,
	.cancel = tool_secret_cancel,
	.timeout = tool_secret_timeout,
	.progress = tool_secret_progress,
	.elicited = tool_secret_elicited
};
