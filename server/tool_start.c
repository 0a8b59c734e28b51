/*
 * tool_start.c — start_program, and the start run_program makes too.
 *
 * The arguments are checked into a program_spec and a program is started
 * (program.c), past the start ceilings (programs_admit). While the pane
 * is made the call waits on the program as a struct tool_start_wait.
 * start_program answers once the pane exists, has its pane's writer
 * (pipe-pane) and its reaper, so that a start that cannot get what it
 * needs (descriptors, tmux's or ours) is an error, never a program that
 * then reads gone; run_program (tool_run.c) goes on once the pane exists
 * to wait for the end. With inheritShell argv runs inside the login
 * shell, still as separate words. start_program with until, a readiness
 * clause (ready.c) or timeoutMs waits from then on as a read does
 * (watch.c, tool_read_answer), for a clause, READY=1, a prompt, the end
 * or the timeout (counted from the call), and answers with the start's
 * fields and the read's; the program goes on running. Its grace (how long
 * it outlives us for a new progmux to adopt it) is orphanGraceMs or
 * PROGMUX_ORPHAN_GRACE_MS, never past its lifetime, and 0 in robust mode.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "proto.h"
#include "server.h"
#include "timeutil.h"
#include "xmalloc.h"

#define TOOL_START_LIFETIME_MS	(10 * 60 * 1000)	/* by default */
#define TOOL_START_WAIT_MS	30000	/* a wait's, with until or a clause */

/* What start_program waits for once started: until, the clauses. */
struct tool_start_until {
	struct sel		 sel;
	struct ready		*ready;
	int64_t			 timeout_ms;	/* effective */
	int64_t			 deadline;	/* counted from the call */
};

/* A start (or a run's) waiting for its pane. */
struct tool_start_wait {
	struct req		*req;
	struct program		*p;
	struct program_waiter	*waiter;
	tool_start_cb		 made;	/* a run's: the pane exists */
	void			*arg;
	struct tool_start_until	*until;	/* start_program's wait, or NULL */
};

static const struct tool_entry tool_start_wait_entry;
static void	tool_start_begin(struct req *, const struct json *,
		    struct program_spec *, tool_start_cb, void *,
		    struct tool_start_until *);

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
	if (!spec->grace_set)
		spec->grace_ms = cfg.orphan_grace_ms;
	if (cfg.robust || cfg.lease_fd == -1)
		spec->grace_ms = 0;
	if (spec->grace_ms > spec->lifetime_ms)
		spec->grace_ms = spec->lifetime_ms;
	return (0);
}

/* What the start's text adds: an orphanGraceMs that robust mode (or no
 * rendezvous) makes 0. */
static void
tool_start_grace_note(struct buf *text, const struct program_spec *spec)
{
	if (spec->grace_set && spec->grace_ms == 0 && (cfg.robust ||
	    cfg.lease_fd == -1))
		buf_printf(text, " (orphanGraceMs is 0 here: %s)", cfg.robust ?
		    "in robust mode nothing outlives progmux" : "there is no "
		    "rendezvous for a new progmux to adopt it, see stderr");
}

/*
 * The script the login shell runs for inheritShell, argv its positional
 * parameters (never part of the script). It looks argv[0] up in the PATH
 * the start-up files made, as execvp would (a file found but not
 * executable is 126, as its EACCES), and if it is missing or not
 * executable says so and writes that status on descriptor 3, a pipe the
 * launcher reads once the shell has exited (so the program reads
 * not_started as without the shell, whoever the shell's parent is and
 * whatever a signal's sender would say); the program gets no descriptor
 * 3. POSIX sh, written without word splitting so that zsh runs it too.
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
	"  { printf 127 >&3; } 2>/dev/null; exit 127\n"
	"fi\n"
	"if [ -d \"$f\" ] || [ ! -x \"$f\" ]; then\n"
	"  printf 'progmux: \"%s\": cannot be executed\\n' \"$1\" >&2\n"
	"  { printf 126 >&3; } 2>/dev/null; exit 126\n"
	"fi\n"
	"unset f n p d\n"
	"exec \"$@\" 3>&-\n";

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
	spec->inherit_shell = true;
}

/* Let go of start_program's wait (NULL: none). */
static void
tool_start_until_free(struct tool_start_until *u)
{
	if (u == NULL)
		return;
	sel_free(&u->sel);
	ready_free(u->ready);
	free(u);
}

/* The start is over (answered, or handed to its run): let go. */
static void
tool_start_done(struct tool_start_wait *w)
{
	program_unwait(w->waiter);
	tools_set_state(w->req, NULL);
	tool_start_until_free(w->until);
	free(w);
}

/* Reply to start_program: the pane exists, piped, its reaper there. */
static void
tool_start_reply(struct req *req, struct program *p)
{
	const struct program_spec	*spec = program_spec(p);
	struct toolres			 res;
	char				 shown[TOOLS_PANE_SHOWN_MAX];

	toolres_init(&res);
	jw_obj_begin(&res.w);
	report_put_ids(&res.w, p);
	jw_key(&res.w, "effectiveLifetimeMs");
	jw_int(&res.w, spec->lifetime_ms);
	jw_obj_end(&res.w);
	buf_printf(&res.text, "started %.*s in pane %s (programId %s, "
	    "lifetime %lld ms); read it with read_program",
	    (int)report_cut_len(spec->argv[0]), spec->argv[0],
	    tools_pane_shown(program_pane_id(p), shown), program_id(p),
	    (long long)spec->lifetime_ms);
	tool_start_grace_note(&res.text, spec);
	tools_reply(req, &res);
	toolres_free(&res);
}

/* A waiting start's own fields (the program's, as the start's reply
 * has them) and the first line of its text. */
static void
tool_start_put(struct jw *jw, struct buf *text, void *arg)
{
	struct program			*p = arg;
	const struct program_spec	*spec = program_spec(p);

	if (jw != NULL) {
		report_put_ids(jw, p);
		jw_key(jw, "effectiveLifetimeMs");
		jw_int(jw, spec->lifetime_ms);
		return;
	}
	buf_printf(text, "started %.*s in pane %s (programId %s, lifetime "
	    "%lld ms)", (int)report_cut_len(spec->argv[0]), spec->argv[0],
	    program_pane_id(p), program_id(p), (long long)spec->lifetime_ms);
	tool_start_grace_note(text, spec);
	buf_adds(text, "; what it wrote:\n");
}

/* start_program's wait: once started (u taken), a read's. */
static void
tool_start_wait(struct req *req, struct program *p,
    struct tool_start_until *u)
{
	struct tool_read_extra	*x;
	struct watch		*w;

	x = xcalloc(1, sizeof *x);
	x->put = tool_start_put;
	x->arg = p;
	tools_set_entry(req, &tool_start_wait_entry);
	w = watch_new(req, p, &u->sel, u->timeout_ms, u->deadline,
	    tool_read_answer, x);
	watch_own_arg(w, free);
	watch_ready(w, u->ready, true);
	u->ready = NULL;
	tool_start_until_free(u);
	watch_start(w);
}

/* The start failed (req is answered): a run lets go of its state. */
static void
tool_start_failed(tool_start_cb made, void *arg)
{
	if (made != NULL)
		made(NULL, NULL, arg);
}

/* What the program tells a start waiting for its pane. */
static void
tool_start_event(struct program *p, enum program_event ev, void *arg)
{
	struct tool_start_wait	*w = arg;
	struct req		*req = w->req;
	struct tool_start_until	*u;
	tool_start_cb		 made = w->made;
	void			*made_arg = w->arg;

	if (ev == PROGRAM_DROP) {
		tool_start_done(w);
		tools_error(req, "%s", program_why(p) != NULL ? program_why(p) :
		    "the program was removed before it started");
		tool_start_failed(made, made_arg);
	} else if (ev == PROGRAM_PANE && made != NULL) {
		tool_start_done(w);	/* a run goes on */
		made(req, p, made_arg);
	} else if (ev == PROGRAM_STATE && program_ended(p) &&
	    !program_launched(p) && program_outcome_of(p) == OUTCOME_GONE) {
		/* Not piped, or no reaper: nobody knows its id, so it goes. */
		tool_start_done(w);
		tools_error(req, "the program could not be started: %s",
		    program_why(p) != NULL ? program_why(p) :
		    "it was lost before it ran");
		program_drop(p);
	} else if (ev == PROGRAM_STATE && made == NULL &&
	    program_state(p) >= PROGRAM_GATED) {
		u = w->until;
		w->until = NULL;
		tool_start_done(w);
		if (u != NULL)
			tool_start_wait(req, p, u);
		else
			tool_start_reply(req, p);
	}
}

/*
 * Start a program as args ask (spec holding what run_program added:
 * spec is taken). start_program answers once it is piped. With made,
 * made(req, program, arg) is called once the pane exists instead, or
 * made(NULL, NULL, arg) if the start failed (req answered) or was
 * cancelled: once either way.
 */
void
tool_start_program(struct req *req, const struct json *args,
    struct program_spec *spec, tool_start_cb made, void *arg)
{
	tool_start_begin(req, args, spec, made, arg, NULL);
}

/* tool_start_program, with start_program's wait (u, taken; NULL). */
static void
tool_start_begin(struct req *req, const struct json *args,
    struct program_spec *spec, tool_start_cb made, void *arg,
    struct tool_start_until *u)
{
	struct tool_start_wait	*w;
	struct toolres		 res;
	struct program		*p;
	char			*cause = NULL;

	toolres_init(&res);
	if (programs_admit(&cause) == -1) {
		tools_error(req, "%s", cause);
		free(cause);
		goto fail;
	}
	if (!tmux_alive() && tmux_start(&cause) == -1) {
		tools_error(req, "tmux is not available: %s", cause);
		free(cause);
		goto fail;
	}
	/* (Its id is taken even if the arguments are refused.) */
	p = program_new();
	if (tool_start_args(spec, args, &res) == -1) {
		program_drop(p);
		tools_reply(req, &res);
		goto fail;
	}
	if (tools_arg_bool(args, "inheritShell", false))
		tool_start_inherit_shell(spec);
	spec->keep_pane = spec->from_pane != NULL || spec->keep_pane;
	w = xcalloc(1, sizeof *w);
	w->req = req;
	w->p = p;
	w->made = made;
	w->arg = arg;
	w->until = u;
	u = NULL;
	tools_set_state(req, w);
	/* The wait comes first: with the control client gone, tmux fails
	 * the pane at once. */
	w->waiter = program_wait(p, tool_start_event, w);
	if (program_start(p, spec, &cause) == -1) {
		tool_start_done(w);
		program_drop(p);
		program_spec_free(spec);
		tools_error(req, "%s", cause);
		free(cause);
		tool_start_failed(made, arg);
	}
	toolres_free(&res);
	return;
fail:
	toolres_free(&res);
	program_spec_free(spec);
	tool_start_until_free(u);
	tool_start_failed(made, arg);
}

/*
 * start_program's wait, if it asks for one (until, a readiness clause or
 * timeoutMs): into *up (NULL if none). -1 with the call answered.
 */
static int
tool_start_wait_args(struct req *req, const struct json *args,
    struct tool_start_until **up)
{
	struct tool_start_until	*u;
	char			*cause = NULL;

	*up = NULL;
	u = xcalloc(1, sizeof *u);
	if (sel_parse(&u->sel, args, SEL_ARG_UNTIL, &cause) == -1) {
		free(u);
		tools_error(req, "%s", cause);
		free(cause);
		return (-1);
	}
	if (tool_read_clauses(req, args, tools_arg_str(args, "startDirectory",
	    NULL), &u->sel, &u->ready) == -1) {
		tool_start_until_free(u);
		return (-1);
	}
	if (u->sel.until == NULL && u->ready == NULL &&
	    tools_arg_int(args, "timeoutMs", -1) < 0) {
		tool_start_until_free(u);
		return (0);
	}
	if (u->sel.wait == SEL_WAIT_LINES) {	/* timeoutMs alone */
		u->sel.wait = SEL_WAIT_READY;
		u->sel.last = true;
	}
	u->timeout_ms = tools_arg_int(args, "timeoutMs", TOOL_START_WAIT_MS);
	if (u->timeout_ms > cfg.wait_max_ms)
		u->timeout_ms = cfg.wait_max_ms;
	u->deadline = now_ms() + u->timeout_ms;
	*up = u;
	return (0);
}

/* start_program. */
static void
tool_start_run(struct req *req, const struct json *args)
{
	struct program_spec	 spec;
	struct tool_start_until	*u;

	if (tool_start_wait_args(req, args, &u) == -1)
		return;
	memset(&spec, 0, sizeof spec);
	if ((spec.grace_ms = tools_arg_int(args, "orphanGraceMs", -1)) >= 0)
		spec.grace_set = true;
	tool_start_begin(req, args, &spec, NULL, NULL, u);
}

/* The client gave up before the pane was made: the program goes (its
 * pane is removed when tmux makes it). */
void
tool_start_cancel(struct req *req)
{
	struct tool_start_wait	*w = tools_state(req);
	struct program		*p;

	if (w == NULL)
		return;
	p = w->p;
	tool_start_failed(w->made, w->arg);
	tool_start_done(w);
	program_drop(p);
}

/* The program a start or run waits on for its pane, for its task's
 * status. */
struct program *
tool_start_waits_on(struct req *req)
{
	struct tool_start_wait	*w = tools_state(req);

	return (w != NULL ? w->p : NULL);
}

/*
 * The client gave up on a start waiting for its program to be ready: if
 * no reply gave its id, nobody can read or stop it any more, so it is
 * ended and forgotten, as a cancelled run's is.
 */
static void
tool_start_wait_cancel(struct req *req)
{
	struct program	*p = watch_req_program(req);

	watch_cancel(req);
	if (p != NULL && !program_id_told(p))
		tool_start_forget(p);
}

/* Stop p and forget it (once ended): nobody has its id. */
void
tool_start_forget(struct program *p)
{
	log_debug("%s: its call was cancelled: stopped and forgotten",
	    program_id(p));
	if (!program_ended(p))
		program_stop(p, PROTO_GRACE_MS);	/* dropped at its end */
	if (program_ended(p))
		program_drop(p);
}

const struct tool_entry tool_start_entry = {
	.name = "start_program",
	.run = tool_start_run,
	.cancel = tool_start_cancel,
	.program = tool_start_waits_on,
	.other_fields = ",input,keep,inheritShell,separateStderr,"
	    "maxLines,tail,filter,context,",
	.other_hint = "start_program takes no %s: use run_program for input, "
	    "keep, inheritShell or separateStderr, or read_program to read"
};

/* Once started, a start that waits waits as a read does. */
static const struct tool_entry tool_start_wait_entry = {
	.name = "start_program",
	.cancel = tool_start_wait_cancel,
	.timeout = watch_timeout,
	.wake = watch_wake,
	.progress = watch_progress,
	.program = watch_req_program
};
