/*
 * test_text.c — the text of every tool's result carries every field of
 * its structuredContent, for the clients (opencode, Kilo) whose models see
 * the text alone.
 *
 * Each result below goes through carries(): it walks the result's
 * structuredContent key by key and asserts the text says that field's
 * value in words, by the rule written for the key (a key without a rule
 * fails the test, so a new field cannot slip in unsaid). The rules are two
 * way where the field is a flag: true has its words in the text, false
 * has not. The calls are chosen so that every flag is seen both ways and
 * every nullable field both null and set.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "client.h"
#include "harness.h"
#include "osdep.h"
#include "xmalloc.h"

#define LONG_MS	15000


/* Fields seen, each way: every flag true and false, nullables both. */
static unsigned		seen_true[32], seen_false[32];
static const char	*flags[] = {
	"ended", "waitingForInput", "outputCut", "outputComplete", "matched",
	"wasRunning", "exitStatus", "signal", "unfinishedLine",
	"omittedChars", "droppedLines", "skippedLines", "matchedLines", NULL
};

static int
text_setup(void **state)
{
	static const char *const env[] = {
	    "PROGMUX_OUTPUT_MAX_BYTES=65536", NULL };

	(void)state;
	return (group_open(env));
}

/* The reasons a call can give, and the words the text says each in. */
static const char *reasons[][2] = {
	{ "text", "new lines came" }, { "pageFull", "a page is full" },
	{ "matched", "until matched" }, { "ended", "the end" },
	{ "waitingForInput", "it waits for input" },
	{ "timeout", "its " }, { "scanLimit", "scanning the text" },
	{ "screen", "the screen settled" },
	{ "port", "it listens on untilPort's port" },
	{ "url", "untilUrl answered below 400" },
	{ "file", "untilFile is there" },
	{ "quiet", "untilQuietMs of quiet" },
	{ "ready", "it said READY=1" }, { NULL, NULL }
};
static unsigned		seen_reason[16];

/* The words for reason r. */
static const char *
reason_words(const char *r)
{
	int	i;

	for (i = 0; reasons[i][0] != NULL; i++)
		if (strcmp(reasons[i][0], r) == 0)
			return (reasons[i][1]);
	fail_msg("reason %s: not one the schemas list", r);
	return (NULL);
}

/* Count a reason seen. */
static void
saw_reason(const char *r)
{
	int	i;

	for (i = 0; reasons[i][0] != NULL; i++)
		if (strcmp(reasons[i][0], r) == 0)
			seen_reason[i]++;
}

/* Count how a flag was seen. */
static void
saw(const char *key, bool set)
{
	int	i;

	for (i = 0; flags[i] != NULL; i++)
		if (strcmp(flags[i], key) == 0)
			(set ? seen_true : seen_false)[i]++;
}

/* text has s (or, want false, has not). */
static void
says(const char *text, bool want, const char *fmt, ...)
{
	char	s[4200];
	va_list	ap;

	va_start(ap, fmt);
	vsnprintf(s, sizeof s, fmt, ap);
	va_end(ap);
	if ((strstr(text, s) != NULL) != want)
		fail_msg("the text %s \"%s\":\n%s", want ? "does not say" :
		    "says", s, text);
}

static const char *
str_of(const struct json *v)
{
	return (v != NULL && json_type(v) == JSON_STRING ? json_str(v, NULL) :
	    NULL);
}

static int64_t
int_of(const struct json *o, const char *key)
{
	const struct json	*v = json_get(o, key);

	if (v == NULL || json_type(v) != JSON_NUMBER)
		fail_msg("no number %s", key);
	return (json_int(v));
}

/*
 * The rules for one object's fields: sc is a result's structuredContent
 * (or one list_programs entry, list true), text what says it.
 */
static void
carries_obj(const struct json *sc, const char *text, bool list)
{
	const struct json	*v;
	const char		*key, *s, *id;
	size_t			 i, j, n;
	bool			 ended, waiting, b;


	id = str_of(json_get(sc, "programId"));
	v = json_get(sc, "ended");
	ended = v != NULL && json_bool(v);
	v = json_get(sc, "waitingForInput");
	waiting = v != NULL && json_bool(v);
	n = json_len(sc);
	for (i = 0; i < n; i++) {
		key = json_key_at(sc, i, NULL);
		v = json_at(sc, i);
		s = str_of(v);
		if (strcmp(key, "programId") == 0 || strcmp(key, "paneId") == 0) {
			if (s != NULL)
				says(text, true, "%s", s);
		} else if (strcmp(key, "text") == 0 ||
		    strcmp(key, "stderr") == 0) {
			says(text, true, "%s", s);
		} else if (strcmp(key, "outcome") == 0) {
			if (list || id == NULL)
				says(text, true, "%s", s);
			else
				says(text, true, "[%s: %s", id, s);
		} else if (strcmp(key, "ended") == 0) {
			saw(key, json_bool(v));
			if (!list)
				says(text, json_bool(v), ", all read");
			else	/* the outcome says it */
				assert_true(json_bool(v) == (strcmp(str_of(
				    json_get(sc, "outcome")), "running") != 0 &&
				    strcmp(str_of(json_get(sc, "outcome")),
				    "stopped") != 0));
		} else if (strcmp(key, "cursor") == 0) {
			says(text, true, "cursor %" PRId64, json_int(v));
		} else if (strcmp(key, "exitStatus") == 0) {
			b = json_type(v) != JSON_NULL;
			saw(key, b);
			if (b)
				says(text, true, "exit status %" PRId64,
				    json_int(v));
			else
				says(text, false, "exit status");
		} else if (strcmp(key, "signal") == 0) {
			saw(key, s != NULL);
			if (s != NULL)
				says(text, true, ", %s", s);
			else
				says(text, false, ", SIG");
		} else if (strcmp(key, "waitingForInput") == 0) {
			saw(key, json_bool(v));
			says(text, json_bool(v), "waiting for input");
		} else if (strcmp(key, "unfinishedLine") == 0) {
			saw(key, s[0] != '\0');
			if (s[0] != '\0')
				says(text, true, "%s\"%s\"", waiting ?
				    "waiting for input at " :
				    ", unfinished line ", s);
			else
				says(text, false, "unfinished line");
		} else if (strcmp(key, "outputCut") == 0) {
			saw(key, json_bool(v));
			says(text, json_bool(v), "output cut");
		} else if (strcmp(key, "outputGap") == 0) {
			says(text, true, "[%" PRId64 " line", int_of(v, "lines"));
			says(text, true, " (%" PRId64 " bytes) of the output ",
			    int_of(v, "bytes"));
			says(text, true, "not kept, between cursors %" PRId64
			    " and %" PRId64 ": ", int_of(v, "fromCursor"),
			    int_of(v, "toCursor"));
			says(text, true, "%s", strcmp(str_of(json_get(v,
			    "reason")), "diskFull") == 0 ? "is full (" :
			    "past PROGMUX_OUTPUT_MAX_BYTES (");
		} else if (strcmp(key, "lostEnd") == 0) {
			says(text, json_bool(v), "last output lost");
		} else if (strcmp(key, "outputComplete") == 0) {
			saw(key, json_bool(v));
			says(text, json_bool(v), "output complete");
		} else if (strcmp(key, "matched") == 0) {
			saw(key, json_bool(v));
			says(text, true, json_bool(v) ? "[until matched the last "
			    "line]" : "[until matched no line yet]");
		} else if (strcmp(key, "effectiveTimeoutMs") == 0) {
			/* Said as the wait, whatever ended it. */
			says(text, true, "its %" PRId64 " ms wait", json_int(v));
		} else if (strcmp(key, "reason") == 0) {
			saw_reason(s);
			says(text, true, "(returned: %s", reason_words(s));
		} else if (strcmp(key, "droppedBytes") == 0) {
			says(text, true, ", %" PRId64 " bytes of escape "
			    "sequences that never ended left out", json_int(v));
		} else if (list && strcmp(key, "argvCut") == 0) {
			says(text, true, " [argv shown cut: %" PRId64 " "
			    "arguments, %" PRId64 " characters]",
			    int_of(sc, "argvCount"), int_of(sc, "argvChars"));
		} else if (list && (strcmp(key, "argvCount") == 0 ||
		    strcmp(key, "argvChars") == 0)) {
			assert_non_null(json_get(sc, "argvCut"));
		} else if (strcmp(key, "effectiveLifetimeMs") == 0) {
			if (!ended || id == NULL ||
			    json_get(sc, "cursor") == NULL)
				says(text, true, "lifetime %" PRId64 " ms",
				    json_int(v));
		} else if (strcmp(key, "omittedChars") == 0) {
			saw(key, json_int(v) > 0);
			if (json_int(v) > 0)
				says(text, true, "[%" PRId64 " characters ",
				    json_int(v));
			else
				says(text, false, "read_program from cursor 0 "
				    "has them");
		} else if (strcmp(key, "skippedLines") == 0) {
			saw(key, json_int(v) > 0);
			if (json_int(v) > 0)
				says(text, true, "; %" PRId64 " line",
				    json_int(v));
			else
				says(text, false, "skipped");
		} else if (strcmp(key, "matchedLines") == 0) {
			saw(key, json_int(v) > 0);
			says(text, true, "[%" PRId64 " of %" PRId64 " line",
			    json_int(v), int_of(sc, "scannedLines"));
		} else if (strcmp(key, "scannedLines") == 0) {
			/* With matchedLines, "[M of S lines matched". */
			says(text, true, " of %" PRId64 " line", json_int(v));
		} else if (strcmp(key, "screen") == 0) {
			says(text, true, "the screen now:\n%s", s);
		} else if (strcmp(key, "sent") == 0) {
			assert_true(json_bool(v));
			says(text, true, "sent to ");
		} else if (strcmp(key, "wasRunning") == 0) {
			saw(key, json_bool(v));
			says(text, true, json_bool(v) ? "it was running" :
			    "it had already ended");
		} else if (strcmp(key, "totalLines") == 0) {
			if (int_of(sc, "droppedLines") > 0)
				says(text, true, " of %" PRId64 " left out",
				    json_int(v));
			else
				says(text, true, ": %" PRId64 " lines]",
				    json_int(v));
		} else if (strcmp(key, "droppedLines") == 0) {
			saw(key, json_int(v) > 0);
			if (json_int(v) > 0)
				says(text, true, ": %" PRId64 " lines, the first "
				    "%" PRId64 " of", int_of(sc, "totalLines") -
				    json_int(v), json_int(v));
			else
				says(text, false, "left out");
		} else if (list && strcmp(key, "argv") == 0) {
			for (j = 0; j < json_len(v); j++)
				says(text, true, " %s", str_of(json_at(v, j)));
		} else if (list && strcmp(key, "textChars") == 0) {
			says(text, true, "%" PRId64 " characters", json_int(v));
		} else if (list && strcmp(key, "startedAt") == 0) {
			says(text, true, "started %s", s);
		} else if (list && strcmp(key, "lifetimeLeftMs") == 0) {
			if (!ended)
				says(text, true, "%" PRId64 " ms of its lifetime "
				    "left", json_int(v));
		} else if (strcmp(key, "ports") == 0) {
			for (j = 0; j < json_len(v); j++) {
				s = str_of(json_get(json_at(v, j), "address"));
				says(text, true, strchr(s, ':') != NULL ?
				    "[%s]:%" PRId64 : "%s:%" PRId64, s,
				    int_of(json_at(v, j), "port"));
			}
			says(text, true, ", listening on ");
		} else if (strcmp(key, "portsUnknown") == 0) {
			says(text, true, " (%s)", s);
		} else if (strcmp(key, "ready") == 0) {
			assert_true(json_bool(v));
			says(text, true, ", ready (it said READY=1)");
		} else if (strcmp(key, "status") == 0) {
			says(text, true, ", status \"%s\"", s);
		} else
			fail_msg("%s: no rule for this field; write one", key);
	}
}

/* A list entry is checked against its own line of the text. */
static void
carries_list(const struct json *sc, const char *text)
{
	const struct json	*progs = json_get(sc, "programs"), *e;
	const char		*id, *line, *nl;
	char			*one;
	size_t			 i;

	assert_non_null(progs);
	if (json_len(progs) == 0)
		says(text, true, "no programs");
	for (i = 0; i < json_len(progs); i++) {
		e = json_at(progs, i);
		id = str_of(json_get(e, "programId"));
		line = text;
		while (line != NULL && !(strncmp(line, id, strlen(id)) == 0 &&
		    line[strlen(id)] == ' '))
			line = (nl = strchr(line, '\n')) ? nl + 1 : NULL;
		if (line == NULL)
			fail_msg("no line for %s:\n%s", id, text);
		nl = strchr(line, '\n');
		one = xstrndup(line, nl ? (size_t)(nl - line) : strlen(line));
		carries_obj(e, one, true);
		free(one);
	}
}

/* The result d of tool: its text says all its structuredContent does. */
static const struct json *
carries(const struct json_doc *d, const char *tool)
{
	const struct json	*sc = pmx_sc(d);
	const char		*text = pmx_text(d);

	if (sc == NULL)
		fail_msg("%s: no structuredContent: %s", tool, text);
	print_message("%s: %s\n", tool, text);
	if (strcmp(tool, "list_programs") == 0)
		carries_list(sc, text);
	else
		carries_obj(sc, text, false);
	return (sc);
}

static struct json_doc *
call(const char *tool, const char *fmt, ...)
{
	struct json_doc	*d;
	char		 args[1000];
	va_list		 ap;

	va_start(ap, fmt);
	vsnprintf(args, sizeof args, fmt, ap);
	va_end(ap);
	d = sc_call_ok(&group, tool, args);
	carries(d, tool);
	return (d);
}

/* Read id on from *cursor until flag is true (bounded); that result. */
static struct json_doc *
read_to(const char *id, int64_t *cursor, const char *flag)
{
	struct json_doc	*d;
	int64_t		 t0 = now_ms();

	for (;;) {
		d = call("read_program", "{\"programId\":\"%s\",\"cursor\":"
		    "%" PRId64 ",\"timeoutMs\":%d}", id, *cursor, LONG_MS);
		*cursor = sc_int(d, "cursor");
		if (sc_bool(d, flag))
			return (d);
		if (now_ms() - t0 > 3 * LONG_MS)
			fail_msg("%s: %s never came: %s", id, flag, pmx_text(d));
		json_doc_free(d);
	}
}

/*
 * A prompt: start, read until it waits at the prompt, list it, answer it
 * with send_keys and a timeout, read its end; stop it once ended.
 */
static void
test_prompt_cycle(void **state)
{
	struct json_doc		*d;
	char			*id, *pane;
	int64_t			 cursor = 0;

	(void)state;
	d = call("start_program", "{\"argv\":[\"sh\",\"-c\",\"echo first; "
	    "printf 'Proceed? [y/N] '; read a; echo got $a; exit 3\"]}");
	id = xstrdup(sc_str(d, "programId"));
	pane = xstrdup(sc_str(d, "paneId"));
	json_doc_free(d);
	d = read_to(id, &cursor, "waitingForInput");
	assert_string_equal(sc_str(d, "unfinishedLine"), "Proceed? [y/N] ");
	json_doc_free(d);
	json_doc_free(call("list_programs", "{}"));
	d = call("send_keys", "{\"paneId\":\"%s\",\"keys\":\"y\","
	    "\"timeoutMs\":%d}", pane, LONG_MS);
	json_doc_free(d);
	d = read_to(id, &cursor, "ended");
	assert_int_equal(sc_int(d, "exitStatus"), 3);
	assert_true(sc_bool(d, "outputComplete"));
	json_doc_free(d);
	json_doc_free(call("list_programs", "{}"));
	json_doc_free(call("stop_program", "{\"programId\":\"%s\"}", id));
	free(id);
	free(pane);
}

/* until, matching and not; a read whose wait runs out mid-line. */
static void
test_until_and_unfinished(void **state)
{
	struct json_doc	*d;
	char		*id;

	(void)state;
	d = call("start_program", "{\"argv\":[\"sh\",\"-c\",\"echo ready 1; "
	    "printf 'half a line'; exec sleep 60\"]}");
	id = xstrdup(sc_str(d, "programId"));
	json_doc_free(d);
	d = call("read_program", "{\"programId\":\"%s\",\"until\":\"ready\","
	    "\"timeoutMs\":%d}", id, LONG_MS);
	assert_true(sc_bool(d, "matched"));
	json_doc_free(d);
	d = call("read_program", "{\"programId\":\"%s\",\"until\":\"never\","
	    "\"timeoutMs\":300}", id);
	assert_false(sc_bool(d, "matched"));
	json_doc_free(d);
	d = call("run_program", "{\"argv\":[\"sh\",\"-c\",\"printf 'no end'; "
	    "exec sleep 60\"],\"timeoutMs\":500}");
	assert_false(sc_bool(d, "ended"));
	json_doc_free(call("stop_program", "{\"programId\":\"%s\"}",
	    sc_str(d, "programId")));
	json_doc_free(d);
	/* Stopped while running: wasRunning, a signal. */
	json_doc_free(call("stop_program", "{\"programId\":\"%s\"}", id));
	free(id);
}

/* Runs that end: by a signal, with their start left out, cut, with
 * separate stderr; a capture with lines dropped and without. */
static void
test_runs_and_capture(void **state)
{
	struct json_doc	*d;
	char		*pane;

	(void)state;
	d = call("run_program", "{\"argv\":[\"sh\",\"-c\",\"echo bye; "
	    "kill -TERM $$\"],\"timeoutMs\":%d}", LONG_MS);
	assert_string_equal(sc_str(d, "signal"), "SIGTERM");
	json_doc_free(d);
	/* Output that fits: the text is the output, then the status line
	 * (no note of a tail that left nothing out). */
	d = call("run_program", "{\"argv\":[\"echo\",\"hi\"],"
	    "\"timeoutMs\":%d}", LONG_MS);
	if (strncmp(pmx_text(d), "hi\n[p", 5) != 0 ||
	    strstr(pmx_text(d), "completed, exit status 0") == NULL)
		fail_msg("run_program echo hi: %s", pmx_text(d));
	json_doc_free(d);
	d = call("run_program", "{\"argv\":[\"seq\",\"1\",\"500\"],"
	    "\"maxLines\":5,\"timeoutMs\":%d}", LONG_MS);
	assert_true(sc_int(d, "omittedChars") > 0);
	json_doc_free(d);
	/* Over the 64 KiB ceiling this test runs with. */
	d = call("run_program", "{\"argv\":[\"seq\",\"1\",\"100000\"],"
	    "\"maxLines\":3,\"timeoutMs\":%d}", LONG_MS);
	assert_true(sc_bool(d, "outputCut"));
	json_doc_free(d);
	d = call("run_program", "{\"argv\":[\"sh\",\"-c\",\"echo out; echo "
	    "err >&2; seq 1 4\"],\"separateStderr\":true,\"keep\":true,\"timeoutMs\":"
	    "%d}", LONG_MS);
	pane = xstrdup(sc_str(d, "paneId"));
	json_doc_free(d);
	json_doc_free(call("capture_pane", "{\"paneId\":\"%s\"}", pane));
	d = call("capture_pane", "{\"paneId\":\"%s\",\"maxLines\":2}", pane);
	assert_int_equal(sc_int(d, "droppedLines"), 3);
	json_doc_free(d);
	free(pane);
	json_doc_free(call("list_programs", "{}"));
}

/* tail and filter, on reads and runs; a full-screen program's screen. */
static void
test_tail_filter_screen(void **state)
{
	struct json_doc	*d;
	char		*file, *jfile, *id, *pane;
	int64_t		 cursor = 0;

	(void)state;
	d = call("run_program", "{\"argv\":[\"seq\",\"1\",\"200\"],"
	    "\"filter\":\"^1\\\\d$\",\"timeoutMs\":%d}", LONG_MS);
	assert_int_equal(sc_int(d, "matchedLines"), 10);
	json_doc_free(d);
	json_doc_free(call("run_program", "{\"argv\":[\"seq\",\"1\","
	    "\"200\"],\"tail\":3,\"timeoutMs\":%d}", LONG_MS));
	d = call("start_program", "{\"argv\":[\"seq\",\"1\",\"300\"]}");
	id = xstrdup(sc_str(d, "programId"));
	json_doc_free(d);
	json_doc_free(read_to(id, &cursor, "ended"));
	d = call("read_program", "{\"programId\":\"%s\",\"tail\":5}", id);
	assert_int_equal(sc_int(d, "skippedLines"), 295);
	json_doc_free(d);
	d = call("read_program", "{\"programId\":\"%s\",\"tail\":500}",
	    id);
	assert_int_equal(sc_int(d, "skippedLines"), 0);
	json_doc_free(d);
	json_doc_free(call("read_program", "{\"programId\":\"%s\","
	    "\"filter\":\"5$\",\"context\":1}", id));
	d = call("read_program", "{\"programId\":\"%s\",\"filter\":"
	    "\"none\"}", id);
	assert_int_equal(sc_int(d, "matchedLines"), 0);
	json_doc_free(d);
	json_doc_free(call("stop_program", "{\"programId\":\"%s\"}", id));
	free(id);

	assert_non_null(file = pmx_lines_file(&group, "lines.txt", 200));
	jfile = pmx_jstr(file);
	d = call("start_program", "{\"argv\":[\"less\",%s]}", jfile);
	id = xstrdup(sc_str(d, "programId"));
	pane = xstrdup(sc_str(d, "paneId"));
	json_doc_free(d);
	cursor = 0;
	json_doc_free(read_to(id, &cursor, "waitingForInput"));
	d = call("send_keys", "{\"paneId\":\"%s\",\"keys\":\"100g\","
	    "\"enter\":false,\"timeoutMs\":%d}", pane, LONG_MS);
	assert_non_null(strstr(sc_str(d, "screen"), "line 100"));
	json_doc_free(d);
	json_doc_free(call("stop_program", "{\"programId\":\"%s\"}", id));
	unlink(file);
	free(file);
	free(jfile);
	free(id);
	free(pane);
}

/*
 * Why a read returned, each way but scanLimit: a page full (maxLines),
 * new lines, until's line, the end, input, the timeout, a screen; the
 * structured reason and the text agree (carries) and each is the one
 * the call's situation gives.
 */
static void
test_reasons(void **state)
{
	struct json_doc	*d;
	char		*id;

	(void)state;
	d = call("start_program", "{\"argv\":[\"sh\",\"-c\",\"printf "
	    "'a\\\\nb\\\\nc\\\\n'; exec sleep 30\"]}");
	id = xstrdup(sc_str(d, "programId"));
	json_doc_free(d);
	d = call("read_program", "{\"programId\":\"%s\",\"maxLines\":1,"
	    "\"timeoutMs\":%d}", id, LONG_MS);
	assert_string_equal(sc_str(d, "reason"), "pageFull");
	json_doc_free(d);
	d = call("read_program", "{\"programId\":\"%s\",\"until\":\"^b\","
	    "\"timeoutMs\":%d}", id, LONG_MS);
	assert_string_equal(sc_str(d, "reason"), "matched");
	json_doc_free(d);
	d = call("read_program", "{\"programId\":\"%s\",\"cursor\":6,"
	    "\"timeoutMs\":300}", id);
	assert_string_equal(sc_str(d, "reason"), "timeout");
	json_doc_free(d);
	json_doc_free(call("stop_program", "{\"programId\":\"%s\"}", id));
	free(id);
	/* The first read of a program at a prompt (one it prints: a port
	 * whose input-wait check cannot tell goes by the unfinished line). */
	d = call("start_program", "{\"argv\":[\"sh\",\"-c\","
	    "\"printf 'name? '; read x\"]}");
	id = xstrdup(sc_str(d, "programId"));
	json_doc_free(d);
	d = call("read_program", "{\"programId\":\"%s\",\"timeoutMs\":%d}",
	    id, LONG_MS);
	assert_string_equal(sc_str(d, "reason"), "waitingForInput");
	json_doc_free(d);
	json_doc_free(call("stop_program", "{\"programId\":\"%s\"}", id));
	free(id);
	d = call("run_program", "{\"argv\":[\"true\"],\"timeoutMs\":%d}",
	    LONG_MS);
	assert_string_equal(sc_str(d, "reason"), "ended");
	json_doc_free(d);
}

/*
 * The readiness clauses: each reason, and the fields they bring (the
 * ports a server listens on, READY=1 and its status), said in the text.
 */
static void
test_readiness(void **state)
{
	struct json_doc	*d;
	char		*id, *py, *flag;
	const char	*text;
	unsigned	 port = 0;
	FILE		*f;

	(void)state;
	d = call("start_program", "{\"argv\":[\"python3\",\"-m\","
	    "\"http.server\",\"--bind\",\"127.0.0.1\",\"0\"],"
	    "\"until\":\"^Serving HTTP\",\"timeoutMs\":%d}", LONG_MS);
	assert_string_equal(sc_str(d, "reason"), "matched");
	id = xstrdup(sc_str(d, "programId"));
	text = strstr(sc_str(d, "text"), " port ");
	assert_non_null(text);
	assert_int_equal(sscanf(text, " port %u", &port), 1);
	json_doc_free(d);
	d = call("read_program", "{\"programId\":\"%s\",\"untilUrl\":"
	    "\"http://127.0.0.1:%u/\",\"timeoutMs\":%d}", id, port, LONG_MS);
	assert_string_equal(sc_str(d, "reason"), "url");
	json_doc_free(d);
	if (osdep_features() & OSDEP_PORTS) {
		d = call("read_program", "{\"programId\":\"%s\",\"untilPort\":"
		    "%u,\"timeoutMs\":%d}", id, port, LONG_MS);
		assert_string_equal(sc_str(d, "reason"), "port");
		json_doc_free(d);
	} else
		saw_reason("port");	/* (refused here: test_ready's) */
	d = call("read_program", "{\"programId\":\"%s\",\"untilQuietMs\":"
	    "200,\"timeoutMs\":%d}", id, LONG_MS);
	assert_string_equal(sc_str(d, "reason"), "quiet");
	json_doc_free(d);
	json_doc_free(call("list_programs", "{}"));
	json_doc_free(call("stop_program", "{\"programId\":\"%s\"}", id));
	free(id);

	xasprintf(&flag, "%s/text.flag", group.dir);
	d = call("start_program", "{\"argv\":[\"sh\",\"-c\",\"touch \\\"$0\\\"; "
	    "exec sleep 30\",\"%s\"],\"untilFile\":\"%s\",\"timeoutMs\":%d}",
	    flag, flag, LONG_MS);
	assert_string_equal(sc_str(d, "reason"), "file");
	id = xstrdup(sc_str(d, "programId"));
	json_doc_free(d);
	json_doc_free(call("stop_program", "{\"programId\":\"%s\"}", id));
	free(id);
	unlink(flag);
	free(flag);

	xasprintf(&py, "%s/text_notify.py", group.dir);
	assert_non_null(f = fopen(py, "w"));
	fputs("import os, socket, time\n"
	    "s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)\n"
	    "s.sendto(b'STATUS=all good\\nREADY=1', "
	    "os.environ['NOTIFY_SOCKET'])\n"
	    "time.sleep(30)\n", f);
	assert_int_equal(fclose(f), 0);
	d = call("start_program", "{\"argv\":[\"python3\",\"%s\"],"
	    "\"timeoutMs\":%d}", py, LONG_MS);
	assert_string_equal(sc_str(d, "reason"), "ready");
	id = xstrdup(sc_str(d, "programId"));
	json_doc_free(d);
	json_doc_free(call("list_programs", "{}"));
	json_doc_free(call("stop_program", "{\"programId\":\"%s\"}", id));
	free(id);
	free(py);
}

/* Each flag and nullable field was seen both ways. */
static void
test_every_way_seen(void **state)
{
	int	i;

	(void)state;
	for (i = 0; flags[i] != NULL; i++) {
		print_message("%s: %u set, %u not\n", flags[i], seen_true[i],
		    seen_false[i]);
		if (seen_true[i] == 0 || seen_false[i] == 0)
			fail_msg("%s was not seen both ways", flags[i]);
	}
	/* Every reason a call gives, but scanLimit (test_filter.c's). */
	for (i = 0; reasons[i][0] != NULL; i++) {
		print_message("reason %s: %u\n", reasons[i][0],
		    seen_reason[i]);
		if (seen_reason[i] == 0 && strcmp(reasons[i][0],
		    "scanLimit") != 0)
			fail_msg("reason %s was not seen", reasons[i][0]);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_prompt_cycle),
		cmocka_unit_test(test_until_and_unfinished),
		cmocka_unit_test(test_runs_and_capture),
		cmocka_unit_test(test_tail_filter_screen),
		cmocka_unit_test(test_reasons),
		cmocka_unit_test(test_readiness),
		cmocka_unit_test(test_every_way_seen),
	};

	return (cmocka_run_group_tests(tests, text_setup, group_teardown));
}
