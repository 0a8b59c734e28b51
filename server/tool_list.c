/*
 * tool_list.c — list_programs: every program the server holds, and for
 * each whether it waits for input now (a look in /proc) and at what line.
 */
#include "server.h"
#include "timeutil.h"

/* list_programs. */
static void
tool_list_run(struct req *req, const struct json *args)
{
	const struct program_spec	*spec;
	struct toolres			 res;
	struct report			 r;
	struct program			*p;
	char				 started[64];
	int64_t				 now = now_ms(), left;
	size_t				 i, n = 0;

	(void)args;
	toolres_init(&res);
	jw_obj_begin(&res.w);
	jw_key(&res.w, "programs");
	jw_arr_begin(&res.w);
	for (p = program_first(); p != NULL; p = program_next(p)) {
		spec = program_spec(p);
		report_make(&r, p, 0, program_ended(p), false);
		jw_obj_begin(&res.w);
		jw_key(&res.w, "programId");
		jw_str(&res.w, program_id(p));
		jw_key(&res.w, "argv");
		jw_arr_begin(&res.w);
		/* With inheritShell, what was asked for, not the wrapper. */
		for (i = spec->shown; i < spec->argc; i++)
			jw_str(&res.w, spec->argv[i]);
		jw_arr_end(&res.w);
		jw_key(&res.w, "paneId");
		jw_str(&res.w, program_pane_id(p));
		report_put_brief(&res.w, &r);
		jw_key(&res.w, "textChars");
		jw_int(&res.w, (int64_t)program_text(p)->chars);
		realtime_iso(started, sizeof started,
		    program_started_real(p));
		jw_key(&res.w, "startedAt");
		jw_str(&res.w, started);
		left = program_started_ms(p) + spec->lifetime_ms - now;
		if (program_ended(p) || left < 0)
			left = 0;
		jw_key(&res.w, "lifetimeLeftMs");
		jw_int(&res.w, left);
		jw_obj_end(&res.w);
		report_list_line(&res.text, &r, left, started);
		n++;
	}
	jw_arr_end(&res.w);
	jw_obj_end(&res.w);
	if (n == 0)
		buf_adds(&res.text, "no programs\n");
	tools_reply(req, &res);
	toolres_free(&res);
}

const struct tool_entry tool_list_entry = {
	.name = "list_programs",
	.run = tool_list_run
};
