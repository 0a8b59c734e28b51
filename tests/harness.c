/*
 * harness.c — what the integration suites share (harness.h): checks on
 * tool results and JSON-RPC replies that fail the running cmocka test
 * with what they saw, the progmux a group shares or a test starts, and
 * waits with bounded deadlines.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "client.h"
#include "harness.h"
#include "procs.h"
#include "timeutil.h"
#include "xmalloc.h"

#define CALL_MS		40000	/* the longest a tools/call takes */
#define POLL_MS		20	/* how often a wait looks again */
#define START_LINE_MS	10000	/* progmux's start line on stderr */

struct pmx	group;
struct buf	*group_kept;

/* --- structuredContent ------------------------------------------------ */

const struct json *
sc_get(const struct json_doc *d, const char *key)
{
	const struct json	*sc = pmx_sc(d);

	if (sc == NULL)
		fail_msg("no structuredContent: %s", pmx_text(d));
	return (json_get(sc, key));
}

const char *
sc_str(const struct json_doc *d, const char *key)
{
	const struct json	*v = sc_get(d, key);

	return (v && json_type(v) == JSON_STRING ? json_str(v, NULL) : NULL);
}

int64_t
sc_int(const struct json_doc *d, const char *key)
{
	const struct json	*v = sc_get(d, key);

	return (v && json_type(v) == JSON_NUMBER ? json_int(v) : -999);
}

const char *
sc_need_str(const struct json_doc *d, const char *key)
{
	const char	*s = sc_str(d, key);

	if (s == NULL)
		fail_msg("no string %s in the result: %s", key, pmx_text(d));
	return (s);
}

bool
sc_bool(const struct json_doc *d, const char *key)
{
	const struct json	*v = sc_get(d, key);

	assert_non_null(v);
	return (json_bool(v));
}

bool
sc_null(const struct json_doc *d, const char *key)
{
	const struct json	*v = sc_get(d, key);

	return (v != NULL && json_type(v) == JSON_NULL);
}

struct json_doc *
sc_call_ok(struct pmx *c, const char *tool, const char *args)
{
	struct json_doc	*d = pmx_call(c, tool, args, CALL_MS);

	if (d == NULL)
		fail_msg("%s %.300s: no valid answer", tool, args);
	if (pmx_is_error(d))
		fail_msg("%s %.300s failed: %s", tool, args, pmx_text(d));
	return (d);
}

struct json_doc *
sc_call_err(struct pmx *c, const char *tool, const char *args)
{
	struct json_doc	*d = pmx_call(c, tool, args, CALL_MS);

	if (d == NULL)
		fail_msg("%s %.300s: no valid answer", tool, args);
	if (!pmx_is_error(d))
		fail_msg("%s %.300s was not refused: %s", tool, args,
		    pmx_text(d));
	return (d);
}

const struct json *
listed(struct pmx *c, const char *id, struct json_doc **dp)
{
	const struct json	*progs, *it;
	size_t			 i;

	*dp = sc_call_ok(c, "list_programs", "{}");
	progs = sc_get(*dp, "programs");
	for (i = 0; i < json_len(progs); i++) {
		it = json_at(progs, i);
		if (strcmp(json_str(json_get(it, "programId"), NULL), id) == 0)
			return (it);
	}
	return (NULL);
}

bool
is_listed(struct pmx *c, const char *id)
{
	struct json_doc	*d;
	bool		 yes;

	yes = listed(c, id, &d) != NULL;
	json_doc_free(d);
	return (yes);
}

/* --- one progmux per group --------------------------------------------- */

int
group_open(const char *const *env)
{
	if (pmx_open(&group, env) == -1) {
		pmx_close(&group);	/* the tmux server may be up */
		return (-1);
	}
	return (0);
}

int
group_setup(void **state)
{
	(void)state;
	return (group_open(NULL));
}

int
group_teardown(void **state)
{
	(void)state;
	return (pmx_close(&group) == 0 ? 0 : -1);
}

struct json_doc *
call_ok(const char *tool, const char *args)
{
	struct json_doc	*d = sc_call_ok(&group, tool, args);

	if (group_kept != NULL) {
		buf_adds(group_kept, pmx_text(d));
		buf_addc(group_kept, '\n');
	}
	return (d);
}

struct json_doc *
rd(const char *id, int64_t cursor, int64_t timeout, const char *extra)
{
	char	args[600];

	snprintf(args, sizeof args, "{\"programId\":\"%s\",\"cursor\":%lld,"
	    "\"timeoutMs\":%lld%s%s}", id, (long long)cursor,
	    (long long)timeout, extra[0] ? "," : "", extra);
	return (call_ok("read_program", args));
}

void
stop(const char *id)
{
	char	args[200];

	snprintf(args, sizeof args, "{\"programId\":\"%s\"}", id);
	json_doc_free(call_ok("stop_program", args));
}

void
refused(const char *tool, const char *args, ...)
{
	struct json_doc	*d = sc_call_err(&group, tool, args);
	const char	*needle, *text = pmx_text(d);
	va_list		 ap;

	va_start(ap, args);
	while ((needle = va_arg(ap, const char *)) != NULL) {
		if (strstr(text, needle) == NULL)
			fail_msg("%s %.300s: the error does not say \"%s\": %s",
			    tool, args, needle, text);
	}
	va_end(ap);
	json_doc_free(d);
}

/* --- programs waiting for input, on the group's progmux --------------- */

#define WAIT_READ_MS	20000	/* a read's timeout, never reached */

char *
fixture_path(const char *name)
{
	const char	*bin = getenv("PROGMUX_BIN"), *slash;
	char		*path;

	if (bin == NULL)
		bin = "build/progmux";
	slash = strrchr(bin, '/');
	xasprintf(&path, "%.*s/fixtures/%s", slash != NULL ?
	    (int)(slash - bin) : 1, slash != NULL ? bin : ".", name);
	return (path);
}

char *
group_start(const char *argv, char **pane)
{
	char	*args, *id;

	xasprintf(&args, "{\"argv\":%s}", argv);
	if ((id = pmx_start_program(&group, args, pane)) == NULL)
		fail_msg("start_program %s failed", args);
	free(args);
	return (id);
}

bool
input_hidden(const struct json_doc *d)
{
	const struct json	*v = sc_get(d, "inputHidden");

	if (v == NULL)
		return (false);
	if (json_type(v) != JSON_BOOL || !json_bool(v))
		fail_msg("inputHidden is there but not true: %s", pmx_text(d));
	return (true);
}

struct json_doc *
rd_until_waiting(const char *id, int64_t *cursor, struct buf *all)
{
	struct json_doc	*d;
	int64_t		 t0 = now_ms();

	for (;;) {
		d = rd(id, *cursor, WAIT_READ_MS, "");
		if (all != NULL)
			buf_adds(all, sc_need_str(d, "text"));
		*cursor = sc_int(d, "cursor");
		if (sc_bool(d, "waitingForInput"))
			return (d);
		if (sc_bool(d, "ended") || now_ms() - t0 > 3 * WAIT_READ_MS)
			fail_msg("%s never waited for input: %s", id,
			    pmx_text(d));
		json_doc_free(d);
	}
}

struct json_doc *
rd_waiting_now(const char *id, int64_t cursor)
{
	struct json_doc	*d;
	int64_t		 t0 = now_ms();

	for (;;) {
		d = rd(id, cursor, 1000, "");
		if (sc_bool(d, "waitingForInput"))
			return (d);
		if (sc_bool(d, "ended") || now_ms() - t0 > 3 * WAIT_READ_MS)
			fail_msg("%s does not wait: %s", id, pmx_text(d));
		json_doc_free(d);
	}
}

void
rd_until_line(const char *id, int64_t *cursor, const char *want)
{
	struct json_doc	*d;
	int64_t		 t0 = now_ms();
	bool		 found;

	for (;;) {
		d = rd(id, *cursor, WAIT_READ_MS, "");
		*cursor = sc_int(d, "cursor");
		found = strstr(sc_need_str(d, "text"), want) != NULL;
		if (!found && (sc_bool(d, "ended") ||
		    now_ms() - t0 > 3 * WAIT_READ_MS))
			fail_msg("%s: no line \"%s\": %s", id, want,
			    pmx_text(d));
		json_doc_free(d);
		if (found)
			return;
	}
}

/* --- one progmux per test ---------------------------------------------- */

void
open_mode(struct pmx *c, bool robust, const char *const *env)
{
	const char	*e[8];
	int		 n = 0;

	if (!robust) {
		assert_int_equal(pmx_open(c, env), 0);
		return;
	}
	e[n++] = "PROGMUX_ROBUST=1";
	for (; env != NULL && *env != NULL; env++) {
		if (n == 7)
			fail_msg("open_mode: more than 6 variables");
		e[n++] = *env;
	}
	e[n] = NULL;
	assert_int_equal(pmx_open_no_tmux(c, e), 0);
}

char *
socket_of(struct pmx *c)
{
	char	*sock = pmx_start_field(c, "socket", START_LINE_MS);

	assert_non_null(sock);
	return (sock);
}

char *
rundir_of(struct pmx *c)
{
	char	*dir;

	dir = pmx_start_field(c, "runtime directory", START_LINE_MS);
	assert_non_null(dir);
	return (dir);
}

int
rpc_setup(void **state)
{
	struct pmx	*c = xcalloc(1, sizeof *c);

	if (pmx_open(c, NULL) == -1) {
		fprintf(stderr, "could not start progmux\n");
		pmx_close(c);	/* the tmux server may be up */
		free(c);
		return (-1);
	}
	*state = c;
	return (0);
}

int
rpc_teardown(void **state)
{
	struct pmx	*c = *state;
	struct json_doc	*d;

	while ((d = pmx_next(c, 0)) != NULL)
		json_doc_free(d);
	pmx_close(c);
	free(c);
	return (0);
}

/* --- JSON-RPC lines ---------------------------------------------------- */

void
send_line(struct pmx *c, const char *s)
{
	pmx_send_raw(c, s, strlen(s));
}

struct json_doc *
next_line(struct pmx *c)
{
	struct json_doc	*d = pmx_next(c, REPLY_MS);

	if (d == NULL)
		fail_msg("no reply within %d ms", REPLY_MS);
	return (d);
}

void
assert_envelope(const struct json_doc *d)
{
	const struct json	*root = json_root(d), *jv;
	bool			 res, err;

	assert_int_equal(json_type(root), JSON_OBJECT);
	jv = json_get(root, "jsonrpc");
	assert_non_null(jv);
	assert_int_equal(json_type(jv), JSON_STRING);
	assert_string_equal(json_str(jv, NULL), "2.0");
	res = json_get(root, "result") != NULL;
	err = json_get(root, "error") != NULL;
	assert_true(res != err);
}

char *
id_raw(const struct json_doc *d)
{
	const struct json	*id = json_get(json_root(d), "id");
	const char		*raw;
	size_t			 len;

	if (id == NULL)
		return (NULL);
	raw = json_raw(id, &len);
	return (xstrndup(raw, len));
}

void
assert_error(const struct json_doc *d, int code, const char *want_id)
{
	const struct json	*e, *cd, *m;
	char			*got;

	assert_envelope(d);
	e = json_get(json_root(d), "error");
	if (e == NULL)
		fail_msg("expected error %d, got a result", code);
	cd = json_get(e, "code");
	assert_non_null(cd);
	assert_true(json_is_int(cd));
	if (json_int(cd) != code)
		fail_msg("expected error %d, got %lld (%s)", code,
		    (long long)json_int(cd), json_str(json_get(e, "message"),
		    NULL));
	m = json_get(e, "message");
	assert_non_null(m);
	assert_int_equal(json_type(m), JSON_STRING);
	got = id_raw(d);
	if (want_id == NULL)
		want_id = "null";
	if (got == NULL)
		fail_msg("error %d has no id member, expected %s", code,
		    want_id);
	assert_string_equal(got, want_id);
	free(got);
}

void
expect_error(struct pmx *c, const char *line, int code, const char *want_id)
{
	struct json_doc	*d;

	send_line(c, line);
	d = next_line(c);
	assert_error(d, code, want_id);
	json_doc_free(d);
}

void
expect_ping_next(struct pmx *c)
{
	struct json_doc		*d;
	const struct json	*r, *id;
	int64_t			 n;

	n = pmx_send(c, "ping", NULL);
	d = next_line(c);
	assert_envelope(d);
	id = json_get(json_root(d), "id");
	if (id == NULL || !json_is_int(id) || json_int(id) != n)
		fail_msg("the line after the ping is not its reply");
	r = json_get(json_root(d), "result");
	assert_non_null(r);
	assert_int_equal(json_type(r), JSON_OBJECT);
	assert_int_equal(json_len(r), 0);
	json_doc_free(d);
}

const struct json *
request_ok(struct pmx *c, const char *method, const char *params,
    struct json_doc **dp)
{
	const struct json	*r;
	int64_t			 id;

	id = pmx_send(c, method, params);
	if ((*dp = pmx_wait(c, id, REPLY_MS)) == NULL)
		fail_msg("%s: no reply", method);
	assert_envelope(*dp);
	if ((r = json_get(json_root(*dp), "result")) == NULL)
		fail_msg("%s: error reply", method);
	return (r);
}

char *
negotiate(struct pmx *c, const char *v)
{
	struct json_doc		*d;
	const struct json	*r, *pv;
	char			 params[256];
	char			*got;

	snprintf(params, sizeof params, "{\"protocolVersion\":\"%s\","
	    "\"capabilities\":{},\"clientInfo\":{\"name\":\"t\","
	    "\"version\":\"1\"}}", v);
	r = request_ok(c, "initialize", params, &d);
	pv = json_get(r, "protocolVersion");
	assert_non_null(pv);
	assert_int_equal(json_type(pv), JSON_STRING);
	got = xstrdup(json_str(pv, NULL));
	json_doc_free(d);
	return (got);
}

const struct json *
list_tools(struct pmx *c, struct json_doc **dp)
{
	const struct json	*r, *tools;

	r = request_ok(c, "tools/list", NULL, dp);
	tools = json_get(r, "tools");
	assert_non_null(tools);
	assert_int_equal(json_type(tools), JSON_ARRAY);
	assert_null(json_get(r, "nextCursor"));
	return (tools);
}

const struct json *
find_tool(const struct json *tools, const char *name)
{
	const struct json	*t, *n;
	size_t			 i;

	for (i = 0; i < json_len(tools); i++) {
		t = json_at(tools, i);
		n = json_get(t, "name");
		if (n != NULL && json_type(n) == JSON_STRING &&
		    strcmp(json_str(n, NULL), name) == 0)
			return (t);
	}
	return (NULL);
}

char *
start_sleeper(struct pmx *c)
{
	char	*id;

	id = pmx_start_program(c, "{\"argv\":[\"sleep\",\"30\"]}", NULL);
	if (id == NULL)
		fail_msg("start_program sleep 30 failed");
	return (id);
}

void
send_read(struct pmx *c, const char *rawid, const char *prog, int timeout)
{
	char	line[512];

	snprintf(line, sizeof line, "{\"jsonrpc\":\"2.0\",\"id\":%s,\"method\":"
	    "\"tools/call\",\"params\":{\"name\":\"read_program\","
	    "\"arguments\":{\"programId\":\"%s\",\"cursor\":0,"
	    "\"timeoutMs\":%d}}}", rawid, prog, timeout);
	send_line(c, line);
}

/* --- bounded waits ----------------------------------------------------- */

int
wait_none(const char *needle, int ms)
{
	int64_t	deadline = now_ms() + ms;
	int	n;

	while ((n = pmx_count_procs(needle)) > 0 && now_ms() < deadline)
		poll(NULL, 0, POLL_MS);
	return (n);
}

int
wait_some(const char *needle, int want, int ms)
{
	int64_t	deadline = now_ms() + ms;
	int	n;

	while ((n = pmx_count_procs(needle)) < want && now_ms() < deadline)
		poll(NULL, 0, POLL_MS);
	return (n);
}

bool
wait_path_gone(const char *path, int ms)
{
	int64_t		deadline = now_ms() + ms;
	struct stat	st;

	while (lstat(path, &st) == 0 && now_ms() < deadline)
		poll(NULL, 0, POLL_MS);
	return (lstat(path, &st) == -1);
}

int
count_fds(pid_t pid, int (*fn)(const struct pmx_fd *))
{
	struct pmx_fd	fds[512];
	int		n, i, count = 0;

	if ((n = pmx_fds(pid, fds, 512)) == -1)
		return (-1);
	for (i = 0; i < n; i++)
		count += fn(&fds[i]);
	return (count);
}

/* Is name p<N>.text? */
static bool
is_spool_name(const char *name)
{
	const char	*p = name + 1;

	if (name[0] != 'p' || *p < '0' || *p > '9')
		return (false);
	while (*p >= '0' && *p <= '9')
		p++;
	return (strcmp(p, ".text") == 0);
}

int
count_spools(const char *dir)
{
	DIR		*d, *rd;
	struct dirent	*de, *re;
	char		 path[PATH_MAX];
	int		 n = 0;

	if ((d = opendir(dir)) == NULL)
		return (0);
	while ((de = readdir(d)) != NULL) {
		if (strncmp(de->d_name, "progmux-", 8) != 0)
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
		if ((rd = opendir(path)) == NULL)
			continue;
		while ((re = readdir(rd)) != NULL)
			if (is_spool_name(re->d_name))
				n++;
		closedir(rd);
	}
	closedir(d);
	return (n);
}

int
wait_spools_gone(const char *dir, int ms)
{
	int64_t	deadline = now_ms() + ms;
	int	n;

	while ((n = count_spools(dir)) > 0 && now_ms() < deadline)
		poll(NULL, 0, POLL_MS);
	return (n);
}

/* --- programs outliving their front ----------------------------------- */

void
counter_args(char *buf, size_t size, const char *needle, const char *extra)
{
	snprintf(buf, size, "{\"argv\":[\"sh\",\"-c\",\"i=0; while :; do "
	    "i=$((i+1)); echo line $i; sleep 0.02; done; : %s\"]%s%s}",
	    needle, extra != NULL ? "," : "", extra != NULL ? extra : "");
}

char *
read_now(struct pmx *c, const char *id, int64_t from, int64_t *cursor)
{
	struct json_doc	*d;
	struct buf	 all = BUF_INIT;
	char		 args[200];
	const char	*t;
	bool		 none;

	do {
		snprintf(args, sizeof args, "{\"programId\":\"%s\",\"cursor\":"
		    "%lld,\"timeoutMs\":0}", id, (long long)from);
		d = sc_call_ok(c, "read_program", args);
		t = sc_need_str(d, "text");
		buf_adds(&all, t);
		none = *t == '\0';
		from = sc_int(d, "cursor");
		json_doc_free(d);
	} while (!none);
	*cursor = from;
	return (buf_cstr(&all));
}

const struct json *
entry_of(const struct json_doc *d, const char *id)
{
	const struct json	*progs = sc_get(d, "programs"), *it;
	size_t			 i;

	for (i = 0; i < json_len(progs); i++) {
		it = json_at(progs, i);
		if (strcmp(json_str(json_get(it, "programId"), NULL), id) == 0)
			return (it);
	}
	return (NULL);
}

struct json_doc *
list_timed(struct pmx *c, int64_t *before, int64_t *after)
{
	struct json_doc	*d;

	*before = now_ms();
	d = sc_call_ok(c, "list_programs", "{}");
	*after = now_ms();
	return (d);
}

/* When the program of a list entry ends, from lifetimeLeftMs as read
 * between before and after (a window, on our clock). */
struct deadline
deadline_of(const struct json *entry, int64_t before, int64_t after)
{
	int64_t		 left;
	struct deadline	 d;

	left = json_int(json_get(entry, "lifetimeLeftMs"));
	d.lo = before + left - 1;
	d.hi = after + left + 1;
	return (d);
}

/* The program id's deadline, read twice (e1 then e2, each between its
 * before and after), must be the same: the two windows overlap. */
void
assert_deadline_kept(const char *id, const struct json *e1, int64_t b1,
    int64_t a1, const struct json *e2, int64_t b2, int64_t a2)
{
	struct deadline	d1, d2;

	d1 = deadline_of(e1, b1, a1);
	d2 = deadline_of(e2, b2, a2);
	if (d1.hi < d2.lo || d2.hi < d1.lo)
		fail_msg("%s: its deadline moved: [%lld, %lld] then [%lld, "
		    "%lld]", id, (long long)d1.lo, (long long)d1.hi,
		    (long long)d2.lo, (long long)d2.hi);
}

bool
stderr_has(struct pmx *c, const char *needle)
{
	int64_t	deadline = now_ms() + 10000;	/* a shared machine */

	for (;;) {
		pmx_drain_err(c);
		if (c->errlog.len > 0 && memmem(c->errlog.data, c->errlog.len,
		    needle, strlen(needle)) != NULL)
			return (true);
		if (now_ms() > deadline)
			return (false);
		poll(NULL, 0, POLL_MS);
	}
}

int
foreign_panes(struct pmx *c)
{
	char	*out, *p, *save;
	int	 n = 0;

	if ((out = pmx_tmux(c, "list-panes", "-a", "-F", "#{session_name}",
	    NULL)) == NULL)
		return (0);
	for (p = strtok_r(out, "\n", &save); p != NULL;
	    p = strtok_r(NULL, "\n", &save))
		if (strcmp(p, "base") != 0)
			n++;
	free(out);
	return (n);
}

int
count_rundirs(const struct pmx *c)
{
	struct dirent	*de;
	DIR		*d;
	int		 n = 0;

	if ((d = opendir(c->dir)) == NULL)
		return (0);
	while ((de = readdir(d)) != NULL)
		if (strncmp(de->d_name, "progmux-", 8) == 0)
			n++;
	closedir(d);
	return (n);
}

/* --- files of the test's own ------------------------------------------- */

void
write_file(const char *path, const char *text, mode_t mode)
{
	int	fd;

	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
	assert_true(fd != -1);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

/* --- running a suite --------------------------------------------------- */

int
harness_run(const char *name, const struct CMUnitTest *tests, size_t n,
    CMFixtureFunction setup, CMFixtureFunction teardown)
{
	if (getenv("PMX_TEST_FILTER") != NULL)
		cmocka_set_test_filter(getenv("PMX_TEST_FILTER"));
	return (_cmocka_run_group_tests(name, tests, n, setup, teardown));
}
