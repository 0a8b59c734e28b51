/*
 * tool_program.c — start_program, read_program, run_program, stop_program.
 *
 * A tool call that cannot be answered at once becomes a parked request
 * (mcp.c) tied to its program: a read waiting for a line or the end, a
 * start waiting for its pane (start.c), a run waiting for the end, a stop
 * waiting for the reaper's report. Whenever a program changes (text, end,
 * about to be forgotten), program_changed() and program_requests_settle()
 * answer what can be answered; deadlines come through
 * program_request_timeout().
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "log.h"
#include "server.h"
#include "timeutil.h"
#include "xmalloc.h"

#define DEFAULT_LIFETIME_MS	(10 * 60 * 1000)
#define DEFAULT_WAIT_MS		30000
#define DEFAULT_GRACE_MS	2000
#define STOP_SLACK_MS		5000	/* past grace, stop answers anyway */

/* Text at offset off; "" while nothing has been kept yet. */
static const char *
text_at(const struct textbuf *t, size_t off)
{
	return (t->data != NULL ? t->data + off : "");
}

/* The outcome a client sees. */
static const char *
prog_outcome(const struct program *p)
{
	if (p->state == P_ENDED)
		return (p->outcome);
	if (p->stopping)
		return ("stopped");
	return ("running");
}

/* Write exitStatus and signal as the schemas define them. */
static void
put_status(struct jw *w, const struct program *p)
{
	const char	*sig = NULL;

	jw_key(w, "exitStatus");
	if (p->state == P_ENDED && p->exit_status >= 0)
		jw_int(w, p->exit_status);
	else
		jw_null(w);
	if (p->state == P_ENDED)
		sig = signal_name(p->signal);
	jw_key(w, "signal");
	jw_str(w, sig);
}

static bool
prog_complete(const struct program *p)
{
	const char	*o = prog_outcome(p);

	return (p->state == P_ENDED && !p->cut && !p->text.cut &&
	    !p->lost_end && (strcmp(o, "completed") == 0 ||
	    strcmp(o, "not_started") == 0));
}

/* The short status line that ends every text block about a program. */
static void
put_status_line(struct buf *b, const struct program *p, size_t cursor,
    bool all_read)
{
	const char	*o = prog_outcome(p), *sig;

	buf_printf(b, "[%s: %s", p->id, o);
	if (p->state == P_ENDED && p->exit_status >= 0)
		buf_printf(b, ", exit status %lld", (long long)p->exit_status);
	if (p->state == P_ENDED && (sig = signal_name(p->signal)) != NULL)
		buf_printf(b, ", %s", sig);
	if (p->state == P_ENDED && p->why != NULL &&
	    strcmp(o, "completed") != 0)
		buf_printf(b, " (%s)", p->why);
	buf_printf(b, "; cursor %zu%s]", cursor, all_read ? ", all read" :
	    p->state == P_ENDED ? ", more to read" : "");
}

/* Check start_program's arguments beyond the schema; fill p. */
static int
start_args(struct program *p, const struct json *args, struct toolres *res)
{
	const struct json	*argv = json_get(args, "argv");
	const char		*s, *placement;
	size_t			 i, len, n = json_len(argv);
	int64_t			 lifetime;

	for (i = 0; i < n; i++) {
		s = json_str(json_at(argv, i), &len);
		if (memchr(s, '\0', len) != NULL) {
			tool_error(res, "argv[%zu] contains a NUL character, "
			    "which no program can receive: remove it", i);
			return (-1);
		}
		if (i == 0 && len == 0) {
			tool_error(res, "argv[0] is empty: it must name the "
			    "program to run");
			return (-1);
		}
	}
	placement = arg_str(args, "placement", NULL);
	if (placement != NULL && arg_str(args, "fromPaneId", NULL) == NULL) {
		tool_error(res, "placement needs fromPaneId: it says where "
		    "to put the program beside that pane; without fromPaneId "
		    "the program gets a window of its own in session \"%s\"",
		    cfg.session);
		return (-1);
	}
	if ((s = arg_str(args, "startDirectory", &len)) != NULL &&
	    memchr(s, '\0', len) != NULL) {
		tool_error(res, "startDirectory contains a NUL character: "
		    "no directory has one in its name");
		return (-1);
	}
	p->argc = n;
	p->argv = xcalloc(n + 1, sizeof *p->argv);
	for (i = 0; i < n; i++)
		p->argv[i] = xstrdup(json_str(json_at(argv, i), NULL));
	if ((s = arg_str(args, "fromPaneId", NULL)) != NULL)
		p->from_pane = xstrdup(s);
	p->split = placement != NULL && strcmp(placement, "split") == 0;
	if ((s = arg_str(args, "startDirectory", NULL)) != NULL)
		p->dir = xstrdup(s);
	p->width = arg_int(args, "width", 0);
	p->height = arg_int(args, "height", 0);
	lifetime = arg_int(args, "lifetimeMs", DEFAULT_LIFETIME_MS);
	if (lifetime > cfg.lifetime_max_ms)
		lifetime = cfg.lifetime_max_ms;
	p->lifetime_ms = lifetime;
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
start_inherit_shell(struct program *p)
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
	v = xcalloc(p->argc + 6, sizeof *v);
	v[0] = xstrdup(shell);
	v[1] = xstrdup("-l");
	v[2] = xstrdup("-c");
	v[3] = xstrdup(inherit_script);
	v[4] = xstrdup(p->argv[0]);	/* $0 */
	for (i = 0; i < p->argc; i++)
		v[5 + i] = p->argv[i];
	free(p->argv);
	p->argv = v;
	p->argc += 5;
}

/* The common start of start_program and run_program. */
static void
start_common(struct req *req, const struct json *args, bool run)
{
	struct toolres	 res;
	struct program	*p;
	const char	*input;
	char		*cause = NULL;
	size_t		 len;
	int64_t		 w, h;

	toolres_init(&res);
	/* tmux keeps every cell of a pane: refuse a huge one up front. */
	w = arg_int(args, "width", 0);
	h = arg_int(args, "height", 0);
	if ((w > 0 || h > 0) && (w > 0 ? w : 80) * (h > 0 ? h : 24) >
	    cfg.pane_max_cells) {
		tool_error(&res, "pane too large: %lld x %lld is %lld cells, "
		    "more than the %lld allowed (PROGMUX_PANE_MAX_CELLS or "
		    "--pane-max-cells raises it); ask for a smaller width or "
		    "height", (long long)(w > 0 ? w : 80),
		    (long long)(h > 0 ? h : 24),
		    (long long)((w > 0 ? w : 80) * (h > 0 ? h : 24)),
		    (long long)cfg.pane_max_cells);
		goto fail;
	}
	if (programs_alive() >= (size_t)cfg.max_programs) {
		mcp_log(MCP_LOG_WARNING, "ceiling", "start refused: %lld "
		    "programs are running (PROGMUX_MAX_PROGRAMS)",
		    (long long)cfg.max_programs);
		tool_error(&res, "ceiling reached: %lld programs are running "
		    "(PROGMUX_MAX_PROGRAMS or --max-programs raises it); stop "
		    "one with stop_program or wait for one to end",
		    (long long)cfg.max_programs);
		goto fail;
	}
	programs_make_room();
	if (programs_text_kept() >= (size_t)cfg.total_output_max_bytes) {
		mcp_log(MCP_LOG_WARNING, "ceiling", "start refused: %zu bytes "
		    "of text kept (PROGMUX_TOTAL_OUTPUT_MAX_BYTES)",
		    programs_text_kept());
		tool_error(&res, "ceiling reached: programs hold %zu bytes of "
		    "text, the most kept in all (PROGMUX_TOTAL_OUTPUT_MAX_BYTES "
		    "or --total-output-max-bytes raises it); stop programs "
		    "whose output you have read with stop_program",
		    programs_text_kept());
		goto fail;
	}
	if (!tmux_alive() && tmux_start(&cause) == -1) {
		tool_error(&res, "tmux is not available: %s", cause);
		free(cause);
		goto fail;
	}
	p = program_new();
	if (start_args(p, args, &res) == -1) {
		program_forget(p);
		goto fail;
	}
	p->run = run;
	if (run) {
		req->keep = arg_bool(args, "keep", false);
		req->max_lines = arg_int(args, "maxLines", 0);
		req->timeout_ms = arg_int(args, "timeoutMs", DEFAULT_WAIT_MS);
		if (req->timeout_ms > cfg.wait_max_ms)
			req->timeout_ms = cfg.wait_max_ms;
		req->deadline = now_ms() + req->timeout_ms;
		if (req->progress_token != NULL)
			req->progress_at = now_ms() + MCP_PROGRESS_MS;
		if ((input = arg_str(args, "input", &len)) != NULL) {
			p->input = xmemdup(input, len);
			p->input_len = len;
			p->has_input = true;
		}
		p->separate_stderr = arg_bool(args, "separateStderr", false);
		if (arg_bool(args, "inheritShell", false)) {
			p->inherit_shell = true;
			start_inherit_shell(p);
		}
	}
	p->keep_pane = p->from_pane != NULL || (run && req->keep);
	p->start_req = req;
	req->kind = REQ_START;
	req->prog = p;
	/* The FIFOs, then the pane; the reaper is spawned once the pane
	 * exists (start.c), after the answer, off the caller's path. */
	if (program_make_fifos(p, &cause) == 0) {
		program_make_pane(p);
		toolres_free(&res);
		mcp_req_park(req);
		return;
	}
	p->start_req = NULL;
	req->prog = NULL;
	tool_error(&res, "%s", cause);
	free(cause);
	program_forget(p);
	goto fail;

fail:
	req->prog = NULL;
	req->kind = REQ_NONE;
	tools_reply(req, &res);
	toolres_free(&res);
}

void
tool_start_program(struct req *req, const struct json *args)
{
	start_common(req, args, false);
}

void
tool_run_program(struct req *req, const struct json *args)
{
	start_common(req, args, true);
}

/* Answer a read: the page at its cursor and how the program stands. */
static void
read_answer(struct req *req, bool timed_out)
{
	struct program	*p = req->prog;
	struct toolres	 res;
	struct page	 pg;
	char		*cause = NULL;
	bool		 over, all_read;

	toolres_init(&res);
	over = p->state == P_ENDED || p->stopping;
	if (textbuf_page(&p->text, (size_t)req->cursor,
	    req->max_lines > 0 ? (size_t)req->max_lines : SIZE_MAX,
	    TEXTBUF_PAGE_CHARS, over, &pg, &cause) == -1) {
		tool_error(&res, "%s", cause);
		free(cause);
		goto done;
	}
	if (timed_out && pg.end == pg.start && !over)
		pg.end = pg.start = (size_t)req->cursor;
	all_read = over && pg.end == p->text.len;

	jw_obj_begin(&res.w);
	jw_key(&res.w, "text");
	jw_strn(&res.w, text_at(&p->text, pg.start), pg.end - pg.start);
	jw_key(&res.w, "cursor");
	jw_int(&res.w, (int64_t)pg.end);
	jw_key(&res.w, "ended");
	jw_bool(&res.w, all_read);
	jw_key(&res.w, "outcome");
	jw_str(&res.w, prog_outcome(p));
	put_status(&res.w, p);
	jw_key(&res.w, "outputCut");
	jw_bool(&res.w, p->cut || p->text.cut);
	jw_key(&res.w, "lostEnd");
	jw_bool(&res.w, p->lost_end);
	jw_key(&res.w, "outputComplete");
	jw_bool(&res.w, all_read && prog_complete(p));
	jw_key(&res.w, "effectiveTimeoutMs");
	jw_int(&res.w, req->timeout_ms);
	jw_obj_end(&res.w);

	buf_add(&res.text, text_at(&p->text, pg.start), pg.end - pg.start);
	if (pg.end > pg.start && p->text.data[pg.end - 1] != '\n')
		buf_addc(&res.text, '\n');
	put_status_line(&res.text, p, pg.end, all_read);
done:
	req->prog = NULL;
	tools_reply(req, &res);
	toolres_free(&res);
}

/* The error for a programId this server does not hold. */
static void
reply_unknown_program(struct req *req, const char *id)
{
	struct toolres	res;

	toolres_init(&res);
	tool_error(&res, "unknown programId \"%s\": it was never started "
	    "here, was stopped, or was dropped after %lld later programs "
	    "ended; list_programs shows the ones there are", id,
	    (long long)cfg.keep_ended);
	tools_reply(req, &res);
	toolres_free(&res);
}

/* Could a parked read be answered now? */
static bool
read_ready(struct req *req)
{
	struct program	*p = req->prog;
	struct page	 pg;
	char		*cause = NULL;

	if (p->state == P_ENDED || p->stopping)
		return (true);
	if (textbuf_page(&p->text, (size_t)req->cursor,
	    req->max_lines > 0 ? (size_t)req->max_lines : SIZE_MAX,
	    TEXTBUF_PAGE_CHARS, false, &pg, &cause) == -1) {
		free(cause);
		return (true);
	}
	return (pg.end > pg.start);
}

void
tool_read_program(struct req *req, const struct json *args)
{
	struct program	*p;
	const char	*id;
	int64_t		 timeout;

	id = arg_str(args, "programId", NULL);
	if ((p = program_find(id)) == NULL) {
		reply_unknown_program(req, id);
		return;
	}
	timeout = arg_int(args, "timeoutMs", DEFAULT_WAIT_MS);
	if (timeout > cfg.wait_max_ms)
		timeout = cfg.wait_max_ms;
	req->kind = REQ_READ;
	req->prog = p;
	req->cursor = arg_int(args, "cursor", 0);
	req->max_lines = arg_int(args, "maxLines", 0);
	req->timeout_ms = timeout;
	if ((size_t)req->cursor > p->text.len || timeout == 0 ||
	    read_ready(req)) {
		read_answer(req, timeout == 0);
		return;
	}
	req->deadline = now_ms() + timeout;
	mcp_req_park(req);
}

/* A text's last page as run_program returns it. */
static void
put_tail(struct jw *w, struct buf *tb, const struct textbuf *t,
    size_t max_lines, size_t *omitted, size_t *end)
{
	struct page	pg;

	textbuf_tail(t, max_lines, TEXTBUF_PAGE_CHARS, &pg);
	jw_strn(w, text_at(t, pg.start), pg.end - pg.start);
	if (tb != NULL) {
		buf_add(tb, text_at(t, pg.start), pg.end - pg.start);
		if (pg.end > pg.start && t->data[pg.end - 1] != '\n')
			buf_addc(tb, '\n');
	}
	if (omitted != NULL)
		*omitted = t->chars - utf8_count(text_at(t, pg.start),
		    t->len - pg.start);
	if (end != NULL)
		*end = pg.end;
}

/* Answer run_program: ended, or its wait ran out. Returns true when the
 * program was forgotten with it (ended, not kept). */
static bool
run_answer(struct req *req)
{
	struct program	*p = req->prog;
	struct toolres	 res;
	size_t		 omitted = 0, end = 0, max_lines;
	bool		 ended = p->state == P_ENDED, keep = req->keep;

	toolres_init(&res);
	max_lines = req->max_lines > 0 ? (size_t)req->max_lines : SIZE_MAX;
	jw_obj_begin(&res.w);
	jw_key(&res.w, "programId");
	jw_str(&res.w, p->id);
	jw_key(&res.w, "paneId");
	jw_str(&res.w, p->pane);
	jw_key(&res.w, "outcome");
	jw_str(&res.w, prog_outcome(p));
	jw_key(&res.w, "ended");
	jw_bool(&res.w, ended);
	put_status(&res.w, p);
	jw_key(&res.w, "text");
	if (p->separate_stderr && p->errtext.len > 0)
		buf_adds(&res.text, "[stdout]\n");
	put_tail(&res.w, &res.text, &p->text, max_lines, &omitted, &end);
	if (p->separate_stderr) {
		jw_key(&res.w, "stderr");
		if (p->errtext.len > 0)
			buf_adds(&res.text, "[stderr]\n");
		put_tail(&res.w, &res.text, &p->errtext, max_lines, NULL, NULL);
	}
	jw_key(&res.w, "omittedChars");
	jw_int(&res.w, (int64_t)omitted);
	jw_key(&res.w, "cursor");
	jw_int(&res.w, (int64_t)end);
	jw_key(&res.w, "outputCut");
	jw_bool(&res.w, p->cut || p->text.cut);
	jw_key(&res.w, "outputComplete");
	jw_bool(&res.w, prog_complete(p));
	jw_key(&res.w, "lostEnd");
	jw_bool(&res.w, p->lost_end);
	jw_key(&res.w, "effectiveTimeoutMs");
	jw_int(&res.w, req->timeout_ms);
	jw_key(&res.w, "effectiveLifetimeMs");
	jw_int(&res.w, p->lifetime_ms);
	jw_obj_end(&res.w);

	if (omitted > 0)
		buf_printf(&res.text, "[%zu characters before this were left "
		    "out; read_program from cursor 0 has them]\n", omitted);
	put_status_line(&res.text, p, end, ended);
	if (!ended)
		buf_printf(&res.text, " still running after %lld ms: it is "
		    "kept; follow it with read_program from cursor %zu or end "
		    "it with stop_program", (long long)req->timeout_ms, end);
	req->prog = NULL;
	tools_reply(req, &res);
	toolres_free(&res);
	/* Ended and not kept: the program and its pane go now. */
	if (ended && !keep) {
		program_forget(p);
		return (true);
	}
	return (false);
}

/* Answer stop_program; the program is forgotten. */
static void
stop_answer(struct req *req, bool was_running)
{
	struct program	*p = req->prog;
	struct toolres	 res;
	bool		 ended = p->state == P_ENDED;

	toolres_init(&res);
	jw_obj_begin(&res.w);
	jw_key(&res.w, "programId");
	jw_str(&res.w, p->id);
	jw_key(&res.w, "wasRunning");
	jw_bool(&res.w, was_running);
	jw_key(&res.w, "outcome");
	jw_str(&res.w, ended ? p->outcome : "stopped");
	put_status(&res.w, p);
	jw_obj_end(&res.w);
	buf_printf(&res.text, "%s %s", p->id, was_running ? "stopped" :
	    "had already ended; forgotten");
	if (ended && p->exit_status >= 0)
		buf_printf(&res.text, " (exit status %lld)",
		    (long long)p->exit_status);
	else if (ended && p->signal > 0)
		buf_printf(&res.text, " (%s)", signal_name(p->signal));
	req->prog = NULL;
	tools_reply(req, &res);
	toolres_free(&res);
}

void
tool_stop_program(struct req *req, const struct json *args)
{
	struct program	*p;
	const char	*id = arg_str(args, "programId", NULL);
	int64_t		 grace = arg_int(args, "graceMs", DEFAULT_GRACE_MS);

	p = program_find(id);
	if (p == NULL) {
		reply_unknown_program(req, id);
		return;
	}
	req->prog = p;
	req->kind = REQ_STOP;
	if (p->state == P_ENDED) {
		stop_answer(req, false);
		program_forget(p);
		return;
	}
	req->deadline = now_ms() + grace + STOP_SLACK_MS;
	mcp_req_park(req);
	if (p->stopping)
		return;		/* a stop is under way: wait for it too */
	p->stopping = true;
	p->stop_grace = grace;
	/* Reads waiting on it answer now, with outcome stopped. */
	program_changed(p);
	if (p->state == P_RUNNING)
		program_stop(p, grace);
	/* (A program still starting is stopped once its pane is there.) */
}

/* Text arrived or the program ended: answer what waits on it. */
void
program_changed(struct program *p)
{
	struct req	*req, *next;

	for (req = mcp_pending_first(); req != NULL; req = next) {
		next = req->next;
		if (req->prog != p)
			continue;
		if (req->kind == REQ_READ && read_ready(req))
			read_answer(req, false);
		else if (req->kind == REQ_RUN && p->state == P_ENDED) {
			if (run_answer(req))
				return;		/* p is gone */
		}
		else if (req->kind == REQ_STOP && p->state == P_ENDED)
			stop_answer(req, true);
		else if (req->kind == REQ_KEYS && (p->launched ||
		    p->state == P_ENDED))
			pane_keys_release(req);
	}
	/* Stopped, and the stop answered (or given up by its caller):
	 * stop_program forgets it. */
	if (p->stopping && p->state == P_ENDED)
		program_forget(p);
}

/* p is about to be forgotten: nothing may wait on it any longer. */
void
program_requests_settle(struct program *p)
{
	struct req	*req, *next;
	struct toolres	 res;

	for (req = mcp_pending_first(); req != NULL; req = next) {
		next = req->next;
		if (req->prog != p)
			continue;
		switch (req->kind) {
		case REQ_READ:
			read_answer(req, false);
			break;
		case REQ_RUN:
			req->keep = true;	/* it is going anyway */
			(void)run_answer(req);
			break;
		case REQ_STOP:
			stop_answer(req, p->state != P_ENDED);
			break;
		case REQ_KEYS:
			pane_keys_release(req);	/* tmux says if it is gone */
			break;
		default:
			toolres_init(&res);
			tool_error(&res, "the program was removed before it "
			    "started");
			req->prog = NULL;
			p->start_req = NULL;
			tools_reply(req, &res);
			toolres_free(&res);
			break;
		}
	}
}

void
program_request_timeout(struct req *req)
{
	struct program	*p = req->prog;

	switch (req->kind) {
	case REQ_READ:
		read_answer(req, true);
		break;
	case REQ_RUN:
		(void)run_answer(req);
		break;
	case REQ_STOP:
		/* The reaper did not report in time: forget it anyway. */
		stop_answer(req, true);
		program_forget(p);
		break;
	case REQ_KEYS:
		pane_keys_release(req);	/* waited long enough: type now */
		break;
	case REQ_START:
		if (p != NULL && p->run) {
			/* Still no pane: let the run wait for the end later. */
			req->deadline = DEADLINE_NONE;
		}
		break;
	}
}

/* A run_program waiting with a progress token: say how it goes. */
void
program_request_progress(struct req *req)
{
	struct program	*p = req->prog;
	char		 msg[160];
	int64_t		 waited;

	if (p == NULL || (req->kind != REQ_RUN && req->kind != REQ_START))
		return;
	waited = now_ms() - p->started_ms;
	snprintf(msg, sizeof msg, "%s still running after %lld s; %zu bytes "
	    "of output so far", p->argv[0], (long long)(waited / 1000),
	    p->text.len);
	mcp_progress(req, (double)waited, (double)req->timeout_ms, msg);
}

void
program_request_cancel(struct req *req)
{
	struct program	*p = req->prog;

	if (p == NULL)
		return;
	if (req->kind == REQ_START) {
		p->start_req = NULL;	/* start.c ends it once it is up */
		p->start_cancelled = true;
	}
	else if (req->kind == REQ_RUN && !req->keep && p->state == P_ENDED)
		program_forget(p);
	req->prog = NULL;
}

/* When it started, for people. */
static void
put_iso_time(struct jw *w, int64_t ms)
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

void
tool_list_programs(struct req *req, const struct json *args)
{
	struct toolres	 res;
	struct program	*p;
	int64_t		 now = now_ms(), left;
	size_t		 i, n = 0;

	(void)args;
	toolres_init(&res);
	jw_obj_begin(&res.w);
	jw_key(&res.w, "programs");
	jw_arr_begin(&res.w);
	for (p = program_first(); p != NULL; p = p->next) {
		jw_obj_begin(&res.w);
		jw_key(&res.w, "programId");
		jw_str(&res.w, p->id);
		jw_key(&res.w, "argv");
		jw_arr_begin(&res.w);
		/* With inheritShell, what was asked for, not the wrapper. */
		for (i = p->inherit_shell ? 5 : 0; i < p->argc; i++)
			jw_str(&res.w, p->argv[i]);
		jw_arr_end(&res.w);
		jw_key(&res.w, "paneId");
		jw_str(&res.w, p->pane);
		jw_key(&res.w, "outcome");
		jw_str(&res.w, prog_outcome(p));
		jw_key(&res.w, "ended");
		jw_bool(&res.w, p->state == P_ENDED);
		jw_key(&res.w, "textChars");
		jw_int(&res.w, (int64_t)p->text.chars);
		jw_key(&res.w, "startedAt");
		put_iso_time(&res.w, p->started_real);
		left = p->started_ms + p->lifetime_ms - now;
		jw_key(&res.w, "lifetimeLeftMs");
		jw_int(&res.w, p->state == P_ENDED || left < 0 ? 0 : left);
		jw_obj_end(&res.w);
		buf_printf(&res.text, "%s %s %s %s\n", p->id, p->pane ?
		    p->pane : "-", prog_outcome(p),
		    p->argv[p->inherit_shell ? 5 : 0]);
		n++;
	}
	jw_arr_end(&res.w);
	jw_obj_end(&res.w);
	if (n == 0)
		buf_adds(&res.text, "no programs\n");
	tools_reply(req, &res);
	toolres_free(&res);
}
