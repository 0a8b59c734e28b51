/*
 * harness.h — what the integration suites share, over tests/client.c.
 *
 * Included after <cmocka.h> and "client.h". Every check here fails the
 * running cmocka test with what it saw, so a helper is a test's
 * assertion and never hides a failure:
 *
 *   a tool result's structuredContent (sc_*), a call that must succeed
 *   or be refused (sc_call_ok, sc_call_err, call_ok, refused), a
 *   program in list_programs (listed, is_listed);
 *   one progmux a group of tests shares (group, group_setup,
 *   group_teardown, rd, stop), programs it runs that wait for input
 *   (fixture_path, group_start, rd_until_waiting, rd_until_line ...), and
 *   one per test in either mode
 *   (open_mode) or for the protocol suites (rpc_setup, rpc_teardown);
 *   JSON-RPC lines and replies that must come within REPLY_MS
 *   (send_line, next_line, assert_envelope, assert_error, request_ok,
 *   negotiate, list_tools ...);
 *   waiting on processes and paths, each with a bounded deadline
 *   (wait_none, wait_some, wait_path_gone);
 *   running a suite, with PMX_TEST_FILTER (harness_run).
 *
 * "Nothing else came" is checked by sending a ping and requiring that
 * the very next line is its reply (expect_ping_next), since the server
 * answers in order whatever it can answer at once.
 */
#ifndef PROGMUX_TEST_HARNESS_H
#define PROGMUX_TEST_HARNESS_H

#include <sys/types.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "client.h"
#include "procs.h"

#define REPLY_MS	5000	/* any reply expected at once */

/* --- structuredContent ------------------------------------------------ */

/* A field of d's structuredContent; a result without one fails. sc_str
 * and sc_int give NULL and -999 for a field missing or of another type,
 * so an assertion on them fails with the value seen. */
const struct json *sc_get(const struct json_doc *, const char *key);
const char	*sc_str(const struct json_doc *, const char *key);
int64_t		 sc_int(const struct json_doc *, const char *key);
/* A string field that must be there. */
const char	*sc_need_str(const struct json_doc *, const char *key);
/* A field that must be there, as a boolean. */
bool		 sc_bool(const struct json_doc *, const char *key);
/* Is the field there and null? */
bool		 sc_null(const struct json_doc *, const char *key);
/* A tools/call on c that must succeed: a valid answer, not an error. */
struct json_doc	*sc_call_ok(struct pmx *, const char *tool,
		    const char *args);
/* A tools/call on c that must be answered with a tool error. */
struct json_doc	*sc_call_err(struct pmx *, const char *tool,
		    const char *args);

/* list_programs on c, which must succeed (the answer in *dp, to free):
 * the entry of programId id, or NULL if id is not listed. */
const struct json *listed(struct pmx *, const char *id,
		    struct json_doc **dp);
/* Is programId id still held? (Asked of list_programs, which reads no
 * program's text: a read would count as reading it.) */
bool		 is_listed(struct pmx *, const char *id);

/* --- one progmux per group --------------------------------------------- */

/* The progmux a group of tests shares: group_setup starts it on its
 * private tmux server (group_open with env), group_teardown ends both. */
extern struct pmx group;
int		 group_open(const char *const *env);
int		 group_setup(void **state);
int		 group_teardown(void **state);
/* sc_call_ok on the group's progmux. */
struct json_doc	*call_ok(const char *tool, const char *args);
/* read_program on the group's progmux from cursor, waiting up to timeout
 * ms, with extra fields (JSON members, or ""); it must succeed. */
struct json_doc	*rd(const char *id, int64_t cursor, int64_t timeout,
		    const char *extra);
/* stop_program on the group's progmux; it must succeed. */
void		 stop(const char *id);
/* A tools/call on the group's progmux that must be refused as a tool
 * error whose text holds each needle (a NULL-terminated list). */
void		 refused(const char *tool, const char *args, ...)
		    __attribute__((sentinel));

/* --- programs waiting for input, on the group's progmux --------------- */

/* When set, the text of every reply call_ok (and so rd and the waits
 * below) gets is added to it, for a test to search. */
extern struct buf *group_kept;
/* A program built beside progmux (PROGMUX_BIN's directory)/fixtures/name
 * (allocated). */
char		*fixture_path(const char *name);
/* start_program argv (a JSON array); its programId (allocated), its pane
 * in *pane. */
char		*group_start(const char *argv, char **pane);
/* inputHidden: true, or false when absent; any other value fails. */
bool		 input_hidden(const struct json_doc *);
/* Read from *cursor until a read says waitingForInput (bounded): that
 * read, *cursor after it; the text read added to all, if not NULL. */
struct json_doc	*rd_until_waiting(const char *id, int64_t *cursor,
		    struct buf *all);
/* The same 1 s at a time, for a program whose waiting may have been told
 * already (a read would then wait its whole timeout). */
struct json_doc	*rd_waiting_now(const char *id, int64_t cursor);
/* Read from *cursor until a line holding want came (bounded). */
void		 rd_until_line(const char *id, int64_t *cursor,
		    const char *want);

/* --- one progmux per test ---------------------------------------------- */

/* Start progmux with env on c: on its own private tmux server, or in
 * robust mode (PROGMUX_ROBUST=1, its own server); the test fails if it
 * cannot. */
void		 open_mode(struct pmx *, bool robust,
		    const char *const *env);
/* The tmux socket progmux uses, from its start line (allocated): the
 * test's, or its own server's in robust mode. */
char		*socket_of(struct pmx *);
/* The runtime directory, from progmux's start line (allocated). */
char		*rundir_of(struct pmx *);
/* A fresh progmux per test, in *state (negotiated 2025-06-18), and its
 * end, with replies nobody claimed dropped. */
int		 rpc_setup(void **state);
int		 rpc_teardown(void **state);

/* --- JSON-RPC lines ---------------------------------------------------- */

/* Send a NUL-terminated line. */
void		 send_line(struct pmx *, const char *);
/* The next line from progmux, which must come within REPLY_MS. */
struct json_doc	*next_line(struct pmx *);
/* Every reply says "jsonrpc":"2.0" and has exactly one of result/error. */
void		 assert_envelope(const struct json_doc *);
/* The reply's id as sent on the wire (allocated), or NULL if none. */
char		*id_raw(const struct json_doc *);
/* d is an error reply with this code; want_id is its raw id, or NULL
 * for "id": null (JSON-RPC 2.0 requires the member). */
void		 assert_error(const struct json_doc *, int code,
		    const char *want_id);
/* Send line; the next line must be error code with id want_id. */
void		 expect_error(struct pmx *, const char *line, int code,
		    const char *want_id);
/* Send a ping; the very next line must be its reply {}. */
void		 expect_ping_next(struct pmx *);
/* Send a request; its result, which must come (the document in *dp). */
const struct json *request_ok(struct pmx *, const char *method,
		    const char *params, struct json_doc **dp);
/* initialize with version v; the result's protocolVersion (allocated). */
char		*negotiate(struct pmx *, const char *v);
/* The tools array of a tools/list reply (the document in *dp). */
const struct json *list_tools(struct pmx *, struct json_doc **dp);
/* The tool named name in a tools array, or NULL. */
const struct json *find_tool(const struct json *tools, const char *name);
/* Start ["sleep","30"]; its programId (allocated). */
char		*start_sleeper(struct pmx *);
/* Send a read_program with this raw id and timeout (no waiting). */
void		 send_read(struct pmx *, const char *rawid,
		    const char *prog, int timeout);

/* --- bounded waits ----------------------------------------------------- */

/* Wait up to ms until no process has needle in its command line; how
 * many are left then. */
int		 wait_none(const char *needle, int ms);
/* Wait up to ms until at least want processes have needle in their
 * command line; how many there are then. */
int		 wait_some(const char *needle, int want, int ms);
/* Wait up to ms until path is gone (lstat); is it? */
bool		 wait_path_gone(const char *path, int ms);
/* How many of pid's open descriptors fn counts (given each one as the
 * port tells it, pmx_fds, it returns 1 or 0), or -1 if they cannot be
 * read. */
int		 count_fds(pid_t pid, int (*fn)(const struct pmx_fd *));
/* Programs' spools (p<N>.text) in the runtime directories (progmux-*)
 * under dir: how many are there; wait up to ms until there are none
 * (how many are left then). */
int		 count_spools(const char *dir);
int		 wait_spools_gone(const char *dir, int ms);

/* --- programs outliving their front (test_lease, test_death) ----------- */

/* The start_program arguments of a program that prints "line N" every
 * 20 ms, N from 1, with needle in its command line; extra (if not NULL)
 * more fields. */
void		 counter_args(char *buf, size_t size, const char *needle,
		    const char *extra);
/* All the text there is now from cursor from (page after page), and the
 * cursor after it (allocated). */
char		*read_now(struct pmx *, const char *id, int64_t from,
		    int64_t *cursor);
/* The entry of id in a list_programs document, or NULL. */
const struct json *entry_of(const struct json_doc *, const char *id);
/* list_programs, and when it was asked and answered. */
struct json_doc	*list_timed(struct pmx *, int64_t *before, int64_t *after);
/* A list entry's lifetime deadline on the monotonic clock, as a range
 * (the list written between before and after). */
struct deadline {
	int64_t	lo, hi;
};
struct deadline	 deadline_of(const struct json *entry, int64_t before,
		    int64_t after);
/* Fail unless a program's lifetime deadline, listed twice (e1 between
 * b1 and a1, e2 between b2 and a2), is the same. */
void		 assert_deadline_kept(const char *id, const struct json *e1,
		    int64_t b1, int64_t a1, const struct json *e2, int64_t b2,
		    int64_t a2);
/* Wait (bounded) for progmux's stderr to hold needle; does it? */
bool		 stderr_has(struct pmx *, const char *needle);
/* Panes of sessions other than the harness's own "base". */
int		 foreign_panes(struct pmx *);
/* Runtime directories (progmux-*) in c's TMPDIR. */
int		 count_rundirs(const struct pmx *);

/* --- files of the test's own ------------------------------------------- */

/* Write text to path with mode (the file made anew); the test fails if
 * it cannot. */
void		 write_file(const char *path, const char *text, mode_t mode);

/* --- running a suite --------------------------------------------------- */

/* cmocka_run_group_tests_name, with PMX_TEST_FILTER=name running only
 * the matching tests. */
int		 harness_run(const char *name, const struct CMUnitTest *,
		    size_t, CMFixtureFunction, CMFixtureFunction);
#define HARNESS_RUN(name, tests, setup, teardown)			\
	harness_run((name), (tests), sizeof (tests) / sizeof (tests)[0],\
	    (setup), (teardown))

#endif
