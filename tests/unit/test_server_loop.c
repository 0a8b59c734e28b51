/*
 * test_server_loop.c — the loop's timers (server/loop.c): a min-heap by
 * deadline, so that however many are set, each costs O(log n) and only
 * the due ones are run.
 *
 * Timers run through loop_run_timers(now), a turn of timers alone with
 * the time given, so every case is exact and none waits on the clock:
 * they run earliest first (ties in the order they were set), only once
 * due, each once per setting; a callback may set, clear or free any
 * timer, its own included, and one set during a pass waits for the next.
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

#include "rand.h"
#include "server.h"
#include "timeutil.h"

#define LT_MANY		100000	/* timers of the many-timers case */
#define LT_BASE		1000000	/* a "now" far from 0 */

/* What the callbacks saw: the order they ran in. */
static struct {
	int	ran[LT_MANY + 16];
	size_t	n;
} lt_log;

/* A timer of the tests: its number, and what its callback then does. */
struct lt {
	struct loop_timer	*t;
	int			 no;
	int64_t			 when;
	void			(*also)(struct lt *);
	struct lt		*other;		/* what also acts on */
};

/* Log the run; then whatever else this timer does. */
static void
lt_cb(void *arg)
{
	struct lt	*l = arg;

	lt_log.ran[lt_log.n++] = l->no;
	if (l->also != NULL)
		l->also(l);
}

/* A new timer numbered no (not set). */
static void
lt_new(struct lt *l, int no)
{
	memset(l, 0, sizeof *l);
	l->no = no;
	l->t = loop_timer_new(lt_cb, l);
}

/* Set l for when. */
static void
lt_set(struct lt *l, int64_t when)
{
	l->when = when;
	loop_timer_set(l->t, when);
}

static void
lt_reset_log(void)
{
	lt_log.n = 0;
}

/* Earliest first; a timer not yet due does not run; each runs once. */
static void
test_order(void **state)
{
	struct lt	l[5];
	int		whens[5] = { 50, 10, 40, 20, 30 }, i;

	(void)state;
	lt_reset_log();
	for (i = 0; i < 5; i++) {
		lt_new(&l[i], i);
		lt_set(&l[i], LT_BASE + whens[i]);
	}
	assert_int_equal(loop_next_deadline(DEADLINE_NONE), LT_BASE + 10);
	assert_int_equal(loop_next_deadline(LT_BASE), LT_BASE);
	loop_run_timers(LT_BASE + 9);
	assert_int_equal(lt_log.n, 0);
	loop_run_timers(LT_BASE + 30);
	assert_int_equal(lt_log.n, 3);
	assert_int_equal(lt_log.ran[0], 1);
	assert_int_equal(lt_log.ran[1], 3);
	assert_int_equal(lt_log.ran[2], 4);
	assert_false(loop_timer_pending(l[1].t));
	assert_true(loop_timer_pending(l[0].t));
	assert_int_equal(loop_timer_when(l[2].t), LT_BASE + 40);
	assert_int_equal(loop_timer_when(l[1].t), DEADLINE_NONE);
	loop_run_timers(LT_BASE + 1000);
	assert_int_equal(lt_log.n, 5);
	assert_int_equal(lt_log.ran[3], 2);
	assert_int_equal(lt_log.ran[4], 0);
	loop_run_timers(LT_BASE + 2000);
	assert_int_equal(lt_log.n, 5);		/* once per setting */
	assert_int_equal(loop_next_deadline(DEADLINE_NONE), DEADLINE_NONE);
	for (i = 0; i < 5; i++)
		loop_timer_free(l[i].t);
}

/* As early: in the order set; set again, a timer moves (later or
 * sooner) and goes after those already set for its new time. */
static void
test_ties_and_reset(void **state)
{
	struct lt	l[4];
	int		i;

	(void)state;
	lt_reset_log();
	for (i = 0; i < 4; i++) {
		lt_new(&l[i], i);
		lt_set(&l[i], LT_BASE + 10);
	}
	lt_set(&l[1], LT_BASE + 10);	/* after 2 and 3 now */
	lt_set(&l[0], LT_BASE + 5);	/* sooner */
	lt_set(&l[3], LT_BASE + 500);	/* later */
	loop_timer_clear(l[2].t);
	assert_false(loop_timer_pending(l[2].t));
	loop_timer_clear(l[2].t);	/* clearing twice is harmless */
	loop_timer_set(l[2].t, DEADLINE_NONE);	/* as is "none" */
	loop_run_timers(LT_BASE + 100);
	assert_int_equal(lt_log.n, 2);
	assert_int_equal(lt_log.ran[0], 0);
	assert_int_equal(lt_log.ran[1], 1);
	loop_run_timers(LT_BASE + 500);
	assert_int_equal(lt_log.n, 3);
	assert_int_equal(lt_log.ran[2], 3);
	for (i = 0; i < 4; i++)
		loop_timer_free(l[i].t);
	loop_timer_free(NULL);
	loop_timer_clear(NULL);
}

/* Callbacks' doings. */
static void
lt_free_other(struct lt *l)
{
	loop_timer_free(l->other->t);
	l->other->t = NULL;
}

static void
lt_clear_other(struct lt *l)
{
	loop_timer_clear(l->other->t);
}

static void
lt_free_self(struct lt *l)
{
	loop_timer_free(l->t);
	l->t = NULL;
}

static void
lt_set_self_now(struct lt *l)
{
	l->also = NULL;		/* once */
	loop_timer_set(l->t, 0);	/* long due */
}

static void
lt_set_other_now(struct lt *l)
{
	loop_timer_set(l->other->t, l->when);
}

/*
 * From a callback, in the same pass: a timer freed or cleared (due in
 * this pass, not yet run) does not run; a callback may free its own
 * timer; one set again for a time already past, its own or another's,
 * runs on the next pass, not in this one (no pass runs forever).
 */
static void
test_from_callbacks(void **state)
{
	struct lt	l[7];
	int		i;

	(void)state;
	lt_reset_log();
	for (i = 0; i < 7; i++)
		lt_new(&l[i], i);
	l[0].also = lt_free_other;
	l[0].other = &l[1];
	l[2].also = lt_clear_other;
	l[2].other = &l[3];
	l[4].also = lt_free_self;
	l[5].also = lt_set_self_now;
	l[6].also = lt_set_other_now;
	l[6].other = &l[0];
	for (i = 0; i < 7; i++)
		lt_set(&l[i], LT_BASE + i);
	loop_run_timers(LT_BASE + 100);
	/* 0 (frees 1), 2 (clears 3), 4 (frees itself), 5, 6 (sets 0). */
	assert_int_equal(lt_log.n, 5);
	assert_int_equal(lt_log.ran[0], 0);
	assert_int_equal(lt_log.ran[1], 2);
	assert_int_equal(lt_log.ran[2], 4);
	assert_int_equal(lt_log.ran[3], 5);
	assert_int_equal(lt_log.ran[4], 6);
	assert_null(l[1].t);
	assert_null(l[4].t);
	assert_false(loop_timer_pending(l[3].t));
	assert_true(loop_timer_pending(l[5].t));
	assert_true(loop_timer_pending(l[0].t));
	/* The next pass runs what was set again: 5 (set for 0), 0. */
	l[0].also = NULL;
	l[6].also = NULL;
	loop_run_timers(LT_BASE + 100);
	assert_int_equal(lt_log.n, 7);
	assert_int_equal(lt_log.ran[5], 5);
	assert_int_equal(lt_log.ran[6], 0);
	assert_int_equal(loop_next_deadline(DEADLINE_NONE), DEADLINE_NONE);
	for (i = 0; i < 7; i++)
		loop_timer_free(l[i].t);
}

/* A timer set outside a pass runs at the next, even if set for a time
 * past already (the loop's caller set it between turns). */
static void
test_set_between_turns(void **state)
{
	struct lt	l;

	(void)state;
	lt_reset_log();
	lt_new(&l, 9);
	lt_set(&l, 0);
	assert_int_equal(loop_next_deadline(DEADLINE_NONE), 0);
	loop_run_timers(LT_BASE);
	assert_int_equal(lt_log.n, 1);
	loop_timer_free(l.t);
}

/* A seed from PMX_SEED if set, else from the clock. */
static uint64_t
lt_seed(void)
{
	const char	*s = getenv("PMX_SEED");

	if (s != NULL && *s != '\0')
		return (strtoull(s, NULL, 10));
	return ((uint64_t)now_us() | 1);
}

/*
 * 100,000 timers at random times (seeded; PMX_SEED repeats a run), a
 * third cleared and a third set again: the earliest is always known,
 * and a pass at each of a few times runs exactly those due then, in
 * order.
 */
static void
test_many(void **state)
{
	struct lt	*l;
	uint64_t	 seed = lt_seed(), rs = seed;
	size_t		 i, n = 0, k, ran = 0;
	int64_t		 min = DEADLINE_NONE, now;

	(void)state;
	print_message("seed PMX_SEED=%llu\n", (unsigned long long)seed);
	lt_reset_log();
	l = calloc(LT_MANY, sizeof *l);
	assert_non_null(l);
	for (i = 0; i < LT_MANY; i++) {
		lt_new(&l[i], (int)i);
		lt_set(&l[i], LT_BASE + (int64_t)(test_xorshift(&rs) % 10000));
	}
	for (i = 0; i < LT_MANY; i++) {
		switch (test_xorshift(&rs) % 3) {
		case 0:
			loop_timer_clear(l[i].t);
			l[i].when = DEADLINE_NONE;
			break;
		case 1:
			lt_set(&l[i], LT_BASE + (int64_t)(test_xorshift(&rs) %
			    10000));
			break;
		}
		if (l[i].when < min)
			min = l[i].when;
		if (l[i].when != DEADLINE_NONE)
			n++;
	}
	assert_int_equal(loop_next_deadline(DEADLINE_NONE), min);
	for (now = LT_BASE + 2500; ran < n; now += 2500) {
		loop_run_timers(now);
		for (k = ran; k < lt_log.n; k++) {
			if (l[lt_log.ran[k]].when > now)
				fail_msg("timer %d ran at %lld, due %lld",
				    lt_log.ran[k], (long long)now,
				    (long long)l[lt_log.ran[k]].when);
			if (k > 0 && l[lt_log.ran[k - 1]].when >
			    l[lt_log.ran[k]].when)
				fail_msg("timer %d ran before an earlier one",
				    lt_log.ran[k - 1]);
		}
		ran = lt_log.n;
		if (now > LT_BASE + 20000)
			break;
	}
	assert_int_equal(lt_log.n, n);
	for (i = 0; i < LT_MANY; i++)
		loop_timer_free(l[i].t);
	free(l);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order),
		cmocka_unit_test(test_ties_and_reset),
		cmocka_unit_test(test_from_callbacks),
		cmocka_unit_test(test_set_between_turns),
		cmocka_unit_test(test_many),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
