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
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#include <dirent.h>
#include <errno.h>
#include <ifaddrs.h>
#include <poll.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "client.h"
#include "needs.h"
#include "harness.h"
#include "timeutil.h"
#include "xmalloc.h"

#define LONG_MS		20000	/* a read's timeout, never reached */

static char		fixture[4096];	/* the getpass program */
static char		rtdir[256];	/* progmux's XDG_RUNTIME_DIR */
static bool		has_tool;	/* ask_user_secret is listed */
static struct buf	replies;	/* every reply's text, to search */

/* The group's progmux, with its runtime directory where the test can
 * search it and every level of its log on stderr. */
static int
secret_setup(void **state)
{
	const char	*bin = getenv("PROGMUX_BIN");
	const char	*slash;

	(void)state;
	if (bin == NULL)
		bin = "build/progmux";
	slash = strrchr(bin, '/');
	snprintf(fixture, sizeof fixture, "%.*s/fixtures/getpass",
	    slash != NULL ? (int)(slash - bin) : 1, slash != NULL ? bin : ".");
	static char	 envs[2][300];
	const char	*env[3];
	struct json_doc		*d;
	const struct json	*tools;
	int64_t			 id;
	size_t			 i;

	if (access(fixture, X_OK) != 0) {
		fprintf(stderr, "no %s: make integration builds it\n", fixture);
		return (-1);
	}
	/* Its runtime directory where the test can search it; every level
	 * of its log on stderr. The page expires quickly only in the test
	 * that sets PMX_SECRET_EXPIRY (see test_expired). */
	snprintf(rtdir, sizeof rtdir, "/tmp/progmux-secret-%ld-XXXXXX",
	    (long)getpid());
	if (mkdtemp(rtdir) == NULL)
		return (-1);
	snprintf(envs[0], sizeof envs[0], "XDG_RUNTIME_DIR=%s", rtdir);
	snprintf(envs[1], sizeof envs[1], "PROGMUX_DEBUG=1");
	env[0] = envs[0];
	env[1] = envs[1];
	env[2] = NULL;
	if (group_open(env) != 0)
		return (-1);
	id = pmx_send(&group, "tools/list", "{}");
	if ((d = pmx_wait(&group, id, 10000)) == NULL)
		return (-1);
	tools = json_get(json_get(json_root(d), "result"), "tools");
	for (i = 0; tools != NULL && i < json_len(tools); i++)
		if (strcmp(json_str(json_get(json_at(tools, i), "name"), NULL),
		    "ask_user_secret") == 0)
			has_tool = true;
	json_doc_free(d);
	return (0);
}

static int
secret_teardown(void **state)
{
	char	*argv[] = { "rm", "-rf", rtdir, NULL };
	int	 st, r;

	r = group_teardown(state);
	free(pmx_run_capture(argv, &st));
	buf_free(&replies);
	return (r);
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


/* Read on until a read says it waits for input (bounded); that read. */
static struct json_doc *
until_waiting(const char *id, int64_t *cursor)
{
	struct json_doc	*d;
	int64_t		 t0 = now_ms();

	for (;;) {
		d = rd(id, *cursor, LONG_MS, "");
		*cursor = sc_int(d, "cursor");
		if (sc_bool(d, "waitingForInput"))
			return (d);
		if (sc_bool(d, "ended") || now_ms() - t0 > 3 * LONG_MS)
			fail_msg("%s never waited for input: %s", id,
			    pmx_text(d));
		json_doc_free(d);
	}
}

static struct json_doc *call_kept(const char *, const char *);
static void	got_line(const char *, int64_t *, const char *);

/* Read from cursor, 1 s at a time, until it says it waits for input
 * (bounded): that read. Not until_waiting: the episode may have been
 * told already, and a read would then wait its whole timeout. */
static struct json_doc *
waits_now(const char *id, int64_t cursor)
{
	struct json_doc	*d;
	char		 args[200];
	int64_t		 t0 = now_ms();

	for (;;) {
		snprintf(args, sizeof args, "{\"programId\":\"%s\","
		    "\"cursor\":%lld,\"timeoutMs\":1000}", id,
		    (long long)cursor);
		d = call_kept("read_program", args);
		if (sc_bool(d, "waitingForInput"))
			return (d);
		if (sc_bool(d, "ended") || now_ms() - t0 > 3 * LONG_MS)
			fail_msg("%s does not wait: %s", id, pmx_text(d));
		json_doc_free(d);
	}
}


/* Start argv (a JSON array); its id, its pane in *pane. */
static char *
start(const char *argv, char **pane)
{
	char	*args, *id;

	xasprintf(&args, "{\"argv\":%s}", argv);
	if ((id = pmx_start_program(&group, args, pane)) == NULL)
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

	d = sc_call_ok(&group, "list_programs", "{}");
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
	d = sc_call_ok(&group, "send_keys", args);
	free(args);
	cursor = sc_int(d, "cursor");
	/* Its reply at the next prompt says hidden input (where the port
	 * cannot tell, the prompt may be seen before the answer's line). */
	if (strstr(pmx_text(d), "read 12 characters") == NULL)
		got_line(id, &cursor, "read 12 characters");
	else if (sc_bool(d, "waitingForInput"))
		assert_true(hidden(d));
	json_doc_free(d);
	d = waits_now(id, cursor);
	assert_true(hidden(d));
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
	d = sc_call_ok(&group, "run_program", args);
	assert_true(sc_bool(d, "waitingForInput"));
	assert_true(hidden(d));
	says_hidden(d, "Password: ");
	stop(sc_need_str(d, "programId"));
	json_doc_free(d);
	free(args);
	free(argv);
}

/* --- ask_user_secret and its page ------------------------------------ */

#define SECRET	"s3cr3t-P4ss w/ $ign;'q\"u~#%"	/* typed by the "person" */

/* FNV-1a of s, as the getpass program prints it. */
static void
fnv(const char *s, char out[17])
{
	uint64_t	h = 14695981039346656037ULL;

	for (; *s != '\0'; s++) {
		h ^= (unsigned char)*s;
		h *= 1099511628211ULL;
	}
	snprintf(out, 17, "%016llx", (unsigned long long)h);
}

/* A call whose every reply text is kept, to be searched for the secret. */
static struct json_doc *
call_kept(const char *tool, const char *args)
{
	struct json_doc	*d = sc_call_ok(&group, tool, args);

	buf_adds(&replies, pmx_text(d));
	buf_addc(&replies, '\n');
	return (d);
}

struct url {
	char		host[64];	/* "127.0.0.1:PORT" */
	unsigned	port;
	char		path[200];
};

static void
url_parse(const char *u, struct url *out)
{
	const char	*h = u + strlen("http://"), *sl = NULL;

	if (strncmp(u, "http://127.0.0.1:", 17) != 0 ||
	    (sl = strchr(h, '/')) == NULL) {
		fail_msg("not a page on 127.0.0.1: %s", u);
		return;
	}
	snprintf(out->host, sizeof out->host, "%.*s", (int)(sl - h), h);
	out->port = (unsigned)atoi(h + 10);
	snprintf(out->path, sizeof out->path, "%s", sl);
}

/*
 * One HTTP request to addr:port (Connection: close); its status, or -1
 * when the connection was refused. The whole answer (headers and body)
 * in *resp.
 */
static int
http(const char *addr, unsigned port, const char *method, const char *path,
    const char *host, const char *origin, const char *body, struct buf *resp)
{
	struct sockaddr_in	sin;
	struct timeval		tv = { 10, 0 };
	struct buf		q = BUF_INIT;
	char			chunk[4096];
	ssize_t			n;
	int			fd, status = 0;

	buf_reset(resp);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(fd != -1);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
	memset(&sin, 0, sizeof sin);
	sin.sin_family = AF_INET;
	sin.sin_port = htons((uint16_t)port);
	inet_pton(AF_INET, addr, &sin.sin_addr);
	if (connect(fd, (struct sockaddr *)&sin, sizeof sin) == -1) {
		close(fd);
		return (-1);
	}
	buf_printf(&q, "%s %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n",
	    method, path, host);
	if (origin != NULL)
		buf_printf(&q, "Origin: %s\r\n", origin);
	if (body != NULL)
		buf_printf(&q, "Content-Type: application/x-www-form-urlencoded"
		    "\r\nContent-Length: %zu\r\n", strlen(body));
	buf_printf(&q, "\r\n%s", body != NULL ? body : "");
	if (write(fd, q.data, q.len) != (ssize_t)q.len) {
		close(fd);
		buf_free(&q);
		return (-1);
	}
	buf_free(&q);
	while ((n = read(fd, chunk, sizeof chunk)) > 0)
		buf_add(resp, chunk, (size_t)n);
	close(fd);
	if (resp->len == 0)
		return (-1);	/* closed without an answer */
	sscanf(buf_cstr(resp), "HTTP/1.%*d %d", &status);
	return (status);
}

/* The form's body for secret s: form-urlencoded. */
static char *
form(const char *s)
{
	struct buf	 b = BUF_INIT;
	char		*out;

	buf_adds(&b, "secret=");
	for (; *s != '\0'; s++) {
		if ((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') ||
		    (*s >= '0' && *s <= '9') || strchr("-_.~", *s) != NULL)
			buf_addc(&b, *s);
		else if (*s == ' ')
			buf_addc(&b, '+');
		else
			buf_printf(&b, "%%%02X", (unsigned char)*s);
	}
	out = xstrdup(buf_cstr(&b));
	buf_free(&b);
	return (out);
}

/* Is needle anywhere under dir (regular files, read whole)? */
static bool
in_tree(const char *dir, const char *needle)
{
	DIR		*d;
	struct dirent	*e;
	struct stat	 st;
	char		 path[1024], *text;
	size_t		 len;
	bool		 found = false;

	if ((d = opendir(dir)) == NULL)
		return (false);
	while (!found && (e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		if (lstat(path, &st) == -1)
			continue;
		if (S_ISDIR(st.st_mode))
			found = in_tree(path, needle);
		else if (S_ISREG(st.st_mode) &&
		    (text = pmx_read_file(path, &len)) != NULL) {
			found = memmem(text, len, needle, strlen(needle)) !=
			    NULL;
			free(text);
		}
	}
	closedir(d);
	return (found);
}

/* The secret is nowhere: not in any reply, progmux's stderr (its debug
 * log), its runtime directory, the pane's history in tmux. */
static void
no_trace(const char *pane)
{
	char	*hist;

	if (memmem(replies.data, replies.len, SECRET, strlen(SECRET)) != NULL)
		fail_msg("the secret is in a reply");
	pmx_drain_err(&group);
	if (group.errlog.len > 0 && memmem(group.errlog.data, group.errlog.len, SECRET,
	    strlen(SECRET)) != NULL)
		fail_msg("the secret is in progmux's stderr");
	if (in_tree(rtdir, SECRET))
		fail_msg("the secret is in the runtime directory");
	if (pane != NULL) {
		hist = pmx_tmux(&group, "capture-pane", "-p", "-S", "-", "-t",
		    pane, (char *)NULL);
		assert_non_null(hist);
		if (strstr(hist, SECRET) != NULL)
			fail_msg("the secret is in the pane's history");
		free(hist);
	}
}

/* Start the getpass program asking times times, waiting at its hidden
 * prompt; its id, pane, cursor. */
static char *
start_getpass(int times, char **pane, int64_t *cursor)
{
	struct json_doc	*d;
	char		*args, *argv, *id;

	argv = pmx_jstr(fixture);
	xasprintf(&args, "[%s,\"Vault passphrase: \",\"%d\"]", argv, times);
	id = start(args, pane);
	free(args);
	free(argv);
	*cursor = 0;
	d = until_waiting(id, cursor);
	assert_true(hidden(d));
	json_doc_free(d);
	return (id);
}

/* ask_user_secret on a client without URL elicitation: the address is
 * in the result, for the person; the model is told not to open it. */
static char *
ask(const char *id, struct url *u)
{
	struct json_doc	*d;
	char		 args[200], *url;

	snprintf(args, sizeof args, "{\"programId\":\"%s\"}", id);
	d = call_kept("ask_user_secret", args);
	assert_false(sc_bool(d, "typed"));
	url = xstrdup(sc_need_str(d, "urlForUser"));
	assert_non_null(strstr(pmx_text(d), "must not open"));
	assert_non_null(strstr(pmx_text(d), url));
	url_parse(url, u);
	json_doc_free(d);
	return (url);
}

/* Read on (replies kept) until a line holding want came; bounded. */
static void
got_line(const char *id, int64_t *cursor, const char *want)
{
	struct json_doc	*d;
	char		 args[200];
	int64_t		 t0 = now_ms();
	bool		 found;

	for (;;) {
		snprintf(args, sizeof args, "{\"programId\":\"%s\","
		    "\"cursor\":%lld,\"timeoutMs\":%d}", id, (long long)*cursor,
		    LONG_MS);
		d = call_kept("read_program", args);
		*cursor = sc_int(d, "cursor");
		found = strstr(sc_need_str(d, "text"), want) != NULL;
		if (!found && (sc_bool(d, "ended") ||
		    now_ms() - t0 > 3 * LONG_MS))
			fail_msg("no line \"%s\": %s", want, pmx_text(d));
		json_doc_free(d);
		if (found)
			return;
	}
}

/*
 * The page, as a browser would use it: the form (its headers: no-store,
 * a CSP that loads nothing; the prompt shown), the secret posted from
 * the page's own origin; the program gets it (its hash), its text and
 * every reply lack it; a second submission is refused and types nothing.
 */
static void
test_page(void **state)
{
	struct url	 u;
	struct buf	 r = BUF_INIT;
	struct json_doc	*d;
	char		*id, *pane, *url, *body, want[80], hash[17];
	char		 origin[100];
	int64_t		 cursor;
	int		 st;

	(void)state;
	if (!has_tool)
		skip();
	id = start_getpass(2, &pane, &cursor);
	url = ask(id, &u);
	snprintf(origin, sizeof origin, "http://%s", u.host);

	st = http("127.0.0.1", u.port, "GET", u.path, u.host, NULL, NULL, &r);
	assert_int_equal(st, 200);
	assert_non_null(strcasestr(buf_cstr(&r), "Cache-Control: no-store"));
	assert_non_null(strcasestr(buf_cstr(&r),
	    "Content-Security-Policy: default-src 'none'"));
	assert_non_null(strstr(buf_cstr(&r), "Vault passphrase:"));
	assert_non_null(strstr(buf_cstr(&r), "type=password"));
	assert_null(strstr(buf_cstr(&r), "src="));
	assert_null(strstr(buf_cstr(&r), "href="));

	body = form(SECRET);
	st = http("127.0.0.1", u.port, "POST", u.path, u.host, origin, body,
	    &r);
	assert_int_equal(st, 200);
	assert_non_null(strstr(buf_cstr(&r), "typed into the program"));

	/* The program read exactly the secret. */
	fnv(SECRET, hash);
	snprintf(want, sizeof want, "read %zu characters, hash %s",
	    strlen(SECRET), hash);
	got_line(id, &cursor, want);

	/* Asked again (its second prompt): nothing more is taken. */
	st = http("127.0.0.1", u.port, "POST", u.path, u.host, origin, body,
	    &r);
	assert_true(st == 410 || st == -1);
	d = waits_now(id, cursor);
	assert_null(strstr(pmx_text(d), "read "));
	assert_true(hidden(d));
	json_doc_free(d);
	no_trace(pane);
	stop(id);
	free(body);
	free(url);
	free(id);
	free(pane);
	buf_free(&r);
}

/* The first non-loopback IPv4 address of this machine, or false. */
static bool
other_address(char *out, size_t len)
{
	struct ifaddrs	*ifs, *i;
	bool		 found = false;

	if (getifaddrs(&ifs) == -1)
		return (false);
	for (i = ifs; i != NULL && !found; i = i->ifa_next) {
		if (i->ifa_addr == NULL || i->ifa_addr->sa_family != AF_INET)
			continue;
		if ((ntohl(((struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr)
		    >> 24) == 127)
			continue;
		inet_ntop(AF_INET, &((struct sockaddr_in *)i->ifa_addr)->sin_addr,
		    out, (socklen_t)len);
		found = true;
	}
	freeifaddrs(ifs);
	return (found);
}

/* Nothing was typed: the program still waits at its hidden prompt with
 * nothing read. */
static void
still_waiting(const char *id, int64_t cursor)
{
	struct json_doc	*d;
	char		 args[200];

	snprintf(args, sizeof args, "{\"programId\":\"%s\",\"cursor\":%lld,\"timeoutMs\":0}",
	    id, (long long)cursor);
	d = call_kept("read_program", args);
	assert_null(strstr(pmx_text(d), "read "));
	assert_true(sc_bool(d, "waitingForInput"));
	json_doc_free(d);
}

/*
 * Refused, and nothing typed: a wrong token, another Host (a DNS
 * rebinding page), a POST from another origin or with none, the page's
 * port on a non-loopback address of the machine. Then the right one is
 * taken.
 */
static void
test_refusals(void **state)
{
	struct url	 u;
	struct buf	 r = BUF_INIT;
	char		*id, *pane, *url, *body, bad[300], origin[100];
	char		 addr[64], hash[17], want[80];
	int64_t		 cursor;

	(void)state;
	if (!has_tool)
		skip();
	id = start_getpass(1, &pane, &cursor);
	url = ask(id, &u);
	snprintf(origin, sizeof origin, "http://%s", u.host);
	body = form(SECRET);

	snprintf(bad, sizeof bad, "/s/%064d", 0);
	assert_int_equal(http("127.0.0.1", u.port, "GET", bad, u.host, NULL,
	    NULL, &r), 404);
	assert_int_equal(http("127.0.0.1", u.port, "POST", bad, u.host,
	    origin, body, &r), 404);
	snprintf(bad, sizeof bad, "%.*s", (int)strlen(u.path) - 1, u.path);
	assert_int_equal(http("127.0.0.1", u.port, "POST", bad, u.host,
	    origin, body, &r), 404);
	snprintf(bad, sizeof bad, "localhost:%u", u.port);
	assert_int_equal(http("127.0.0.1", u.port, "GET", u.path, bad, NULL,
	    NULL, &r), 403);
	assert_int_equal(http("127.0.0.1", u.port, "POST", u.path,
	    "evil.example", "http://evil.example", body, &r), 403);
	assert_int_equal(http("127.0.0.1", u.port, "POST", u.path, u.host,
	    "http://evil.example", body, &r), 403);
	assert_int_equal(http("127.0.0.1", u.port, "POST", u.path, u.host,
	    "null", body, &r), 403);
	assert_int_equal(http("127.0.0.1", u.port, "POST", u.path, u.host,
	    NULL, body, &r), 403);
	assert_int_equal(http("127.0.0.1", u.port, "PUT", u.path, u.host,
	    origin, body, &r), 405);
	if (other_address(addr, sizeof addr))
		assert_int_equal(http(addr, u.port, "GET", u.path, u.host,
		    NULL, NULL, &r), -1);
	else
		fprintf(stderr, "test_refusals: no non-loopback address to "
		    "try\n");
	still_waiting(id, cursor);

	assert_int_equal(http("127.0.0.1", u.port, "POST", u.path, u.host,
	    origin, body, &r), 200);
	fnv(SECRET, hash);
	snprintf(want, sizeof want, "read %zu characters, hash %s",
	    strlen(SECRET), hash);
	got_line(id, &cursor, want);
	no_trace(NULL);
	free(body);
	free(url);
	free(id);
	free(pane);
	buf_free(&r);
}

/*
 * A program that turned echo back on before the secret came gets
 * nothing: it asks a PIN with echo off (answered here with send_keys:
 * a test value, not the secret), then a name with echo on; the page's
 * secret, sent then, is not typed, and the page says why.
 */
static void
test_echo_back_on(void **state)
{
	struct url	 u;
	struct buf	 r = BUF_INIT;
	struct json_doc	*d;
	char		*id, *pane, *url, *body, origin[100], args[300];
	int64_t		 cursor = 0;

	(void)state;
	if (!has_tool)
		skip();
	id = start("[\"sh\",\"-c\",\"stty -echo; printf 'PIN: '; read -r p; "
	    "stty echo; echo; printf 'Name: '; read -r n; echo name=${#n}\"]",
	    &pane);
	d = until_waiting(id, &cursor);
	assert_true(hidden(d));
	json_doc_free(d);
	url = ask(id, &u);
	snprintf(args, sizeof args, "{\"paneId\":\"%s\",\"keys\":\"1234\","
	    "\"timeoutMs\":%d}", pane, LONG_MS);
	d = call_kept("send_keys", args);
	cursor = sc_int(d, "cursor");
	if (!sc_bool(d, "waitingForInput")) {
		json_doc_free(d);
		d = until_waiting(id, &cursor);
	}
	assert_false(hidden(d));
	json_doc_free(d);

	snprintf(origin, sizeof origin, "http://%s", u.host);
	body = form(SECRET);
	assert_int_equal(http("127.0.0.1", u.port, "POST", u.path, u.host,
	    origin, body, &r), 409);
	assert_non_null(strstr(buf_cstr(&r), "echo"));
	snprintf(args, sizeof args, "{\"programId\":\"%s\",\"cursor\":%lld,\"timeoutMs\":0}",
	    id, (long long)cursor);
	d = call_kept("read_program", args);
	assert_null(strstr(pmx_text(d), "name="));
	assert_true(sc_bool(d, "waitingForInput"));
	json_doc_free(d);
	no_trace(pane);
	stop(id);
	free(body);
	free(url);
	free(id);
	free(pane);
	buf_free(&r);
}

/*
 * An expired page takes nothing: a progmux whose pages last 1 ms; the
 * page's port is closed once it expired (waited for, bounded), and the
 * program was given nothing.
 */
static void
test_expired(void **state)
{
	struct pmx	 E;
	struct url	 u;
	struct buf	 r = BUF_INIT;
	struct json_doc	*d;
	const char	*env[] = { "PROGMUX_SECRET_PAGE_MS=1", NULL };
	char		*id, *pane, *argv, *args, *body, origin[100];
	int64_t		 cursor = 0, t0;
	int		 st;

	(void)state;
	if (!has_tool)
		skip();
	assert_int_equal(pmx_open(&E, env), 0);
	argv = pmx_jstr(fixture);
	xasprintf(&args, "{\"argv\":[%s]}", argv);
	id = pmx_start_program(&E, args, &pane);
	assert_non_null(id);
	free(args);
	free(argv);
	for (t0 = now_ms();;) {
		xasprintf(&args, "{\"programId\":\"%s\",\"cursor\":%lld,"
		    "\"timeoutMs\":%d}", id, (long long)cursor, LONG_MS);
		d = sc_call_ok(&E, "read_program", args);
		free(args);
		cursor = sc_int(d, "cursor");
		if (sc_bool(d, "waitingForInput"))
			break;
		if (now_ms() - t0 > 3 * LONG_MS)
			fail_msg("never waited: %s", pmx_text(d));
		json_doc_free(d);
	}
	json_doc_free(d);
	xasprintf(&args, "{\"programId\":\"%s\"}", id);
	d = sc_call_ok(&E, "ask_user_secret", args);
	free(args);
	url_parse(sc_need_str(d, "urlForUser"), &u);
	assert_int_equal(sc_int(d, "expiresInMs"), 1);
	json_doc_free(d);
	snprintf(origin, sizeof origin, "http://%s", u.host);
	body = form(SECRET);
	/* Until it expired (1 ms after it opened), the form is served:
	 * look until it is not, then send. */
	for (t0 = now_ms();;) {
		st = http("127.0.0.1", u.port, "GET", u.path, u.host, NULL,
		    NULL, &r);
		if (st != 200)
			break;
		if (now_ms() - t0 > LONG_MS)
			fail_msg("the page never expired");
		poll(NULL, 0, 10);
	}
	assert_true(st == 410 || st == -1);
	st = http("127.0.0.1", u.port, "POST", u.path, u.host, origin, body,
	    &r);
	if (st != 410 && st != -1)
		fail_msg("status %d: %s", st, buf_cstr(&r));
	xasprintf(&args, "{\"programId\":\"%s\",\"cursor\":%lld,"
	    "\"timeoutMs\":0}", id, (long long)cursor);
	d = sc_call_ok(&E, "read_program", args);
	free(args);
	assert_null(strstr(pmx_text(d), "read "));
	assert_true(sc_bool(d, "waitingForInput"));
	json_doc_free(d);
	assert_int_equal(pmx_close(&E), 0);
	free(body);
	free(id);
	free(pane);
	buf_free(&r);
}

/* --- elicitation, both eras ------------------------------------------ */

#define META26	"\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":" \
	"\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":" \
	"{\"elicitation\":{\"url\":{}}}}"

/* Keep the message as the client received it, under build/secrets. */
static void
keep_artefact(const char *name, const struct json_doc *d)
{
	const char	*raw;
	size_t		 len;
	char		 path[200];
	FILE		*f;

	mkdir("build", 0755);
	mkdir("build/secrets", 0755);
	snprintf(path, sizeof path, "build/secrets/%s", name);
	raw = json_raw(json_root(d), &len);
	if ((f = fopen(path, "w")) != NULL) {
		fwrite(raw, 1, len, f);
		fputc('\n', f);
		fclose(f);
	}
}

/* Start the getpass program on E and wait at its hidden prompt. */
static char *
start_on(struct pmx *E, char **pane)
{
	struct json_doc	*d;
	char		*argv, *args, *id;
	int64_t		 cursor = 0, t0;

	argv = pmx_jstr(fixture);
	xasprintf(&args, "{\"argv\":[%s,\"Key passphrase: \"]}", argv);
	id = pmx_start_program(E, args, pane);
	assert_non_null(id);
	free(args);
	free(argv);
	for (t0 = now_ms();;) {
		xasprintf(&args, "{\"programId\":\"%s\",\"cursor\":%lld,"
		    "\"timeoutMs\":%d}", id, (long long)cursor, LONG_MS);
		d = sc_call_ok(E, "read_program", args);
		free(args);
		cursor = sc_int(d, "cursor");
		if (sc_bool(d, "waitingForInput")) {
			assert_true(hidden(d));
			json_doc_free(d);
			return (id);
		}
		if (now_ms() - t0 > 3 * LONG_MS)
			fail_msg("never waited: %s", pmx_text(d));
		json_doc_free(d);
	}
}

/* The next message that is a request (or notification) of method m
 * (bounded). */
static struct json_doc *
next_request(struct pmx *E, const char *m)
{
	struct json_doc		*d;
	const struct json	*v;
	int64_t			 t0 = now_ms();

	while (now_ms() - t0 < LONG_MS) {
		if ((d = pmx_next(E, LONG_MS)) == NULL)
			break;
		v = json_get(json_root(d), "method");
		if (v != NULL && strcmp(json_str(v, NULL), m) == 0)
			return (d);
		json_doc_free(d);
	}
	fail_msg("no %s came", m);
	return (NULL);
}

/* Answer the client's side of request q with action. */
static void
answer(struct pmx *E, const struct json_doc *q, const char *action)
{
	const char	*raw;
	size_t		 len;
	char		*line;

	raw = json_raw(json_get(json_root(q), "id"), &len);
	xasprintf(&line, "{\"jsonrpc\":\"2.0\",\"id\":%.*s,\"result\":"
	    "{\"action\":\"%s\"}}", (int)len, raw, action);
	pmx_send_raw(E, line, strlen(line));
	free(line);
}

/* The program read exactly the secret: the reply's text says so. */
static void
reply_typed(const struct json_doc *d)
{
	char	hash[17], want[80];

	fnv(SECRET, hash);
	snprintf(want, sizeof want, "read %zu characters, hash %s",
	    strlen(SECRET), hash);
	if (pmx_is_error(d))
		fail_msg("an error: %s", pmx_text(d));
	assert_true(sc_bool(d, "typed"));
	assert_int_equal(sc_int(d, "typedCharacters"), (int64_t)strlen(SECRET));
	if (strstr(sc_need_str(d, "text"), want) == NULL)
		fail_msg("the reply lacks \"%s\": %s", want, pmx_text(d));
	buf_adds(&replies, pmx_text(d));
}

/* POST the secret to the page at url, as the browser would. */
static void
submit(const char *url)
{
	struct url	 u;
	struct buf	 r = BUF_INIT;
	char		*body, origin[100];

	url_parse(url, &u);
	snprintf(origin, sizeof origin, "http://%s", u.host);
	body = form(SECRET);
	assert_int_equal(http("127.0.0.1", u.port, "POST", u.path, u.host,
	    origin, body, &r), 200);
	free(body);
	buf_free(&r);
}

/*
 * 2025-11-25, a client declaring elicitation.url: ask_user_secret sends
 * it elicitation/create (mode url, an elicitationId, the page's address,
 * a message) and waits; the client accepts, the "person" sends the
 * secret, notifications/elicitation/complete names the id, and the call
 * answers with the program's reply, without the secret. A declined one
 * answers at once, nothing typed.
 */
static void
test_elicit_2025(void **state)
{
	struct pmx		 E;
	struct json_doc		*d, *q;
	const struct json	*p;
	char			*id, *pane, *line, eid[64], *url;
	int64_t			 call;
	bool			 complete = false;

	(void)state;
	if (!has_tool)
		skip();
	assert_int_equal(pmx_open_bare(&E, NULL), 0);
	call = pmx_send(&E, "initialize", "{\"protocolVersion\":"
	    "\"2025-11-25\",\"capabilities\":{\"elicitation\":{\"form\":{},"
	    "\"url\":{}}},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}");
	json_doc_free(pmx_wait(&E, call, LONG_MS));
	line = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}";
	pmx_send_raw(&E, line, strlen(line));
	id = start_on(&E, &pane);

	xasprintf(&line, "{\"name\":\"ask_user_secret\",\"arguments\":"
	    "{\"programId\":\"%s\"},\"_meta\":{\"progressToken\":\"pt\"}}",
	    id);
	call = pmx_send(&E, "tools/call", line);
	free(line);
	q = next_request(&E, "elicitation/create");
	keep_artefact("elicitation-2025-11-25.json", q);
	p = json_get(json_root(q), "params");
	assert_string_equal(json_str(json_get(p, "mode"), NULL), "url");
	snprintf(eid, sizeof eid, "%s", json_str(json_get(p, "elicitationId"),
	    NULL));
	url = xstrdup(json_str(json_get(p, "url"), NULL));
	assert_non_null(strstr(json_str(json_get(p, "message"), NULL),
	    "Key passphrase:"));
	answer(&E, q, "accept");
	json_doc_free(q);
	/* While the person has the page, the call says so in progress. */
	d = next_request(&E, "notifications/progress");
	assert_string_equal(json_str(json_get(json_get(json_root(d),
	    "params"), "progressToken"), NULL), "pt");
	assert_non_null(strstr(json_str(json_get(json_get(json_root(d),
	    "params"), "message"), NULL), "waiting"));
	json_doc_free(d);

	submit(url);
	for (;;) {
		if ((d = pmx_next(&E, LONG_MS)) == NULL)
			fail_msg("no answer to ask_user_secret");
		p = json_get(json_root(d), "method");
		if (p != NULL && strcmp(json_str(p, NULL),
		    "notifications/elicitation/complete") == 0) {
			assert_string_equal(json_str(json_get(json_get(
			    json_root(d), "params"), "elicitationId"), NULL),
			    eid);
			complete = true;
		}
		if (json_get(json_root(d), "id") != NULL &&
		    json_int(json_get(json_root(d), "id")) == call)
			break;
		json_doc_free(d);
	}
	assert_true(complete);
	reply_typed(d);
	json_doc_free(d);
	free(url);

	/* Declined: answered at once, nothing typed. */
	xasprintf(&line, "{\"name\":\"ask_user_secret\",\"arguments\":"
	    "{\"programId\":\"%s\"}}", id);
	free(id);
	free(pane);
	id = start_on(&E, &pane);
	free(line);
	xasprintf(&line, "{\"name\":\"ask_user_secret\",\"arguments\":"
	    "{\"programId\":\"%s\"}}", id);
	call = pmx_send(&E, "tools/call", line);
	free(line);
	q = next_request(&E, "elicitation/create");
	answer(&E, q, "decline");
	json_doc_free(q);
	d = pmx_wait(&E, call, LONG_MS);
	assert_non_null(d);
	assert_false(sc_bool(d, "typed"));
	assert_non_null(strstr(sc_need_str(d, "notTyped"), "declined"));
	json_doc_free(d);
	assert_int_equal(pmx_close(&E), 0);
	free(id);
	free(pane);
}

/*
 * 2026-07-28, a request whose capabilities name elicitation.url: the
 * call is answered input_required, with the elicitation/create request
 * in inputRequests and a requestState; the call made again with the
 * person's accept waits for the secret and answers with the program's
 * reply. Declined, the call made again answers nothing typed.
 */
static void
test_elicit_2026(void **state)
{
	struct json_doc		*d;
	const struct json	*r, *p;
	char			*id, *pane, *args, *url, rs[64];
	int64_t			 call;

	(void)state;
	if (!has_tool)
		skip();
	id = start_getpass(1, &pane, &call);
	xasprintf(&args, "{\"name\":\"ask_user_secret\",\"arguments\":"
	    "{\"programId\":\"%s\"}," META26 "}", id);
	call = pmx_send(&group, "tools/call", args);
	d = pmx_wait(&group, call, LONG_MS);
	assert_non_null(d);
	keep_artefact("input-required-2026-07-28.json", d);
	r = json_get(json_root(d), "result");
	assert_string_equal(json_str(json_get(r, "resultType"), NULL),
	    "input_required");
	p = json_get(json_get(json_get(r, "inputRequests"), "secret"),
	    "params");
	assert_string_equal(json_str(json_get(json_get(json_get(r,
	    "inputRequests"), "secret"), "method"), NULL), "elicitation/create");
	assert_string_equal(json_str(json_get(p, "mode"), NULL), "url");
	url = xstrdup(json_str(json_get(p, "url"), NULL));
	snprintf(rs, sizeof rs, "%s", json_str(json_get(r, "requestState"),
	    NULL));
	json_doc_free(d);
	free(args);

	xasprintf(&args, "{\"name\":\"ask_user_secret\",\"arguments\":"
	    "{\"programId\":\"%s\"},\"requestState\":\"%s\",\"inputResponses\":"
	    "{\"secret\":{\"action\":\"accept\"}}," META26 "}", id, rs);
	call = pmx_send(&group, "tools/call", args);
	free(args);
	submit(url);
	d = pmx_wait(&group, call, LONG_MS);
	assert_non_null(d);
	assert_string_equal(json_str(json_get(json_get(json_root(d), "result"),
	    "resultType"), NULL), "complete");
	reply_typed(d);
	json_doc_free(d);
	free(url);
	no_trace(NULL);
	free(id);
	free(pane);

	/* Declined. */
	id = start_getpass(1, &pane, &call);
	xasprintf(&args, "{\"name\":\"ask_user_secret\",\"arguments\":"
	    "{\"programId\":\"%s\"}," META26 "}", id);
	call = pmx_send(&group, "tools/call", args);
	d = pmx_wait(&group, call, LONG_MS);
	snprintf(rs, sizeof rs, "%s", json_str(json_get(json_get(json_root(d),
	    "result"), "requestState"), NULL));
	json_doc_free(d);
	free(args);
	xasprintf(&args, "{\"name\":\"ask_user_secret\",\"arguments\":"
	    "{\"programId\":\"%s\"},\"requestState\":\"%s\",\"inputResponses\":"
	    "{\"secret\":{\"action\":\"decline\"}}," META26 "}", id, rs);
	call = pmx_send(&group, "tools/call", args);
	free(args);
	d = pmx_wait(&group, call, LONG_MS);
	assert_non_null(d);
	assert_false(sc_bool(d, "typed"));
	assert_non_null(strstr(sc_need_str(d, "notTyped"), "declined"));
	json_doc_free(d);
	stop(id);
	free(id);
	free(pane);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_getpass),
		cmocka_unit_test(test_shells),
		cmocka_unit_test(test_raw_not_hidden),
		cmocka_unit_test(test_run_hidden),
		cmocka_unit_test(test_page),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_echo_back_on),
		cmocka_unit_test(test_expired),
		cmocka_unit_test(test_elicit_2025),
		cmocka_unit_test(test_elicit_2026),
	};

	return (cmocka_run_group_tests(tests, secret_setup, secret_teardown));
}
