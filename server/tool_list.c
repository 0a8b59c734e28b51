/*
 * tool_list.c — list_programs: every program the server holds, and for
 * each whether it waits for input now (a look in /proc) and at what line.
 */
#include <stdio.h>
#include <time.h>

#include "server.h"
#include "timeutil.h"

/* When it started, for people. */
static void
tool_list_iso_time(struct jw *w, int64_t ms)
{
	char		buf[64];
	struct tm	tm;
	time_t		t = (time_t)(ms / 1000);

	gmtime_r(&t, &tm);
	snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ",
	    tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
	    tm.tm_min, tm.tm_sec, (int)(ms % 1000));
	jw_str(w, buf);
}

/* list_programs. */
static void
tool_list_run(struct req *req, const struct json *args)
{
	const struct program_spec	*spec;
	struct toolres			 res;
	struct program			*p;
	const struct textbuf		*t;
	const char			*pane;
	int64_t				 now = now_ms(), left;
	size_t				 i, n = 0, us, ue;
	bool				 waiting;

	(void)args;
	toolres_init(&res);
	jw_obj_begin(&res.w);
	jw_key(&res.w, "programs");
	jw_arr_begin(&res.w);
	for (p = program_first(); p != NULL; p = program_next(p)) {
		spec = program_spec(p);
		pane = program_pane_id(p);
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
		jw_str(&res.w, pane);
		jw_key(&res.w, "outcome");
		jw_str(&res.w, program_outcome(p));
		jw_key(&res.w, "ended");
		jw_bool(&res.w, program_ended(p));
		jw_key(&res.w, "textChars");
		jw_int(&res.w, (int64_t)program_text(p)->chars);
		jw_key(&res.w, "startedAt");
		tool_list_iso_time(&res.w, program_started_real(p));
		left = program_started_ms(p) + spec->lifetime_ms - now;
		jw_key(&res.w, "lifetimeLeftMs");
		jw_int(&res.w, program_ended(p) || left < 0 ? 0 : left);
		t = program_text(p);
		us = ue = 0;
		waiting = false;
		if (!program_ended(p)) {
			textbuf_unfinished(t, 0, 2000, &us, &ue);
			waiting = program_waiting(p);
		}
		jw_key(&res.w, "waitingForInput");
		jw_bool(&res.w, waiting);
		jw_key(&res.w, "unfinishedLine");
		jw_strn(&res.w, tool_program_text_at(t, us), ue - us);
		jw_obj_end(&res.w);
		buf_printf(&res.text, "%s %s %s %s", program_id(p),
		    pane ? pane : "-", program_outcome(p),
		    spec->argv[spec->shown]);
		if (waiting)
			buf_adds(&res.text, ", waiting for input");
		if (ue > us) {
			buf_adds(&res.text, waiting ? " at \"" :
			    ", unfinished line \"");
			buf_add(&res.text, tool_program_text_at(t, us),
			    ue - us);
			buf_addc(&res.text, '"');
		}
		buf_addc(&res.text, '\n');
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
