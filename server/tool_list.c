/*
 * tool_list.c — list_programs: every program the server holds, and for
 * each whether it waits for input now (a look in /proc) and at what line,
 * and the ports its process tree listens on: walked for every program
 * that runs (ports.c, a slice of each loop turn) before the list is
 * written. What a client gave (argv) is shown cut, and the list as a
 * whole is bounded, so the reply stays small however many programs
 * there are and however long their argv.
 */
#include <stdlib.h>

#include "server.h"
#include "timeutil.h"
#include "xmalloc.h"

#define TOOL_LIST_MAX_BYTES	(256u * 1024)	/* a list's reply, about */

/* A list waiting for its programs' port walks. */
struct tool_list {
	struct req	 *req;
	size_t		  n;
	uint64_t	 *seq;		/* each program's, */
	struct ports	**ports;	/* and its walk */
	size_t		  left;		/* walks not yet over */
};

/* One program's entry, in the structured list and as a line of text. */
static void
tool_list_one(struct toolres *res, struct program *p, int64_t now,
    const struct ports *ports)
{
	const struct program_spec	*spec = program_spec(p);
	const char			*arg[REPORT_ARGS_MAX];
	struct report			 r;
	char				 started[64];
	size_t				 len[REPORT_ARGS_MAX], i, n, chars;
	int64_t				 left;
	bool				 cut;

	report_make(&r, p, 0, program_ended(p), false);
	r.ports = ports;
	jw_obj_begin(&res->w);
	jw_key(&res->w, "programId");
	jw_str(&res->w, program_id(p));
	program_told_id(p);
	jw_key(&res->w, "argv");
	jw_arr_begin(&res->w);
	n = report_argv(p, arg, len, &chars, &cut);
	for (i = 0; i < n; i++)
		jw_strn(&res->w, arg[i], len[i]);
	jw_arr_end(&res->w);
	if (cut) {
		jw_key(&res->w, "argvCut");
		jw_bool(&res->w, true);
		jw_key(&res->w, "argvCount");
		jw_int(&res->w, (int64_t)(spec->argc - spec->shown));
		jw_key(&res->w, "argvChars");
		jw_int(&res->w, (int64_t)chars);
	}
	jw_key(&res->w, "paneId");
	jw_str(&res->w, program_pane_id(p));
	if (cfg.host_name != NULL) {
		jw_key(&res->w, "host");
		jw_str(&res->w, cfg.host_name);
	}
	report_put_brief(&res->w, &r);
	jw_key(&res->w, "textChars");
	jw_int(&res->w, (int64_t)program_text(p)->chars);
	realtime_iso(started, sizeof started, program_started_real(p));
	jw_key(&res->w, "startedAt");
	jw_str(&res->w, started);
	left = program_started_ms(p) + spec->lifetime_ms - now;
	if (program_ended(p) || left < 0)
		left = 0;
	jw_key(&res->w, "lifetimeLeftMs");
	jw_int(&res->w, left);
	if (program_adopted(p)) {
		jw_key(&res->w, "adopted");
		jw_bool(&res->w, true);
	}
	jw_obj_end(&res->w);
	report_list_line(&res->text, &r, left, started);
}

/*
 * list_programs: oldest first, until the list holds TOOL_LIST_MAX_BYTES
 * (an entry is a few KiB at most: argv is shown cut, the unfinished
 * line is its last 2000 characters); the rest are counted.
 */
static void
tool_list_write(struct req *req, const struct tool_list *l)
{
	struct toolres	 res;
	struct program	*p;
	int64_t		 now = now_ms();
	size_t		 n = 0, omitted = 0, i;

	toolres_init(&res);
	jw_obj_begin(&res.w);
	jw_key(&res.w, "programs");
	jw_arr_begin(&res.w);
	for (p = program_first(); p != NULL; p = program_next(p)) {
		if (res.sc.len + res.text.len >= TOOL_LIST_MAX_BYTES) {
			omitted++;
			continue;
		}
		for (i = 0; i < l->n && l->seq[i] != program_seq(p); i++)
			;
		tool_list_one(&res, p, now, i < l->n ? l->ports[i] : NULL);
		n++;
	}
	jw_arr_end(&res.w);
	if (omitted > 0) {
		jw_key(&res.w, "omittedPrograms");
		jw_int(&res.w, (int64_t)omitted);
		buf_printf(&res.text, "[%zu more programs not listed: the list "
		    "stops at %u KiB; stop_program forgets the ones you are "
		    "done with]\n", omitted, TOOL_LIST_MAX_BYTES / 1024);
	}
	jw_obj_end(&res.w);
	if (n == 0)
		buf_adds(&res.text, "no programs\n");
	tools_reply(req, &res);
	toolres_free(&res);
}

/* Let go of a list's walks. */
static void
tool_list_free(struct tool_list *l)
{
	size_t	i;

	for (i = 0; i < l->n; i++)
		ports_free(l->ports[i]);
	free(l->ports);
	free(l->seq);
	free(l);
}

/* A walk is over: the list is written once all are. */
static void
tool_list_walked(void *arg)
{
	struct tool_list	*l = arg;

	if (--l->left > 0)
		return;
	tools_set_state(l->req, NULL);
	tool_list_write(l->req, l);
	tool_list_free(l);
}

/* list_programs: the ports of every program that runs, then the list. */
static void
tool_list_run(struct req *req, const struct json *args)
{
	struct tool_list	*l;
	struct program		*p;
	pid_t			 pid;

	(void)args;
	l = xcalloc(1, sizeof *l);
	l->req = req;
	for (p = program_first(); p != NULL; p = program_next(p))
		if (program_pid(p) > 0)
			l->n++;
	l->seq = xcalloc(l->n + 1, sizeof *l->seq);
	l->ports = xcalloc(l->n + 1, sizeof *l->ports);
	l->n = 0;
	for (p = program_first(); p != NULL; p = program_next(p)) {
		if ((pid = program_pid(p)) <= 0)
			continue;
		l->seq[l->n] = program_seq(p);
		l->ports[l->n++] = ports_walk(pid, tool_list_walked, l);
		l->left++;
	}
	if (l->left == 0) {
		tool_list_write(req, l);
		tool_list_free(l);
		return;
	}
	tools_set_state(req, l);
}

/* The client gave up while the walks went on. */
static void
tool_list_cancel(struct req *req)
{
	struct tool_list	*l = tools_state(req);

	if (l == NULL)
		return;
	tools_set_state(req, NULL);
	tool_list_free(l);
}

const struct tool_entry tool_list_entry = {
	.name = "list_programs",
	.run = tool_list_run,
	.cancel = tool_list_cancel
};
