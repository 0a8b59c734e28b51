/*
 * tool_run.c — run_program: start, wait for the end, and answer with the
 * output and how it ended, in one call.
 *
 * The start is start_program's (tool_start_program), with run_program's
 * fields in the spec. Once the pane exists, a watch (watch.c) waits for
 * the end, the program waiting for input it was not given, or the
 * timeout, and tool_run_answer writes the end of the output (its last
 * page, or tail lines; filter's lines) through the selection engine
 * (select.c), standard error apart with separateStderr, and how the
 * program stands. A run's record stays readable after its end like any
 * ended program's; without keep only its pane goes.
 */
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "proto.h"
#include "server.h"
#include "timeutil.h"
#include "xmalloc.h"

#define TOOL_RUN_WAIT_MS	30000	/* timeoutMs by default */

/* What a run asked of its answer, kept while it waits (the selection
 * until the watch takes it). */
struct tool_run {
	struct sel	 sel;		/* what it shows of standard output */
	bool		 keep;		/* program and pane stay after */
	int64_t		 timeout_ms;	/* effective */
	int64_t		 deadline;	/* counted from the call */
};

static const struct tool_entry tool_run_wait_entry;

/* Standard error's last page, in the result and the text. */
static void
tool_run_stderr(struct toolres *res, const struct textbuf *t,
    size_t max_lines)
{
	struct page	 pg;
	const char	*s;

	textbuf_tail(t, max_lines, TEXTBUF_PAGE_CHARS, &pg);
	s = report_text_at(t, pg.start);
	jw_key(&res->w, "stderr");
	jw_strn(&res->w, s, pg.end - pg.start);
	if (t->len == 0)
		return;
	buf_adds(&res->text, "[stderr]\n");
	buf_add(&res->text, s, pg.end - pg.start);
	if (pg.end > pg.start && TEXTBUF_AT(t, pg.end - 1) != '\n')
		buf_addc(&res->text, '\n');
}

/* What the text says after the status line: where the program is, and
 * what to do with a run that goes on. */
static void
tool_run_after(struct buf *b, struct program *p, const struct report *r,
    int64_t timeout_ms)
{
	const struct program_spec	*spec = program_spec(p);
	char				 shown[TOOLS_PANE_SHOWN_MAX];
	const char			*pane = tools_pane_shown(
					    program_pane_id(p), shown);

	if (!program_ended(p) && r->hidden)
		buf_printf(b, " it waits for a password (its input is hidden): "
		    "%s; never type a password with send_keys. It is kept "
		    "(lifetime %lld ms); then read_program from cursor %zu, or "
		    "end it with stop_program", tools_offered_name(
		    "ask_user_secret") ? "call ask_user_secret with its "
		    "programId, and the person types it on a page of their "
		    "own" : "ask the person to type it into its pane (tmux "
		    "attach)", (long long)spec->lifetime_ms, r->cursor);
	else if (!program_ended(p) && r->waiting)
		buf_printf(b, " it waits for input it was not given: it is "
		    "kept (lifetime %lld ms); answer it with send_keys on pane "
		    "%s, then read_program from cursor %zu, or end it with "
		    "stop_program", (long long)spec->lifetime_ms, pane,
		    r->cursor);
	else if (!program_ended(p))
		buf_printf(b, " still running in pane %s after %lld ms: it is "
		    "kept (lifetime %lld ms); follow it with read_program from "
		    "cursor %zu or end it with stop_program", pane,
		    (long long)timeout_ms, (long long)spec->lifetime_ms,
		    r->cursor);
	else if (pane != NULL)
		buf_printf(b, " (it ran in pane %s)", pane);
}

/* The result: the output shown, how it stands, what was left out. */
static void
tool_run_put(struct toolres *res, struct watch *w, struct program *p,
    const struct buf *shown, const struct sel_shown *sh)
{
	const struct textbuf	*t = program_text(p);
	struct tool_run		*run = watch_arg(w);
	struct sel		*sel = watch_sel(w);
	struct report		 r;
	size_t			 before;

	jw_key(&res->w, "text");
	jw_strn(&res->w, shown->data != NULL ? shown->data : "", shown->len);
	if (program_spec(p)->separate_stderr)
		tool_run_stderr(res, program_errtext(p), sel->max_lines);
	report_make(&r, p, sh->cursor, program_ended(p), watch_input(w));
	r.ports = watch_ports(w);
	if (sh->crossed)
		r.gap = &sh->gap;
	if (r.waiting)
		program_episode_tell(p);
	report_put(&res->w, &r);
	/* Characters up to the cursor that are not shown, but kept (the
	 * gap's are not: it says so). */
	before = spool_chars_before(t, sh->cursor);
	if (sh->crossed && before >= sh->gap.chars)
		before -= sh->gap.chars;
	jw_key(&res->w, "omittedChars");
	jw_int(&res->w, (int64_t)(before - sh->shown_raw));
	jw_key(&res->w, "effectiveTimeoutMs");
	jw_int(&res->w, run->timeout_ms);
	jw_key(&res->w, "effectiveLifetimeMs");
	jw_int(&res->w, program_spec(p)->lifetime_ms);
	sel_put(&res->w, sel, sh);
	jw_key(&res->w, "reason");
	jw_str(&res->w, sel_reason_name(watch_reason(w)));
	jw_obj_end(&res->w);
	sel_note(&res->text, sel, sh);
	if (before > sh->shown_raw)
		buf_printf(&res->text, "[%zu characters of the output are not "
		    "shown; read_program from cursor 0 has them]\n",
		    before - sh->shown_raw);
	report_line(&res->text, &r);
	tool_run_after(&res->text, p, &r, run->timeout_ms);
	sel_reason_text(&res->text, watch_reason(w), run->timeout_ms);
}

/* The watch's answer: ended, waiting for input, or the wait ran out. */
static void
tool_run_answer(struct watch *w, struct req *req, void *arg)
{
	struct tool_run		*run = arg;
	struct program		*p = watch_program(w);
	struct sel		*sel = watch_sel(w);
	struct buf		 shown = BUF_INIT;
	struct sel_shown	 sh;
	struct toolres		 res;

	if (program_ended(p) && !program_launched(p) &&
	    program_text(p)->len == 0 && program_why(p) != NULL &&
	    program_outcome_of(p) == OUTCOME_GONE) {
		/* It never ran: tmux could give it no pane it could run in. */
		tools_error(req, "the program could not be started: %s",
		    program_why(p));
		program_drop(p);	/* nobody knows its id */
	} else if (sel->failed != NULL) {
		tools_error(req, "%s; %s is kept: read_program reads it",
		    sel->failed, program_id(p));
		program_told_id(p);
	}
	else {
		sel_show(sel, program_text(p), program_ended(p) ||
		    program_state(p) == PROGRAM_STOPPING, &shown, &sh);
		toolres_init(&res);
		jw_obj_begin(&res.w);
		report_put_ids(&res.w, p);
		if (program_spec(p)->separate_stderr &&
		    program_errtext(p)->len > 0)
			buf_adds(&res.text, "[stdout]\n");
		buf_add(&res.text, shown.data, shown.len);
		if (shown.len > 0 && shown.data[shown.len - 1] != '\n')
			buf_addc(&res.text, '\n');
		tool_run_put(&res, w, p, &shown, &sh);
		tools_reply(req, &res);
		toolres_free(&res);
	}
	buf_free(&shown);
	free(run);
}

/* The pane exists (p), or the start failed (p NULL, the call answered):
 * the run waits for the end. */
static void
tool_run_made(struct req *req, struct program *p, void *arg)
{
	struct tool_run	*run = arg;
	struct watch	*w;

	if (p == NULL) {
		sel_free(&run->sel);
		free(run);
		return;
	}
	tools_set_entry(req, &tool_run_wait_entry);
	w = watch_new(req, p, &run->sel, run->timeout_ms, run->deadline,
	    tool_run_answer, run);
	watch_start(w);
}

/* run_program: what it shows (maxLines, tail, filter, context), its
 * wait, its input; then the start. */
static void
tool_run_run(struct req *req, const struct json *args)
{
	struct program_spec	 spec;
	struct tool_run		*run;
	const char		*input;
	char			*cause = NULL;
	size_t			 len;

	run = xcalloc(1, sizeof *run);
	if (sel_parse(&run->sel, args, 0, &cause) == -1) {
		free(run);
		tools_error(req, "%s", cause);
		free(cause);
		return;
	}
	/* The end of the output, but a filter's first page. */
	run->sel.last = run->sel.filter == NULL || run->sel.tail > 0;
	run->sel.wait = SEL_WAIT_END;
	run->keep = tools_arg_bool(args, "keep", false);
	run->timeout_ms = tools_arg_int(args, "timeoutMs", TOOL_RUN_WAIT_MS);
	if (run->timeout_ms > cfg.wait_max_ms)
		run->timeout_ms = cfg.wait_max_ms;
	run->deadline = now_ms() + run->timeout_ms;
	memset(&spec, 0, sizeof spec);
	if ((input = tools_arg_str(args, "input", &len)) != NULL) {
		spec.input = xmemdup(input, len);
		spec.input_len = len;
		spec.has_input = true;
	}
	spec.separate_stderr = tools_arg_bool(args, "separateStderr", false);
	spec.keep_pane = run->keep;
	tool_start_program(req, args, &spec, tool_run_made, run);
}

/*
 * The client gave up on a run waiting for the end (notifications/
 * cancelled, tasks/cancel): unless it asked to keep the program, or a
 * reply gave it the program's id, nobody can read or stop the program
 * any more, so it is ended (SIGTERM, SIGKILL after the grace) and
 * forgotten, as stop_program would.
 */
static void
tool_run_cancel(struct req *req)
{
	struct watch	*w = tools_state(req);
	struct tool_run	*run;
	struct program	*p;
	bool		 forget;

	if (w == NULL)
		return;
	run = watch_arg(w);
	p = watch_program(w);
	forget = !run->keep && !program_id_told(p);
	watch_cancel(req);
	free(run);
	if (forget)
		tool_start_forget(p);
}

const struct tool_entry tool_run_entry = {
	.name = "run_program",
	.run = tool_run_run,
	.cancel = tool_start_cancel,
	.program = tool_start_waits_on
};

/* Once the pane exists: the run waits as a read does. */
static const struct tool_entry tool_run_wait_entry = {
	.name = "run_program",
	.cancel = tool_run_cancel,
	.timeout = watch_timeout,
	.wake = watch_wake,
	.progress = watch_progress,
	.program = watch_req_program
};
