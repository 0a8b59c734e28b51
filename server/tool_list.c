/*
 * tool_list.c — list_programs: every program the server holds, and for
 * each whether it waits for input now (a look in /proc) and at what line.
 * What a client gave (argv) is shown cut, and the list as a whole is
 * bounded, so the reply stays small however many programs there are and
 * however long their argv.
 */
#include "server.h"
#include "timeutil.h"

#define TOOL_LIST_MAX_BYTES	(256u * 1024)	/* a list's reply, about */

/* One program's entry, in the structured list and as a line of text. */
static void
tool_list_one(struct toolres *res, struct program *p, int64_t now)
{
	const struct program_spec	*spec = program_spec(p);
	const char			*arg[REPORT_ARGS_MAX];
	struct report			 r;
	char				 started[64];
	size_t				 len[REPORT_ARGS_MAX], i, n, chars;
	int64_t				 left;
	bool				 cut;

	report_make(&r, p, 0, program_ended(p), false);
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
	jw_obj_end(&res->w);
	report_list_line(&res->text, &r, left, started);
}

/*
 * list_programs: oldest first, until the list holds TOOL_LIST_MAX_BYTES
 * (an entry is a few KiB at most: argv is shown cut, the unfinished
 * line is its last 2000 characters); the rest are counted.
 */
static void
tool_list_run(struct req *req, const struct json *args)
{
	struct toolres	 res;
	struct program	*p;
	int64_t		 now = now_ms();
	size_t		 n = 0, omitted = 0;

	(void)args;
	toolres_init(&res);
	jw_obj_begin(&res.w);
	jw_key(&res.w, "programs");
	jw_arr_begin(&res.w);
	for (p = program_first(); p != NULL; p = program_next(p)) {
		if (res.sc.len + res.text.len >= TOOL_LIST_MAX_BYTES) {
			omitted++;
			continue;
		}
		tool_list_one(&res, p, now);
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

const struct tool_entry tool_list_entry = {
	.name = "list_programs",
	.run = tool_list_run
};
