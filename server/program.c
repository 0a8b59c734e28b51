/*
 * program.c — the table of programs, and each program's lifecycle.
 *
 * A program has one state, changed only here:
 *
 *   STARTING --pane made--> PIPING --pipe-pane answered--> GATED
 *   GATED --the program runs (run marker)--> RUNNING
 *   GATED, RUNNING --stop--> STOPPING --end--> ENDED
 *   STARTING, PIPING --stop--> ENDED ("stopped": it never ran)
 *   any but ENDED/CLOSED --end, reaper gone, abandoned--> ENDED
 *   ENDED --reaper reaped and its socket closed--> CLOSED
 *   any --dropped (stop_program, eviction, failed start)--> DROPPED
 *
 * PIPING: the pane exists; pipe-pane and the reaper's spawn run just
 * before the loop next sleeps (after the start's reply was written),
 * then pipe-pane's answer is awaited. GATED: the reaper knows the pane;
 * the launcher holds the program at its gate until the pane's writer is
 * there. A program that ends from STOPPING is dropped once its end has
 * been told.
 *
 * The pane and its FIFOs are pane.c's, the reaper reaper_link.c's; each
 * is made with what it needs and tells this file what happens through
 * the callbacks below (program_pane_cb, program_reaper_cb). While the
 * reaper's link is open the reaper alone removes the pane; the front
 * does only once it is gone. Whether the program waits for input is
 * waiting.c's. Whatever waits on a program (a read, a run, a stop, held
 * keys) registers a callback with program_wait() and is told each
 * change, so a change costs only its own waiters. Ended programs stay
 * readable until stop_program; past keep_ended closed ones, the oldest
 * that may go is evicted: one a reply has told its end (read to the
 * end), that nothing waits on, or whose lifetime is over. One still
 * unread is never evicted: past keep_ended of those, starts are refused
 * (programs_admit). Dropped programs are freed by
 * programs_collect() once the loop is done dispatching, as callers up
 * the stack may still hold them.
 *
 * A program's text is in its spool (spool_read.h), a directory made in
 * the runtime directory when it starts: the reaper writes it, the front
 * reads it into the program's window. A program freed takes its spool
 * with it; one its reaper still writes into as it quits is removed once
 * the reaper has let go (programs_collect tries again).
 *
 * A program an earlier progmux left on a lease is adopted here
 * (program_adopt, from adopt.c): the same id, spec and start, its pane
 * as its reaper said, its spool (renamed into our runtime directory)
 * read from the start, its reaper's socket a link like any other; it
 * starts GATED and the reaper's frames bring it to where it stands. At
 * exit, a program with a grace whose reaper has its pane is let go of,
 * not ended (programs_shutdown): its reaper holds it for the next
 * progmux.
 */
#include <sys/queue.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "compat.h"
#include "fdutil.h"
#include "frame.h"
#include "log.h"
#include "proto.h"
#include "server.h"
#include "timeutil.h"
#include "xmalloc.h"

struct program_waiter {
	struct program		*p;
	program_cb		 fn;	/* NULL once unwaited during a notify */
	void			*arg;
	TAILQ_ENTRY(program_waiter) entry;
};
TAILQ_HEAD(program_waiters, program_waiter);

struct program {
	char			*id;
	uint64_t		 seq;
	struct program_spec	 spec;
	int64_t			 started_ms;	/* monotonic */
	int64_t			 started_real;	/* wall clock, for people */
	enum program_state	 state;
	bool			 ran;		/* it did run (a run marker) */
	bool			 adopted;	/* an earlier progmux's */
	bool			 told_pane;	/* its reaper knows the pane */
	int64_t			 stop_grace;	/* with STOPPING */

	struct pane		*pane;
	struct reaper_link	*link;
	struct waiting		*waiting;

	struct textbuf		 text;		/* a window on its spool */
	struct textbuf		 errtext;	/* with separateStderr */
	int			 spool_fd;	/* its spool, for its reaper */
	struct spool		*out;		/* the text's reader */
	struct spool		*err;		/* standard error's */
	bool			 told_full;	/* warned: its fs is full */
	bool			 spooled;	/* its spool was made */
	enum program_outcome	 outcome;	/* once ended */
	int64_t			 exit_status;	/* -1: none */
	int			 signal;	/* 0: none */
	bool			 lost_end;
	bool			 cut;
	uint64_t		 dropped;	/* bytes the stripper left out */
	char			*why;
	uint64_t		 ended_seq;	/* order of ending */
	bool			 told_end;	/* a reply said it ended, with
						   all its text: read */
	bool			 told_id;	/* a reply gave its id */
	uint64_t		 ready_n;	/* READY=1s on its NOTIFY_SOCKET */
	uint64_t		 ready_told;	/* of them, the last a reply said */
	char			*status;	/* its last STATUS=, or NULL */

	struct program_waiters	 waiters;
	int			 notifying;	/* depth of program_notify */
	struct program		*next;
	struct program		*next_piping;	/* in pt.piping, if PIPING */
};

static struct {
	struct program	*list;
	struct program	*dead;		/* dropped, freed after dispatch */
	struct program	*piping;	/* PIPING, pipe-pane not yet sent */
	uint64_t	 seq;
	uint64_t	 ended_seq;
	bool		 shutdown;	/* progmux exits: nothing starts */
	char		**unspooled;	/* spools to remove once let go of */
	size_t		 nunspooled;
} pt;

/* How a program stands, as a client reads it (the seed's words). */
static const char *const program_outcomes[] = {
	[OUTCOME_RUNNING] = "running",
	[OUTCOME_COMPLETED] = END_COMPLETED,
	[OUTCOME_NOT_STARTED] = END_NOT_STARTED,
	[OUTCOME_EXPIRED] = END_EXPIRED,
	[OUTCOME_STOPPED] = END_STOPPED,
	[OUTCOME_GONE] = END_GONE,
};

static void	programs_pipe_due(void *);
static void	program_waiting_tell(void *);

/* An outcome's name. */
static const char *
program_outcome_name(enum program_outcome o)
{
	return ((unsigned)o < sizeof program_outcomes /
	    sizeof *program_outcomes ? program_outcomes[o] : END_GONE);
}

/* The outcome the reaper names ("how" of its end frame); gone if it is
 * none we know. */
static enum program_outcome
program_outcome_parse(const char *how)
{
	size_t	i;

	for (i = OUTCOME_COMPLETED; i < sizeof program_outcomes /
	    sizeof *program_outcomes; i++)
		if (strcmp(how, program_outcomes[i]) == 0)
			return ((enum program_outcome)i);
	return (OUTCOME_GONE);
}

/* Start with no programs; the piping work runs before each sleep. */
void
programs_init(void)
{
	memset(&pt, 0, sizeof pt);
	loop_before_sleep(programs_pipe_due, NULL);
}

/* The first program in the table (then program_next). */
struct program *
program_first(void)
{
	return (pt.list);
}

/* The next program in the table. */
struct program *
program_next(struct program *p)
{
	return (p->next);
}

/* By sequence number: what a call that waits on tmux holds, as a program
 * may be dropped while a command is in flight. */
struct program *
program_by_seq(uint64_t seq)
{
	struct program	*p;

	for (p = pt.list; p != NULL; p = p->next)
		if (p->seq == seq)
			return (p);
	return (NULL);
}

/* By programId. */
struct program *
program_find(const char *id)
{
	struct program	*p;

	for (p = pt.list; p != NULL; p = p->next)
		if (strcmp(p->id, id) == 0)
			return (p);
	return (NULL);
}

/* The program whose pane is pane on the tmux server of now. */
struct program *
program_by_pane(const char *pane)
{
	struct program	*p;

	for (p = pt.list; p != NULL; p = p->next)
		if (p->pane != NULL && pane_is(p->pane, pane))
			return (p);
	return (NULL);
}

/* Bytes of text kept (on disk) for every program together. */
static size_t
programs_text_kept(void)
{
	struct program	*p;
	size_t		 n = 0;

	for (p = pt.list; p != NULL; p = p->next) {
		n += p->out != NULL ? spool_kept(p->out) : p->text.len;
		n += p->err != NULL ? spool_kept(p->err) : p->errtext.len;
	}
	return (n);
}

/*
 * May p go to make room? Ended, with nothing waiting on it, and read to
 * its end (a reply told its end), past its lifetime, or never named to
 * the client (a run cancelled with keep: nothing gave its id). An ended
 * program not yet read is kept.
 */
static bool
program_evictable(const struct program *p, int64_t now)
{
	if (!program_ended(p) || !TAILQ_EMPTY(&p->waiters))
		return (false);
	return (p->told_end || !p->told_id ||
	    now - p->started_ms >= p->spec.lifetime_ms);
}

/* The oldest evictable program (CLOSED only, if closed_only); *closed
 * counts the CLOSED ones. */
static struct program *
program_oldest_evictable(bool closed_only, size_t *closed)
{
	struct program	*p, *oldest = NULL;
	int64_t		 now = now_ms();

	*closed = 0;
	for (p = pt.list; p != NULL; p = p->next) {
		if (p->state == PROGRAM_CLOSED)
			(*closed)++;
		if ((closed_only && p->state != PROGRAM_CLOSED) ||
		    !program_evictable(p, now))
			continue;
		if (oldest == NULL || p->ended_seq < oldest->ended_seq)
			oldest = p;
	}
	return (oldest);
}

/* Past the total text ceiling, drop evictable programs, oldest first. */
static void
programs_make_room(void)
{
	struct program	*oldest;
	size_t		 n;

	while (programs_text_kept() >= (size_t)cfg.total_output_max_bytes) {
		if ((oldest = program_oldest_evictable(false, &n)) == NULL)
			return;
		log_debug("%s evicted for room", oldest->id);
		program_drop(oldest);
	}
}

/* Past keep_ended closed programs, evict the oldest that may go. */
static void
programs_evict(void)
{
	struct program	*oldest;
	size_t		 n;

	for (;;) {
		oldest = program_oldest_evictable(true, &n);
		if (n <= (size_t)cfg.keep_ended || oldest == NULL)
			return;
		log_debug("%s evicted", oldest->id);
		program_drop(oldest);
	}
}

/* The admission ceilings' counts, in one pass over the programs. */
struct programs_tally {
	size_t	alive;		/* not ended */
	size_t	unread;		/* ended, and may not go (unread, or
				   waited on) */
	size_t	text;		/* bytes of text kept, in all */
};

/* Count them, with the ids of the first few unread in ids. */
static void
programs_tally(struct programs_tally *t, struct buf *ids)
{
	struct program	*p;
	int64_t		 now = now_ms();

	memset(t, 0, sizeof *t);
	for (p = pt.list; p != NULL; p = p->next) {
		t->text += p->out != NULL ? spool_kept(p->out) : p->text.len;
		t->text += p->err != NULL ? spool_kept(p->err) : p->errtext.len;
		if (!program_ended(p)) {
			t->alive++;
			continue;
		}
		if (program_evictable(p, now))
			continue;
		if (t->unread < 8)
			buf_printf(ids, "%s%s", t->unread > 0 ? ", " : "",
			    p->id);
		else if (t->unread == 8)
			buf_adds(ids, ", ...");
		t->unread++;
	}
}

/*
 * May a program start? The admission ceilings, each with its message
 * in *cause: programs alive (PROGMUX_MAX_PROGRAMS), ended programs kept
 * unread (PROGMUX_KEEP_ENDED), text kept in all
 * (PROGMUX_TOTAL_OUTPUT_MAX_BYTES, after evicting what may go). 0 if
 * it may.
 */
int
programs_admit(char **cause)
{
	struct programs_tally	 t;
	struct buf		 ids = BUF_INIT;

	programs_tally(&t, &ids);
	if (t.alive >= (size_t)cfg.max_programs) {
		buf_free(&ids);
		log_notify(LOG_NOTIFY_WARNING, "ceiling", "start refused: "
		    "%lld programs are running (PROGMUX_MAX_PROGRAMS)",
		    (long long)cfg.max_programs);
		xasprintf(cause, "ceiling reached: %lld programs are running "
		    "(PROGMUX_MAX_PROGRAMS or --max-programs raises it); stop "
		    "one with stop_program or wait for one to end",
		    (long long)cfg.max_programs);
		return (-1);
	}
	/* (With none kept, any one unread holds starts back.) */
	if (t.unread > 0 && t.unread >= (size_t)cfg.keep_ended) {
		log_notify(LOG_NOTIFY_WARNING, "ceiling", "start refused: %zu "
		    "ended programs not read to their end (PROGMUX_KEEP_ENDED)",
		    t.unread);
		xasprintf(cause, "ceiling reached: %zu ended programs hold "
		    "output not yet read to its end (%s), and at most %lld are "
		    "kept (PROGMUX_KEEP_ENDED or --keep-ended raises it); read "
		    "each to its end with read_program (tail: 1 does it in one "
		    "call) or forget it with stop_program, then start again",
		    t.unread, buf_cstr(&ids), (long long)cfg.keep_ended);
		buf_free(&ids);
		return (-1);
	}
	buf_free(&ids);
	if (t.text >= (size_t)cfg.total_output_max_bytes) {
		programs_make_room();
		t.text = programs_text_kept();
	}
	if (t.text >= (size_t)cfg.total_output_max_bytes) {
		log_notify(LOG_NOTIFY_WARNING, "ceiling", "start refused: %zu "
		    "bytes of text kept (PROGMUX_TOTAL_OUTPUT_MAX_BYTES)",
		    t.text);
		xasprintf(cause, "ceiling reached: programs hold %zu bytes of "
		    "text, the most kept in all "
		    "(PROGMUX_TOTAL_OUTPUT_MAX_BYTES or "
		    "--total-output-max-bytes raises it); read ended programs "
		    "to their end or stop programs whose output you have read "
		    "with stop_program", t.text);
		return (-1);
	}
	if (cfg.rundir_fd != -1 && spool_free(cfg.rundir_fd) == 0) {
		log_notify(LOG_NOTIFY_WARNING, "ceiling", "start refused: the "
		    "file system of %s is full", cfg.rundir);
		xasprintf(cause, "no room for a program's text: the file system "
		    "holding the runtime directory %s is full (progmux keeps "
		    "what a program prints there, and leaves %llu bytes of it "
		    "free); free some space there, or point XDG_RUNTIME_DIR or "
		    "TMPDIR at a file system with room, and stop programs whose "
		    "output you have read with stop_program", cfg.rundir,
		    (unsigned long long)SPOOL_RESERVE_MIN);
		return (-1);
	}
	return (0);
}

/* A reply told the client p's end, with all its text: p is read. */
void
program_told_end(struct program *p)
{
	p->told_end = true;
}

/* A reply gave the client p's id: from now on p is the client's to read
 * or stop, and counts among the unread once it ends. */
void
program_told_id(struct program *p)
{
	p->told_id = true;
}

/* Has a reply given the client p's id? */
bool
program_id_told(const struct program *p)
{
	return (p->told_id);
}

/* A program with nothing yet, at the end of the table. */
static struct program *
program_alloc(void)
{
	struct program	*p, **pp;

	p = xcalloc(1, sizeof *p);
	p->exit_status = -1;
	p->waiting = waiting_new(program_waiting_tell, p);
	TAILQ_INIT(&p->waiters);
	textbuf_init_window(&p->text, 0);
	textbuf_init_window(&p->errtext, 0);
	p->spool_fd = -1;
	for (pp = &pt.list; *pp != NULL; pp = &(*pp)->next)
		;
	*pp = p;
	return (p);
}

/* A new program, STARTING, at the end of the table: its number after
 * every program's so far, adopted ones too. */
struct program *
program_new(void)
{
	struct program	*p = program_alloc();

	p->seq = ++pt.seq;
	/* Behind a hub, ids carry the name it knows us by ("box:p3"). */
	xasprintf(&p->id, "%s%sp%llu", cfg.host_name != NULL ?
	    cfg.host_name : "", cfg.host_name != NULL ? ":" : "",
	    (unsigned long long)p->seq);
	p->state = PROGRAM_STARTING;
	p->started_ms = now_ms();
	p->started_real = realtime_ms();
	return (p);
}

/* Free what a spec holds. */
void
program_spec_free(struct program_spec *s)
{
	strv_free(s->argv);
	free(s->dir);
	free(s->from_pane);
	free(s->input);
	memset(s, 0, sizeof *s);
}

/* Register fn to be told p's changes, until program_unwait of the
 * waiter returned. */
struct program_waiter *
program_wait(struct program *p, program_cb fn, void *arg)
{
	struct program_waiter	*w;

	w = xcalloc(1, sizeof *w);
	w->p = p;
	w->fn = fn;
	w->arg = arg;
	TAILQ_INSERT_HEAD(&p->waiters, w, entry);
	return (w);
}

/* Stop telling a waiter (NULL: none): at once, whatever else waits. */
void
program_unwait(struct program_waiter *w)
{
	struct program	*p;

	if (w == NULL)
		return;
	p = w->p;
	if (p->notifying > 0) {
		w->fn = NULL;	/* unlinked after the notify */
		return;
	}
	TAILQ_REMOVE(&p->waiters, w, entry);
	free(w);
}

/* Tell every waiter on p about ev. */
static void
program_notify(struct program *p, enum program_event ev)
{
	struct program_waiter	*w, *next;

	p->notifying++;
	TAILQ_FOREACH(w, &p->waiters, entry)
		if (w->fn != NULL)
			w->fn(p, ev, w->arg);
	if (--p->notifying > 0)
		return;
	for (w = TAILQ_FIRST(&p->waiters); w != NULL; w = next) {
		next = TAILQ_NEXT(w, entry);
		if (w->fn == NULL) {
			TAILQ_REMOVE(&p->waiters, w, entry);
			free(w);
		}
	}
}

/* Change p's state and tell its waiters. */
static void
program_set_state(struct program *p, enum program_state state)
{
	log_debug("%s: state %d -> %d", p->id, p->state, state);
	p->state = state;
	program_notify(p, PROGRAM_STATE);
}

/* Leave the piping queue (if in it). */
static void
program_unpipe(struct program *p)
{
	struct program	**pp;

	for (pp = &pt.piping; *pp != NULL; pp = &(*pp)->next_piping)
		if (*pp == p) {
			*pp = p->next_piping;
			p->next_piping = NULL;
			return;
		}
}

/* Remove the pane, unless its reaper has it (it was told the pane and
 * its link is open): then the reaper does, as it ends the program or is
 * told to quit. */
static void
program_pane_gone(struct program *p)
{
	if (p->pane == NULL)
		return;
	if (!reaper_link_open(p->link) || p->state == PROGRAM_STARTING ||
	    p->state == PROGRAM_PIPING || !p->told_pane)
		pane_kill(p->pane);
}

/* Ended, and its reaper gone: p can be evicted. */
static void
program_check_closed(struct program *p)
{
	if (p->state == PROGRAM_ENDED && reaper_link_closed(p->link))
		program_set_state(p, PROGRAM_CLOSED);
}

/* The program has ended: its text is complete. */
static void
program_end(struct program *p, enum program_outcome how, int64_t status,
    int sig, bool lost_end, const char *why)
{
	bool	was_stopping = p->state == PROGRAM_STOPPING;

	if (program_ended(p) || p->state == PROGRAM_DROPPED)
		return;
	program_unpipe(p);
	p->ended_seq = ++pt.ended_seq;
	p->outcome = how;
	p->exit_status = status;
	p->signal = sig;
	if (status == 130 && sig == 0 && how != OUTCOME_NOT_STARTED) {
		/* 130 is how a shell reports SIGINT: read it so. */
		p->exit_status = -1;
		p->signal = SIGINT;
	}
	p->lost_end = p->lost_end || lost_end;
	if (why != NULL && p->why == NULL)
		p->why = xstrdup(why);
	spool_rest(p->out);	/* its text is all told */
	spool_rest(p->err);
	if (!p->spec.keep_pane)
		program_pane_gone(p);
	log_debug("%s ended: %s status %lld signal %d", p->id,
	    program_outcome_name(how), (long long)p->exit_status, p->signal);
	program_set_state(p, PROGRAM_ENDED);
	/* Stopped, and the stop told: stop_program forgets it. */
	if (was_stopping && p->state != PROGRAM_DROPPED)
		program_drop(p);
	else
		program_check_closed(p);
}

/* The program cannot go on (its pane could not be piped, its reaper
 * failed): it reads as gone, with why; its reaper ends what runs. */
static void
program_abandon(struct program *p, const char *why)
{
	if (program_ended(p) || p->state == PROGRAM_DROPPED)
		return;
	program_end(p, OUTCOME_GONE, -1, 0, true, why);
	if (p->link != NULL)
		reaper_link_quit(p->link);
	program_pane_gone(p);
}

/* pane.c: the pane exists: tell the start; pipe-pane and the reaper
 * come just before the loop sleeps, so the start's reply leaves first. */
static void
program_pane_made(void *owner)
{
	struct program	*p = owner;

	program_notify(p, PROGRAM_PANE);
	if (p->state == PROGRAM_DROPPED)
		return;
	if (p->state != PROGRAM_STARTING || pt.shutdown) {
		pane_kill(p->pane);	/* ended meanwhile, or we exit */
		return;
	}
	program_set_state(p, PROGRAM_PIPING);
	if (p->state != PROGRAM_PIPING)
		return;
	p->next_piping = pt.piping;
	pt.piping = p;
}

/* pane.c: the pane could not be made: the start fails, with why. */
static void
program_pane_failed(void *owner, const char *why)
{
	struct program	*p = owner;

	if (p->why == NULL)
		p->why = xstrdup(why);
	program_drop(p);
}

static const struct reaper_cb	program_reaper_cb;

/* Pipe one program's pane, then spawn its reaper. */
static void
program_pipe(struct program *p)
{
	int	 fds[REAPER_LINK_FDS];
	char	*why;

	pane_pipe(p->pane);
	pane_take_fds(p->pane, &fds[0], &fds[1], &fds[2]);
	fds[3] = p->spool_fd;		/* the reaper's now */
	p->spool_fd = -1;
	if ((p->link = reaper_link_spawn(p->id, &p->spec,
	    pane_err_name(p->pane), p->started_ms, p->started_real, fds,
	    &program_reaper_cb, p, &why)) == NULL) {
		program_abandon(p, why);
		free(why);
		return;
	}
	free(p->spec.input);	/* the reaper has it now */
	p->spec.input = NULL;
}

/* Before the loop sleeps: pipe the panes made this turn. */
static void
programs_pipe_due(void *arg)
{
	struct program	*p;

	(void)arg;
	/* (Piping one may drop it, never another.) */
	while ((p = pt.piping) != NULL) {
		pt.piping = p->next_piping;
		p->next_piping = NULL;
		if (p->state == PROGRAM_PIPING)
			program_pipe(p);
	}
}

/* pane.c: pipe-pane is attached: the reaper opens the launcher's gate. */
static void
program_pane_piped(void *owner)
{
	struct program	*p = owner;

	if (p->state != PROGRAM_PIPING)
		return;		/* ended meanwhile */
	reaper_link_pane(p->link, pane_id(p->pane), pane_pid(p->pane));
	p->told_pane = true;
	program_set_state(p, PROGRAM_GATED);
}

/* pane.c: pipe-pane failed (the start was answered already). */
static void
program_pane_pipe_failed(void *owner, const char *why)
{
	program_abandon(owner, why);
}

static const struct pane_cb program_pane_cb = {
	.made = program_pane_made,
	.failed = program_pane_failed,
	.piped = program_pane_piped,
	.pipe_failed = program_pane_pipe_failed
};

/* The reaper found the file system full: said once, as a warning. */
static void
program_full(struct program *p, const struct spool_news *nw)
{
	if (nw->drop.why != SPOOL_WHY_NOSPACE || p->told_full)
		return;
	p->told_full = true;
	log_warn("%s: the file system holding %s is full (%s): the middle of "
	    "its text is dropped to keep the end", p->id, cfg.rundir,
	    strerror(nw->drop.err));
	log_notify(LOG_NOTIFY_WARNING, "spool", "%s: the file system holding "
	    "%s is full (%s): the middle of its text is dropped to keep the "
	    "end", p->id, cfg.rundir, strerror(nw->drop.err));
}

/* reaper_link.c: the text has grown in the spool. */
static void
program_reaper_text(void *owner, const struct spool_news *nw)
{
	struct program	*p = owner;
	size_t		 len = p->text.len;

	if (p->out == NULL)
		return;
	program_full(p, nw);
	spool_told(p->out, nw);
	if (p->text.len == len)
		return;
	waiting_text(p->waiting);
	program_notify(p, PROGRAM_TEXT);
}

/* reaper_link.c: standard error's, with separateStderr. */
static void
program_reaper_errtext(void *owner, const struct spool_news *nw)
{
	struct program	*p = owner;

	if (p->err == NULL)
		return;
	program_full(p, nw);
	spool_told(p->err, nw);
}

/* reaper_link.c: the stripper left out bytes that were no complete
 * sequence (a string cut at a line break, say): their total so far. */
static void
program_reaper_dropped(void *owner, int64_t total)
{
	struct program	*p = owner;

	p->dropped = (uint64_t)total;
}

/* reaper_link.c: the program runs: keys held for it go now. */
static void
program_reaper_launched(void *owner)
{
	struct program	*p = owner;

	p->ran = true;
	if (p->state == PROGRAM_GATED)
		program_set_state(p, PROGRAM_RUNNING);
	program_notify(p, PROGRAM_LAUNCHED);
}

/* reaper_link.c: the program said READY=1 (a new episode of being
 * ready, for the calls waiting on it), or a new STATUS=. */
static void
program_reaper_notify(void *owner, bool ready, const char *status)
{
	struct program	*p = owner;

	if (status != NULL) {
		free(p->status);
		p->status = xstrdup(status);
	}
	if (ready && !program_ended(p)) {
		p->ready_n++;
		program_notify(p, PROGRAM_READY);
	}
}

/* reaper_link.c: the reaper reported the end. */
static void
program_reaper_end(void *owner, const struct reaper_end *e)
{
	struct program	*p = owner;

	if (e->cut)
		p->cut = true;
	program_end(p, program_outcome_parse(e->how), e->status, (int)e->sig,
	    e->lost_end, e->why);
}

/* reaper_link.c: the reaper cannot go on (it said why). */
static void
program_reaper_fail(void *owner, const char *why)
{
	program_abandon(owner, why);
}

/* reaper_link.c: the reaper's socket is closed: it exited or died. */
static void
program_reaper_gone(void *owner)
{
	struct program	*p = owner;

	if (p->pane != NULL)
		pane_release_fifos(p->pane);
	/* (The start was answered before its reaper was spawned.) */
	if (!program_ended(p))
		program_end(p, OUTCOME_GONE, -1, 0, true,
		    "its reaper exited before the program's end was read");
	if (p->state == PROGRAM_DROPPED)
		return;
	program_pane_gone(p);
	program_check_closed(p);
	programs_evict();
}

/* reaper_link.c: the reaper has exited and been reaped. */
static void
program_reaper_closed(void *owner)
{
	struct program	*p = owner;

	if (p->state == PROGRAM_DROPPED)
		return;
	program_check_closed(p);
	programs_evict();
}

static const struct reaper_cb program_reaper_cb = {
	.text = program_reaper_text,
	.errtext = program_reaper_errtext,
	.dropped = program_reaper_dropped,
	.launched = program_reaper_launched,
	.notify = program_reaper_notify,
	.end = program_reaper_end,
	.fail = program_reaper_fail,
	.gone = program_reaper_gone,
	.closed = program_reaper_closed
};

static const char *program_local_id(const struct program *);

/*
 * Start p as spec asks (p owns spec's contents from now on): its control
 * FIFO and its pane, asked of tmux first; then, while tmux makes the
 * pane, its spool and its other FIFOs. The reaper follows once the pane
 * exists. On failure (-1) the caller drops p: a pane made meanwhile is
 * removed, its launcher never let through its gate.
 */
int
program_start(struct program *p, struct program_spec *spec, char **cause)
{
	char	name[64];

	p->spec = *spec;
	memset(spec, 0, sizeof *spec);
	if (config_rundir_check(cause) == -1)
		return (-1);
	if ((p->pane = pane_new(program_local_id(p), &p->spec,
	    &program_pane_cb, p, cause)) == NULL)
		return (-1);
	pane_make(p->pane);
	if (p->state == PROGRAM_DROPPED)
		return (0);	/* tmux failed it at once: the start is told */
	snprintf(name, sizeof name, "%s%s", program_local_id(p),
	    SPOOL_DIR_SUFFIX);
	if ((p->spool_fd = spool_dir_make(cfg.rundir_fd, name)) == -1) {
		xasprintf(cause, "cannot make the directory for its text in "
		    "%s: %s", cfg.rundir, fd_strerror(errno));
		return (-1);
	}
	p->spooled = true;
	if ((p->out = spool_open(&cfg.rundir_fd, name, SPOOL_OUT,
	    &p->text)) == NULL || (p->spec.separate_stderr &&
	    (p->err = spool_open(&cfg.rundir_fd, name, SPOOL_ERR,
	    &p->errtext)) == NULL)) {
		xasprintf(cause, "cannot open the directory for its text in "
		    "%s: %s", cfg.rundir, fd_strerror(errno));
		return (-1);
	}
	return (pane_fifos(p->pane, cause));
}

/*
 * Adopt a program an earlier progmux left on a lease (a, its particulars,
 * taken): its id and number kept (ours go on after it), its spool
 * (already renamed into our runtime directory) read from the start, its
 * pane checked on our server. GATED, with the link to its reaper; the
 * frames that came with its "adopted" (the run, the text's news, the
 * end) are told at once, so it stands as it does; one being stopped is
 * STOPPING first, so its end forgets it as stop_program's would.
 */
struct program *
program_adopt(struct program_adoption *a, char **cause)
{
	struct program	*p = program_alloc();
	char		 name[64];

	p->id = a->id;
	a->id = NULL;
	p->seq = a->seq;
	if (p->seq > pt.seq)
		pt.seq = p->seq;
	p->spec = a->spec;
	memset(&a->spec, 0, sizeof a->spec);
	p->started_ms = a->started_ms;
	p->started_real = a->started_real;
	p->adopted = true;
	p->told_id = true;	/* the agent may hold its id */
	p->spooled = true;
	snprintf(name, sizeof name, "%s%s", p->id, SPOOL_DIR_SUFFIX);
	if ((p->out = spool_open(&cfg.rundir_fd, name, SPOOL_OUT,
	    &p->text)) == NULL || (p->spec.separate_stderr &&
	    (p->err = spool_open(&cfg.rundir_fd, name, SPOOL_ERR,
	    &p->errtext)) == NULL))
		xasprintf(cause, "its text in %s/%s cannot be read: %s",
		    cfg.rundir, name, fd_strerror(errno));
	p->pane = pane_adopt(p->id, a->pane, a->pane_pid);
	p->told_pane = true;
	p->state = PROGRAM_GATED;
	if (a->stopping) {
		p->stop_grace = PROTO_GRACE_MS;
		p->state = PROGRAM_STOPPING;
	}
	p->link = reaper_link_adopt(p->id, a->fd, &a->in, &program_reaper_cb,
	    p);
	a->fd = -1;
	reaper_link_take(p->link);
	log_debug("%s adopted (pane %s)", p->id, a->pane);
	return (p);
}

/* Was it an earlier progmux's, adopted? */
bool
program_adopted(const struct program *p)
{
	return (p->adopted);
}

/*
 * Does p outlive our exit on a lease? A grace, the rendezvous, and a
 * reaper that has its pane: it holds the program for a new front.
 */
static bool
program_leasable(const struct program *p)
{
	return (!cfg.robust && cfg.lease_fd != -1 && p->spec.grace_ms > 0 &&
	    p->told_pane && p->pane != NULL && reaper_link_open(p->link));
}

/*
 * Ask for the program's end (SIGTERM, SIGKILL after grace): STOPPING,
 * and its waiters told. A program not yet given to its reaper never ran:
 * it ends here, stopped.
 */
void
program_stop(struct program *p, int64_t grace_ms)
{
	switch (p->state) {
	case PROGRAM_STARTING:
	case PROGRAM_PIPING:
		if (p->link != NULL)
			reaper_link_quit(p->link);
		program_end(p, OUTCOME_STOPPED, -1, 0, false, NULL);
		break;
	case PROGRAM_GATED:
	case PROGRAM_RUNNING:
		p->stop_grace = grace_ms;
		program_set_state(p, PROGRAM_STOPPING);
		if (p->state == PROGRAM_STOPPING)
			reaper_link_stop(p->link, grace_ms);
		break;
	default:
		break;
	}
}

/*
 * Drop a program: it is unknown from now on. Its waiters are told to let
 * go, its reaper to quit (it removes the pane), else its pane is removed.
 * The memory is freed by programs_collect() once the loop is done
 * dispatching.
 */
void
program_drop(struct program *p)
{
	struct program		**pp;
	enum program_state	  was = p->state;

	for (pp = &pt.list; *pp != NULL && *pp != p; pp = &(*pp)->next)
		;
	if (*pp == NULL)
		return;		/* dropped already */
	*pp = p->next;
	/* Told while it still reads as it stood. */
	program_notify(p, PROGRAM_DROP);
	p->state = PROGRAM_DROPPED;
	program_unpipe(p);
	if (p->link != NULL) {
		if (was < PROGRAM_ENDED || p->spec.keep_pane)
			reaper_link_quit(p->link);
		reaper_link_flush(p->link);
	}
	if (p->pane != NULL) {
		program_pane_gone(p);
		pane_unlink_fifos(p->pane, true);
	}
	if (p->link != NULL)
		reaper_link_close(p->link);
	p->next = pt.dead;
	pt.dead = p;
}

/* Remove a spool that is let go of, or keep its name to try again. */
static void
programs_unspool(const char *name)
{
	if (spool_dir_remove(cfg.rundir_fd, name) == 0 || errno == ENOENT)
		return;
	pt.unspooled = xreallocarray(pt.unspooled, pt.nunspooled + 1,
	    sizeof *pt.unspooled);
	pt.unspooled[pt.nunspooled++] = xstrdup(name);
}

/* A program's text goes with it: its readers, then its spool. */
static void
program_unspool(struct program *p)
{
	char	name[64];

	spool_close(p->out);
	spool_close(p->err);
	p->out = p->err = NULL;
	if (p->spool_fd != -1)
		close(p->spool_fd);
	p->spool_fd = -1;
	if (!p->spooled)
		return;
	snprintf(name, sizeof name, "%s%s", program_local_id(p),
	    SPOOL_DIR_SUFFIX);
	programs_unspool(name);
}

/* Spools a quitting reaper still wrote into: again. */
static void
programs_unspool_again(void)
{
	char	**names = pt.unspooled;
	size_t	  i, n = pt.nunspooled;

	if (n == 0)
		return;
	pt.unspooled = NULL;
	pt.nunspooled = 0;
	for (i = 0; i < n; i++) {
		programs_unspool(names[i]);
		free(names[i]);
	}
	free(names);
}

/* Free what was dropped. */
void
programs_collect(void)
{
	struct program		*p;
	struct program_waiter	*w;

	programs_unspool_again();
	while ((p = pt.dead) != NULL) {
		pt.dead = p->next;
		while ((w = TAILQ_FIRST(&p->waiters)) != NULL) {
			TAILQ_REMOVE(&p->waiters, w, entry);
			free(w);
		}
		program_unspool(p);
		free(p->id);
		program_spec_free(&p->spec);
		free(p->why);
		free(p->status);
		textbuf_free(&p->text);
		textbuf_free(&p->errtext);
		if (p->link != NULL)
			reaper_link_free(p->link);
		if (p->pane != NULL)
			pane_free(p->pane);
		waiting_free(p->waiting);
		free(p);
	}
}

/*
 * At exit: every program ends and its pane goes, and no start goes on;
 * but one with a grace is let go of, to its reaper's lease (its pane
 * too). How many were.
 */
size_t
programs_shutdown(void)
{
	struct program	*p;
	size_t		 leased = 0;

	pt.shutdown = true;
	pt.piping = NULL;
	reaper_links_exiting();
	for (p = pt.list; p != NULL; p = p->next) {
		p->next_piping = NULL;
		if (program_leasable(p)) {
			log_debug("%s: left to its reaper for %lld ms", p->id,
			    (long long)p->spec.grace_ms);
			reaper_link_let_go(p->link);
			leased++;
			continue;
		}
		if (reaper_link_open(p->link)) {
			reaper_link_quit(p->link);
			reaper_link_flush(p->link);
		}
		if (p->pane != NULL) {
			/*
			 * At exit the front removes every pane itself, before
			 * its control client goes (tmux.c, tmux_shutdown):
			 * tmux 3.3a crashes when a session's last window
			 * closes while a control client is leaving, which a
			 * reaper's kill-pane after our exit would do.
			 */
			pane_kill(p->pane);
			pane_unlink_fifos(p->pane, !reaper_link_open(p->link));
		}
	}
	return (leased);
}

#ifdef PROGMUX_TESTING
/*
 * A program as a fixture (the fuzz harness): spec and text given, a pane
 * id but no pane process and no reaper; RUNNING, or ENDED "completed".
 */
void
program_fixture(struct program *p, struct program_spec *spec,
    const char *pane, const char *text, bool ended)
{
	p->spec = *spec;
	memset(spec, 0, sizeof *spec);
	p->pane = pane_fixture(pane);
	textbuf_init(&p->text, (size_t)cfg.output_max_bytes);	/* in memory */
	textbuf_append(&p->text, text, strlen(text));
	p->state = PROGRAM_RUNNING;
	p->ran = true;
	if (ended)
		program_end(p, OUTCOME_COMPLETED, 0, 0, false, NULL);
}
#endif

/* Can p be looked at for input: running, with a pane process? */
static pid_t
program_lookable(const struct program *p)
{
	if (p->state != PROGRAM_RUNNING || p->pane == NULL)
		return (0);
	return (pane_pid(p->pane));
}

/* When it last printed (0: never). */
int64_t
program_text_ms(const struct program *p)
{
	return (waiting_text_ms(p->waiting));
}

/* Keys were sent to its pane. */
void
program_keys_sent(struct program *p)
{
	waiting_keys(p->waiting, !TAILQ_EMPTY(&p->waiters));
}

/* Does it wait for keyboard input, for an answer now (waiting.c)? */
bool
program_waiting(struct program *p)
{
	pid_t	pid = program_lookable(p);

	return (pid > 0 && waiting_now(p->waiting, pid, &p->text));
}

/* Is the terminal it reads set to hide what is typed (pane.c)? Asked
 * of a program seen waiting for input. */
bool
program_input_hidden(struct program *p)
{
	return (program_lookable(p) > 0 && pane_input_hidden(p->pane) == 1);
}

/* For a call waiting on p: an episode of waiting for input none has
 * reported? (The checks go on on the detector's own timer.) */
bool
program_waiting_due(struct program *p, int64_t now)
{
	pid_t	pid = program_lookable(p);

	if (p->state != PROGRAM_RUNNING)
		return (false);
	return (waiting_due(p->waiting, pid, &p->text, now));
}

/* The detector's timer: look, and tell p's waiters of an episode none
 * has reported. With nothing waiting on p, the checks stop. */
static void
program_waiting_tell(void *arg)
{
	struct program	*p = arg;

	if (!TAILQ_EMPTY(&p->waiters) && program_waiting_due(p, now_ms()))
		program_notify(p, PROGRAM_WAITING);
}

/* A call reported that p waits for input. */
void
program_episode_tell(struct program *p)
{
	waiting_told(p->waiting);
}

/* The pid at the top of its process tree (its pane's) while it runs; 0
 * once it is over, or not yet started. */
pid_t
program_pid(const struct program *p)
{
	return (program_lookable(p));
}

/* Did it say READY=1 on its NOTIFY_SOCKET? */
bool
program_ready(const struct program *p)
{
	return (p->ready_n > 0);
}

/* A READY=1 no reply has reported yet (a call waiting on it returns)? */
bool
program_ready_due(const struct program *p)
{
	return (p->ready_n > p->ready_told && !program_ended(p));
}

/* A call reported that p said READY=1. */
void
program_ready_tell(struct program *p)
{
	p->ready_told = p->ready_n;
}

/* Its last STATUS= line, or NULL. */
const char *
program_status(const struct program *p)
{
	return (p->status);
}

/* "SIGTERM" for SIGTERM; NULL for none. */
const char *
program_signal_name(int sig)
{
	static char	 buf[16];
	const char	*abbrev;

	if (sig <= 0)
		return (NULL);
	if ((abbrev = compat_sigabbrev(sig)) != NULL) {
		snprintf(buf, sizeof buf, "SIG%s", abbrev);
		return (buf);
	}
	snprintf(buf, sizeof buf, "SIG%d", sig);
	return (buf);
}

/* The outcome a client sees. */
enum program_outcome
program_outcome_of(const struct program *p)
{
	if (program_ended(p))
		return (p->outcome);
	if (p->state == PROGRAM_STOPPING)
		return (OUTCOME_STOPPED);
	return (OUTCOME_RUNNING);
}

/* Its name. */
const char *
program_outcome(const struct program *p)
{
	return (program_outcome_name(program_outcome_of(p)));
}

/* Has the program ended (its text complete)? */
bool
program_ended(const struct program *p)
{
	return (p->state == PROGRAM_ENDED || p->state == PROGRAM_CLOSED);
}

enum program_state
program_state(const struct program *p)
{
	return (p->state);
}

/* Has the program run (its launcher started it)? */
bool
program_launched(const struct program *p)
{
	return (p->ran);
}

/* Is its screen there to see: its pane made, its program run, and the
 * pane not removed at its end? */
bool
program_has_screen(const struct program *p)
{
	return (program_pane_id(p) != NULL && p->ran &&
	    (!program_ended(p) || p->spec.keep_pane));
}

const char *
program_id(const struct program *p)
{
	return (p->id);
}

/* Its id without a hub's name for us ("p3"): what names its FIFOs. */
static const char *
program_local_id(const struct program *p)
{
	const char	*colon = strrchr(p->id, ':');

	return (colon != NULL ? colon + 1 : p->id);
}

uint64_t
program_seq(const struct program *p)
{
	return (p->seq);
}

const struct program_spec *
program_spec(const struct program *p)
{
	return (&p->spec);
}

/* "%N" once the pane exists, else NULL. */
const char *
program_pane_id(const struct program *p)
{
	return (p->pane != NULL ? pane_id(p->pane) : NULL);
}

const struct textbuf *
program_text(const struct program *p)
{
	return (&p->text);
}

const struct textbuf *
program_errtext(const struct program *p)
{
	return (&p->errtext);
}

int64_t
program_exit_status(const struct program *p)
{
	return (p->exit_status);
}

int
program_signal(const struct program *p)
{
	return (p->signal);
}

bool
program_lost_end(const struct program *p)
{
	return (p->lost_end);
}

/* Did the reaper cut the text (beyond textbuf's own cut)? */
bool
program_cut(const struct program *p)
{
	return (p->cut);
}

/* Bytes of its output the stripper left out (no complete sequence). */
uint64_t
program_dropped(const struct program *p)
{
	return (p->dropped);
}

const char *
program_why(const struct program *p)
{
	return (p->why);
}

int64_t
program_started_ms(const struct program *p)
{
	return (p->started_ms);
}

int64_t
program_started_real(const struct program *p)
{
	return (p->started_real);
}
