/*
 * start.c — making a program's pane, for start_program and run_program.
 *
 * The answer comes once the pane exists; pipe-pane is queued behind it,
 * and the program itself waits at the launcher's gate until pipe-pane is
 * attached, so no output is lost. The steps run as tmux callbacks, which
 * hold the program's sequence number rather than a pointer, since a
 * program may be forgotten while a command is in flight:
 *
 *   FIFOs made -> [display-message for fromPaneId] -> new-window or
 *   split-window -> reply, [resize], pipe-pane queued, reaper spawned ->
 *   pipe-pane answered -> "pane" to the reaper (the launcher's gate opens)
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frame.h"
#include "log.h"
#include "proto.h"
#include "server.h"
#include "timeutil.h"
#include "xmalloc.h"

static void	start_pane_command(struct program *, const char *,
		    const char *);

#define SEQ_ARG(p)	((void *)(uintptr_t)(p)->seq)
#define ARG_PROG(a)	program_by_seq((uint64_t)(uintptr_t)(a))

/* The start failed: answer the caller with why, forget the program. */
void
program_start_failed(struct program *p, const char *why)
{
	struct toolres	res;

	if (p->start_req != NULL) {
		toolres_init(&res);
		tool_error(&res, "%s", why);
		p->start_req->prog = NULL;
		tools_reply(p->start_req, &res);
		toolres_free(&res);
		p->start_req = NULL;
	}
	program_forget(p);
}

/* Reply to start_program: the pane exists and is piped. */
static void
start_reply(struct program *p)
{
	struct toolres	res;
	struct req	*req = p->start_req;

	if (req == NULL)
		return;
	p->start_req = NULL;
	if (p->run) {
		/* run_program goes on to wait for the end (or answers at
		 * once if its wait already ran out). */
		req->kind = REQ_RUN;
		if (req->deadline == DEADLINE_NONE)
			req->deadline = now_ms();
		return;
	}
	req->prog = NULL;
	toolres_init(&res);
	jw_obj_begin(&res.w);
	jw_key(&res.w, "programId");
	jw_str(&res.w, p->id);
	jw_key(&res.w, "paneId");
	jw_str(&res.w, p->pane);
	jw_key(&res.w, "effectiveLifetimeMs");
	jw_int(&res.w, p->lifetime_ms);
	jw_obj_end(&res.w);
	buf_printf(&res.text, "started %s in pane %s (programId %s, lifetime "
	    "%lld ms); read it with read_program", p->argv[0], p->pane, p->id,
	    (long long)p->lifetime_ms);
	tools_reply(req, &res);
	toolres_free(&res);
}

/* pipe-pane answered: release the launcher's gate. */
static void
start_piped(void *arg, bool ok, const char *out, size_t len)
{
	struct program	*p = ARG_PROG(arg);
	struct msg_out	 m;
	char		*why;

	(void)len;
	/* Gone, or already ended (its reaper failed or exited meanwhile). */
	if (p == NULL || p->state != P_STARTING)
		return;
	if (!ok) {
		/* start_program was answered when the pane was made. */
		xasprintf(&why, "tmux could not attach pipe-pane to %s: %s",
		    p->pane, out);
		program_abandon(p, why);
		free(why);
		return;
	}
	/* Output is piped from here on: release the launcher's gate. */
	msg_begin(&m, MSG_PANE, 2);
	msg_str(&m, "pane", p->pane);
	msg_int(&m, "pid", p->pane_pid);
	msg_end(&m, &p->sock_out);
	program_on_writable(p);
	p->state = P_RUNNING;
	if (p->start_cancelled && !p->stopping) {
		/* The caller cancelled the start: end it again. */
		program_forget(p);
		return;
	}
	if (p->stopping)
		program_stop(p, p->stop_grace);
}

static void
start_resized(void *arg, bool ok, const char *out, size_t len)
{
	struct program	*p = ARG_PROG(arg);

	(void)len;
	if (p != NULL && !ok)
		log_warn("%s: resizing %s: %s", p->id, p->pane, out);
}

/* new-window or split-window answered "%N PID". */
static void
start_made(void *arg, bool ok, const char *out, size_t len)
{
	struct program	*p = ARG_PROG(arg);
	struct buf	 b = BUF_INIT;
	char		*why, pane[32];
	long		 pid;

	(void)len;
	if (p == NULL) {
		/* Forgotten meanwhile: the pane has no owner. */
		if (ok && sscanf(out, "%31s", pane) == 1 && pane[0] == '%') {
			buf_printf(&b, "kill-pane -t %s", pane);
			tmux_command(buf_cstr(&b), NULL, NULL);
			buf_free(&b);
		}
		return;
	}
	if (!ok && !tmux_alive() && p->ctl != NULL && p->from_pane == NULL &&
	    p->pane_retries++ < 3) {
		/*
		 * The control client died under the command (the server was
		 * killed; a new client may still reach the dying server):
		 * try again on a fresh one, a few times.
		 */
		start_pane_command(p, NULL, NULL);
		return;
	}
	if (!ok || sscanf(out, "%31s %ld", pane, &pid) != 2 ||
	    pane[0] != '%') {
		xasprintf(&why, "tmux could not make a pane for the program: "
		    "%s", ok ? "unexpected answer" : out);
		program_start_failed(p, why);
		free(why);
		return;
	}
	p->pane = xstrdup(pane);
	p->pane_pid = (pid_t)pid;
	p->pane_gen = tmux_generation();

	if (p->width > 0 || p->height > 0) {
		buf_printf(&b, "%s -t %s", p->split ? "resize-pane" :
		    "resize-window", p->pane);
		if (p->width > 0)
			buf_printf(&b, " -x %lld", (long long)p->width);
		if (p->height > 0)
			buf_printf(&b, " -y %lld", (long long)p->height);
		tmux_command(buf_cstr(&b), start_resized, SEQ_ARG(p));
		buf_reset(&b);
	}
	buf_printf(&b, "pipe-pane -O -t %s ", p->pane);
	{
		struct buf	sh = BUF_INIT;

		/*
		 * The FIFO path is ours: letters, digits and /._- only.
		 * Opened read-write first as fd 3, the write-only open
		 * cannot block; with fd 3 closed, cat has no read end of its
		 * own, so with no reaper reading its first write fails
		 * (EPIPE) instead of it waiting in open() for ever.
		 */
		buf_printf(&sh, "exec cat 3<>%s >%s 3>&-", p->out_path,
		    p->out_path);
		tmux_quote(&b, buf_cstr(&sh));
		buf_free(&sh);
	}
	tmux_command(buf_cstr(&b), start_piped, SEQ_ARG(p));
	buf_free(&b);
	/*
	 * The pane exists: answer now. The program waits at the launcher's
	 * gate until pipe-pane (already queued in tmux, behind nothing of
	 * the client's) is attached, so nothing it prints is lost. Then
	 * the reaper, which the launcher's open of its control FIFO awaits.
	 */
	start_reply(p);
	if (program_spawn_reaper(p, &why) == -1) {
		program_abandon(p, why);
		free(why);
		return;
	}
	free(p->input);		/* the reaper has it now */
	p->input = NULL;
}

/* A window name from argv[0]: its base name, plain characters only. */
static void
start_window_name(struct buf *b, const char *argv0)
{
	const char	*base = strrchr(argv0, '/');
	size_t		 n = 0;

	base = base ? base + 1 : argv0;
	for (; *base != '\0' && n < 32; base++, n++) {
		if (strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
		    "0123456789._-+", *base) != NULL)
			buf_addc(b, *base);
		else
			buf_addc(b, '_');
	}
	if (n == 0)
		buf_adds(b, "program");
}

/* The command that makes the pane, running the launcher. */
static void
start_pane_command(struct program *p, const char *target, const char *cwd)
{
	struct buf	b = BUF_INIT;

	if (p->split)
		buf_adds(&b, "split-window -d -P -F '#{pane_id} #{pane_pid}'");
	else if (target != NULL)
		buf_adds(&b, "new-window -a -d -P -F '#{pane_id} #{pane_pid}'");
	else
		buf_adds(&b, "new-window -d -P -F '#{pane_id} #{pane_pid}'");
	buf_adds(&b, " -t ");
	if (target != NULL)
		tmux_quote(&b, target);
	else {
		struct buf	t = BUF_INIT;

		buf_printf(&t, "=%s:", cfg.session);
		tmux_quote(&b, buf_cstr(&t));
		buf_free(&t);
	}
	if (cwd != NULL && *cwd != '\0') {
		buf_adds(&b, " -c ");
		tmux_quote(&b, cwd);
	}
	/* The launcher gives up on its reaper if we die before it comes. */
	buf_printf(&b, " -e PROGMUX_FRONT_PID=%ld", (long)getpid());
	if (!p->split) {
		struct buf	n = BUF_INIT;

		buf_adds(&b, " -n ");
		start_window_name(&n, p->argv[0]);
		tmux_quote(&b, buf_cstr(&n));
		buf_free(&n);
	}
	buf_adds(&b, " -- ");
	tmux_quote(&b, cfg.reaper_path);
	buf_adds(&b, " --launch ");
	tmux_quote(&b, p->ctl);
	tmux_command(buf_cstr(&b), start_made, SEQ_ARG(p));
	buf_free(&b);
}

/* display-message answered "%P<TAB>@W<TAB>path" for fromPaneId. */
static void
start_from_pane(void *arg, bool ok, const char *out, size_t len)
{
	struct program	*p = ARG_PROG(arg);
	char		*tab, *why, *copy;
	size_t		 plen;

	(void)len;
	if (p == NULL)
		return;
	plen = strlen(p->from_pane);
	if (!ok || strncmp(out, p->from_pane, plen) != 0 ||
	    out[plen] != '\t' || (tab = strchr(out + plen + 1, '\t')) ==
	    NULL) {
		xasprintf(&why, "fromPaneId %s names no pane on this tmux "
		    "server; list panes with `tmux list-panes -a` or pass a "
		    "paneId that start_program returned", p->from_pane);
		program_start_failed(p, why);
		free(why);
	} else {
		copy = xstrdup(out + plen + 1);
		tab = copy + (tab - (out + plen + 1));
		*tab = '\0';
		start_pane_command(p, p->split ? p->from_pane : copy, tab + 1);
		free(copy);
	}
}

/* Make the program's pane (beside fromPaneId if given). */
void
program_make_pane(struct program *p)
{
	struct buf	b = BUF_INIT;

	if (p->from_pane == NULL) {
		start_pane_command(p, NULL, NULL);
		return;
	}
	buf_adds(&b, "display-message -p -t ");
	tmux_quote(&b, p->from_pane);
	/* display-message falls back to another pane when the target is
	 * missing, so ask for the pane's id too and compare. */
	buf_adds(&b, " '#{pane_id}\t#{window_id}\t#{pane_current_path}'");
	tmux_command(buf_cstr(&b), start_from_pane, SEQ_ARG(p));
	buf_free(&b);
}

