/*
 * test_secret.c — a program that waits for input its terminal does not
 * echo (a password prompt) is reported as such: inputHidden beside
 * waitingForInput in read_program, run_program and send_keys replies and
 * list_programs, and "waiting for hidden input (a password?)" in their
 * text; a prompt with echo on, and a full-screen (raw) read with echo
 * off, are not. (ask_user_secret, which gives such a program a secret
 * from a page, is test_secret_page.c.)
 *
 * Real programs read the hidden input: getpass(3) (tests/fixtures/
 * getpass.c, built beside progmux), bash's read -s, stty -echo in sh.
 * Every wait is on the event itself, bounded.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "client.h"
#include "harness.h"
#include "xmalloc.h"

#define LONG_MS		20000	/* a read's timeout, never reached */

static char		*fixture;	/* the getpass program */

/* The group's progmux; the getpass program must have been built. */
static int
secret_setup(void **state)
{
	(void)state;
	fixture = fixture_path("getpass");
	if (access(fixture, X_OK) != 0) {
		fprintf(stderr, "no %s: make integration builds it\n", fixture);
		return (-1);
	}
	return (group_open(NULL));
}

static int
secret_teardown(void **state)
{
	free(fixture);
	return (group_teardown(state));
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
	const struct json	*it;
	char			*id, *pane, *args, *argv;
	int64_t			 cursor = 0;

	(void)state;
	argv = pmx_jstr(fixture);
	xasprintf(&args, "[%s,\"Passphrase: \",\"2\"]", argv);
	id = group_start(args, &pane);
	free(args);
	free(argv);
	d = rd_until_waiting(id, &cursor, NULL);
	assert_true(input_hidden(d));
	assert_string_equal(sc_need_str(d, "unfinishedLine"), "Passphrase: ");
	says_hidden(d, "Passphrase: ");
	json_doc_free(d);

	it = listed(&group, id, &d);
	assert_non_null(it);
	assert_non_null(json_get(it, "inputHidden"));
	assert_true(json_bool(json_get(it, "inputHidden")));
	json_doc_free(d);

	xasprintf(&args, "{\"paneId\":\"%s\",\"keys\":\"not-a-secret\","
	    "\"literal\":true,\"timeoutMs\":%d}", pane, LONG_MS);
	d = call_ok("send_keys", args);
	free(args);
	cursor = sc_int(d, "cursor");
	/* Its reply, whenever it says the program waits (at the next
	 * prompt), says hidden input. (Where the port cannot tell, it may
	 * come before the answer's line.) */
	if (sc_bool(d, "waitingForInput"))
		assert_true(input_hidden(d));
	if (strstr(pmx_text(d), "read 12 characters") == NULL)
		rd_until_line(id, &cursor, "read 12 characters");
	json_doc_free(d);
	d = rd_waiting_now(id, cursor);
	assert_true(input_hidden(d));
	json_doc_free(d);
	stop(id);
	free(id);
	free(pane);
}

/* Start argv (a JSON array) and read until it waits: for hidden input
 * at prompt, or (prompt NULL) not hidden, nor said to be. */
static void
waits_as(const char *argv, const char *prompt)
{
	struct json_doc	*d;
	char		*id, *pane;
	int64_t		 cursor = 0;

	id = group_start(argv, &pane);
	d = rd_until_waiting(id, &cursor, NULL);
	if (prompt != NULL) {
		assert_true(input_hidden(d));
		says_hidden(d, prompt);
	} else {
		assert_false(input_hidden(d));
		assert_null(strstr(pmx_text(d), "hidden"));
	}
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
	(void)state;
	if (access("/bin/bash", X_OK) == 0)
		waits_as("[\"bash\",\"-c\",\"read -r -s -p 'Token: ' t; "
		    "echo; echo ${#t}\"]", "Token: ");
	waits_as("[\"sh\",\"-c\",\"printf 'Key: '; stty -echo; "
	    "read -r k; stty echo; echo; echo ${#k}\"]", "Key: ");
	waits_as("[\"sh\",\"-c\",\"printf 'Name: '; read -r n; "
	    "echo $n\"]", NULL);
}

/* A read in raw mode with echo off (a full-screen program, a line
 * editor: they echo for themselves) is not hidden input. */
static void
test_raw_not_hidden(void **state)
{
	(void)state;
	waits_as("[\"sh\",\"-c\",\"printf 'Key? '; stty raw -echo; "
	    "dd bs=1 count=1 2>/dev/null; stty sane\"]", NULL);
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
	d = call_ok("run_program", args);
	assert_true(sc_bool(d, "waitingForInput"));
	assert_true(input_hidden(d));
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

	return (cmocka_run_group_tests(tests, secret_setup, secret_teardown));
}
