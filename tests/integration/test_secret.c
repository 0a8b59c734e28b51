/*
 * test_secret.c — a program that waits for input its terminal does not
 * echo (a password prompt) is reported as such: inputHidden beside
 * waitingForInput in read_program, run_program and send_keys replies and
 * list_programs, and "waiting for hidden input (a password?)" in their
 * text; a prompt with echo on, and a full-screen (raw) read with echo
 * off, are not.
 *
 * Real programs read the hidden input: getpass(3) (tests/fixtures/
 * getpass.c, built beside progmux), bash's read -s, stty -echo in sh.
 * Every wait is on the event itself, bounded.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "client.h"
#include "needs.h"
#include "sc.h"
#include "timeutil.h"
#include "xmalloc.h"

#define LONG_MS		20000	/* a read's timeout, never reached */

static struct pmx	C;
static char		fixture[4096];	/* the getpass program */

static int
group_setup(void **state)
{
	const char	*bin = getenv("PROGMUX_BIN");
	const char	*slash;

	(void)state;
	if (bin == NULL)
		bin = "build/progmux";
	slash = strrchr(bin, '/');
	snprintf(fixture, sizeof fixture, "%.*s/fixtures/getpass",
	    slash != NULL ? (int)(slash - bin) : 1, slash != NULL ? bin : ".");
	if (access(fixture, X_OK) != 0) {
		fprintf(stderr, "no %s: make unit builds it\n", fixture);
		return (-1);
	}
	return (pmx_open(&C, NULL));
}

static int
group_teardown(void **state)
{
	(void)state;
	return (pmx_close(&C) == 0 ? 0 : -1);
}

/* inputHidden: true, false (absent) or a failure if not a boolean. */
static bool
hidden(const struct json_doc *d)
{
	const struct json	*v = sc_get(d, "inputHidden");

	if (v == NULL)
		return (false);
	if (json_type(v) != JSON_BOOL || !json_bool(v))
		fail_msg("inputHidden is there but not true: %s", pmx_text(d));
	return (true);
}

static struct json_doc *
rd(const char *id, int64_t cursor)
{
	char	args[300];

	snprintf(args, sizeof args, "{\"programId\":\"%s\",\"cursor\":%lld,"
	    "\"timeoutMs\":%d}", id, (long long)cursor, LONG_MS);
	return (sc_call_ok(&C, "read_program", args));
}

/* Read on until a read says it waits for input (bounded); that read. */
static struct json_doc *
until_waiting(const char *id, int64_t *cursor)
{
	struct json_doc	*d;
	int64_t		 t0 = now_ms();

	for (;;) {
		d = rd(id, *cursor);
		*cursor = sc_int(d, "cursor");
		if (sc_bool(d, "waitingForInput"))
			return (d);
		if (sc_bool(d, "ended") || now_ms() - t0 > 3 * LONG_MS)
			fail_msg("%s never waited for input: %s", id,
			    pmx_text(d));
		json_doc_free(d);
	}
}

static void
stop(const char *id)
{
	char	args[200];

	snprintf(args, sizeof args, "{\"programId\":\"%s\"}", id);
	json_doc_free(sc_call_ok(&C, "stop_program", args));
}

/* Start argv (a JSON array); its id, its pane in *pane. */
static char *
start(const char *argv, char **pane)
{
	char	*args, *id;

	xasprintf(&args, "{\"argv\":%s}", argv);
	if ((id = pmx_start_program(&C, args, pane)) == NULL)
		fail_msg("start_program %s failed", args);
	free(args);
	return (id);
}

/* The text says it waits for hidden input at prompt. */
static void
says_hidden(const struct json_doc *d, const char *prompt)
{
	char	want[200];

	snprintf(want, sizeof want, "waiting for hidden input (a password?) "
	    "at \"%s\"", prompt);
	if (strstr(pmx_text(d), want) == NULL)
		fail_msg("the text does not say %s: %s", want, pmx_text(d));
}

/*
 * getpass(3): read_program says inputHidden at once with the prompt,
 * list_programs too; keys typed with send_keys (here a test string, as a
 * model must not) answer it, and the reply of the next prompt carries
 * inputHidden again; after the last, the program ends.
 */
static void
test_getpass(void **state)
{
	struct json_doc		*d;
	const struct json	*progs, *it;
	char			*id, *pane, *args, *argv;
	int64_t			 cursor = 0;
	size_t			 i;
	bool			 seen = false;

	(void)state;
	argv = pmx_jstr(fixture);
	xasprintf(&args, "[%s,\"Passphrase: \",\"2\"]", argv);
	id = start(args, &pane);
	free(args);
	free(argv);
	d = until_waiting(id, &cursor);
	assert_true(hidden(d));
	assert_string_equal(sc_need_str(d, "unfinishedLine"), "Passphrase: ");
	says_hidden(d, "Passphrase: ");
	json_doc_free(d);

	d = sc_call_ok(&C, "list_programs", "{}");
	progs = sc_get(d, "programs");
	for (i = 0; progs != NULL && i < json_len(progs); i++) {
		it = json_at(progs, i);
		if (strcmp(json_str(json_get(it, "programId"), NULL), id) != 0)
			continue;
		assert_non_null(json_get(it, "inputHidden"));
		assert_true(json_bool(json_get(it, "inputHidden")));
		seen = true;
	}
	assert_true(seen);
	json_doc_free(d);

	xasprintf(&args, "{\"paneId\":\"%s\",\"keys\":\"not-a-secret\","
	    "\"literal\":true,\"timeoutMs\":%d}", pane, LONG_MS);
	d = sc_call_ok(&C, "send_keys", args);
	free(args);
	if (!sc_bool(d, "waitingForInput")) {
		cursor = sc_int(d, "cursor");
		json_doc_free(d);
		d = until_waiting(id, &cursor);
	}
	assert_true(hidden(d));
	assert_non_null(strstr(pmx_text(d), "read 12 characters"));
	json_doc_free(d);
	stop(id);
	free(id);
	free(pane);
}

/* bash's read -s, and sh with stty -echo: hidden; the same read with
 * echo on: not. */
static void
test_shells(void **state)
{
	struct json_doc	*d;
	char		*id, *pane;
	int64_t		 cursor = 0;

	(void)state;
	if (access("/bin/bash", X_OK) == 0) {
		id = start("[\"bash\",\"-c\",\"read -r -s -p 'Token: ' t; "
		    "echo; echo ${#t}\"]", &pane);
		d = until_waiting(id, &cursor);
		assert_true(hidden(d));
		says_hidden(d, "Token: ");
		json_doc_free(d);
		stop(id);
		free(id);
		free(pane);
	}

	cursor = 0;
	id = start("[\"sh\",\"-c\",\"printf 'Key: '; stty -echo; read -r k; "
	    "stty echo; echo; echo ${#k}\"]", &pane);
	d = until_waiting(id, &cursor);
	assert_true(hidden(d));
	says_hidden(d, "Key: ");
	json_doc_free(d);
	stop(id);
	free(id);
	free(pane);

	cursor = 0;
	id = start("[\"sh\",\"-c\",\"printf 'Name: '; read -r n; echo $n\"]",
	    &pane);
	d = until_waiting(id, &cursor);
	assert_false(hidden(d));
	assert_null(strstr(pmx_text(d), "hidden"));
	json_doc_free(d);
	stop(id);
	free(id);
	free(pane);
}

/* A read in raw mode with echo off (a full-screen program, a line
 * editor: they echo for themselves) is not hidden input. */
static void
test_raw_not_hidden(void **state)
{
	struct json_doc	*d;
	char		*id, *pane;
	int64_t		 cursor = 0;

	(void)state;
	id = start("[\"sh\",\"-c\",\"printf 'Key? '; stty raw -echo; "
	    "dd bs=1 count=1 2>/dev/null; stty sane\"]", &pane);
	d = until_waiting(id, &cursor);
	assert_false(hidden(d));
	json_doc_free(d);
	stop(id);
	free(id);
	free(pane);
}

/* run_program returns early at a hidden prompt and says so. */
static void
test_run_hidden(void **state)
{
	struct json_doc	*d;
	char		*args, *argv;

	(void)state;
	argv = pmx_jstr(fixture);
	xasprintf(&args, "{\"argv\":[%s],\"timeoutMs\":%d}", argv, LONG_MS);
	d = sc_call_ok(&C, "run_program", args);
	assert_true(sc_bool(d, "waitingForInput"));
	assert_true(hidden(d));
	says_hidden(d, "Password: ");
	stop(sc_need_str(d, "programId"));
	json_doc_free(d);
	free(args);
	free(argv);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_getpass),
		cmocka_unit_test(test_shells),
		cmocka_unit_test(test_raw_not_hidden),
		cmocka_unit_test(test_run_hidden),
	};

	return (cmocka_run_group_tests(tests, group_setup, group_teardown));
}
