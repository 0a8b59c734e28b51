/*
 * program.c — the table of programs, and each program's lifecycle.
 *
 * A program has one state, changed only here:
 *
 *   STARTING --pane piped--> RUNNING --stop--> STOPPING --end--> ENDED
 *   STARTING --stop--> STOPPING (the stop is sent once it is piped)
 *   any but ENDED/CLOSED --end, reaper gone, abandoned--> ENDED
 *   ENDED --reaper reaped and its socket closed--> CLOSED
 *   any --dropped (stop_program, eviction, failed start)--> DROPPED
 *
 * A program that ends from STOPPING is dropped once its end has been told.
 * Its pane and FIFOs are pane.c's, its reaper reaper_link.c's; both tell
 * what happens through the program_pane_* and program_link_* functions
 * below. Whatever waits on a program (a read, a run, a stop, held keys)
 * registers a callback with program_wait() and is told each change, so a
 * change costs only its own waiters. Ended programs stay readable until
 * stop_program, or until keep_ended later programs have closed; then they
 * are evicted. Dropped programs are freed by programs_collect() once the
 * loop is done dispatching, as callers up the stack may still hold them.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "frame.h"
#include "log.h"
#include "server.h"
#include "timeutil.h"
#include "ttywait.h"
#include "xmalloc.h"

struct program_waiter {
	program_cb		 fn;	/* NULL once unwaited during a notify */
	void			*arg;
	struct program_waiter	*next;
};

struct program {
	char			*id;
	uint64_t		 seq;
	struct program_spec	 spec;
	int64_t			 started_ms;	/* monotonic */
	int64_t			 started_real;	/* wall clock, for people */
	enum program_state	 state;
	bool			 launched;	/* it runs, the terminal its */
	int64_t			 stop_grace;	/* with STOPPING */
	bool			 pipe_deferred;	/* pipe-pane and reaper due */

	struct pane		*pane;
	struct reaper_link	*link;

	struct textbuf		 text;
	struct textbuf		 errtext;	/* with separateStderr */
	char			*outcome;	/* once ended: END_* */
	int64_t			 exit_status;	/* -1: none */
	int			 signal;	/* 0: none */
	bool			 lost_end;
	bool			 cut;
	char			*why;
	uint64_t		 ended_seq;	/* order of ending */

	/* Waiting for input (program_waiting and friends). */
	int64_t			 text_ms;	/* when text last came */
	int64_t			 keys_ms;	/* when keys were last sent */
	bool			 keys_pending;	/* since the last waiting check */
	bool			 was_waiting;	/* a check saw it, confirmed */
	int64_t			 yes_ms;	/* first seen waiting, or 0 */
	int64_t			 check_ms;	/* next scheduled check */
	struct loop_timer	*check_timer;	/* it, while waited on */
	int64_t			 looked_ms;	/* the last look, or 0 */
	bool			 look_said;	/* what it said: waiting */
	uint64_t		 episode;	/* waiting episodes seen */
	uint64_t		 episode_told;	/* the last one a call reported */

	struct program_waiter	*waiters;
	int			 notifying;	/* depth of program_notify */
	struct program		*next;
};

static void	program_episode_begin(struct program *);
static void	program_check(void *);

static struct {
	struct program	*list;
	struct program	*dead;		/* dropped, freed after dispatch */
	uint64_t	 seq;
	uint64_t	 ended_seq;
	size_t		 deferred;	/* programs with pipe_deferred */
	bool		 shutdown;	/* progmux exits: nothing starts */
} pt;

/* Start with no programs. */
void
programs_init(void)
{
	memset(&pt, 0, sizeof pt);
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

/* By sequence number: what tmux callbacks hold, as a program may be
 * dropped while a command is in flight. */
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

/* Programs not yet ended: the ones the max-programs ceiling counts. */
size_t
programs_alive(void)
{
	struct program	*p;
	size_t		 n = 0;

	for (p = pt.list; p != NULL; p = p->next)
		if (!program_ended(p))
			n++;
	return (n);
}

/* Bytes of text kept for every program together. */
size_t
programs_text_kept(void)
{
	struct program	*p;
	size_t		 n = 0;

	for (p = pt.list; p != NULL; p = p->next)
		n += p->text.len + p->errtext.len;
	return (n);
}

/* The oldest ended program (CLOSED only, if closed_only). */
static struct program *
program_oldest_ended(bool closed_only, size_t *count)
{
	struct program	*p, *oldest = NULL;

	*count = 0;
	for (p = pt.list; p != NULL; p = p->next) {
		if (closed_only ? p->state != PROGRAM_CLOSED :
		    !program_ended(p))
			continue;
		(*count)++;
		if (oldest == NULL || p->ended_seq < oldest->ended_seq)
			oldest = p;
	}
	return (oldest);
}

/* Past the total text ceiling, drop ended programs, oldest first. */
void
programs_make_room(void)
{
	struct program	*oldest;
	size_t		 n;

	while (programs_text_kept() >= (size_t)cfg.total_output_max_bytes) {
		if ((oldest = program_oldest_ended(false, &n)) == NULL)
			return;
		log_debug("%s evicted for room", oldest->id);
		program_drop(oldest);
	}
}

/* Evict the oldest closed programs past the keep_ended ceiling. */
static void
programs_evict(void)
{
	struct program	*oldest;
	size_t		 n;

	for (;;) {
		oldest = program_oldest_ended(true, &n);
		if (n <= (size_t)cfg.keep_ended || oldest == NULL)
			return;
		log_debug("%s evicted", oldest->id);
		program_drop(oldest);
	}
}

/* A new program, STARTING, at the end of the table. */
struct program *
program_new(void)
{
	struct program	*p, **pp;

	p = xcalloc(1, sizeof *p);
	p->seq = ++pt.seq;
	xasprintf(&p->id, "p%llu", (unsigned long long)p->seq);
	p->state = PROGRAM_STARTING;
	p->exit_status = -1;
	p->started_ms = now_ms();
	p->started_real = realtime_ms();
	textbuf_init(&p->text, (size_t)cfg.output_max_bytes);
	textbuf_init(&p->errtext, (size_t)cfg.output_max_bytes);
	for (pp = &pt.list; *pp != NULL; pp = &(*pp)->next)
		;
	*pp = p;
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

/*
 * Start p as spec asks (p owns spec's contents from now on): its FIFOs,
 * then its pane. The reaper follows once the pane exists.
 */
int
program_start(struct program *p, struct program_spec *spec, char **cause)
{
	p->spec = *spec;
	memset(spec, 0, sizeof *spec);
	if ((p->pane = pane_new(p, cause)) == NULL)
		return (-1);
	pane_make(p->pane);
	return (0);
}

/* Register fn to be told p's changes, until program_unwait. */
void
program_wait(struct program *p, program_cb fn, void *arg)
{
	struct program_waiter	*w;

	w = xcalloc(1, sizeof *w);
	w->fn = fn;
	w->arg = arg;
	w->next = p->waiters;
	p->waiters = w;
}

/* Stop telling fn (with arg) about p. */
void
program_unwait(struct program *p, program_cb fn, void *arg)
{
	struct program_waiter	*w, **ww;

	for (ww = &p->waiters; (w = *ww) != NULL; ww = &w->next) {
		if (w->fn != fn || w->arg != arg)
			continue;
		if (p->notifying > 0)
			w->fn = NULL;	/* unlinked after the notify */
		else {
			*ww = w->next;
			free(w);
		}
		return;
	}
}

/* Tell every waiter on p about ev. */
static void
program_notify(struct program *p, enum program_event ev)
{
	struct program_waiter	*w, **ww;

	p->notifying++;
	for (w = p->waiters; w != NULL; w = w->next)
		if (w->fn != NULL)
			w->fn(p, ev, w->arg);
	if (--p->notifying > 0)
		return;
	for (ww = &p->waiters; (w = *ww) != NULL;) {
		if (w->fn == NULL) {
			*ww = w->next;
			free(w);
		} else
			ww = &w->next;
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

/* Ended, and its reaper gone: p can be evicted. */
static void
program_check_closed(struct program *p)
{
	if (p->state == PROGRAM_ENDED && reaper_link_closed(p->link))
		program_set_state(p, PROGRAM_CLOSED);
}

/* The program has ended: its text is complete. */
static void
program_end(struct program *p, const char *how, int64_t status, int sig,
    bool lost_end, const char *why)
{
	bool	was_stopping = p->state == PROGRAM_STOPPING;

	if (program_ended(p) || p->state == PROGRAM_DROPPED)
		return;
	p->ended_seq = ++pt.ended_seq;
	free(p->outcome);
	p->outcome = xstrdup(how);
	p->exit_status = status;
	p->signal = sig;
	if (status == 130 && sig == 0 && strcmp(how, "not_started") != 0) {
		/* 130 is how a shell reports SIGINT: read it so. */
		p->exit_status = -1;
		p->signal = SIGINT;
	}
	p->lost_end = p->lost_end || lost_end;
	if (why != NULL && p->why == NULL)
		p->why = xstrdup(why);
	if (!p->spec.keep_pane && p->pane != NULL)
		pane_kill(p->pane);
	log_debug("%s ended: %s status %lld signal %d", p->id, how,
	    (long long)p->exit_status, p->signal);
	program_set_state(p, PROGRAM_ENDED);
	/* Stopped, and the stop told: stop_program forgets it. */
	if (was_stopping && p->state != PROGRAM_DROPPED)
		program_drop(p);
	else
		program_check_closed(p);
}

static void	programs_run_deferred(void *);
static struct loop_timer *programs_defer_timer;	/* made once, not in pt */

/* The pane exists: tell the start, then pipe it and spawn the reaper on
 * the next loop turn (a timer set now runs then), so the start's reply
 * leaves first. */
void
program_pane_made(struct program *p)
{
	program_notify(p, PROGRAM_PANE);
	if (p->state == PROGRAM_DROPPED || program_ended(p))
		return;
	if (pt.shutdown) {
		pane_kill(p->pane);	/* made as progmux exits: it goes */
		return;
	}
	p->pipe_deferred = true;
	pt.deferred++;
	if (programs_defer_timer == NULL)
		programs_defer_timer = loop_timer_new(programs_run_deferred,
		    NULL);
	loop_timer_set(programs_defer_timer, now_ms());
}

/* Pipe one program's pane, then spawn its reaper. */
static void
program_pipe(struct program *p)
{
	char	*why;

	pane_pipe(p->pane);
	if ((p->link = reaper_link_spawn(p, p->pane, &why)) == NULL) {
		program_abandon(p, why);
		free(why);
		return;
	}
	free(p->spec.input);	/* the reaper has it now */
	p->spec.input = NULL;
}

/* Run what program_pane_made deferred. */
static void
programs_run_deferred(void *arg)
{
	struct program	*p, *next;

	(void)arg;
	/* (Piping one may drop it, never another.) */
	for (p = pt.list; p != NULL && pt.deferred > 0; p = next) {
		next = p->next;
		if (!p->pipe_deferred)
			continue;
		p->pipe_deferred = false;
		pt.deferred--;
		if (p->state == PROGRAM_STARTING ||
		    p->state == PROGRAM_STOPPING)
			program_pipe(p);
	}
	pt.deferred = 0;
}

/* pipe-pane is attached: release the launcher's gate. */
void
program_pane_piped(struct program *p)
{
	if (p->state != PROGRAM_STARTING && p->state != PROGRAM_STOPPING)
		return;		/* ended meanwhile */
	reaper_link_pane(p->link, pane_id(p->pane), pane_pid(p->pane));
	if (p->state == PROGRAM_STOPPING)
		reaper_link_stop(p->link, p->stop_grace);
	else
		program_set_state(p, PROGRAM_RUNNING);
}

/* The start failed before the program could run: drop it, with why. */
void
program_start_failed(struct program *p, const char *why)
{
	if (p->why == NULL)
		p->why = xstrdup(why);
	program_drop(p);
}

/* The program cannot go on (its pane could not be piped, its reaper
 * failed): it reads as gone, with why; its reaper and pane go. */
void
program_abandon(struct program *p, const char *why)
{
	if (program_ended(p) || p->state == PROGRAM_DROPPED)
		return;
	program_end(p, "gone", -1, 0, true, why);
	if (p->link != NULL)
		reaper_link_quit(p->link);
	if (p->pane != NULL)
		pane_kill(p->pane);
}

/* Text from the reaper. */
void
program_link_text(struct program *p, const char *b, size_t len)
{
	textbuf_append(&p->text, b, len);
	p->text_ms = now_ms();
	p->check_ms = p->text_ms + PROGRAM_QUIET_MS;	/* back to fast */
	p->yes_ms = 0;			/* it wrote: look again */
	program_notify(p, PROGRAM_TEXT);
}

/* Standard error's text, with separateStderr. */
void
program_link_errtext(struct program *p, const char *b, size_t len)
{
	textbuf_append(&p->errtext, b, len);
}

/* The program runs: keys held for it go now. */
void
program_link_launched(struct program *p)
{
	p->launched = true;
	program_notify(p, PROGRAM_LAUNCHED);
}

/* The reaper reported the end. */
void
program_link_end(struct program *p, const char *how, int64_t status, int sig,
    bool lost_end, bool cut, const char *why)
{
	if (cut)
		p->cut = true;
	program_end(p, how, status, sig, lost_end, why);
}

/* The reaper's socket is closed: it exited or died. */
void
program_link_gone(struct program *p)
{
	if (p->pane != NULL)
		pane_release_fifos(p->pane);
	/* (The start was answered before its reaper was spawned.) */
	if (!program_ended(p))
		program_end(p, "gone", -1, 0, true,
		    "its reaper exited before the program's end was read");
	if (p->state == PROGRAM_DROPPED)
		return;
	if (p->pane != NULL)
		pane_kill(p->pane);
	program_check_closed(p);
	programs_evict();
}

/* Reap every child that has exited; false once none is left (ECHILD). */
bool
programs_reap_children(void)
{
	struct program	*p;
	pid_t		 pid;
	int		 st;

	while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
		if (tmux_reaped(pid, st))
			continue;
		for (p = pt.list; p != NULL; p = p->next) {
			if (p->link == NULL ||
			    !reaper_link_reaped(p->link, pid, st))
				continue;
			if (WIFSIGNALED(st))
				log_notify(LOG_NOTIFY_WARNING, "reaper", "%s: "
				    "its reaper was killed by signal %d; the "
				    "program reads as gone", p->id,
				    WTERMSIG(st));
			program_check_closed(p);
			break;
		}
	}
	programs_evict();
	return (pid == 0);
}

/* Ask for the program's end (SIGTERM, SIGKILL after grace): STOPPING,
 * and its waiters told. A program still starting is stopped once piped. */
void
program_stop(struct program *p, int64_t grace_ms)
{
	bool	piped = p->state == PROGRAM_RUNNING;

	if (p->state != PROGRAM_STARTING && p->state != PROGRAM_RUNNING)
		return;
	p->stop_grace = grace_ms;
	program_set_state(p, PROGRAM_STOPPING);
	if (piped && p->state == PROGRAM_STOPPING)
		reaper_link_stop(p->link, grace_ms);
}

/*
 * Drop a program: it is unknown from now on. Its waiters are told to let
 * go, its reaper to quit, its pane removed. The memory is freed by
 * programs_collect() once the loop is done dispatching.
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
	if (p->pipe_deferred) {
		p->pipe_deferred = false;
		pt.deferred--;
	}
	if (p->link != NULL) {
		if (was < PROGRAM_ENDED)
			reaper_link_quit(p->link);
		reaper_link_close(p->link);
	}
	if (p->pane != NULL) {
		pane_kill(p->pane);
		pane_unlink_fifos(p->pane, true);
	}
	p->next = pt.dead;
	pt.dead = p;
}

/* Free what was dropped. */
void
programs_collect(void)
{
	struct program		*p;
	struct program_waiter	*w;

	while ((p = pt.dead) != NULL) {
		pt.dead = p->next;
		while ((w = p->waiters) != NULL) {
			p->waiters = w->next;
			free(w);
		}
		free(p->id);
		program_spec_free(&p->spec);
		free(p->outcome);
		free(p->why);
		textbuf_free(&p->text);
		textbuf_free(&p->errtext);
		if (p->link != NULL)
			reaper_link_free(p->link);
		if (p->pane != NULL)
			pane_free(p->pane);
		loop_timer_free(p->check_timer);
		free(p);
	}
}

/* At exit: every program ends and its pane goes. */
void
programs_shutdown(void)
{
	struct program	*p;

	pt.shutdown = true;
	reaper_links_exiting();
	for (p = pt.list; p != NULL; p = p->next) {
		/* Its pane goes: no pipe-pane, no reaper for it any more. */
		if (p->pipe_deferred) {
			p->pipe_deferred = false;
			pt.deferred--;
		}
		if (p->link != NULL && reaper_link_open(p->link)) {
			reaper_link_quit(p->link);
			reaper_link_flush(p->link);
		}
		if (p->pane != NULL) {
			pane_kill(p->pane);
			/* None is wanted now. */
			pane_unlink_fifos(p->pane, p->link == NULL ||
			    !reaper_link_open(p->link));
		}
	}
}

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
	p->pane = pane_new(NULL, NULL);
	pane_set(p->pane, pane, 0);
	textbuf_append(&p->text, text, strlen(text));
	p->state = PROGRAM_RUNNING;
	if (ended)
		program_end(p, "completed", 0, 0, false, NULL);
}

/*
 * Waiting for input. A check looks at /proc (ttywait.c) for the pane's
 * foreground group blocked reading its terminal; where /proc cannot tell,
 * an unfinished line left unchanged for PROGRAM_UNKNOWN_MS counts. An
 * episode begins when a check sees it waiting after one saw it not
 * waiting, or after keys were sent to it; a call reports an episode once
 * (program_episode_tell), so a program that keeps waiting does not make
 * every later read an instant empty answer.
 *
 * The scheduled checks are the program's own: one timer (check_timer),
 * kept while anything waits on the program, however many calls do; when
 * a check finds an episode no call has reported, the waiters are told
 * (PROGRAM_WAITING). A look costs a bounded amount (ttywait.c's budget),
 * a look a few ms old answers again while nothing was printed or typed
 * since, and the looks of one loop turn stop at PROGRAM_LOOK_TURN_US
 * together: past it, a scheduled check waits for the next turn and an
 * answer takes the program's last look.
 */
#define PROGRAM_LOOK_REUSE_MS	10	/* a look this recent answers again */
#define PROGRAM_LOOK_TURN_US	2000	/* looks per loop turn, in time */

static struct {
	uint64_t	turn;		/* the loop turn counted */
	int64_t		spent_us;	/* looking, in that turn */
} program_looks;

/* When it last printed, or keys were typed into it: quiet since then. */
int64_t
program_quiet_since(const struct program *p)
{
	return (p->keys_ms > p->text_ms ? p->keys_ms : p->text_ms);
}

/* When it last printed (0: never). */
int64_t
program_text_ms(const struct program *p)
{
	return (p->text_ms);
}

/* Set p's check timer for when, unless it is set sooner already. */
static void
program_check_arm(struct program *p, int64_t when)
{
	if (p->check_timer == NULL)
		p->check_timer = loop_timer_new(program_check, p);
	if (when < loop_timer_when(p->check_timer))
		loop_timer_set(p->check_timer, when);
}

/* Keys were sent to its pane. */
void
program_keys_sent(struct program *p)
{
	p->keys_ms = now_ms();
	p->keys_pending = true;
	p->yes_ms = 0;
	p->check_ms = p->keys_ms + PROGRAM_KEYS_SETTLE_MS;
	if (p->waiters != NULL)
		program_check_arm(p, p->check_ms);
}

/* May a look in /proc be made in this loop turn (its looks so far under
 * PROGRAM_LOOK_TURN_US)? */
static bool
program_look_allowed(void)
{
	if (program_looks.turn != loop_turn()) {
		program_looks.turn = loop_turn();
		program_looks.spent_us = 0;
	}
	return (program_looks.spent_us < PROGRAM_LOOK_TURN_US);
}

/*
 * Look now: does it wait for keyboard input? Text it wrote just before
 * it blocked may still be on its way through tmux, so a wait counts for
 * an episode only once seen again PROGRAM_CONFIRM_MS later with no text
 * or keys between (yes_ms marks the first sight).
 */
static bool
program_look(struct program *p, int64_t now)
{
	const struct textbuf	*t = &p->text;
	enum ttywait		 tw;
	size_t			 s, e;
	int64_t			 t0 = now_us();
	bool			 w;

	tw = ttywait_check(pane_pid(p->pane));
	program_looks.spent_us += now_us() - t0;
	p->looked_ms = now;
	w = tw == TTYWAIT_YES;
	if (tw == TTYWAIT_UNKNOWN &&
	    now - program_quiet_since(p) >= PROGRAM_UNKNOWN_MS) {
		textbuf_unfinished(t, 0, 1, &s, &e);
		w = e > s;
	}
	p->look_said = w;
	if (!w) {
		p->yes_ms = 0;
		p->was_waiting = false;
		return (false);
	}
	if (p->yes_ms == 0)
		p->yes_ms = now;
	/* Keys just typed may not have been read yet: not confirmed. */
	if (now - p->yes_ms >= PROGRAM_CONFIRM_MS &&
	    now - p->keys_ms >= PROGRAM_KEYS_SETTLE_MS)
		program_episode_begin(p);
	return (true);
}

/* Can p be looked at: launched, running, with a pane process? */
static bool
program_lookable(const struct program *p)
{
	return (p->launched && p->state == PROGRAM_RUNNING &&
	    p->pane != NULL && pane_pid(p->pane) > 0);
}

/*
 * Does it wait for keyboard input, for an answer now? A look made less
 * than PROGRAM_LOOK_REUSE_MS ago with nothing printed or typed since
 * answers again, as does the last look once this turn's looks are spent.
 */
bool
program_waiting(struct program *p)
{
	int64_t	now = now_ms();

	if (!program_lookable(p))
		return (false);
	if (p->looked_ms != 0 && now - p->looked_ms < PROGRAM_LOOK_REUSE_MS &&
	    program_quiet_since(p) < p->looked_ms)
		return (p->look_said);
	if (!program_look_allowed())
		return (p->look_said);
	return (program_look(p, now));
}

/* It waits, for sure: a new episode if it did not before, or keys came. */
static void
program_episode_begin(struct program *p)
{
	if (!p->was_waiting || p->keys_pending)
		p->episode++;
	p->keys_pending = false;
	p->was_waiting = true;
}

/*
 * For a call waiting on p at now: look if a check is due (quiet for
 * PROGRAM_QUIET_MS, then every 50 ms for 2 s of quiet, every 250 ms
 * until 30 s, then every second), and set p's check timer for the next.
 * True when p waits for input in an episode no call has reported yet;
 * else the waiters are told (PROGRAM_WAITING) when a check finds one.
 */
bool
program_waiting_due(struct program *p, int64_t now)
{
	int64_t	quiet = now - program_quiet_since(p), step;

	if (!p->launched || p->state != PROGRAM_RUNNING)
		return (false);
	if (quiet < PROGRAM_QUIET_MS) {
		program_check_arm(p, program_quiet_since(p) + PROGRAM_QUIET_MS);
		return (false);
	}
	if (now >= p->check_ms && program_lookable(p) &&
	    !program_look_allowed())
		p->check_ms = now;	/* this turn's looks are spent: next */
	else if (now >= p->check_ms) {
		if (program_lookable(p))
			program_look(p, now);
		step = quiet < 2000 ? 50 : quiet < 30000 ? 250 : 1000;
		p->check_ms = now + step;
	}
	program_check_arm(p, p->check_ms);
	return (p->was_waiting && p->episode > p->episode_told);
}

/* p's check is due: look, and tell its waiters of an episode none has
 * reported. With nothing waiting on p, the checks stop. */
static void
program_check(void *arg)
{
	struct program	*p = arg;

	if (p->waiters != NULL && program_waiting_due(p, now_ms()))
		program_notify(p, PROGRAM_WAITING);
}

/* A call reported that p waits for input (a check just saw it): this
 * episode is told, confirmed or not yet. */
void
program_episode_tell(struct program *p)
{
	if (p->yes_ms != 0)
		program_episode_begin(p);
	p->episode_told = p->episode;
}

/* "SIGTERM" for SIGTERM; NULL for none. */
const char *
program_signal_name(int sig)
{
	static char	 buf[16];
	const char	*abbrev;

	if (sig <= 0)
		return (NULL);
	if ((abbrev = sigabbrev_np(sig)) != NULL) {
		snprintf(buf, sizeof buf, "SIG%s", abbrev);
		return (buf);
	}
	snprintf(buf, sizeof buf, "SIG%d", sig);
	return (buf);
}

/* The outcome a client sees. */
const char *
program_outcome(const struct program *p)
{
	if (program_ended(p))
		return (p->outcome);
	if (p->state == PROGRAM_STOPPING)
		return ("stopped");
	return ("running");
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

bool
program_launched(const struct program *p)
{
	return (p->launched);
}

const char *
program_id(const struct program *p)
{
	return (p->id);
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

/* Its pane (pane.c), or NULL before program_start. */
struct pane *
program_pane(struct program *p)
{
	return (p->pane);
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
