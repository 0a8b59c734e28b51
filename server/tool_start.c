/*
 * tool_start.c — start_program and run_program.
 *
 * Both check their arguments into a program_spec and start a program
 * (program.c). start_program answers once the pane exists, has its
 * pane's writer (pipe-pane) and its reaper, so that a start that cannot
 * get what it needs (descriptors, tmux's or ours) is an error, never a
 * program that then reads gone; run_program waits for the end (or its
 * timeout) and answers with the output. While it waits, a request's state is a struct tool_start_wait,
 * a waiter on its program (program_wait). A run also answers early, the
 * program kept, when the program waits for keyboard input it was not
 * given (program_waiting_due, and the program's PROGRAM_WAITING); the
 * call's deadline is its timeout. A run's record stays
 * readable after its end like any ended program's; without keep, only
 * its pane goes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "pattern.h"
#include "server.h"
#include "timeutil.h"
#include "xmalloc.h"

#define TOOL_START_LIFETIME_MS	(10 * 60 * 1000)	/* by default */
#define TOOL_START_WAIT_MS	30000			/* run's, by default */
#define TOOL_START_SCAN_US	2000	/* filter: scanning per loop turn */
#define TOOL_START_FILTER_MS	5000	/* and in all, once it answers */

/* A start or run waiting for its pane, a run then for the end. */
struct tool_start_wait {
	struct req	*req;
	struct program	*p;
	bool		 run;
	bool		 pane;		/* made: a run waits for the end */
	bool		 keep;		/* run_program's keep */
	int64_t		 max_lines;
	int64_t		 timeout_ms;	/* effective */
	int64_t		 deadline;	/* a run's: when its timeout passes */
	bool		 waiting;	/* it answers: the program waits */
	struct pattern	*filter;	/* run_program's filter, or NULL */
	size_t		 context;	/* and its context */
	struct filter	 filt;		/* its scan, once answering */
	bool		 answering;	/* the answer is due: filter scans */
	bool		 dropping;	/* the program goes: answer now */
	int64_t		 scan_stop;	/* the scan's time is up then */
};

static void	tool_start_event(struct program *, enum program_event, void *);

/* Check start_program's arguments beyond the schema; fill spec. */
static int
tool_start_args(struct program_spec *spec, const struct json *args,
    struct toolres *res)
{
	const struct json	*argv = json_get(args, "argv");
	const char		*s, *placement;
	char			 id[TOOLS_PANE_ID_MAX];
	size_t			 i, len, n = json_len(argv);
	int64_t			 lifetime;

	for (i = 0; i < n; i++) {
		s = json_str(json_at(argv, i), &len);
		if (memchr(s, '\0', len) != NULL) {
			toolres_error(res, "argv[%zu] contains a NUL "
			    "character, which no program can receive: remove "
			    "it", i);
			return (-1);
		}
		if (i == 0 && len == 0) {
			toolres_error(res, "argv[0] is empty: it must name the "
			    "program to run");
			return (-1);
		}
	}
	placement = tools_arg_str(args, "placement", NULL);
	if (placement != NULL &&
	    tools_arg_str(args, "fromPaneId", NULL) == NULL) {
		toolres_error(res, "placement needs fromPaneId: it says where "
		    "to put the program beside that pane; without fromPaneId "
		    "the program gets a window of its own in session \"%s\"",
		    cfg.session);
		return (-1);
	}
	if ((s = tools_arg_str(args, "startDirectory", &len)) != NULL &&
	    memchr(s, '\0', len) != NULL) {
		toolres_error(res, "startDirectory contains a NUL character: "
		    "no directory has one in its name");
		return (-1);
	}
	spec->argc = n;
	spec->argv = xcalloc(n + 1, sizeof *spec->argv);
	for (i = 0; i < n; i++)
		spec->argv[i] = xstrdup(json_str(json_at(argv, i), NULL));
	if ((s = tools_arg_pane(args, "fromPaneId", id)) != NULL)
		spec->from_pane = xstrdup(s);
	spec->split = placement != NULL && strcmp(placement, "split") == 0;
	if ((s = tools_arg_str(args, "startDirectory", NULL)) != NULL)
		spec->dir = xstrdup(s);
	spec->width = tools_arg_int(args, "width", 0);
	spec->height = tools_arg_int(args, "height", 0);
	lifetime = tools_arg_int(args, "lifetimeMs", TOOL_START_LIFETIME_MS);
	if (lifetime > cfg.lifetime_max_ms)
		lifetime = cfg.lifetime_max_ms;
	spec->lifetime_ms = lifetime;
	return (0);
}

/*
 * The script the login shell runs for inheritShell, argv its positional
 * parameters (never part of the script). It looks argv[0] up in the PATH
 * the start-up files made, as execvp would (a file found but not
 * executable is 126, as its EACCES), and if it is missing or not
 * executable says so and signals the launcher (its parent: USR2 for 127,
 * USR1 for 126), so the program reads not_started as without the shell.
 * POSIX sh, written without word splitting so that zsh runs it too.
 */
static const char inherit_script[] =
	"f= n=\n"
	"case $1 in\n"
	"*/*) f=$1 ;;\n"
	"*) p=$PATH:\n"
	"   while [ -n \"$p\" ]; do\n"
	"     d=${p%%:*}; p=${p#*:}\n"
	"     if [ -f \"${d:-.}/$1\" ]; then\n"
	"       if [ -x \"${d:-.}/$1\" ]; then f=${d:-.}/$1; break; fi\n"
	"       [ -n \"$n\" ] || n=${d:-.}/$1\n"
	"     fi\n"
	"   done\n"
	"   [ -n \"$f\" ] || f=$n ;;\n"
	"esac\n"
	"if [ -z \"$f\" ] || [ ! -e \"$f\" ]; then\n"
	"  printf 'progmux: \"%s\": command not found\\n' \"$1\" >&2\n"
	"  kill -s USR2 $PPID; exit 127\n"
	"fi\n"
	"if [ -d \"$f\" ] || [ ! -x \"$f\" ]; then\n"
	"  printf 'progmux: \"%s\": cannot be executed\\n' \"$1\" >&2\n"
	"  kill -s USR1 $PPID; exit 126\n"
	"fi\n"
	"unset f n p d\n"
	"exec \"$@\"\n";

/* argv inside the login shell, still as separate words: the shell runs
 * inherit_script with argv as its positional parameters. */
static void
tool_start_inherit_shell(struct program_spec *spec)
{
	const char	*shell = getenv("SHELL"), *base;
	char		**v;
	size_t		  i;

	if (shell == NULL || *shell != '/')
		shell = "/bin/sh";
	base = strrchr(shell, '/') + 1;
	if (strcmp(base, "fish") == 0 || strcmp(base, "csh") == 0 ||
	    strcmp(base, "tcsh") == 0 || strcmp(base, "nu") == 0)
		shell = "/bin/sh";	/* no POSIX "$@" there */
	v = xcalloc(spec->argc + 6, sizeof *v);
	v[0] = xstrdup(shell);
	v[1] = xstrdup("-l");
	v[2] = xstrdup("-c");
	v[3] = xstrdup(inherit_script);
	v[4] = xstrdup(spec->argv[0]);	/* $0 */
	for (i = 0; i < spec->argc; i++)
		v[5 + i] = spec->argv[i];
	free(spec->argv);
	spec->argv = v;
	spec->argc += 5;
	spec->shown = 5;
}

/* The request is answered or dropped: let go of its program. */
static void
tool_start_done(struct tool_start_wait *w)
{
	if (w->answering)
		filter_free(&w->filt);
	pattern_free(w->filter);
	program_unwait(w->p, tool_start_event, w);
	tools_set_state(w->req, NULL);
	free(w);
}

/* A start's or a run's result, opened with the ids both give. */
static void
tool_start_open(struct toolres *res, struct program *p)
{
	toolres_init(res);
	jw_obj_begin(&res->w);
	jw_key(&res->w, "programId");
	jw_str(&res->w, program_id(p));
	jw_key(&res->w, "paneId");
	jw_str(&res->w, program_pane_id(p));
}

/* Reply to start_program: the pane exists. */
static void
tool_start_reply(struct tool_start_wait *w)
{
	struct program	*p = w->p;
	struct req	*req = w->req;
	struct toolres	 res;

	tool_start_done(w);
	tool_start_open(&res, p);
	jw_key(&res.w, "effectiveLifetimeMs");
	jw_int(&res.w, program_spec(p)->lifetime_ms);
	jw_obj_end(&res.w);
	buf_printf(&res.text, "started %.*s in pane %s (programId %s, "
	    "lifetime %lld ms); read it with read_program",
	    (int)report_cut_len(program_spec(p)->argv[0]),
	    program_spec(p)->argv[0], program_pane_id(p), program_id(p),
	    (long long)program_spec(p)->lifetime_ms);
	tools_reply(req, &res);
	toolres_free(&res);
}

/* A text's last page as run_program returns it: up to upto (the start
 * of the line still being written, while the program runs). */
static void
tool_start_tail(struct jw *jw, struct buf *tb, const struct textbuf *t,
    size_t upto, size_t max_lines, size_t *omitted, size_t *end)
{
	struct textbuf	 head = *t;
	struct page	 pg;
	const char	*s;

	head.len = upto;
	textbuf_tail(&head, max_lines, TEXTBUF_PAGE_CHARS, &pg);
	s = report_text_at(t, pg.start);
	jw_strn(jw, s, pg.end - pg.start);
	if (tb != NULL) {
		buf_add(tb, s, pg.end - pg.start);
		if (pg.end > pg.start && t->data[pg.end - 1] != '\n')
			buf_addc(tb, '\n');
	}
	if (omitted != NULL)
		*omitted = t->chars - utf8_count(s, t->len - pg.start);
	if (end != NULL)
		*end = pg.end;
}

/*
 * A run with filter is to answer: scan its output a slice per loop turn
 * (TOOL_START_SCAN_US), so a hard pattern holds up no other call, up to
 * TOOL_START_FILTER_MS. True once the answer can be written: all scanned,
 * the page full, a limit hit, the time up, or the program going.
 */
static bool
tool_start_run_scan(struct tool_start_wait *w, size_t max_lines)
{
	struct program		*p = w->p;
	const struct textbuf	*text = program_text(p);
	bool			 final;
	int			 rc;

	final = program_ended(p) || program_state(p) == PROGRAM_STOPPING;
	if (!w->answering) {
		w->answering = true;
		filter_init(&w->filt, w->filter, w->context, max_lines, text,
		    0);
		w->scan_stop = now_ms() + TOOL_START_FILTER_MS;
		tools_set_deadline(w->req, DEADLINE_NONE);
	}
	rc = filter_scan(&w->filt, text, final, TOOL_START_SCAN_US);
	if (rc != FILTER_MORE || w->dropping || now_ms() >= w->scan_stop)
		return (true);
	tools_set_wake(w->req, now_ms());
	return (false);
}

/* Answer run_program: ended, waiting for input, or its wait ran out.
 * Ended and not kept, its pane has gone; its record stays readable. */
static void
tool_start_run_answer(struct tool_start_wait *w)
{
	struct program			*p = w->p;
	struct req			*req = w->req;
	const struct program_spec	*spec = program_spec(p);
	const struct textbuf		*text = program_text(p);
	const struct textbuf		*errtext = program_errtext(p);
	struct toolres			 res;
	struct report			 r;
	struct filter			 f;
	struct pattern			*pat = w->filter;
	size_t				 omitted = 0, end = 0, max_lines;
	size_t				 upto = text->len;
	bool				 ended = program_ended(p);
	bool				 waiting = w->waiting;
	int64_t				 timeout_ms = w->timeout_ms;

	max_lines = w->max_lines > 0 ? (size_t)w->max_lines : SIZE_MAX;
	if (pat != NULL && !tool_start_run_scan(w, max_lines))
		return;		/* scanning goes on at the next turn */
	if (pat != NULL) {
		f = w->filt;	/* the scan's, now this answer's */
		w->answering = false;
	}
	w->filter = NULL;
	tool_start_done(w);
	if (ended && !program_launched(p) && text->len == 0 &&
	    program_outcome_of(p) == OUTCOME_GONE && program_why(p) != NULL) {
		/* It never ran: tmux could not give it a pane it could run
		 * in (pipe-pane failed, say). A failed start, not a run. */
		tools_error(req, "the program could not be started: %s",
		    program_why(p));
		program_drop(p);	/* nobody knows its id */
		if (pat != NULL) {
			filter_free(&f);
			pattern_free(pat);
		}
		return;
	}
	/* While it runs, its text ends on a line break. */
	if (!ended && program_state(p) != PROGRAM_STOPPING)
		upto = textbuf_line_start(text);
	tool_start_open(&res, p);
	jw_key(&res.w, "text");
	if (spec->separate_stderr && errtext->len > 0)
		buf_adds(&res.text, "[stdout]\n");
	if (pat != NULL) {
		/* Only the lines that match, as a filter read gives them. */
		if (f.failed != NULL) {
			toolres_free(&res);
			tools_error(req, "%s; %s is kept: read_program reads "
			    "it", f.failed, program_id(p));
			filter_free(&f);
			pattern_free(pat);
			return;
		}
		jw_strn(&res.w, f.out.data != NULL ? f.out.data : "",
		    f.out.len);
		buf_add(&res.text, f.out.data, f.out.len);
		end = f.scan;
		omitted = utf8_count(report_text_at(text, 0), end) -
		    f.shown_raw;
	} else
		tool_start_tail(&res.w, &res.text, text, upto, max_lines,
		    &omitted, &end);
	if (spec->separate_stderr) {
		jw_key(&res.w, "stderr");
		if (errtext->len > 0)
			buf_adds(&res.text, "[stderr]\n");
		tool_start_tail(&res.w, &res.text, errtext, errtext->len,
		    max_lines, NULL, NULL);
	}
	report_make(&r, p, end, ended, waiting);
	if (r.waiting)
		program_episode_tell(p);
	report_put(&res.w, &r);
	jw_key(&res.w, "omittedChars");
	jw_int(&res.w, (int64_t)omitted);
	jw_key(&res.w, "effectiveTimeoutMs");
	jw_int(&res.w, timeout_ms);
	jw_key(&res.w, "effectiveLifetimeMs");
	jw_int(&res.w, spec->lifetime_ms);
	if (pat != NULL) {
		jw_key(&res.w, "matchedLines");
		jw_int(&res.w, (int64_t)f.matched);
		jw_key(&res.w, "scannedLines");
		jw_int(&res.w, (int64_t)f.scanned);
	}
	jw_obj_end(&res.w);

	if (pat != NULL) {
		filter_line_text(&res.text, &f);
		filter_free(&f);
		pattern_free(pat);
		if (omitted > 0)
			buf_printf(&res.text, "[%zu characters of the lines "
			    "scanned are not shown; read_program from cursor 0 "
			    "has them]\n", omitted);
	} else if (omitted > 0)
		buf_printf(&res.text, "[%zu characters before this were left "
		    "out; read_program from cursor 0 has them]\n", omitted);
	report_line(&res.text, &r);
	if (!ended && r.waiting)
		buf_printf(&res.text, " it waits for input it was not given: "
		    "it is kept (lifetime %lld ms); answer it with send_keys "
		    "on pane %s, then read_program from cursor %zu, or end it "
		    "with stop_program", (long long)spec->lifetime_ms,
		    program_pane_id(p), end);
	else if (!ended)
		buf_printf(&res.text, " still running in pane %s after %lld "
		    "ms: it is kept (lifetime %lld ms); follow it with "
		    "read_program from cursor %zu or end it with stop_program",
		    program_pane_id(p), (long long)timeout_ms,
		    (long long)spec->lifetime_ms, end);
	else if (program_pane_id(p) != NULL)
		buf_printf(&res.text, " (it ran in pane %s)",
		    program_pane_id(p));
	tools_reply(req, &res);
	toolres_free(&res);
}

/* A run looks: past its timeout, or ended, or waiting for input, it
 * answers; else it waits for its timeout (or the program's news). */
static void
tool_start_run_look(struct tool_start_wait *w)
{
	int64_t	now = now_ms();

	if (now >= w->deadline || program_ended(w->p)) {
		tool_start_run_answer(w);
		return;
	}
	if (program_waiting_due(w->p, now)) {
		w->waiting = true;
		tool_start_run_answer(w);
		return;
	}
	tools_set_deadline(w->req, w->deadline);
}

/* What the program tells a waiting start or run. */
static void
tool_start_event(struct program *p, enum program_event ev, void *arg)
{
	struct tool_start_wait	*w = arg;
	struct req		*req = w->req;

	if (w->answering && ev != PROGRAM_DROP)
		return;		/* its answer is being scanned */
	switch (ev) {
	case PROGRAM_PANE:
		if (!w->run)
			break;		/* a start answers once piped */
		/* run_program goes on to wait for the end (or answers at
		 * once if its wait already ran out). */
		w->pane = true;
		tools_set_wake(req, now_ms());	/* look on the next turn */
		break;
	case PROGRAM_STATE:
		if (!w->run && program_ended(p) && !program_launched(p) &&
		    program_outcome_of(p) == OUTCOME_GONE) {
			/* Its pane could not be piped or its reaper not
			 * started (descriptors used up, say): no start. */
			tool_start_done(w);
			tools_error(req, "the program could not be started: %s",
			    program_why(p) != NULL ? program_why(p) :
			    "it was lost before it ran");
			program_drop(p);	/* nobody knows its id */
		} else if (!w->run && program_state(p) >= PROGRAM_GATED)
			tool_start_reply(w);
		else if (w->pane && program_ended(p))
			tool_start_run_answer(w);
		break;
	case PROGRAM_LAUNCHED:
	case PROGRAM_WAITING:
		if (w->pane)	/* it may wait for input (from now on) */
			tool_start_run_look(w);
		break;
	case PROGRAM_DROP:
		if (w->pane) {
			w->keep = true;		/* it is going anyway */
			w->dropping = true;
			tool_start_run_answer(w);
			break;
		}
		tool_start_done(w);
		if (program_why(p) != NULL)
			tools_error(req, "%s", program_why(p));
		else
			tools_error(req, "the program was removed before it "
			    "started");
		break;
	default:
		break;
	}
}

/* run_program's filter, context and tail: checked; the filter compiled. */
static int
tool_start_run_args(const struct json *args, struct toolres *res,
    struct pattern **filter, size_t *context, int64_t *tail)
{
	const char	*s;
	char		*cause = NULL;
	size_t		 len;
	int64_t		 c;

	*tail = tools_arg_int(args, "tail", 0);
	c = tools_arg_int(args, "context", -1);
	s = tools_arg_str(args, "filter", &len);
	if (*tail > 0 && s != NULL) {
		toolres_error(res, "tail and filter cannot be combined: tail "
		    "returns the last lines as they are, filter only the lines "
		    "that match; use one");
		return (-1);
	}
	if (c >= 0 && s == NULL) {
		toolres_error(res, "context goes with filter: it is how many "
		    "lines to show around each line filter matches");
		return (-1);
	}
	*context = c > 0 ? (size_t)c : 0;
	if (s != NULL && (*filter = pattern_compile(s, len, 0, &cause)) ==
	    NULL) {
		toolres_error(res, "filter %s; filter takes a PCRE2 pattern, "
		    "as JavaScript or Python write them (\\d, \\s, \\w, \\b, "
		    "(?i), lazy quantifiers, lookaround)", cause);
		free(cause);
		return (-1);
	}
	return (0);
}

/* The common start of start_program and run_program. */
static void
tool_start_common(struct req *req, const struct json *args, bool run)
{
	struct program_spec	 spec;
	struct tool_start_wait	*w;
	struct toolres		 res;
	struct program		*p;
	struct pattern		*filter = NULL;
	const char		*input;
	char			*cause = NULL;
	size_t			 len, context = 0;
	int64_t			 cw, ch, tail = 0;

	memset(&spec, 0, sizeof spec);
	toolres_init(&res);
	/* tmux keeps every cell of a pane: refuse a huge one up front. */
	cw = tools_arg_int(args, "width", 0);
	ch = tools_arg_int(args, "height", 0);
	if (cw <= 0)
		cw = 80;
	if (ch <= 0)
		ch = 24;
	if ((tools_arg_int(args, "width", 0) > 0 ||
	    tools_arg_int(args, "height", 0) > 0) && cw * ch >
	    cfg.pane_max_cells) {
		toolres_error(&res, "pane too large: %lld x %lld is %lld "
		    "cells, more than the %lld allowed (PROGMUX_PANE_MAX_CELLS "
		    "or --pane-max-cells raises it); ask for a smaller width "
		    "or height", (long long)cw, (long long)ch,
		    (long long)(cw * ch), (long long)cfg.pane_max_cells);
		goto fail;
	}
	if (programs_admit(&cause) == -1) {
		toolres_error(&res, "%s", cause);
		free(cause);
		goto fail;
	}
	if (!tmux_alive() && tmux_start(&cause) == -1) {
		toolres_error(&res, "tmux is not available: %s", cause);
		free(cause);
		goto fail;
	}
	if (run && tool_start_run_args(args, &res, &filter, &context,
	    &tail) == -1)
		goto fail;
	/* (Its id is taken even if the arguments are refused.) */
	p = program_new();
	if (tool_start_args(&spec, args, &res) == -1) {
		program_drop(p);
		goto fail;
	}
	w = xcalloc(1, sizeof *w);
	w->req = req;
	w->p = p;
	w->run = run;
	w->filter = filter;
	w->context = context;
	filter = NULL;
	if (run) {
		w->keep = tools_arg_bool(args, "keep", false);
		w->max_lines = tools_arg_int(args, "maxLines", 0);
		if (tail > 0 && (w->max_lines == 0 || tail < w->max_lines))
			w->max_lines = tail;
		w->timeout_ms = tools_arg_int(args, "timeoutMs",
		    TOOL_START_WAIT_MS);
		if (w->timeout_ms > cfg.wait_max_ms)
			w->timeout_ms = cfg.wait_max_ms;
		w->deadline = now_ms() + w->timeout_ms;
		tools_set_deadline(req, w->deadline);
		tools_progress_start(req);
		if ((input = tools_arg_str(args, "input", &len)) != NULL) {
			spec.input = xmemdup(input, len);
			spec.input_len = len;
			spec.has_input = true;
		}
		spec.separate_stderr = tools_arg_bool(args, "separateStderr",
		    false);
		if (tools_arg_bool(args, "inheritShell", false))
			tool_start_inherit_shell(&spec);
	}
	spec.keep_pane = spec.from_pane != NULL || (run && w->keep);
	toolres_free(&res);
	/*
	 * The FIFOs, then the pane; the reaper is spawned once the pane
	 * exists, after the answer, off the caller's path. The wait comes
	 * first: with the control client gone, tmux fails the pane at once.
	 */
	tools_set_state(req, w);
	program_wait(p, tool_start_event, w);
	if (program_start(p, &spec, &cause) == -1) {
		tool_start_done(w);
		program_drop(p);
		program_spec_free(&spec);
		tools_error(req, "%s", cause);
		free(cause);
	}
	return;

fail:
	pattern_free(filter);
	program_spec_free(&spec);
	tools_reply(req, &res);
	toolres_free(&res);
}

/* start_program. */
static void
tool_start_run_start(struct req *req, const struct json *args)
{
	tool_start_common(req, args, false);
}

/* run_program. */
static void
tool_start_run_run(struct req *req, const struct json *args)
{
	tool_start_common(req, args, true);
}

/* Still no pane: a run waits for the end later; else the run answers. */
static void
tool_start_timeout(struct req *req)
{
	struct tool_start_wait	*w = tools_state(req);

	if (w == NULL)
		return;
	if (w->pane)
		tool_start_run_answer(w);
	else if (w->run)
		tools_set_deadline(req, DEADLINE_NONE);
}

/* Time for a run to look again (its end, or input it waits for). */
static void
tool_start_wake(struct req *req)
{
	struct tool_start_wait	*w = tools_state(req);

	if (w != NULL && w->answering)
		tool_start_run_answer(w);	/* scan on */
	else if (w != NULL && w->pane)
		tool_start_run_look(w);
}

/* A run_program waiting with a progress token: say how it goes. */
static void
tool_start_progress(struct req *req)
{
	struct tool_start_wait	*w = tools_state(req);
	char			 msg[160];
	int64_t			 waited;

	if (w == NULL)
		return;
	waited = now_ms() - program_started_ms(w->p);
	snprintf(msg, sizeof msg, "%s still running after %lld s; %zu bytes "
	    "of output so far", program_spec(w->p)->argv[0],
	    (long long)(waited / 1000), program_text(w->p)->len);
	tools_progress_send(req, (double)waited, (double)w->timeout_ms, msg);
}

/* The client gave up: a start not yet made goes at once (its pane is
 * removed when tmux makes it); a run that ended, unless kept. */
static void
tool_start_cancel(struct req *req)
{
	struct tool_start_wait	*w = tools_state(req);
	struct program		*p;
	bool			 drop;

	if (w == NULL)
		return;
	p = w->p;
	drop = !w->pane || (!w->keep && program_ended(p));
	tool_start_done(w);
	if (drop)
		program_drop(p);
}

const struct tool_entry tool_start_entry = {
	.name = "start_program",
	.run = tool_start_run_start,
	.cancel = tool_start_cancel,
	.timeout = tool_start_timeout,
	.progress = tool_start_progress,
	.other_fields = ",input,keep,inheritShell,separateStderr,timeoutMs,"
	    "maxLines,tail,filter,context,",
	.other_hint = "start_program takes no %s: use run_program for input, "
	    "keep, inheritShell, separateStderr or a wait, or read_program to "
	    "read"
};

const struct tool_entry tool_start_run_entry = {
	.name = "run_program",
	.run = tool_start_run_run,
	.cancel = tool_start_cancel,
	.timeout = tool_start_timeout,
	.progress = tool_start_progress,
	.wake = tool_start_wake
};
