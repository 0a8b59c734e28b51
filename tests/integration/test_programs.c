/*
 * test_programs.c — start_program and read_program against a real tmux.
 *
 * Every test drives build/progmux over its stdin and stdout, as an MCP
 * client does, against a private tmux server made for this run (see
 * tests/client.c). Each result that is not an error is checked against
 * the tool's outputSchema by the client. One test, one behaviour; the
 * comment above each says what it pins down.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "client.h"
#include "harness.h"
#include "xmalloc.h"


/* Start, read to the end, return the text; *last keeps the final read. */
static char *
run(const char *args, struct json_doc **last)
{
	char	*id, *text;

	id = pmx_start_program(&group, args, NULL);
	assert_non_null(id);
	text = pmx_read_all(&group, id, 20000, last);
	free(id);
	return (text);
}

/* The server still answers: a trivial program runs to completion. */
static void
still_serving(void)
{
	struct json_doc	*d;
	char		*text;

	text = run("{\"argv\":[\"echo\",\"alive\"]}", &d);
	assert_string_equal(text, "alive\n");
	assert_string_equal(sc_str(d, "outcome"), "completed");
	free(text);
	json_doc_free(d);
}

/* A program that ends in a millisecond loses not one byte, 200 times. */
static void
test_no_early_output_lost(void **state)
{
	struct json_doc	*d;
	char		*text;
	int		 i;

	(void)state;
	for (i = 0; i < 200; i++) {
		text = run("{\"argv\":[\"printf\",\"x\"]}", &d);
		if (strcmp(text, "x") != 0)
			fail_msg("run %d read \"%s\", not \"x\"", i, text);
		assert_true(sc_bool(d, "ended"));
		assert_true(sc_bool(d, "outputComplete"));
		assert_string_equal(sc_str(d, "outcome"), "completed");
		assert_int_equal(sc_int(d, "exitStatus"), 0);
		free(text);
		json_doc_free(d);
	}
}

/* argv reaches the program word for word: tmux's ';' splitting, shell
 * syntax, quotes and spaces do nothing. */
static void
test_argv_verbatim(void **state)
{
	struct json_doc	*d;
	char		*text, marker[300], *args;
	struct stat	 st;

	(void)state;
	text = run("{\"argv\":[\"printf\",\"%s\\n\",\"x\",\";\","
	    "\"list-sessions\",\"echo hi;\",\"a\\\\;b\",\"$(id)\","
	    "\"`id`\",\"'q'\",\"\\\"dq\\\"\",\"  two  spaces \",\"#{pane_id}\","
	    "\"~\",\"$HOME\",\"*\"]}", &d);
	assert_string_equal(text, "x\n;\nlist-sessions\necho hi;\na\\;b\n"
	    "$(id)\n`id`\n'q'\n\"dq\"\n  two  spaces \n#{pane_id}\n~\n$HOME\n"
	    "*\n");
	free(text);
	json_doc_free(d);

	/* Nothing was run by a shell. */
	snprintf(marker, sizeof marker, "%s/pwned", group.dir);
	xasprintf(&args, "{\"argv\":[\"echo\",\"$(touch %s)\",\";\","
	    "\"touch\",\"%s\"]}", marker, marker);
	text = run(args, &d);
	free(args);
	assert_int_equal(stat(marker, &st), -1);
	free(text);
	json_doc_free(d);
}

/* A one-element argv names a program; it is not a command line. */
static void
test_one_word_is_a_program(void **state)
{
	struct json_doc	*d;
	char		*text;

	(void)state;
	text = run("{\"argv\":[\"echo hi\"]}", &d);
	assert_string_equal(sc_str(d, "outcome"), "not_started");
	assert_int_equal(sc_int(d, "exitStatus"), 127);
	assert_non_null(strstr(text, "not found"));
	assert_null(strstr(text, "hi\n"));
	free(text);
	json_doc_free(d);

	text = run("{\"argv\":[\"true\"]}", &d);
	assert_string_equal(text, "");
	assert_string_equal(sc_str(d, "outcome"), "completed");
	assert_int_equal(sc_int(d, "exitStatus"), 0);
	free(text);
	json_doc_free(d);
}

/* PAGER and GIT_PAGER are cat in the program's environment. */
static void
test_pager_is_cat(void **state)
{
	struct json_doc	*d;
	char		*text;

	(void)state;
	text = run("{\"argv\":[\"sh\",\"-c\","
	    "\"echo \\\"$PAGER/$GIT_PAGER\\\"\"]}", &d);
	assert_string_equal(text, "cat/cat\n");
	free(text);
	json_doc_free(d);
}

/* width and height size the terminal before the program starts. */
static void
test_width_height(void **state)
{
	struct json_doc	*d;
	char		*text;

	(void)state;
	text = run("{\"argv\":[\"stty\",\"size\"],\"width\":100,"
	    "\"height\":33}", &d);
	assert_string_equal(text, "33 100\n");
	free(text);
	json_doc_free(d);
	text = run("{\"argv\":[\"stty\",\"size\"],\"width\":57}", &d);
	assert_non_null(strstr(text, " 57\n"));
	free(text);
	json_doc_free(d);
}

/* startDirectory is entered literally; one that cannot be entered is
 * not_started with 126 and the reason in the text. */
static void
test_start_directory(void **state)
{
	struct json_doc	*d;
	char		*text, *args, *q, dir[400];

	(void)state;
	snprintf(dir, sizeof dir, "%s/with space;and$dollar", group.dir);
	assert_int_equal(mkdir(dir, 0700), 0);
	q = pmx_jstr(dir);
	xasprintf(&args, "{\"argv\":[\"pwd\"],\"startDirectory\":%s}", q);
	free(q);
	text = run(args, &d);
	free(args);
	assert_non_null(strstr(text, "with space;and$dollar\n"));
	free(text);
	json_doc_free(d);

	text = run("{\"argv\":[\"pwd\"],\"startDirectory\":\"/nonexistent/x\"}",
	    &d);
	assert_string_equal(sc_str(d, "outcome"), "not_started");
	assert_int_equal(sc_int(d, "exitStatus"), 126);
	assert_non_null(strstr(text, "/nonexistent/x"));
	assert_true(sc_bool(d, "ended"));
	free(text);
	json_doc_free(d);
}

/* not_started: 127 for a missing program, 126 for one not executable
 * and for a directory, each with its reason. */
static void
test_not_started(void **state)
{
	struct json_doc	*d;
	char		*text, *args, *q, path[400];
	FILE		*f;

	(void)state;
	text = run("{\"argv\":[\"/no/such/program\"]}", &d);
	assert_string_equal(sc_str(d, "outcome"), "not_started");
	assert_int_equal(sc_int(d, "exitStatus"), 127);
	assert_non_null(strstr(text, "/no/such/program"));
	assert_true(sc_null(d, "signal"));
	free(text);
	json_doc_free(d);

	snprintf(path, sizeof path, "%s/notexec", group.dir);
	f = fopen(path, "w");
	fputs("#!/bin/sh\necho no\n", f);
	fclose(f);
	chmod(path, 0644);
	q = pmx_jstr(path);
	xasprintf(&args, "{\"argv\":[%s]}", q);
	free(q);
	text = run(args, &d);
	free(args);
	assert_string_equal(sc_str(d, "outcome"), "not_started");
	assert_int_equal(sc_int(d, "exitStatus"), 126);
	assert_non_null(strstr(text, "ermission denied"));
	free(text);
	json_doc_free(d);

	text = run("{\"argv\":[\"/tmp\"]}", &d);
	assert_string_equal(sc_str(d, "outcome"), "not_started");
	assert_int_equal(sc_int(d, "exitStatus"), 126);
	free(text);
	json_doc_free(d);
}

/* completed: exit status, signal names, and 130 read as SIGINT. */
static void
test_completed_statuses(void **state)
{
	struct json_doc	*d;
	char		*text;

	(void)state;
	text = run("{\"argv\":[\"sh\",\"-c\",\"echo out; exit 3\"]}", &d);
	assert_string_equal(text, "out\n");
	assert_string_equal(sc_str(d, "outcome"), "completed");
	assert_int_equal(sc_int(d, "exitStatus"), 3);
	assert_true(sc_null(d, "signal"));
	assert_true(sc_bool(d, "outputComplete"));
	free(text);
	json_doc_free(d);

	text = run("{\"argv\":[\"sh\",\"-c\",\"kill -TERM $$\"]}", &d);
	assert_string_equal(sc_str(d, "outcome"), "completed");
	assert_string_equal(sc_str(d, "signal"), "SIGTERM");
	assert_true(sc_null(d, "exitStatus"));
	free(text);
	json_doc_free(d);

	text = run("{\"argv\":[\"sh\",\"-c\",\"exit 130\"]}", &d);
	assert_string_equal(sc_str(d, "signal"), "SIGINT");
	assert_true(sc_null(d, "exitStatus"));
	free(text);
	json_doc_free(d);
}

/* running: a read of a live program says running, ended false. */
static void
test_running_and_timeout(void **state)
{
	struct json_doc	*d;
	char		*id, args[200];
	int64_t		 t0;

	(void)state;
	id = pmx_start_program(&group, "{\"argv\":[\"sh\",\"-c\","
	    "\"echo first; exec sleep 30\"]}", NULL);
	assert_non_null(id);
	snprintf(args, sizeof args, "{\"programId\":\"%s\"}", id);
	d = pmx_call(&group, "read_program", args, 10000);
	assert_string_equal(sc_str(d, "text"), "first\n");
	assert_string_equal(sc_str(d, "outcome"), "running");
	assert_false(sc_bool(d, "ended"));
	assert_false(sc_bool(d, "outputComplete"));
	assert_true(sc_null(d, "exitStatus"));
	assert_int_equal(sc_int(d, "cursor"), 6);
	json_doc_free(d);

	/* Nothing new: a timed-out read gives empty text, same cursor. */
	snprintf(args, sizeof args, "{\"programId\":\"%s\",\"cursor\":6,"
	    "\"timeoutMs\":300}", id);
	t0 = now_ms();
	d = pmx_call(&group, "read_program", args, 10000);
	assert_true(now_ms() - t0 >= 290);
	assert_string_equal(sc_str(d, "text"), "");
	assert_int_equal(sc_int(d, "cursor"), 6);
	assert_int_equal(sc_int(d, "effectiveTimeoutMs"), 300);
	assert_string_equal(sc_str(d, "outcome"), "running");
	json_doc_free(d);

	/* timeoutMs 0 answers at once. */
	snprintf(args, sizeof args, "{\"programId\":\"%s\",\"cursor\":6,"
	    "\"timeoutMs\":0}", id);
	d = pmx_call(&group, "read_program", args, 10000);
	assert_int_equal(sc_int(d, "effectiveTimeoutMs"), 0);
	assert_string_equal(sc_str(d, "text"), "");
	json_doc_free(d);
	free(id);
}

/* A waiting read answers as soon as a line arrives, and other requests
 * are served meanwhile. */
static void
test_read_wakes_on_line(void **state)
{
	struct json_doc	*d;
	char		*id, *pane, args[200];
	int64_t		 rid, pid, t0;

	(void)state;
	id = pmx_start_program(&group, "{\"argv\":[\"sh\",\"-c\","
	    "\"read x; echo got $x; exec sleep 30\"]}", &pane);
	assert_non_null(id);
	snprintf(args, sizeof args, "{\"name\":\"read_program\","
	    "\"arguments\":{\"programId\":\"%s\",\"timeoutMs\":20000}}", id);
	rid = pmx_send(&group, "tools/call", args);
	pid = pmx_send(&group, "ping", NULL);
	/* The ping is answered while the read waits: its reply comes first. */
	d = pmx_next(&group, 10000);
	assert_non_null(d);
	assert_int_equal(json_int(json_get(json_root(d), "id")), pid);
	json_doc_free(d);
	/* Type a line into the pane: the waiting read answers with it, long
	 * before its 20 s are up. */
	t0 = now_ms();
	free(pmx_tmux(&group, "send-keys", "-t", pane, "-l", "hi", NULL));
	free(pmx_tmux(&group, "send-keys", "-t", pane, "Enter", NULL));
	d = pmx_wait(&group, rid, 15000);
	assert_non_null(d);
	if (strstr(sc_str(d, "text"), "hi\n") == NULL &&
	    sc_bool(d, "waitingForInput")) {
		/* It answered first for the program waiting for input (it
		 * got there before the keys did): the next read has them. */
		snprintf(args, sizeof args, "{\"programId\":\"%s\","
		    "\"cursor\":%lld,\"timeoutMs\":20000}", id,
		    (long long)sc_int(d, "cursor"));
		json_doc_free(d);
		d = pmx_call(&group, "read_program", args, 15000);
		assert_non_null(d);
	}
	assert_true(now_ms() - t0 < 10000);	/* not the 20 s timeout */
	assert_non_null(strstr(sc_str(d, "text"), "hi\n"));
	json_doc_free(d);
	free(id);
	free(pane);
}

/* maxLines and the cursor page through the text. */
static void
test_paging(void **state)
{
	struct json_doc	*d;
	char		*id, args[200];

	(void)state;
	id = pmx_start_program(&group,
	    "{\"argv\":[\"seq\",\"1\",\"10\"]}", NULL);
	/* Wait for the end, then read it in pages. */
	free(pmx_read_all(&group, id, 10000, NULL));
	snprintf(args, sizeof args, "{\"programId\":\"%s\",\"maxLines\":3}",
	    id);
	d = pmx_call(&group, "read_program", args, 10000);
	assert_string_equal(sc_str(d, "text"), "1\n2\n3\n");
	assert_int_equal(sc_int(d, "cursor"), 6);
	assert_false(sc_bool(d, "ended"));
	json_doc_free(d);
	snprintf(args, sizeof args, "{\"programId\":\"%s\",\"cursor\":6,"
	    "\"maxLines\":4}", id);
	d = pmx_call(&group, "read_program", args, 10000);
	assert_string_equal(sc_str(d, "text"), "4\n5\n6\n7\n");
	assert_false(sc_bool(d, "ended"));
	assert_string_equal(sc_str(d, "outcome"), "completed");
	json_doc_free(d);
	snprintf(args, sizeof args, "{\"programId\":\"%s\",\"cursor\":14,"
	    "\"maxLines\":4}", id);
	d = pmx_call(&group, "read_program", args, 10000);
	assert_string_equal(sc_str(d, "text"), "8\n9\n10\n");
	assert_true(sc_bool(d, "ended"));
	assert_true(sc_bool(d, "outputComplete"));
	json_doc_free(d);
	/* Mid-line cursor works; past the end is an error. */
	snprintf(args, sizeof args, "{\"programId\":\"%s\",\"cursor\":19}",
	    id);
	d = pmx_call(&group, "read_program", args, 10000);
	assert_string_equal(sc_str(d, "text"), "0\n");
	json_doc_free(d);
	snprintf(args, sizeof args, "{\"programId\":\"%s\",\"cursor\":22}",
	    id);
	refused("read_program", args, "cursor", NULL);
	free(id);

	/* Long output comes in pages of at most about 24,000 characters,
	 * each ending on a line break, that join up to all of it; the
	 * default wait is 30 s. */
	{
		const char	*t;
		size_t		 len, total = 0;
		int64_t		 cursor = 0;
		int		 pages = 0;
		bool		 ended = false;

		id = pmx_start_program(&group, "{\"argv\":[\"seq\",\"1\","
		    "\"20000\"]}", NULL);
		assert_non_null(id);
		free(pmx_read_all(&group, id, 20000, NULL));
		while (!ended) {
			snprintf(args, sizeof args, "{\"programId\":\"%s\","
			    "\"cursor\":%lld}", id, (long long)cursor);
			d = pmx_call(&group, "read_program", args, 10000);
			t = sc_str(d, "text");
			len = strlen(t);
			assert_true(len > 0 && len <= 24000);
			assert_int_equal(t[len - 1], '\n');
			assert_int_equal(sc_int(d, "effectiveTimeoutMs"), 30000);
			total += len;
			cursor = sc_int(d, "cursor");
			ended = sc_bool(d, "ended");
			pages++;
			json_doc_free(d);
			assert_true(pages < 100);
		}
		assert_true(pages >= 5);
		assert_int_equal(total, 108894);	/* bytes of seq 1 20000 */
		free(id);
	}
}

/* The text rules hold end to end: CR LF, progress bars, colours. */
static void
test_text_rules(void **state)
{
	struct json_doc	*d;
	char		*text;

	(void)state;
	text = run("{\"argv\":[\"printf\",\"a\\rb\\r\\nc\\n\\u001b[31mred"
	    "\\u001b[0m\\n10%%\\r20%%\\r\\n\\u001b]0;title\\u0007done\\n\"]}",
	    &d);
	assert_string_equal(text, "a\nb\nc\nred\n10%\n20%\ndone\n");
	free(text);
	json_doc_free(d);
	/* A final line without LF is returned once the program ends. */
	text = run("{\"argv\":[\"printf\",\"one\\ntwo\"]}", &d);
	assert_string_equal(text, "one\ntwo");
	assert_true(sc_bool(d, "outputComplete"));
	free(text);
	json_doc_free(d);
}

/* Arbitrary bytes (random, invalid UTF-8, every control) come back as
 * valid JSON carrying valid UTF-8 with no control but TAB and LF; every
 * page of a long line is cut on a character boundary; bytes dropped
 * (droppedBytes) make the output incomplete. */
static void
test_binary_output(void **state)
{
	struct json_doc	*d;
	char		*text;
	size_t		 i, len;
	int64_t		 dropped;

	(void)state;
	text = run("{\"argv\":[\"head\",\"-c\",\"300000\",\"/dev/urandom\"]}",
	    &d);
	len = strlen(text);
	assert_true(len > 100000);
	assert_true(utf8_valid(text, len));
	for (i = 0; i < len; i++)
		if ((unsigned char)text[i] < 0x20 && text[i] != '\t' &&
		    text[i] != '\n')
			fail_msg("control byte 0x%02x at %zu", text[i], i);
	/* Random bytes hold strings (ESC ], ESC P ...) that a line break
	 * cuts, nearly always: what they held is counted, and then, only
	 * then, the output is not complete. */
	dropped = sc_int(d, "droppedBytes");
	assert_true(dropped == -999 || dropped > 0);
	assert_true(sc_bool(d, "outputComplete") == (dropped == -999));
	free(text);
	json_doc_free(d);
}

/* Bad input is a tool error that starts nothing, and says what to do. */
static void
test_bad_start_input(void **state)
{
	char	*big, *args;
	size_t	 i;

	(void)state;
	refused("start_program", "{\"argv\":[]}", "argv", NULL);
	refused("start_program", "{}", "argv", NULL);
	refused("start_program", "{\"argv\":\"ls\"}", "argv", NULL);
	refused("start_program", "{\"argv\":[1]}", "argv", NULL);
	big = xmalloc(257 * 6 + 32);
	strcpy(big, "{\"argv\":[");
	for (i = 0; i < 257; i++)
		strcat(big, i ? ",\"x\"" : "\"x\"");
	strcat(big, "]}");
	refused("start_program", big, "argv", "256", NULL);
	free(big);
	refused("start_program", "{\"argv\":[\"echo\",\"a\\u0000b\"]}",
	    "NUL", NULL);
	refused("start_program", "{\"argv\":[\"true\"],"
	    "\"fromPaneId\":\"1\"}", "fromPaneId", NULL);
	refused("start_program", "{\"argv\":[\"true\"],"
	    "\"fromPaneId\":\"%1; kill-server\"}", "fromPaneId", NULL);
	refused("start_program", "{\"argv\":[\"true\"],"
	    "\"fromPaneId\":\"%99999\"}", "%99999", NULL);
	refused("start_program", "{\"argv\":[\"true\"],"
	    "\"placement\":\"split\"}", "fromPaneId", NULL);
	refused("start_program", "{\"argv\":[\"true\"],"
	    "\"fromPaneId\":\"%0\",\"placement\":\"tab\"}", "placement", NULL);
	refused("start_program", "{\"argv\":[\"true\"],\"width\":0}",
	    "width", NULL);
	refused("start_program", "{\"argv\":[\"true\"],"
	    "\"height\":10001}", "height", NULL);
	refused("start_program", "{\"argv\":[\"true\"],"
	    "\"width\":1.5}", "width", NULL);
	refused("start_program", "{\"argv\":[\"true\"],"
	    "\"lifetimeMs\":0}", "lifetimeMs", NULL);
	refused("start_program", "{\"argv\":[\"true\"],"
	    "\"lifetimeMs\":-5}", "lifetimeMs", NULL);
	xasprintf(&args, "{\"argv\":[\"true\"],\"startDirectory\":7}");
	refused("start_program", args, "startDirectory", NULL);
	free(args);
	refused("start_program", "{\"argv\":[\"cat\"],\"input\":\"x\"}",
	    "input", "run_program", NULL);
	refused("start_program", "{\"argv\":[\"true\"],\"keep\":true}",
	    "keep", "run_program", NULL);
	refused("start_program", "{\"argv\":[\"true\"],"
	    "\"inheritShell\":true}", "inheritShell", "run_program", NULL);
	refused("start_program", "{\"argv\":[\"true\"],"
	    "\"separateStderr\":true}", "separateStderr", "run_program", NULL);
	/* A field it does not know is no error (it is ignored, and named),
	 * but does not hide one. */
	refused("start_program", "{\"argv\":[\"true\"],\"width\":0,"
	    "\"bogusField\":1}", "width", "ignored unknown field "
	    "\"bogusField\"", NULL);
	refused("read_program", "{\"programId\":\"nope\"}", "nope",
	    NULL);
	refused("read_program", "{\"programId\":\"\"}", "programId",
	    NULL);
	refused("read_program", "{\"programId\":\"p1\","
	    "\"cursor\":-1}", "cursor", NULL);
	refused("read_program", "{\"programId\":\"p1\","
	    "\"maxLines\":0}", "maxLines", NULL);
	refused("read_program", "{\"programId\":\"p1\","
	    "\"timeoutMs\":1.5}", "timeoutMs", NULL);
	still_serving();
}

/* lifetimeMs: default 10 minutes, cut to 60 minutes. */
static void
test_lifetime_reported(void **state)
{
	struct json_doc	*d;

	(void)state;
	d = pmx_call(&group, "start_program", "{\"argv\":[\"true\"]}", 10000);
	assert_int_equal(sc_int(d, "effectiveLifetimeMs"), 600000);
	json_doc_free(d);
	d = pmx_call(&group, "start_program", "{\"argv\":[\"true\"],"
	    "\"lifetimeMs\":9007199254740991}", 10000);
	assert_int_equal(sc_int(d, "effectiveLifetimeMs"), 3600000);
	json_doc_free(d);
	d = pmx_call(&group, "start_program", "{\"argv\":[\"true\"],"
	    "\"lifetimeMs\":1234}", 10000);
	assert_int_equal(sc_int(d, "effectiveLifetimeMs"), 1234);
	json_doc_free(d);
}

/* expired: the lifetime ends the program and removes its pane even with
 * no call pending; a program ignoring SIGTERM is killed after grace. */
static void
test_expired(void **state)
{
	struct json_doc	*d;
	char		*id, *pane, *text;

	(void)state;
	id = pmx_start_program(&group,
	    "{\"argv\":[\"sh\",\"-c\",\"trap '' TERM "
	    "HUP; echo up; while :; do sleep 0.1; done\"],\"lifetimeMs\":500}",
	    &pane);
	assert_non_null(id);
	/* No call for a while: the pane must go by itself. */
	assert_true(pmx_wait_pane_gone(&group, pane, 10000));
	/* (Its end may still be on its way from the reaper: read to it.) */
	text = pmx_read_all(&group, id, 10000, &d);
	assert_string_equal(text, "up\n");
	free(text);
	assert_string_equal(sc_str(d, "outcome"), "expired");
	assert_string_equal(sc_str(d, "signal"), "SIGKILL");
	assert_false(sc_bool(d, "outputComplete"));
	assert_true(sc_bool(d, "ended"));
	json_doc_free(d);
	free(id);
	free(pane);
}

/* gone: the pane killed from outside; no status. */
static void
test_gone(void **state)
{
	struct json_doc	*d;
	char		*id, *pane, *text;

	(void)state;
	id = pmx_start_program(&group, "{\"argv\":[\"sh\",\"-c\","
	    "\"echo before; exec sleep 30\"]}", &pane);
	d = pmx_call(&group, "read_program", "{\"programId\":\"p0\"}", 1000);
	json_doc_free(d);
	{
		char args[100];

		snprintf(args, sizeof args, "{\"programId\":\"%s\"}", id);
		d = pmx_call(&group, "read_program", args, 10000);
		assert_string_equal(sc_str(d, "text"), "before\n");
		json_doc_free(d);
	}
	free(pmx_tmux(&group, "kill-pane", "-t", pane, NULL));
	text = pmx_read_all(&group, id, 10000, &d);
	assert_string_equal(text, "before\n");
	assert_string_equal(sc_str(d, "outcome"), "gone");
	assert_true(sc_null(d, "exitStatus"));
	assert_true(sc_bool(d, "lostEnd"));
	assert_false(sc_bool(d, "outputComplete"));
	free(text);
	json_doc_free(d);
	free(id);
	free(pane);
}

/* Programs without fromPaneId lose their pane when they end. */
static void
test_pane_removed_at_end(void **state)
{
	struct json_doc	*d;
	char		*id, *pane, *text;

	(void)state;
	id = pmx_start_program(&group, "{\"argv\":[\"echo\",\"bye\"]}", &pane);
	text = pmx_read_all(&group, id, 10000, &d);
	assert_string_equal(text, "bye\n");
	assert_true(pmx_wait_pane_gone(&group, pane, 5000));
	free(text);
	json_doc_free(d);
	free(id);
	free(pane);
}

/* fromPaneId: beside that pane, in its directory; window or split; the
 * pane stays after the end. */
static void
test_from_pane(void **state)
{
	struct json_doc	*d;
	char		*base, *id, *pane, *text, *args, *out, *win, *win2;

	(void)state;
	base = pmx_tmux(&group, "display-message", "-p", "-t", "=base:",
	    "#{pane_id}", NULL);
	assert_non_null(base);
	base[strcspn(base, "\n")] = '\0';
	win = pmx_tmux(&group, "display-message", "-p", "-t", base,
	    "#{session_name}", NULL);

	xasprintf(&args, "{\"argv\":[\"pwd\"],\"fromPaneId\":\"%s\"}", base);
	id = pmx_start_program(&group, args, &pane);
	free(args);
	assert_non_null(id);
	text = pmx_read_all(&group, id, 10000, &d);
	out = pmx_tmux(&group, "display-message", "-p", "-t", base,
	    "#{pane_current_path}", NULL);
	assert_non_null(out);
	assert_string_equal(text, out);		/* in its directory */
	free(out);
	win2 = pmx_tmux(&group, "display-message", "-p", "-t", pane,
	    "#{session_name}", NULL);
	assert_non_null(win2);
	assert_string_equal(win, win2);	/* same session */
	free(win2);
	out = pmx_tmux(&group, "display-message", "-p", "-t", pane,
	    "#{window_id}", NULL);
	win2 = pmx_tmux(&group, "display-message", "-p", "-t", base,
	    "#{window_id}", NULL);
	assert_string_not_equal(out, win2);	/* a window of its own */
	free(out);
	free(win2);
	/* Still there after the end; stop_program removes it. */
	out = pmx_tmux(&group, "list-panes", "-a", "-F", "#{pane_id}", NULL);
	assert_true(pmx_has_line(out, pane));
	free(out);
	free(text);
	json_doc_free(d);
	xasprintf(&args, "{\"programId\":\"%s\"}", id);
	d = pmx_call(&group, "stop_program", args, 10000);
	free(args);
	assert_false(pmx_is_error(d));
	json_doc_free(d);
	if (!pmx_wait_pane_gone(&group, pane, 5000))
		fail_msg("kept pane %s stayed after stop", pane);
	free(id);
	free(pane);

	xasprintf(&args, "{\"argv\":[\"stty\",\"size\"],\"fromPaneId\":\"%s\","
	    "\"placement\":\"split\"}", base);
	id = pmx_start_program(&group, args, &pane);
	free(args);
	assert_non_null(id);
	text = pmx_read_all(&group, id, 10000, &d);
	out = pmx_tmux(&group, "display-message", "-p", "-t", pane,
	    "#{window_id}", NULL);
	win2 = pmx_tmux(&group, "display-message", "-p", "-t", base,
	    "#{window_id}", NULL);
	assert_string_equal(out, win2);	/* the same window: a split */
	free(out);
	free(win2);
	free(text);
	json_doc_free(d);
	free(id);
	free(pane);
	free(win);
	free(base);
}

/* Programs get no descriptor but 0, 1 and 2 (read as the system has
 * them: procs.h). */
static void
test_only_std_fds(void **state)
{
	struct pmx_fd	 fds[16];
	char		*id, needle[64], args[200];
	pid_t		 pid;
	int64_t		 t0;
	int		 n;

	(void)state;
	snprintf(needle, sizeof needle, "sleep 5%06ld", (long)getpid());
	snprintf(args, sizeof args, "{\"argv\":[\"sh\",\"-c\",\"exec %s\"]}",
	    needle);
	assert_non_null((id = pmx_start_program(&group, args, NULL)));
	t0 = now_ms();
	while ((pid = pmx_find_proc(needle)) == -1 && now_ms() - t0 < 10000)
		usleep(10000);
	assert_true(pid > 0);
	n = pmx_fds(pid, fds, 16);
	for (int i = 0; i < n; i++)
		print_message("fd %d: %s\n", fds[i].fd, fds[i].what);
	assert_int_equal(n, 3);
	assert_true(fds[0].fd == 0 && fds[1].fd == 1 && fds[2].fd == 2);
	snprintf(args, sizeof args, "{\"programId\":\"%s\"}", id);
	json_doc_free(call_ok("stop_program", args));
	free(id);
}

/* Program ids are unique and never reused. */
static void
test_ids_unique(void **state)
{
	char	*a, *b;

	(void)state;
	a = pmx_start_program(&group, "{\"argv\":[\"true\"]}", NULL);
	b = pmx_start_program(&group, "{\"argv\":[\"true\"]}", NULL);
	assert_non_null(a);
	assert_non_null(b);
	assert_string_not_equal(a, b);
	free(a);
	free(b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_early_output_lost),
		cmocka_unit_test(test_argv_verbatim),
		cmocka_unit_test(test_one_word_is_a_program),
		cmocka_unit_test(test_pager_is_cat),
		cmocka_unit_test(test_width_height),
		cmocka_unit_test(test_start_directory),
		cmocka_unit_test(test_not_started),
		cmocka_unit_test(test_completed_statuses),
		cmocka_unit_test(test_running_and_timeout),
		cmocka_unit_test(test_read_wakes_on_line),
		cmocka_unit_test(test_paging),
		cmocka_unit_test(test_text_rules),
		cmocka_unit_test(test_binary_output),
		cmocka_unit_test(test_bad_start_input),
		cmocka_unit_test(test_lifetime_reported),
		cmocka_unit_test(test_expired),
		cmocka_unit_test(test_gone),
		cmocka_unit_test(test_pane_removed_at_end),
		cmocka_unit_test(test_from_pane),
		cmocka_unit_test(test_only_std_fds),
		cmocka_unit_test(test_ids_unique),
	};

	return (HARNESS_RUN("programs", tests, group_setup, group_teardown));
}
