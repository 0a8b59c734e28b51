/*
 * test_server_program.c — a program's lifecycle (server/program.c),
 * driven through fake panes, reapers and a fake clock.
 *
 * program.c is linked alone: the pane.c, reaper_link.c, waiting.c and
 * loop.c functions it calls are defined here, each recording what it was
 * asked and keeping the callbacks, so a test makes tmux and the reaper
 * answer by calling them. Pinned: the states from STARTING to CLOSED and
 * what each tells the waiters; a stop in every state (the reaper told,
 * or the program ended at once, stopped); a failed spawn or pipe-pane
 * ending it gone with the reason; a waiter let go of in the middle of a
 * notify; eviction (only programs read to their end, past their
 * lifetime, with nothing waiting) and the start ceilings (alive, unread,
 * text) with their messages; a program adopted from an earlier progmux
 * (its id and text kept, ours numbered after it, the frames that came
 * with it bringing it to where it stands, a stop in flight forgetting it
 * at its end) and the exit letting a program with a grace go to its
 * lease, ended and its pane removed without one. Each test has a
 * runtime directory of its own, where the programs' spools are made:
 * the fake reaper writes the text there as the real one does
 * (reaper/spool_write.c), and a dropped program's spool is gone once it
 * is freed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <fcntl.h>
#include <unistd.h>
#include <sys/stat.h>

#include "proto.h"
#include "server.h"
#include "spool_write.h"
#include "timeutil.h"
#include "xmalloc.h"

struct config	cfg;

/* The clock: milliseconds a test moves on by hand. */
static int64_t	fake_ms = 1000000;
int64_t now_ms(void) { return (fake_ms); }
int64_t now_us(void) { return (fake_ms * 1000); }
int64_t cpu_us(void) { return (fake_ms * 1000); }
int64_t realtime_ms(void) { return (fake_ms); }
void realtime_iso(char *b, size_t n, int64_t ms) { snprintf(b, n, "%lld",
    (long long)ms); }
int poll_timeout(int64_t d) { return (d == DEADLINE_NONE ? -1 : 0); }

/* The loop: the before-sleep work program.c registers, run by hand. */
static loop_timer_cb	before_sleep;
static void		*before_arg;
void
loop_before_sleep(loop_timer_cb cb, void *arg)
{
	before_sleep = cb;
	before_arg = arg;
}

/* Fake panes: what was asked, and the callbacks to answer with. */
struct pane {
	char			 id[16];
	const struct pane_cb	*cb;
	void			*owner;
	bool			 make, pipe, killed, unlinked;
};
static struct pane	*last_pane;
static bool		 pane_fail_new, pane_fail_fifos;

struct pane *
pane_new(const char *program_id, const struct program_spec *spec,
    const struct pane_cb *cb, void *owner, char **cause)
{
	struct pane	*pn;

	(void)program_id;
	(void)spec;
	if (pane_fail_new) {
		*cause = xstrdup("no FIFO");
		return (NULL);
	}
	pn = xcalloc(1, sizeof *pn);
	pn->cb = cb;
	pn->owner = owner;
	return (last_pane = pn);
}
int
pane_fifos(struct pane *pn, char **cause)
{
	assert_true(pn->make);	/* asked of tmux first */
	if (!pane_fail_fifos)
		return (0);
	*cause = xstrdup("cannot make FIFO p1.out: ENOSPC");
	return (-1);
}
void pane_free(struct pane *pn) { free(pn); }
void pane_make(struct pane *pn) { pn->make = true; }
void pane_pipe(struct pane *pn) { pn->pipe = true; }
void pane_kill(struct pane *pn) { pn->killed = true; }
void pane_release_fifos(struct pane *pn) { (void)pn; }
void pane_unlink_fifos(struct pane *pn, bool r) { (void)r; pn->unlinked = true; }
const char *pane_id(const struct pane *pn) { return (pn->id); }
pid_t pane_pid(const struct pane *pn) { (void)pn; return (4242); }
int pane_input_hidden(const struct pane *pn) { (void)pn; return (-1); }
bool pane_is(const struct pane *pn, const char *id) { return (strcmp(pn->id,
    id) == 0); }
const char *pane_err_name(const struct pane *pn) { (void)pn; return (NULL); }
void
pane_take_fds(struct pane *pn, int *o, int *c, int *e)
{
	(void)pn;
	*o = *c = *e = -1;
}

/* Fake reaper links: messages sent, socket and pid states; the text
 * written into the spool it was given. */
struct reaper_link {
	const struct reaper_cb	*cb;
	void			*owner;
	bool			 open, reaped;
	int			 quit, stop, pane, let_go;
	int			 spool;
	struct spool_w		 w;
};
static struct reaper_link	*last_link;
static bool			 link_fail;

struct reaper_link *
reaper_link_spawn(const char *id, const struct program_spec *spec,
    const char *err, int64_t started_ms, int64_t started_real,
    int fds[REAPER_LINK_FDS], const struct reaper_cb *cb, void *owner,
    char **cause)
{
	struct reaper_link	*l;
	int			 i;

	(void)id;
	(void)spec;
	(void)err;
	(void)started_ms;
	(void)started_real;
	for (i = 0; i < REAPER_LINK_FDS - 1; i++)
		if (fds[i] != -1)
			close(fds[i]);
	if (link_fail) {
		if (fds[3] != -1)
			close(fds[3]);
		*cause = xstrdup("cannot start progmux-reaper: EMFILE");
		return (NULL);
	}
	l = xcalloc(1, sizeof *l);
	l->cb = cb;
	l->owner = owner;
	l->open = true;
	l->spool = fds[3];
	spool_w_init(&l->w, l->spool, SPOOL_OUT, 1 << 20);
	return (last_link = l);
}
void
reaper_link_free(struct reaper_link *l)
{
	spool_w_free(&l->w);
	if (l->spool != -1)
		close(l->spool);
	free(l);
}

/* The fake reaper writes text into the spool and tells the program. */
static void
link_text(struct reaper_link *l, const char *s)
{
	struct spool_news	nw;

	spool_w_write(&l->w, s, strlen(s));
	memset(&nw, 0, sizeof nw);
	nw.len = l->w.len;
	nw.seg = spool_w_seg_start(&l->w);
	l->cb->text(l->owner, &nw);
}
void reaper_link_close(struct reaper_link *l) { l->open = false; }
bool reaper_link_closed(const struct reaper_link *l) { return (l == NULL ||
    (!l->open && l->reaped)); }
bool reaper_link_open(const struct reaper_link *l) { return (l != NULL &&
    l->open); }
void reaper_link_quit(struct reaper_link *l) { l->quit++; }
void reaper_link_pane(struct reaper_link *l, const char *p, pid_t pid) {
    (void)p; (void)pid; l->pane++; }
void reaper_link_stop(struct reaper_link *l, int64_t g) { (void)g; l->stop++; }
void reaper_link_flush(struct reaper_link *l) { (void)l; }
void reaper_links_exiting(void) { }
void reaper_link_let_go(struct reaper_link *l) { l->let_go++; l->open = false; }

/* An adopted reaper's link; the frames that came with its "adopted" are
 * the test's to set (adopt_launched, adopt_end), told at take. */
static bool		 adopt_launched;
static const char	*adopt_end;
struct reaper_link *
reaper_link_adopt(const char *id, int fd, struct buf *in,
    const struct reaper_cb *cb, void *owner)
{
	struct reaper_link	*l;

	(void)id;
	(void)fd;
	buf_free(in);
	l = xcalloc(1, sizeof *l);
	l->cb = cb;
	l->owner = owner;
	l->open = true;
	l->reaped = true;	/* not ours: nothing to reap */
	l->spool = -1;
	return (last_link = l);
}
void
reaper_link_take(struct reaper_link *l)
{
	struct reaper_end	e;

	if (adopt_launched)
		l->cb->launched(l->owner);
	if (adopt_end != NULL) {
		memset(&e, 0, sizeof e);
		e.how = adopt_end;
		e.status = -1;
		l->cb->end(l->owner, &e);
	}
}

/* An adopted pane: its id, as the lease said. */
struct pane *
pane_adopt(const char *program_id, const char *id, pid_t pid)
{
	struct pane	*pn = xcalloc(1, sizeof *pn);

	(void)program_id;
	(void)pid;
	snprintf(pn->id, sizeof pn->id, "%s", id);
	return (last_pane = pn);
}

/* Fake input-wait checks: never waiting. */
struct waiting { int unused; };
struct waiting *waiting_new(void (*t)(void *), void *a) { (void)t; (void)a;
    return (xcalloc(1, sizeof (struct waiting))); }
void waiting_free(struct waiting *w) { free(w); }
int64_t waiting_text_ms(const struct waiting *w) { (void)w; return (0); }
void waiting_text(struct waiting *w) { (void)w; }
void waiting_keys(struct waiting *w, bool a) { (void)w; (void)a; }
bool waiting_now(struct waiting *w, pid_t p, const struct textbuf *t) {
    (void)w; (void)p; (void)t; return (false); }
bool waiting_due(struct waiting *w, pid_t p, const struct textbuf *t,
    int64_t n) { (void)w; (void)p; (void)t; (void)n; return (false); }
void waiting_told(struct waiting *w) { (void)w; }

/* A waiter that records the events it is told. */
struct rec {
	int	ev[16];
	int	n;
	struct program_waiter *self;	/* let go of itself on ev, if set */
	int	unwait_on;
};
static void
rec_cb(struct program *p, enum program_event ev, void *arg)
{
	struct rec	*r = arg;

	(void)p;
	if (r->n < 16)
		r->ev[r->n++] = ev;
	if (r->self != NULL && (int)ev == r->unwait_on) {
		program_unwait(r->self);
		r->self = NULL;
	}
}

/* Was ev told to r? */
static bool
told(const struct rec *r, enum program_event ev)
{
	int	i;

	for (i = 0; i < r->n; i++)
		if (r->ev[i] == (int)ev)
			return (true);
	return (false);
}

static char	rundir[64];

/* The runtime directory is the test's, and stays. */
int config_rundir_check(char **cause) { (void)cause; return (0); }

/* A runtime directory of the test's own, for the spools. */
static int
setup(void **state)
{
	(void)state;
	memset(&cfg, 0, sizeof cfg);
	snprintf(rundir, sizeof rundir, "%s/progmux-test-XXXXXX",
	    getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (mkdtemp(rundir) == NULL)
		return (-1);
	cfg.rundir = rundir;
	cfg.rundir_fd = open(rundir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cfg.output_max_bytes = 1 << 20;
	cfg.total_output_max_bytes = 1 << 24;
	cfg.keep_ended = 32;
	cfg.max_programs = 64;
	cfg.lease_fd = -1;
	pane_fail_new = pane_fail_fifos = link_fail = false;
	programs_init();
	return (0);
}

/* A started program: spec of argv[0] name, lifetime 600 s. */
static struct program *
start(const char *name)
{
	struct program_spec	 spec;
	struct program		*p = program_new();
	char			*cause = NULL;

	memset(&spec, 0, sizeof spec);
	spec.argv = xcalloc(2, sizeof *spec.argv);
	spec.argv[0] = xstrdup(name);
	spec.argc = 1;
	spec.lifetime_ms = 600000;
	assert_int_equal(program_start(p, &spec, &cause), 0);
	program_told_id(p);	/* as start_program's reply gives it */
	return (p);
}

/* The pane made (its id), the reaper spawned before the loop sleeps,
 * pipe-pane answered, the program running. */
static void
run(struct program *p, const char *id)
{
	struct pane	*pn = last_pane;

	snprintf(pn->id, sizeof pn->id, "%s", id);
	pn->cb->made(pn->owner);
	assert_int_equal(program_state(p), PROGRAM_PIPING);
	before_sleep(before_arg);
	assert_true(pn->pipe);
	assert_non_null(last_link);
	pn->cb->piped(pn->owner);
	assert_int_equal(program_state(p), PROGRAM_GATED);
	assert_int_equal(last_link->pane, 1);
	last_link->cb->launched(last_link->owner);
	assert_int_equal(program_state(p), PROGRAM_RUNNING);
}

/* The reaper reports the end how (END_*), status, then goes. */
static void
end(struct reaper_link *l, const char *how, int64_t status)
{
	struct reaper_end	e;

	memset(&e, 0, sizeof e);
	e.how = how;
	e.status = status;
	l->cb->end(l->owner, &e);
	l->open = false;
	l->cb->gone(l->owner);
	l->reaped = true;
	l->cb->closed(l->owner);
}

/* STARTING to CLOSED, each change told to the waiter. */
static void
test_lifecycle(void **state)
{
	struct rec		 r;
	struct program		*p;
	struct reaper_link	*l;
	char			*cause = NULL;

	(void)state;
	memset(&r, 0, sizeof r);
	p = start("make");
	assert_int_equal(program_state(p), PROGRAM_STARTING);
	program_wait(p, rec_cb, &r);
	run(p, "%3");
	l = last_link;
	assert_true(told(&r, PROGRAM_PANE));
	assert_true(told(&r, PROGRAM_LAUNCHED));
	assert_string_equal(program_pane_id(p), "%3");
	assert_ptr_equal(program_by_pane("%3"), p);
	link_text(l, "hi\n");
	assert_true(told(&r, PROGRAM_TEXT));
	assert_int_equal(program_text(p)->len, 3);
	/* Counted by the max-programs ceiling while it runs, not once
	 * ended. */
	cfg.max_programs = 1;
	assert_int_equal(programs_admit(&cause), -1);
	assert_non_null(strstr(cause, "1 programs are running"));
	free(cause);
	cause = NULL;
	end(l, END_COMPLETED, 2);
	assert_int_equal(program_state(p), PROGRAM_CLOSED);
	assert_string_equal(program_outcome(p), "completed");
	assert_int_equal(program_exit_status(p), 2);
	assert_int_equal(programs_admit(&cause), 0);
	cfg.max_programs = 64;
	program_drop(p);
	assert_null(program_find("p1"));
	programs_collect();
}

/* A stop in each state: before the reaper has the pane the program
 * ends at once, stopped; after, the reaper is told, and the end that
 * follows drops it. */
static void
test_stop(void **state)
{
	struct program		*p;
	struct reaper_link	*l;
	char			 id[16];

	(void)state;
	p = start("a");
	program_stop(p, 100);
	assert_true(program_ended(p));
	assert_string_equal(program_outcome(p), "stopped");
	program_drop(p);

	p = start("b");
	snprintf(last_pane->id, sizeof last_pane->id, "%%7");
	last_pane->cb->made(last_pane->owner);
	assert_int_equal(program_state(p), PROGRAM_PIPING);
	program_stop(p, 100);
	assert_string_equal(program_outcome(p), "stopped");
	assert_true(last_pane->killed);
	program_drop(p);

	p = start("c");
	run(p, "%8");
	l = last_link;
	program_stop(p, 100);
	assert_int_equal(program_state(p), PROGRAM_STOPPING);
	assert_int_equal(l->stop, 1);
	assert_string_equal(program_outcome(p), "stopped");
	snprintf(id, sizeof id, "%s", program_id(p));
	end(l, END_STOPPED, -1);
	assert_null(program_find(id));	/* dropped with its end */
	programs_collect();
}

/* A reaper that cannot be spawned, a pipe-pane that fails: gone, with
 * the reason. */
static void
test_failures(void **state)
{
	struct program	*p;

	(void)state;
	link_fail = true;
	p = start("x");
	snprintf(last_pane->id, sizeof last_pane->id, "%%9");
	last_pane->cb->made(last_pane->owner);
	before_sleep(before_arg);
	assert_true(program_ended(p));
	assert_string_equal(program_outcome(p), "gone");
	assert_non_null(strstr(program_why(p), "EMFILE"));
	assert_false(program_launched(p));
	program_drop(p);
	link_fail = false;

	p = start("y");
	snprintf(last_pane->id, sizeof last_pane->id, "%%10");
	last_pane->cb->made(last_pane->owner);
	before_sleep(before_arg);
	last_pane->cb->pipe_failed(last_pane->owner, "socketpair error");
	assert_string_equal(program_outcome(p), "gone");
	assert_string_equal(program_why(p), "socketpair error");
	assert_int_equal(last_link->quit, 1);
	program_drop(p);
	programs_collect();
}

/*
 * The pane is asked of tmux before the spool and the other FIFOs are
 * made (they are made while tmux works): one of those failing fails the
 * start with why, and the drop that follows removes the pane (its
 * launcher never let through), its FIFOs unlinked, no reaper spawned.
 * No control FIFO: nothing is asked of tmux.
 */
static void
test_start_order(void **state)
{
	struct program_spec	 spec;
	struct program		*p;
	char			*cause = NULL;

	(void)state;
	memset(&spec, 0, sizeof spec);
	spec.argv = xcalloc(2, sizeof *spec.argv);
	spec.argv[0] = xstrdup("x");
	spec.argc = 1;
	spec.lifetime_ms = 600000;
	pane_fail_fifos = true;
	p = program_new();
	last_link = NULL;
	assert_int_equal(program_start(p, &spec, &cause), -1);
	assert_non_null(strstr(cause, "ENOSPC"));
	free(cause);
	cause = NULL;
	assert_true(last_pane->make);
	snprintf(last_pane->id, sizeof last_pane->id, "%%3");
	program_drop(p);
	assert_true(last_pane->killed);
	assert_true(last_pane->unlinked);
	assert_null(last_link);
	programs_collect();
	pane_fail_fifos = false;

	memset(&spec, 0, sizeof spec);
	spec.argv = xcalloc(2, sizeof *spec.argv);
	spec.argv[0] = xstrdup("y");
	spec.argc = 1;
	pane_fail_new = true;
	last_pane = NULL;
	p = program_new();
	assert_int_equal(program_start(p, &spec, &cause), -1);
	assert_string_equal(cause, "no FIFO");
	free(cause);
	assert_null(last_pane);
	program_drop(p);
	programs_collect();
	pane_fail_new = false;
}

/* A waiter let go of while it is told, and the others still told;
 * a dropped program tells its waiters first. */
static void
test_waiters(void **state)
{
	struct rec	 a, b;
	struct program	*p;

	(void)state;
	memset(&a, 0, sizeof a);
	memset(&b, 0, sizeof b);
	p = start("w");
	a.self = program_wait(p, rec_cb, &a);
	a.unwait_on = PROGRAM_PANE;
	program_wait(p, rec_cb, &b);
	run(p, "%11");
	assert_true(told(&a, PROGRAM_PANE));
	assert_false(told(&a, PROGRAM_LAUNCHED));
	assert_true(told(&b, PROGRAM_LAUNCHED));
	program_drop(p);
	assert_true(told(&b, PROGRAM_DROP));
	programs_collect();
}

/* Ended programs past keep_ended: only what was read to its end, or
 * outlived its lifetime, and has no waiter, goes; unread ones hold
 * starts back, with a message naming them and the setting. */
static void
test_eviction(void **state)
{
	struct program		*p[4];
	struct program_waiter	*w = NULL;
	struct rec		 r;
	char			*cause = NULL, id[3][16];
	int			 i;

	(void)state;
	cfg.keep_ended = 1;
	memset(&r, 0, sizeof r);
	for (i = 0; i < 3; i++) {
		p[i] = start("e");
		snprintf(id[i], sizeof id[i], "%s", program_id(p[i]));
		run(p[i], i == 0 ? "%20" : i == 1 ? "%21" : "%22");
		if (i == 1)
			w = program_wait(p[i], rec_cb, &r);
		end(last_link, END_COMPLETED, 0);
	}
	/* None read: all kept, and a start refused. */
	for (i = 0; i < 3; i++)
		assert_non_null(program_find(id[i]));
	assert_int_equal(programs_admit(&cause), -1);
	assert_non_null(strstr(cause, "PROGMUX_KEEP_ENDED"));
	assert_non_null(strstr(cause, "3 ended programs"));
	free(cause);
	cause = NULL;
	/* The first two read to their end, the second waited on: at the
	 * next close only the first goes. */
	program_told_end(p[0]);
	program_told_end(p[1]);
	p[3] = start("f");
	run(p[3], "%23");
	end(last_link, END_COMPLETED, 0);
	programs_collect();
	assert_null(program_find(id[0]));
	assert_non_null(program_find(id[1]));
	assert_non_null(program_find(id[2]));
	/* Past their lifetime, with nothing waiting, unread ones may go. */
	program_unwait(w);
	fake_ms += 600001;
	assert_int_equal(programs_admit(&cause), 0);
	for (i = 1; i < 4; i++)
		program_drop(p[i]);
	programs_collect();
	cfg.keep_ended = 32;
}

/* The ceilings, each with its message: programs alive, text kept. */
static void
test_admit(void **state)
{
	struct program	*p;
	char		*cause = NULL;

	(void)state;
	cfg.max_programs = 1;
	p = start("m");
	assert_int_equal(programs_admit(&cause), -1);
	assert_non_null(strstr(cause, "PROGMUX_MAX_PROGRAMS"));
	free(cause);
	cause = NULL;
	cfg.max_programs = 64;
	run(p, "%30");
	cfg.total_output_max_bytes = 4;
	link_text(last_link, "abcdef\n");
	assert_int_equal(programs_admit(&cause), -1);
	assert_non_null(strstr(cause, "PROGMUX_TOTAL_OUTPUT_MAX_BYTES"));
	free(cause);
	cfg.total_output_max_bytes = 1 << 24;
	program_drop(p);
	programs_collect();
}

/* What an earlier progmux's reaper left: the spool pN.text in our
 * runtime directory (as adopt.c renames it there) holding text, and
 * its lease's particulars for program_adopt. */
static void
adoption(struct program_adoption *a, uint64_t seq, const char *text,
    bool stopping)
{
	struct spool_w	w;
	char		name[32];
	int		dfd;

	snprintf(name, sizeof name, "p%llu.text", (unsigned long long)seq);
	assert_true((dfd = spool_dir_make(cfg.rundir_fd, name)) != -1);
	spool_w_init(&w, dfd, SPOOL_OUT, 1 << 20);
	spool_w_write(&w, text, strlen(text));
	spool_w_free(&w);
	close(dfd);
	memset(a, 0, sizeof *a);
	xasprintf(&a->id, "p%llu", (unsigned long long)seq);
	a->seq = seq;
	a->spec.argv = xcalloc(2, sizeof *a->spec.argv);
	a->spec.argv[0] = xstrdup("server");
	a->spec.argc = 1;
	a->spec.lifetime_ms = 600000;
	a->spec.grace_ms = 60000;
	a->started_ms = fake_ms - 5000;
	a->started_real = 1234;
	a->pane = xstrdup("%4");
	a->pane_pid = 4242;
	a->stopping = stopping;
	a->fd = -1;
}

/* Free what program_adopt left of a. */
static void
adoption_free(struct program_adoption *a)
{
	free(a->id);
	free(a->pane);
	program_spec_free(&a->spec);
}

/*
 * Adopted: its id, start and text from the start kept, GATED until the
 * run its reaper reports, then as any other; a new program is numbered
 * after it; the text that comes next follows the old.
 */
static void
test_adopt(void **state)
{
	struct program_adoption	 a;
	struct program		*p, *q;
	char			*cause = NULL;

	(void)state;
	adoption(&a, 5, "before\nthe kill\n", false);
	adopt_launched = false;
	adopt_end = NULL;
	p = program_adopt(&a, &cause);
	assert_null(cause);
	adoption_free(&a);
	assert_string_equal(program_id(p), "p5");
	assert_true(program_adopted(p));
	assert_true(program_id_told(p));
	assert_int_equal(program_state(p), PROGRAM_GATED);
	assert_int_equal(program_started_ms(p), fake_ms - 5000);
	assert_int_equal(program_started_real(p), 1234);
	assert_int_equal(program_text(p)->len, strlen("before\nthe kill\n"));
	assert_ptr_equal(program_by_pane("%4"), p);
	last_link->cb->launched(last_link->owner);
	assert_int_equal(program_state(p), PROGRAM_RUNNING);
	q = start("new");
	assert_string_equal(program_id(q), "p6");
	assert_false(program_adopted(q));
	program_drop(q);
	program_drop(p);
	programs_collect();

	/* Run and ended while nobody held it: both told with the adopt. */
	adoption(&a, 2, "done\n", false);
	adopt_launched = true;
	adopt_end = END_COMPLETED;
	p = program_adopt(&a, &cause);
	adoption_free(&a);
	assert_true(program_ended(p));
	assert_string_equal(program_outcome(p), "completed");
	assert_int_equal(program_text(p)->len, 5);
	q = start("next");
	assert_string_equal(program_id(q), "p7");	/* after p6, still */
	program_drop(q);
	program_drop(p);
	programs_collect();
}

/* Adopted while stop_program was ending it: its end forgets it, as the
 * stop's would have. */
static void
test_adopt_stopping(void **state)
{
	struct program_adoption	 a;
	char			*cause = NULL;

	(void)state;
	adoption(&a, 3, "bye\n", true);
	adopt_launched = true;
	adopt_end = END_STOPPED;
	program_adopt(&a, &cause);
	adoption_free(&a);
	assert_null(program_find("p3"));
	programs_collect();
	adopt_launched = false;
	adopt_end = NULL;
}

/*
 * At exit a program with a grace, whose reaper has its pane, is let go
 * of (no quit, its pane left to the reaper); one without, or not yet
 * given its pane, or in robust mode, is ended and its pane removed.
 */
static void
test_shutdown_lease(void **state)
{
	struct program		*p[3];
	struct reaper_link	*l[3];
	struct pane		*pn[3];
	int			 i;

	(void)state;
	cfg.lease_fd = cfg.rundir_fd;
	for (i = 0; i < 3; i++) {
		p[i] = start(i == 0 ? "kept" : i == 1 ? "graceless" : "early");
		pn[i] = last_pane;
		if (i < 2) {
			run(p[i], i == 0 ? "%11" : "%12");
			l[i] = last_link;
		}
	}
	((struct program_spec *)program_spec(p[0]))->grace_ms = 5000;
	((struct program_spec *)program_spec(p[2]))->grace_ms = 5000;
	snprintf(pn[2]->id, sizeof pn[2]->id, "%%13");
	pn[2]->cb->made(pn[2]->owner);		/* PIPING: no reaper yet */
	assert_int_equal(programs_shutdown(), 1);
	assert_int_equal(l[0]->let_go, 1);
	assert_int_equal(l[0]->quit, 0);
	assert_false(pn[0]->killed);
	assert_int_equal(l[1]->let_go, 0);
	assert_int_equal(l[1]->quit, 1);
	assert_true(pn[1]->killed);
	assert_true(pn[2]->killed);
	for (i = 0; i < 3; i++)
		program_drop(p[i]);
	programs_collect();

	/* Robust mode: nothing outlives us, whatever its grace. */
	programs_init();
	cfg.robust = true;
	p[0] = start("robust");
	run(p[0], "%14");
	((struct program_spec *)program_spec(p[0]))->grace_ms = 5000;
	assert_int_equal(programs_shutdown(), 0);
	assert_int_equal(last_link->quit, 1);
	program_drop(p[0]);
	programs_collect();
	cfg.robust = false;
	cfg.lease_fd = -1;
}

/* The runtime directory goes, with what the test left in it. */
static int
teardown(void **state)
{
	char	name[32];
	int	i;

	(void)state;
	for (i = 1; i < 64; i++) {
		snprintf(name, sizeof name, "p%d.text", i);
		spool_dir_remove(cfg.rundir_fd, name);
	}
	close(cfg.rundir_fd);
	return (rmdir(rundir));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_lifecycle, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stop, setup, teardown),
		cmocka_unit_test_setup_teardown(test_failures, setup, teardown),
		cmocka_unit_test_setup_teardown(test_start_order, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_waiters, setup, teardown),
		cmocka_unit_test_setup_teardown(test_eviction, setup, teardown),
		cmocka_unit_test_setup_teardown(test_admit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_adopt, setup, teardown),
		cmocka_unit_test_setup_teardown(test_adopt_stopping, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_shutdown_lease, setup,
		    teardown),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
