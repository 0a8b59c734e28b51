/*
 * waiting.c — does a program wait for keyboard input?
 *
 * A look asks the system (ttywait.h) whether the pane's foreground
 * group is blocked reading its terminal; where it cannot tell, an
 * unfinished line left unchanged for WAITING_UNKNOWN_MS counts. Text the
 * program wrote just before it blocked may still be on its way through
 * tmux, so a wait is confirmed only when seen again WAITING_CONFIRM_MS
 * later with no text or keys between. The detector's state:
 *
 *   BUSY      --a look sees it waiting--> SEEN (seen_ms: then)
 *   SEEN      --seen waiting again WAITING_CONFIRM_MS later--> CONFIRMED,
 *             a new episode
 *   SEEN      --text or keys--> BUSY
 *   CONFIRMED --text or keys--> CONFIRMED, to be seen again; once seen
 *             again after keys, a new episode (it was answered and
 *             asks again)
 *   any       --a look sees it not waiting--> BUSY
 *
 * An episode is reported once (waiting_told), so a program that keeps
 * waiting does not make every later read an instant empty answer.
 *
 * The scheduled checks are the detector's own: one timer, kept while
 * anything waits on the program (waiting_due), however many calls do;
 * when a check finds an episode no call has reported, its owner is told.
 * A look costs a bounded amount (ttywait's budget), a look a few ms old
 * answers again while nothing was printed or typed since, and the looks
 * of one loop turn stop at WAITING_LOOK_TURN_US together: past it, a
 * scheduled check waits for the next turn and an answer takes the last
 * look.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "server.h"
#include "timeutil.h"
#include "ttywait.h"
#include "xmalloc.h"

#define WAITING_LOOK_REUSE_MS	10	/* a look this recent answers again */
#define WAITING_LOOK_TURN_US	2000	/* looks per loop turn, in time */

enum waiting_state {
	WAITING_BUSY,		/* the last look saw it not waiting */
	WAITING_SEEN,		/* seen waiting once, not yet confirmed */
	WAITING_CONFIRMED	/* seen waiting twice: an episode */
};

struct waiting {
	enum waiting_state	 state;
	int64_t			 seen_ms;	/* first seen waiting since the
						   last text or keys, or 0 */
	int64_t			 born_ms;	/* when it was made */
	int64_t			 text_ms;	/* when text last came */
	int64_t			 keys_ms;	/* when keys were last sent */
	bool			 keys_pending;	/* since the last episode */
	int64_t			 check_ms;	/* next scheduled check */
	struct loop_timer	*timer;		/* it, while waited on */
	int64_t			 looked_ms;	/* the last look, or 0 */
	bool			 look_said;	/* what it said: waiting */
	uint64_t		 episode;	/* episodes seen */
	uint64_t		 episode_told;	/* the last one reported */
	void			 (*tell)(void *);
	void			*arg;
};

static void	waiting_check(void *);

static struct {
	uint64_t	turn;		/* the loop turn counted */
	int64_t		spent_us;	/* looking, in that turn */
} waiting_looks;

/* A detector that tells tell(arg) of each episode a check finds. */
struct waiting *
waiting_new(void (*tell)(void *), void *arg)
{
	struct waiting	*w = xcalloc(1, sizeof *w);

	w->tell = tell;
	w->arg = arg;
	w->born_ms = now_ms();
	return (w);
}

void
waiting_free(struct waiting *w)
{
	if (w == NULL)
		return;
	loop_timer_free(w->timer);
	free(w);
}

/* When it last printed, or keys were typed into it, or (neither yet)
 * when it was made: quiet since then. */
static int64_t
waiting_quiet_since(const struct waiting *w)
{
	int64_t	since = w->keys_ms > w->text_ms ? w->keys_ms : w->text_ms;

	return (since > w->born_ms ? since : w->born_ms);
}

/* When it last printed (0: never). */
int64_t
waiting_text_ms(const struct waiting *w)
{
	return (w->text_ms);
}

/* Set the check timer for when, unless it is set sooner already. */
static void
waiting_arm(struct waiting *w, int64_t when)
{
	if (w->timer == NULL)
		w->timer = loop_timer_new(waiting_check, w);
	if (when < loop_timer_when(w->timer))
		loop_timer_set(w->timer, when);
}

/*
 * Text came: checks go back to fast, and a wait must be seen again. A
 * check already scheduled (something waits on the program) comes sooner
 * if it was later: a prompt is looked at PROGRAM_QUIET_MS after it came,
 * whether the call waiting re-looks on each text (a read) or not (a run).
 */
void
waiting_text(struct waiting *w)
{
	w->text_ms = now_ms();
	w->check_ms = w->text_ms + PROGRAM_QUIET_MS;
	w->seen_ms = 0;
	if (w->state == WAITING_SEEN)
		w->state = WAITING_BUSY;
	if (w->timer != NULL && loop_timer_pending(w->timer))
		waiting_arm(w, w->check_ms);
}

/* Keys were sent to the pane (armed is: something waits on it). */
void
waiting_keys(struct waiting *w, bool armed)
{
	w->keys_ms = now_ms();
	w->keys_pending = true;
	w->seen_ms = 0;
	if (w->state == WAITING_SEEN)
		w->state = WAITING_BUSY;
	w->check_ms = w->keys_ms + PROGRAM_KEYS_SETTLE_MS;
	if (armed)
		waiting_arm(w, w->check_ms);
}

/* May a look be made in this loop turn (its looks so far under
 * WAITING_LOOK_TURN_US)? */
static bool
waiting_look_allowed(void)
{
	if (waiting_looks.turn != loop_turn()) {
		waiting_looks.turn = loop_turn();
		waiting_looks.spent_us = 0;
	}
	return (waiting_looks.spent_us < WAITING_LOOK_TURN_US);
}

/* Confirmed: a new episode unless it was waiting already and no keys
 * came since. */
static void
waiting_confirm(struct waiting *w)
{
	if (w->state != WAITING_CONFIRMED || w->keys_pending)
		w->episode++;
	w->keys_pending = false;
	w->state = WAITING_CONFIRMED;
}

/* Look now at the pane whose first process is pid, with its text. */
static bool
waiting_look(struct waiting *w, pid_t pid, const struct textbuf *text,
    int64_t now)
{
	enum ttywait	tw;
	size_t		s, e;
	int64_t		t0 = now_us();
	bool		yes;

	tw = ttywait_check(pid);
	waiting_looks.spent_us += now_us() - t0;
	w->looked_ms = now;
	yes = tw == TTYWAIT_YES;
	if (tw == TTYWAIT_UNKNOWN &&
	    now - waiting_quiet_since(w) >= PROGRAM_UNKNOWN_MS) {
		textbuf_unfinished(text, 0, 1, &s, &e);
		yes = e > s;
	}
	w->look_said = yes;
	if (!yes) {
		w->state = WAITING_BUSY;
		w->seen_ms = 0;
		return (false);
	}
	if (w->seen_ms == 0)
		w->seen_ms = now;
	if (w->state == WAITING_BUSY)
		w->state = WAITING_SEEN;
	/* Keys just typed may not have been read yet: not confirmed. */
	if (now - w->seen_ms >= PROGRAM_CONFIRM_MS &&
	    now - w->keys_ms >= PROGRAM_KEYS_SETTLE_MS)
		waiting_confirm(w);
	return (true);
}

/*
 * Does it wait for keyboard input, for an answer now? A look made less
 * than WAITING_LOOK_REUSE_MS ago with nothing printed or typed since
 * answers again, as does the last look once this turn's looks are spent.
 */
bool
waiting_now(struct waiting *w, pid_t pid, const struct textbuf *text)
{
	int64_t	now = now_ms();

	if (w->looked_ms != 0 && now - w->looked_ms < WAITING_LOOK_REUSE_MS &&
	    waiting_quiet_since(w) < w->looked_ms)
		return (w->look_said);
	if (!waiting_look_allowed())
		return (w->look_said);
	return (waiting_look(w, pid, text, now));
}

/*
 * For a call waiting on the program at now: look if a check is due
 * (quiet for PROGRAM_QUIET_MS, then every 50 ms for 2 s of quiet, every
 * 250 ms until 30 s, then every second), and set the check timer for the
 * next. True when it waits for input in an episode no call has reported
 * yet; else the owner is told (tell) when a check finds one.
 */
bool
waiting_due(struct waiting *w, pid_t pid, const struct textbuf *text,
    int64_t now)
{
	int64_t	quiet = now - waiting_quiet_since(w), step;

	if (quiet < PROGRAM_QUIET_MS) {
		waiting_arm(w, waiting_quiet_since(w) + PROGRAM_QUIET_MS);
		return (false);
	}
	if (now >= w->check_ms && pid > 0 && !waiting_look_allowed())
		w->check_ms = now;	/* this turn's looks are spent: next */
	else if (now >= w->check_ms) {
		if (pid > 0)
			waiting_look(w, pid, text, now);
		step = quiet < 2000 ? 50 : quiet < 30000 ? 250 : 1000;
		w->check_ms = now + step;
	}
	waiting_arm(w, w->check_ms);
	return (w->state == WAITING_CONFIRMED &&
	    w->episode > w->episode_told);
}

/* A check is due: the owner looks (through waiting_due) and is told of
 * an episode none has reported. */
static void
waiting_check(void *arg)
{
	struct waiting	*w = arg;

	w->tell(w->arg);
}

/* A call reported that it waits for input (a look just saw it): this
 * episode is told, confirmed or not yet. */
void
waiting_told(struct waiting *w)
{
	if (w->seen_ms != 0)
		waiting_confirm(w);
	w->episode_told = w->episode;
}
