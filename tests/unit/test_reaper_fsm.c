/*
 * test_reaper_fsm.c — the reaper's state table (reaper/fsm.c), cell by
 * cell.
 *
 * The expected table is written out here on its own, one line per state,
 * "action>next" per event in enum order, and every cell of the real table
 * is compared with it: a state or event added without its cells, or a
 * cell changed, fails. Then properties that must hold whatever the
 * table's details: from every state, the front going away (then the
 * kill-pane child's exit) ends in "done"; a failure always ends in
 * "done"; only frames are ever "unexpected".
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "fsm.h"

/* Per state, the cells for E_START .. E_PIPED in enum order. */
static const char *const expect[S_COUNT][E_COUNT] = {
	[S_INIT] = {
		"start>wait_pane", "unexpected>init", "end_early>done",
		"quit>done", "quit>done", "ignore>init", "ignore>init",
		"ignore>init", "ignore>init", "ignore>init", "ignore>init",
		"quit>done", "ignore>init", "fail>done", "ignore>init",
		"ignore>init", "ignore>init", "ignore>init" },
	[S_WAIT_PANE] = {
		"unexpected>wait_pane", "pane>gate", "end_early>done",
		"quit>done", "leave>killpane", "ignore>wait_pane",
		"ignore>wait_pane", "ignore>wait_pane", "ignore>wait_pane",
		"ignore>wait_pane", "end_early>done", "leave>killpane",
		"ignore>wait_pane", "fail>done", "ignore>wait_pane",
		"ignore>wait_pane", "ignore>wait_pane", "ignore>wait_pane" },
	[S_GATE] = {
		"unexpected>gate", "unexpected>gate", "end_early>done",
		"quit>done", "leave>killpane", "read>gate",
		"pane_closed>orphan", "ignore>gate", "ignore>gate",
		"orphaned>orphan", "no_writer>done", "leave>killpane",
		"ignore>gate", "fail>done", "ignore>gate", "ignore>gate",
		"ignore>gate", "gate>running" },
	[S_RUNNING] = {
		"unexpected>running", "unexpected>running", "term>term",
		"quit>done", "leave>killpane", "read>running",
		"pane_closed>orphan", "launched>running", "ended>held",
		"orphaned>orphan", "tick>running", "leave>killpane",
		"ignore>running", "fail>done", "term>term", "ignore>running",
		"ignore>running", "ignore>running" },
	[S_TERM] = {
		"unexpected>term", "unexpected>term", "ignore>term",
		"quit>done", "leave>killpane", "read>term",
		"pane_closed>orphan", "launched_signal>term",
		"stopped>killpane", "orphaned>orphan", "kill>kill",
		"leave>killpane", "ignore>term", "fail>done", "ignore>term",
		"ignore>term", "ignore>term", "ignore>term" },
	[S_KILL] = {
		"unexpected>kill", "unexpected>kill", "ignore>kill",
		"quit>done", "leave>killpane", "read>kill",
		"pane_closed>orphan", "launched_signal>kill",
		"stopped>killpane", "orphaned>orphan", "give_up>killpane",
		"leave>killpane", "ignore>kill", "fail>done", "ignore>kill",
		"ignore>kill", "ignore>kill", "ignore>kill" },
	[S_ORPHAN] = {
		"unexpected>orphan", "unexpected>orphan", "ignore>orphan",
		"quit>done", "leave>killpane", "read>orphan",
		"close_fifo>orphan", "launched_signal>orphan",
		"orphan_ended>done", "ignore>orphan", "orphan_check>orphan",
		"leave>killpane", "ignore>orphan", "fail>done",
		"ignore>orphan", "ignore>orphan", "orphan_done>done", "ignore>orphan" },
	[S_HELD] = {
		"unexpected>held", "unexpected>held",
		"release_killpane>killpane", "quit>done", "leave>killpane",
		"drain>held", "close_fifo>done", "ignore>held", "ignore>held",
		"killpane>killpane", "release_killpane>killpane",
		"leave>killpane", "ignore>held", "fail>done", "ignore>held",
		"release>done", "ignore>held", "ignore>held" },
	[S_KILLPANE] = {
		"unexpected>killpane", "unexpected>killpane",
		"ignore>killpane", "ignore>killpane", "ignore>killpane",
		"drain>killpane", "close_fifo>killpane", "ignore>killpane",
		"ignore>killpane", "ignore>killpane",
		"killpane_timeout>killpane", "ignore>killpane",
		"pane_killed>done", "ignore>killpane", "ignore>killpane",
		"ignore>killpane", "ignore>killpane", "ignore>killpane" },
	[S_DONE] = {
		"unexpected>done", "ignore>done", "ignore>done", "ignore>done",
		"ignore>done", "drain>done", "close_fifo>done", "ignore>done",
		"ignore>done", "ignore>done", "ignore>done", "ignore>done",
		"ignore>done", "ignore>done", "ignore>done", "ignore>done",
		"ignore>done", "ignore>done" },
};

/* Every cell is as written above, and none is a hole. */
static void
test_every_cell(void **state)
{
	const struct fsm_cell	*c;
	char			 got[64];
	int			 s, e;

	(void)state;
	for (s = 0; s < S_COUNT; s++)
		for (e = 0; e < E_COUNT; e++) {
			c = fsm_transition(s, e);
			snprintf(got, sizeof got, "%s>%s",
			    fsm_action_name(c->action),
			    fsm_state_name(c->next));
			if (expect[s][e] == NULL)
				fail_msg("no expectation for %s + %s (got %s)",
				    fsm_state_name(s), fsm_event_name(e), got);
			if (c->action == A_INVALID || c->action >= A_COUNT ||
			    c->next >= S_COUNT ||
			    strcmp(got, expect[s][e]) != 0)
				fail_msg("%s + %s: %s, expected %s",
				    fsm_state_name(s), fsm_event_name(e), got,
				    expect[s][e]);
		}
}

/* Out of range asks get the invalid cell, not memory past the table. */
static void
test_out_of_range(void **state)
{
	(void)state;
	assert_int_equal(fsm_transition(S_COUNT, E_START)->action,
	    A_INVALID);
	assert_int_equal(fsm_transition(S_INIT, E_COUNT)->action,
	    A_INVALID);
	assert_string_equal(fsm_state_name(S_COUNT), "?");
}

/* Every state, the front gone: done, at once or once kill-pane exits. */
static void
test_front_gone_ends(void **state)
{
	enum fsm_state	s, t;

	(void)state;
	for (s = 0; s < S_COUNT; s++) {
		t = fsm_transition(s, E_FRONT_GONE)->next;
		if (t == S_KILLPANE)
			t = fsm_transition(t, E_CHILD)->next;
		if (t != S_DONE)
			fail_msg("%s + front_gone does not lead to done",
			    fsm_state_name(s));
		t = fsm_transition(s, E_SIGNAL)->next;
		if (t == S_KILLPANE)
			t = fsm_transition(t, E_CHILD)->next;
		assert_int_equal(t, S_DONE);
	}
}

/* A failure ends everything but a kill-pane under way. */
static void
test_fail_ends(void **state)
{
	enum fsm_state	s;

	(void)state;
	for (s = 0; s < S_COUNT; s++)
		if (s != S_KILLPANE)
			assert_int_equal(fsm_transition(s, E_FAIL)->next,
			    S_DONE);
}

/* Only frames can be unexpected; other events are handled or ignored. */
static void
test_unexpected_only_frames(void **state)
{
	enum fsm_state	s;
	enum fsm_event	e;

	(void)state;
	for (s = 0; s < S_COUNT; s++)
		for (e = 0; e < E_COUNT; e++)
			if (fsm_transition(s, e)->action == A_UNEXPECTED &&
			    e != E_START && e != E_PANE)
				fail_msg("%s + %s is unexpected",
				    fsm_state_name(s), fsm_event_name(e));
}

/* A stop of a running program escalates TERM -> KILL -> give up, and
 * each stage ends with the pane's removal once the marker comes. */
static void
test_stop_escalates(void **state)
{
	(void)state;
	assert_int_equal(fsm_transition(S_RUNNING, E_STOP)->next, S_TERM);
	assert_int_equal(fsm_transition(S_TERM, E_DEADLINE)->next, S_KILL);
	assert_int_equal(fsm_transition(S_KILL, E_DEADLINE)->next,
	    S_KILLPANE);
	assert_int_equal(fsm_transition(S_TERM, E_END_MARKER)->next,
	    S_KILLPANE);
	assert_int_equal(fsm_transition(S_KILL, E_END_MARKER)->next,
	    S_KILLPANE);
	assert_int_equal(fsm_transition(S_KILLPANE, E_CHILD)->next, S_DONE);
}

int
main(void)
{
	const struct CMUnitTest	tests[] = {
		cmocka_unit_test(test_every_cell),
		cmocka_unit_test(test_out_of_range),
		cmocka_unit_test(test_front_gone_ends),
		cmocka_unit_test(test_fail_ends),
		cmocka_unit_test(test_unexpected_only_frames),
		cmocka_unit_test(test_stop_escalates),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
