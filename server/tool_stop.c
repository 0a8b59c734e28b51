/*
 * tool_stop.c — stop_program: end a program and forget it.
 *
 * An ended program is forgotten at once. Otherwise the program is asked
 * to stop (program_stop: STOPPING, which answers waiting reads; a
 * program not yet given to its reaper ends at once) and the request
 * waits, as a struct tool_stop_wait on the program, for the end. Past
 * grace plus TOOL_STOP_SLACK_MS the stop answers anyway. Whichever way
 * the stop answers, the program is dropped with the answer: its record,
 * its FIFOs' names and its pane go, and no later call finds it.
 */
#include <stdlib.h>

#include "proto.h"
#include "server.h"
#include "timeutil.h"
#include "xmalloc.h"

#define TOOL_STOP_SLACK_MS	5000	/* past grace, stop answers anyway */

/* A stop waiting for its program's end. */
struct tool_stop_wait {
	struct req		*req;
	struct program		*p;
	struct program_waiter	*waiter;
};

static void	tool_stop_event(struct program *, enum program_event, void *);

/* Answer stop_program (the caller forgets the program). */
static void
tool_stop_answer(struct req *req, struct program *p, bool was_running)
{
	struct toolres	 res;
	bool		 ended = program_ended(p);

	toolres_init(&res);
	jw_obj_begin(&res.w);
	jw_key(&res.w, "programId");
	jw_str(&res.w, program_id(p));
	jw_key(&res.w, "wasRunning");
	jw_bool(&res.w, was_running);
	jw_key(&res.w, "outcome");
	jw_str(&res.w, ended ? program_outcome(p) : "stopped");
	report_put_exit(&res.w, p);
	jw_obj_end(&res.w);
	buf_printf(&res.text, "[%s: %s", program_id(p), ended ?
	    program_outcome(p) : "stopped");
	if (ended && program_exit_status(p) >= 0)
		buf_printf(&res.text, ", exit status %lld",
		    (long long)program_exit_status(p));
	else if (ended && program_signal(p) > 0)
		buf_printf(&res.text, ", %s",
		    program_signal_name(program_signal(p)));
	buf_adds(&res.text, was_running ? "; it was running, and is stopped "
	    "and forgotten]" : "; it had already ended; forgotten]");
	tools_reply(req, &res);
	toolres_free(&res);
}

/* Let go of the program; answer, and forget it (if it is not being
 * dropped already). */
static void
tool_stop_done(struct tool_stop_wait *w, bool was_running)
{
	struct req	*req = w->req;
	struct program	*p = w->p;

	program_unwait(w->waiter);
	tools_set_state(req, NULL);
	free(w);
	tool_stop_answer(req, p, was_running);
	program_drop(p);
}

/* What the program tells a waiting stop. */
static void
tool_stop_event(struct program *p, enum program_event ev, void *arg)
{
	if (ev == PROGRAM_DROP)
		tool_stop_done(arg, !program_ended(p));
	else if (ev == PROGRAM_STATE && program_ended(p))
		tool_stop_done(arg, true);
}

/* stop_program. */
static void
tool_stop_run(struct req *req, const struct json *args)
{
	struct tool_stop_wait	*w;
	struct program		*p;
	const char		*id = tools_arg_str(args, "programId", NULL);
	struct buf		 msg = BUF_INIT;
	int64_t			 grace;

	grace = tools_arg_int(args, "graceMs", PROTO_GRACE_MS);
	if ((p = program_find(id)) == NULL) {
		report_unknown(&msg, id);
		tools_error(req, "%s", buf_cstr(&msg));
		buf_free(&msg);
		return;
	}
	if (program_ended(p)) {
		tool_stop_answer(req, p, false);
		program_drop(p);
		return;
	}
	w = xcalloc(1, sizeof *w);
	w->req = req;
	w->p = p;
	tools_set_state(req, w);
	tools_set_deadline(req, now_ms() + grace + TOOL_STOP_SLACK_MS);
	w->waiter = program_wait(p, tool_stop_event, w);
	/* A stop under way: this one waits for it too. Reads waiting on
	 * it answer now, with outcome stopped; a program still starting
	 * is stopped once its pane is piped. */
	if (program_state(p) != PROGRAM_STOPPING)
		program_stop(p, grace);
}

/* The reaper did not report in time: forget the program anyway (its
 * reaper is told to quit, and ends what runs). */
static void
tool_stop_timeout(struct req *req)
{
	struct tool_stop_wait	*w = tools_state(req);

	if (w != NULL)
		tool_stop_done(w, true);
}

/* The client gave up on the stop (the program still goes). */
static void
tool_stop_cancel(struct req *req)
{
	struct tool_stop_wait	*w = tools_state(req);

	if (w == NULL)
		return;
	program_unwait(w->waiter);
	tools_set_state(req, NULL);
	free(w);
}

const struct tool_entry tool_stop_entry = {
	.name = "stop_program",
	.run = tool_stop_run,
	.cancel = tool_stop_cancel,
	.timeout = tool_stop_timeout
};
