/*
 * test_owed_calls.c — what a client is owed of the calls it makes: the
 * end of its input answers every call already taken, in both modes and
 * both eras, while a signal still ends progmux at once; a run the client
 * cancelled (notifications/cancelled, either era's tasks/cancel) before
 * it was told the program's id is stopped and forgotten, and never holds
 * later starts back; a task's result outlives the TTL it asked for, and
 * an ended task is never dropped before its result was read; a protocol
 * version is matched whole; a message too deep for us keeps its id; and
 * a run that stops at a password prompt points to ask_user_secret, never
 * to typing the password.
 *
 * Each test starts its own progmux: on a private tmux server (desktop
 * mode), or in robust mode with its own.
 */
#include <errno.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "client.h"
#include "harness.h"
#include "xmalloc.h"

#define WAIT_MS		15000
#define CAPS(x)		"\"io.modelcontextprotocol/clientCapabilities\":" x
#define META_2026	"\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":" \
	"\"2026-07-28\"," CAPS("{}") "}"
#define META_TASKS	"\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":" \
	"\"2026-07-28\"," CAPS("{\"extensions\":{\"io.modelcontextprotocol/" \
	"tasks\":{}}}") "}"

/* A marker unique to this test run, for the programs' command lines. */
static char	mark[64];

/* A reply with this id must come within ms: its document. */
static struct json_doc *
reply_within(struct pmx *c, int64_t id, int ms)
{
	struct json_doc	*d;

	if ((d = pmx_wait(c, id, ms)) == NULL)
		fail_msg("no reply to request %lld within %d ms", (long long)id,
		    ms);
	assert_envelope(d);
	return (d);
}

/* The result of a reply, which must not be a JSON-RPC error. */
static const struct json *
result_of(const struct json_doc *d)
{
	const struct json	*r = json_get(json_root(d), "result");

	if (r == NULL)
		fail_msg("an error where a result was due: %s",
		    json_str(json_get(json_get(json_root(d), "error"),
		    "message"), NULL));
	return (r);
}

/* The text of a tools/call result (its first text block). */
static const char *
text_of(const struct json *r)
{
	return (json_str(json_get(json_at(json_get(r, "content"), 0), "text"),
	    NULL));
}

/* Start a robust progmux that has not been initialized, with env. */
static void
open_bare_robust(struct pmx *c, const char *env1)
{
	const char	*env[] = { "PROGMUX_ROBUST=1", env1, NULL };

	assert_int_equal(pmx_open_bare(c, env), 0);
}

/* initialize with 2025-11-25 (the experimental tasks), then
 * notifications/initialized. */
static void
init_tasks(struct pmx *c)
{
	char	*v = negotiate(c, "2025-11-25");

	assert_string_equal(v, "2025-11-25");
	free(v);
	send_line(c, "{\"jsonrpc\":\"2.0\",\"method\":"
	    "\"notifications/initialized\"}");
}

/* The end of input, with calls in flight: in each mode, a 2025 run, a
 * 2026 run and a read waiting 1.5 s on a silent program are each
 * answered as they would have been, then progmux exits 0. */
static void
test_eof_answers_calls(void **state)
{
	struct pmx		 c;
	struct json_doc		*d;
	const struct json	*r;
	char			*id, args[256];
	int64_t			 run25, run26, rd;
	int			 robust;

	(void)state;
	for (robust = 0; robust < 2; robust++) {
		memset(&c, 0, sizeof c);
		open_mode(&c, robust, NULL);
		id = start_sleeper(&c);
		run25 = pmx_send(&c, "tools/call", "{\"name\":\"run_program\","
		    "\"arguments\":{\"argv\":[\"echo\",\"hi\"]}}");
		run26 = pmx_send(&c, "tools/call", "{" META_2026 ",\"name\":"
		    "\"run_program\",\"arguments\":{\"argv\":[\"echo\","
		    "\"there\"]}}");
		snprintf(args, sizeof args, "{\"name\":\"read_program\","
		    "\"arguments\":{\"programId\":\"%s\",\"timeoutMs\":1500}}",
		    id);
		rd = pmx_send(&c, "tools/call", args);
		close(c.to);
		c.to = -1;
		d = reply_within(&c, run25, WAIT_MS);
		r = result_of(d);
		assert_false(json_bool(json_get(r, "isError")));
		assert_string_equal(json_str(json_get(json_get(r,
		    "structuredContent"), "text"), NULL), "hi\n");
		json_doc_free(d);
		d = reply_within(&c, run26, WAIT_MS);
		r = result_of(d);
		assert_string_equal(json_str(json_get(r, "resultType"), NULL),
		    "complete");
		assert_string_equal(json_str(json_get(json_get(r,
		    "structuredContent"), "text"), NULL), "there\n");
		json_doc_free(d);
		d = reply_within(&c, rd, WAIT_MS);
		r = result_of(d);
		assert_false(json_bool(json_get(r, "isError")));
		assert_false(json_bool(json_get(json_get(r,
		    "structuredContent"), "ended")));
		json_doc_free(d);
		assert_int_equal(pmx_wait_exit(&c, WAIT_MS), 0);
		free(id);
		pmx_close(&c);
	}
}

/* The literal pipeline a person types: initialize, initialized, a
 * tools/call, end of input, all at once, to a progmux just started;
 * and the same with a 2026-07-28 request alone. */
static void
test_eof_pipeline(void **state)
{
	struct pmx		 c;
	struct json_doc		*d;
	const struct json	*r;
	int			 era;

	(void)state;
	for (era = 0; era < 2; era++) {
		memset(&c, 0, sizeof c);
		open_bare_robust(&c, NULL);
		if (era == 0)
			send_line(&c, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":"
			    "\"initialize\",\"params\":{\"protocolVersion\":"
			    "\"2025-06-18\",\"capabilities\":{},\"clientInfo\":"
			    "{\"name\":\"sh\",\"version\":\"1\"}}}\n"
			    "{\"jsonrpc\":\"2.0\",\"method\":"
			    "\"notifications/initialized\"}\n"
			    "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":"
			    "\"tools/call\",\"params\":{\"name\":\"run_program\","
			    "\"arguments\":{\"argv\":[\"echo\",\"hi\"]}}}");
		else
			send_line(&c, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":"
			    "\"tools/call\",\"params\":{" META_2026 ",\"name\":"
			    "\"run_program\",\"arguments\":{\"argv\":[\"echo\","
			    "\"hi\"]}}}");
		close(c.to);
		c.to = -1;
		d = reply_within(&c, 2, WAIT_MS);
		r = result_of(d);
		if (json_bool(json_get(r, "isError")))
			fail_msg("the run failed: %s", text_of(r));
		assert_string_equal(json_str(json_get(json_get(r,
		    "structuredContent"), "outcome"), NULL), "completed");
		assert_non_null(strstr(text_of(r), "hi\n"));
		json_doc_free(d);
		assert_int_equal(pmx_wait_exit(&c, WAIT_MS), 0);
		pmx_close(&c);
	}
}

/* After the end of input, a signal still ends progmux at once: a read
 * that would wait 20 s does not hold the exit back. */
static void
test_eof_then_signal(void **state)
{
	struct pmx	 c;
	char		*id, args[256];
	int64_t		 t0;

	(void)state;
	memset(&c, 0, sizeof c);
	open_mode(&c, true, NULL);
	id = start_sleeper(&c);
	snprintf(args, sizeof args, "{\"name\":\"read_program\",\"arguments\":"
	    "{\"programId\":\"%s\",\"timeoutMs\":20000}}", id);
	(void)pmx_send(&c, "tools/call", args);
	close(c.to);
	c.to = -1;
	/* It drains: still there while the read waits. */
	assert_int_equal(pmx_wait_exit(&c, 300), -1);
	t0 = now_ms();
	assert_int_equal(kill(c.pid, SIGTERM), 0);
	if (pmx_wait_exit(&c, 5000) == -1)
		fail_msg("progmux did not exit within 5 s of SIGTERM");
	print_message("exited %lld ms after SIGTERM\n",
	    (long long)(now_ms() - t0));
	free(id);
	pmx_close(&c);
}

/* Wait until list_programs names no program whose argv holds needle
 * (its end is heard after its processes are gone). */
static void
wait_unlisted(struct pmx *c, const char *needle)
{
	struct json_doc	*d;
	int64_t		 deadline = now_ms() + WAIT_MS;

	for (;;) {
		d = sc_call_ok(c, "list_programs", "{}");
		if (strstr(pmx_text(d), needle) == NULL)
			break;
		if (now_ms() > deadline)
			fail_msg("a cancelled run is still held: %s",
			    pmx_text(d));
		json_doc_free(d);
		usleep(20000);
	}
	json_doc_free(d);
}

/* Send notifications/cancelled for request rid. */
static void
cancel_request(struct pmx *c, int64_t rid)
{
	char	line[200];

	snprintf(line, sizeof line, "{\"jsonrpc\":\"2.0\",\"method\":"
	    "\"notifications/cancelled\",\"params\":{\"requestId\":%lld}}",
	    (long long)rid);
	send_line(c, line);
}

/* Send run_program of `sh -c "sleep SECS; : MARK-TAG"` (extra: more
 * fields, or ""); wait until it runs. Its request id. */
static int64_t
run_marked(struct pmx *c, const char *meta, int secs, const char *tag,
    const char *extra)
{
	char	params[512], needle[128];
	int64_t	rid;

	snprintf(params, sizeof params, "{%s%s\"name\":\"run_program\","
	    "\"arguments\":{\"argv\":[\"sh\",\"-c\",\"sleep %d; : %s-%s\"],"
	    "\"timeoutMs\":30000%s}}", meta, *meta ? "," : "", secs, mark, tag,
	    extra);
	rid = pmx_send(c, "tools/call", params);
	snprintf(needle, sizeof needle, "%s-%s", mark, tag);
	if (wait_some(needle, 1, WAIT_MS) < 1)
		fail_msg("the run of %s never ran", needle);
	return (rid);
}

/*
 * notifications/cancelled on a run that waits: its program, whose id no
 * reply gave, is stopped at once and forgotten; with keep it goes on,
 * listed. Three such runs of programs that would end soon on their own
 * do not hold back a start with PROGMUX_KEEP_ENDED=2.
 */
static void
test_cancelled_run_forgotten(void **state)
{
	const char		*env[] = { "PROGMUX_KEEP_ENDED=2", NULL };
	struct pmx		 c;
	struct json_doc		*d;
	const struct json	*progs, *it;
	char			 needle[128], args[256];
	const char		*kept = NULL;
	int64_t			 rid;
	int			 i;
	size_t			 k;

	(void)state;
	memset(&c, 0, sizeof c);
	open_mode(&c, false, env);
	rid = run_marked(&c, "", 30, "long", "");
	cancel_request(&c, rid);
	snprintf(needle, sizeof needle, "%s-long", mark);
	if (wait_none(needle, 10000) != 0)
		fail_msg("the cancelled run's program still runs");
	for (i = 0; i < 3; i++) {
		snprintf(needle, sizeof needle, "short%d", i);
		rid = run_marked(&c, "", 5, needle, "");
		cancel_request(&c, rid);
	}
	snprintf(needle, sizeof needle, "%s-short", mark);
	if (wait_none(needle, 10000) != 0)
		fail_msg("a cancelled run's program still runs");
	wait_unlisted(&c, mark);
	rid = run_marked(&c, "", 30, "kept", ",\"keep\":true");
	cancel_request(&c, rid);
	d = sc_call_ok(&c, "list_programs", "{}");
	progs = sc_get(d, "programs");
	for (k = 0; k < json_len(progs); k++) {
		it = json_at(progs, k);
		if (strstr(json_str(json_at(json_get(it, "argv"), 2), NULL),
		    "-kept") != NULL)
			kept = json_str(json_get(it, "programId"), NULL);
		else if (strstr(json_str(json_at(json_get(it, "argv"), 2),
		    NULL), mark) != NULL)
			fail_msg("a cancelled run is still held: %s",
			    pmx_text(d));
	}
	if (kept == NULL)
		fail_msg("the run cancelled with keep is not held: %s",
		    pmx_text(d));
	/* Stopped, it would end at once: it does not end in 2.5 s. */
	snprintf(args, sizeof args, "{\"programId\":\"%s\",\"timeoutMs\":2500,"
	    "\"until\":\"never printed\"}", kept);
	json_doc_free(d);
	d = sc_call_ok(&c, "read_program", args);
	assert_false(sc_bool(d, "ended"));
	json_doc_free(d);
	d = sc_call_ok(&c, "start_program", "{\"argv\":[\"true\"]}");
	json_doc_free(d);
	pmx_close(&c);
}

/* The task that a call made of rid became, from its reply: its taskId
 * (allocated). */
static char *
task_of(struct pmx *c, int64_t rid, bool era2026)
{
	struct json_doc		*d = reply_within(c, rid, WAIT_MS);
	const struct json	*r = result_of(d), *t;
	char			*id;

	t = era2026 ? r : json_get(r, "task");
	if (era2026)
		assert_string_equal(json_str(json_get(r, "resultType"), NULL),
		    "task");
	if (json_type(json_get(t, "taskId")) != JSON_STRING)
		fail_msg("no task in the reply");
	id = xstrdup(json_str(json_get(t, "taskId"), NULL));
	json_doc_free(d);
	return (id);
}

/* tasks/cancel of a run that became a task, in either era: its program
 * is stopped and forgotten. */
static void
test_cancelled_task_forgotten(void **state)
{
	struct pmx	 c;
	struct json_doc	*d;
	char		*task, params[512], needle[128];
	int64_t		 rid;
	int		 era;

	(void)state;
	for (era = 0; era < 2; era++) {
		memset(&c, 0, sizeof c);
		open_bare_robust(&c, NULL);
		init_tasks(&c);
		snprintf(needle, sizeof needle, "task%d", era);
		rid = run_marked(&c, era == 0 ? "\"task\":{}" : META_TASKS, 30,
		    needle, "");
		task = task_of(&c, rid, era == 1);
		snprintf(params, sizeof params, "{%s%s\"taskId\":\"%s\"}",
		    era == 1 ? META_TASKS : "", era == 1 ? "," : "", task);
		(void)result_of(d = reply_within(&c, pmx_send(&c,
		    "tasks/cancel", params), WAIT_MS));
		json_doc_free(d);
		snprintf(needle, sizeof needle, "%s-task%d", mark, era);
		if (wait_none(needle, 10000) != 0)
			fail_msg("the cancelled task's program still runs");
		wait_unlisted(&c, needle);
		free(task);
		pmx_close(&c);
	}
}

/* tasks/result for a task (2025-11-25): its document. */
static struct json_doc *
task_result(struct pmx *c, const char *task, int ms)
{
	char	params[128];

	snprintf(params, sizeof params, "{\"taskId\":\"%s\"}", task);
	return (reply_within(c, pmx_send(c, "tasks/result", params), ms));
}

/*
 * A 2025-11-25 read of 11 s made a task with ttl 10000 (the least
 * there is): its result is there when it ends and still there after,
 * tasks/get says completed, for the TTL counted from the end.
 */
static void
test_task_outlives_ttl(void **state)
{
	struct pmx		 c;
	struct json_doc		*d;
	const struct json	*r;
	char			*id, *task, params[256];
	int64_t			 rid;

	(void)state;
	memset(&c, 0, sizeof c);
	open_bare_robust(&c, NULL);
	init_tasks(&c);
	id = start_sleeper(&c);
	snprintf(params, sizeof params, "{\"name\":\"read_program\",\"task\":"
	    "{\"ttl\":10000},\"arguments\":{\"programId\":\"%s\","
	    "\"timeoutMs\":11000}}", id);
	rid = pmx_send(&c, "tools/call", params);
	task = task_of(&c, rid, false);
	d = task_result(&c, task, 30000);
	r = result_of(d);
	assert_false(json_bool(json_get(r, "isError")));
	json_doc_free(d);
	d = task_result(&c, task, WAIT_MS);	/* once more, after the end */
	r = result_of(d);
	assert_non_null(json_get(r, "structuredContent"));
	json_doc_free(d);
	snprintf(params, sizeof params, "{\"taskId\":\"%s\"}", task);
	r = request_ok(&c, "tasks/get", params, &d);
	assert_string_equal(json_str(json_get(r, "status"), NULL),
	    "completed");
	json_doc_free(d);
	free(task);
	free(id);
	pmx_close(&c);
}

/* Five tasks end, with PROGMUX_KEEP_ENDED=2: none is dropped before
 * its result has been read; each is read once. */
static void
test_ended_tasks_kept_unread(void **state)
{
	struct pmx	 c;
	struct json_doc	*d;
	char		*id, *task[5], params[256];
	int		 i;

	(void)state;
	memset(&c, 0, sizeof c);
	open_bare_robust(&c, "PROGMUX_KEEP_ENDED=2");
	init_tasks(&c);
	id = start_sleeper(&c);
	snprintf(params, sizeof params, "{\"name\":\"read_program\",\"task\":"
	    "{},\"arguments\":{\"programId\":\"%s\",\"timeoutMs\":0}}", id);
	for (i = 0; i < 5; i++)
		task[i] = task_of(&c, pmx_send(&c, "tools/call", params),
		    false);
	for (i = 0; i < 5; i++) {
		d = task_result(&c, task[i], WAIT_MS);
		if (json_get(json_root(d), "result") == NULL)
			fail_msg("task %d of 5 lost before it was read", i + 1);
		json_doc_free(d);
		free(task[i]);
	}
	free(id);
	pmx_close(&c);
}

/* A protocol version is matched whole, in either era. */
static void
test_version_whole(void **state)
{
	struct pmx	 c;
	char		*v;

	(void)state;
	memset(&c, 0, sizeof c);
	open_bare_robust(&c, NULL);
	expect_error(&c, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":"
	    "\"server/discover\",\"params\":{\"_meta\":{\"io.modelcontextprotocol"
	    "/protocolVersion\":\"2026-07-28\\u0000x\"," CAPS("{}") "}}}",
	    -32022, "1");
	v = negotiate(&c, "2025-06-18\\u0000");
	assert_string_equal(v, "2025-11-25");	/* our newest, offered */
	free(v);
	pmx_close(&c);
}

/* A message nested deeper than 128 levels is refused with the id it
 * carried first; JSON that cannot be read still gets "id": null. */
static void
test_deep_keeps_id(void **state)
{
	struct pmx	 c;
	struct buf	 b = BUF_INIT;
	int		 i;

	(void)state;
	memset(&c, 0, sizeof c);
	open_mode(&c, true, NULL);
	buf_adds(&b, "{\"jsonrpc\":\"2.0\",\"id\":77,\"method\":\"tools/list\","
	    "\"params\":{\"x\":");
	for (i = 0; i < 200; i++)
		buf_addc(&b, '[');
	for (i = 0; i < 200; i++)
		buf_addc(&b, ']');
	buf_adds(&b, "}}");
	expect_error(&c, buf_cstr(&b), -32700, "77");
	expect_error(&c, "{\"jsonrpc\":\"2.0\",\"id\":78,\"method\":", -32700,
	    NULL);
	expect_ping_next(&c);
	buf_free(&b);
	pmx_close(&c);
}

/* A run that stops at a hidden prompt says to call ask_user_secret (or,
 * where it is not offered, to have the person type it), never to type
 * the password with send_keys. */
static void
test_hidden_prompt_points_away(void **state)
{
	struct pmx	 c;
	struct json_doc	*d;
	const char	*t;

	(void)state;
	memset(&c, 0, sizeof c);
	open_mode(&c, false, NULL);
	d = sc_call_ok(&c, "run_program", "{\"argv\":[\"sh\",\"-c\","
	    "\"stty -echo; printf 'Password: '; read x\"],\"timeoutMs\":10000}");
	if (!sc_bool(d, "waitingForInput"))
		fail_msg("the run did not stop at the prompt: %s", pmx_text(d));
	assert_true(sc_bool(d, "inputHidden"));
	t = pmx_text(d);
	if (strstr(t, "never type a password with send_keys") == NULL ||
	    strstr(t, "answer it with send_keys") != NULL)
		fail_msg("the text points to send_keys: %s", t);
#ifdef PROGMUX_SECRET_PAGE
	if (strstr(t, "call ask_user_secret with its programId") == NULL)
		fail_msg("the text does not point to ask_user_secret: %s", t);
#else
	if (strstr(t, "ask the person to type it into its pane") == NULL)
		fail_msg("the text does not say the person types it: %s", t);
#endif
	json_doc_free(d);
	pmx_close(&c);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_eof_answers_calls),
		cmocka_unit_test(test_eof_pipeline),
		cmocka_unit_test(test_eof_then_signal),
		cmocka_unit_test(test_cancelled_run_forgotten),
		cmocka_unit_test(test_cancelled_task_forgotten),
		cmocka_unit_test(test_task_outlives_ttl),
		cmocka_unit_test(test_ended_tasks_kept_unread),
		cmocka_unit_test(test_version_whole),
		cmocka_unit_test(test_deep_keeps_id),
		cmocka_unit_test(test_hidden_prompt_points_away),
	};

	snprintf(mark, sizeof mark, "owedcalls%ld", (long)getpid());
	return (HARNESS_RUN("test_owed_calls", tests, NULL, NULL));
}
