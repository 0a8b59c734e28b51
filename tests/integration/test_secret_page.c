/*
 * test_secret_page.c — ask_user_secret: a program waiting for hidden
 * input (test_secret.c) gets the secret a person types on a one-time
 * page on 127.0.0.1, and the secret is nowhere else.
 *
 * The "person" is this test: it reads the page and posts its form over
 * HTTP as a browser would (make test-secrets does it with chromium), and
 * answers the elicitation of both eras as a client would. The secret
 * holds what a shell or tmux's parser acts on; after each test it is
 * looked for in every form it could take (as typed, JSON-escaped, quoted
 * for tmux's parser as a logged tmux command would hold it, and a piece
 * of it) in every reply, progmux's stderr at debug level, its runtime
 * directory and tmux's history of the pane.
 *
 * The tool is built with its page's library (PROGMUX_SECRET_PAGE, as the
 * binaries): then it must be listed and every test runs; without, it
 * must not be listed.
 */
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#include <dirent.h>
#include <ifaddrs.h>
#include <poll.h>
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
#include "server.h"
#include "timeutil.h"
#include "xmalloc.h"

#define LONG_MS		20000	/* a read's timeout, never reached */

static char		*fixture;	/* the getpass program */
static char		 rtdir[256];	/* progmux's XDG_RUNTIME_DIR */
static struct buf	 replies;	/* every reply's text, to search */

/* The group's progmux, its runtime directory where the test can search
 * it and every level of its log on stderr; every reply's text kept. */
static int
page_setup(void **state)
{
	static char	 envs[2][300];
	const char	*env[3];

	(void)state;
	fixture = fixture_path("getpass");
	if (access(fixture, X_OK) != 0) {
		fprintf(stderr, "no %s: make integration builds it\n", fixture);
		return (-1);
	}
	snprintf(rtdir, sizeof rtdir, "/tmp/progmux-secret-%ld-XXXXXX",
	    (long)getpid());
	if (mkdtemp(rtdir) == NULL)
		return (-1);
	snprintf(envs[0], sizeof envs[0], "XDG_RUNTIME_DIR=%s", rtdir);
	snprintf(envs[1], sizeof envs[1], "PROGMUX_DEBUG=1");
	env[0] = envs[0];
	env[1] = envs[1];
	env[2] = NULL;
	group_kept = &replies;
	return (group_open(env));
}

static int
page_teardown(void **state)
{
	char	*argv[] = { "rm", "-rf", rtdir, NULL };
	int	 st, r;

	r = group_teardown(state);
	free(pmx_run_capture(argv, &st));
	group_kept = NULL;
	buf_free(&replies);
	free(fixture);
	return (r);
}

#ifdef PROGMUX_SECRET_PAGE

#define SECRET	"s3cr3t-P4ss w/ $ign;'q\"u~#%"	/* typed by the "person" */
#define SECRET_PIECE	"s3cr3t-P4ss"		/* no other text holds it */

/* A build with the page lists the tool. */
static void
test_listed(void **state)
{
	struct json_doc	*d;

	(void)state;
	if (find_tool(list_tools(&group, &d), "ask_user_secret") == NULL)
		fail_msg("built with its page (PROGMUX_SECRET_PAGE), progmux "
		    "does not list ask_user_secret");
	json_doc_free(d);
}

/* --- where the secret must not be ------------------------------------ */

/* The forms the secret could take: as typed, JSON-escaped (in a
 * message), quoted for tmux's parser (a logged tmux command), and a
 * piece of it (any other encoding, or cut short). */
static const char	*form_name[] = { "as typed", "JSON-escaped",
			    "quoted for tmux", "a piece of it" };
static char		*form_text[4];

/* Which form of the secret the len bytes at text hold, or NULL. */
static const char *
secret_in(const char *text, size_t len)
{
	struct buf	b = BUF_INIT;
	size_t		i;

	if (form_text[0] == NULL) {
		form_text[0] = xstrdup(SECRET);
		json_put_string(&b, SECRET, strlen(SECRET));
		form_text[1] = xstrndup(b.data + 1, b.len - 2);
		buf_reset(&b);
		tmux_quote(&b, SECRET);
		form_text[2] = xstrdup(buf_cstr(&b));
		buf_free(&b);
		form_text[3] = xstrdup(SECRET_PIECE);
		/* The secret must need quoting, or the forms are one. */
		assert_string_not_equal(form_text[1], SECRET);
		assert_string_not_equal(form_text[2], SECRET);
	}
	for (i = 0; i < 4 && text != NULL; i++)
		if (memmem(text, len, form_text[i], strlen(form_text[i])) !=
		    NULL)
			return (form_name[i]);
	return (NULL);
}

/* The first regular file under dir that holds the secret, or NULL. */
static char *
secret_under(const char *dir)
{
	DIR		*d;
	struct dirent	*e;
	struct stat	 st;
	char		 path[1024], *text, *found = NULL;
	size_t		 len;

	if ((d = opendir(dir)) == NULL)
		return (NULL);
	while (found == NULL && (e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		if (lstat(path, &st) == -1)
			continue;
		if (S_ISDIR(st.st_mode))
			found = secret_under(path);
		else if (S_ISREG(st.st_mode) &&
		    (text = pmx_read_file(path, &len)) != NULL) {
			if (secret_in(text, len) != NULL)
				found = xstrdup(path);
			free(text);
		}
	}
	closedir(d);
	return (found);
}

/*
 * The secret is nowhere: not in any reply, c's stderr (its debug log:
 * that it is one is checked), the runtime directory, or tmux's history
 * of pane (which must hold prompt: a history that cannot be read is not
 * searched).
 */
static void
no_trace(struct pmx *c, const char *pane, const char *prompt)
{
	const char	*f;
	char		*hist, *file;

	if ((f = secret_in(replies.data, replies.len)) != NULL)
		fail_msg("the secret (%s) is in a reply", f);
	pmx_drain_err(c);
	if (memmem(c->errlog.data, c->errlog.len, ": tools/call (", 14) ==
	    NULL)
		fail_msg("progmux's stderr is not its debug log: %.300s",
		    buf_cstr(&c->errlog));
	if ((f = secret_in(c->errlog.data, c->errlog.len)) != NULL)
		fail_msg("the secret (%s) is in progmux's stderr", f);
	if ((file = secret_under(rtdir)) != NULL)
		fail_msg("the secret is in %s", file);
	if (pane == NULL)
		return;
	hist = pmx_tmux(c, "capture-pane", "-p", "-S", "-", "-t", pane,
	    (char *)NULL);
	assert_non_null(hist);
	if (strstr(hist, prompt) == NULL)
		fail_msg("%s's history does not hold \"%s\": %s", pane, prompt,
		    hist);
	if ((f = secret_in(hist, strlen(hist))) != NULL)
		fail_msg("the secret (%s) is in the pane's history", f);
	free(hist);
}

/* --- the person's side: the page over HTTP --------------------------- */

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

/* The line the getpass program prints having read the secret. */
static void
read_line(char want[80])
{
	char	hash[17];

	fnv(SECRET, hash);
	snprintf(want, 80, "read %zu characters, hash %s", strlen(SECRET),
	    hash);
}

/* The program read exactly the secret: read until its line (bounded). */
static void
got_secret(const char *id, int64_t *cursor)
{
	char	want[80];

	read_line(want);
	rd_until_line(id, cursor, want);
}

struct url {
	char		host[64];	/* "127.0.0.1:PORT" */
	unsigned	port;
	char		path[200];
	char		origin[100];	/* "http://127.0.0.1:PORT" */
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
	snprintf(out->origin, sizeof out->origin, "http://%s", out->host);
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

/* POST the secret to the page u as the browser would (from its own
 * origin, or from origin if not NULL): the status, the answer in *r. */
static int
post_secret(const struct url *u, const char *host, const char *origin,
    struct buf *r)
{
	char	*body = form(SECRET);
	int	 st;

	st = http("127.0.0.1", u->port, "POST", u->path, host != NULL ? host :
	    u->host, origin != NULL ? origin : u->origin, body, r);
	free(body);
	return (st);
}

/* --- the program's side ---------------------------------------------- */

/* Read c's program id from *cursor until it waits for input, which must
 * be hidden (bounded); *cursor after it. */
static void
hidden_wait_on(struct pmx *c, const char *id, int64_t *cursor)
{
	struct json_doc	*d;
	char		*args;
	int64_t		 t0 = now_ms();

	for (;;) {
		xasprintf(&args, "{\"programId\":\"%s\",\"cursor\":%lld,"
		    "\"timeoutMs\":%d}", id, (long long)*cursor, LONG_MS);
		d = sc_call_ok(c, "read_program", args);
		free(args);
		*cursor = sc_int(d, "cursor");
		if (sc_bool(d, "waitingForInput")) {
			assert_true(input_hidden(d));
			json_doc_free(d);
			return;
		}
		if (now_ms() - t0 > 3 * LONG_MS)
			fail_msg("never waited: %s", pmx_text(d));
		json_doc_free(d);
	}
}

/* Start the getpass program on c asking times times with prompt, and
 * wait at its hidden prompt: its id, pane, cursor. Its pane outlives it
 * (a shell sleeps on), so that tmux's history of it can be searched. */
static char *
start_getpass(struct pmx *c, const char *prompt, int times, char **pane,
    int64_t *cursor)
{
	char	*args, *argv, *id;

	argv = pmx_jstr(fixture);
	xasprintf(&args, "{\"argv\":[\"sh\",\"-c\",\"\\\"$@\\\"; exec sleep "
	    "120\",\"sh\",%s,\"%s\",\"%d\"]}", argv, prompt, times);
	id = pmx_start_program(c, args, pane);
	assert_non_null(id);
	free(args);
	free(argv);
	*cursor = 0;
	hidden_wait_on(c, id, cursor);
	return (id);
}

/* Nothing was typed: c's program id still waits at its hidden prompt
 * (its text from cursor without "read " or not, if not NULL). */
static void
nothing_typed(struct pmx *c, const char *id, int64_t cursor,
    const char *not)
{
	struct json_doc	*d;
	char		 args[200];

	snprintf(args, sizeof args, "{\"programId\":\"%s\",\"cursor\":%lld,"
	    "\"timeoutMs\":0}", id, (long long)cursor);
	d = sc_call_ok(c, "read_program", args);
	buf_adds(&replies, pmx_text(d));
	assert_null(strstr(pmx_text(d), "read "));
	if (not != NULL)
		assert_null(strstr(pmx_text(d), not));
	assert_true(sc_bool(d, "waitingForInput"));
	json_doc_free(d);
}

/* ask_user_secret on a client without URL elicitation: the address is
 * in the result, for the person; the model is told not to open it. */
static char *
ask(const char *id, struct url *u)
{
	struct json_doc	*d;
	char		 args[200], *url;

	snprintf(args, sizeof args, "{\"programId\":\"%s\"}", id);
	d = call_ok("ask_user_secret", args);
	assert_false(sc_bool(d, "typed"));
	url = xstrdup(sc_need_str(d, "urlForUser"));
	assert_non_null(strstr(pmx_text(d), "must not open"));
	assert_non_null(strstr(pmx_text(d), url));
	url_parse(url, u);
	json_doc_free(d);
	return (url);
}

/* --- the page -------------------------------------------------------- */

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
	char		*id, *pane, *url;
	int64_t		 cursor;
	int		 st;

	(void)state;
	id = start_getpass(&group, "Vault passphrase: ", 2, &pane, &cursor);
	url = ask(id, &u);

	st = http("127.0.0.1", u.port, "GET", u.path, u.host, NULL, NULL, &r);
	assert_int_equal(st, 200);
	assert_non_null(strcasestr(buf_cstr(&r), "Cache-Control: no-store"));
	assert_non_null(strcasestr(buf_cstr(&r),
	    "Content-Security-Policy: default-src 'none'"));
	assert_non_null(strstr(buf_cstr(&r), "Vault passphrase:"));
	assert_non_null(strstr(buf_cstr(&r), "type=password"));
	assert_null(strstr(buf_cstr(&r), "src="));
	assert_null(strstr(buf_cstr(&r), "href="));

	assert_int_equal(post_secret(&u, NULL, NULL, &r), 200);
	assert_non_null(strstr(buf_cstr(&r), "typed into the program"));
	got_secret(id, &cursor);

	/* Asked again (its second prompt): nothing more is taken. */
	st = post_secret(&u, NULL, NULL, &r);
	assert_true(st == 410 || st == -1);
	d = rd_waiting_now(id, cursor);
	assert_null(strstr(pmx_text(d), "read "));
	assert_true(input_hidden(d));
	json_doc_free(d);
	no_trace(&group, pane, "Vault passphrase:");
	stop(id);
	free(url);
	free(id);
	free(pane);
	buf_free(&r);
}

/* The first non-loopback IPv4 address of this machine, or false. */
static bool
other_address(char *out, size_t len)
{
	struct ifaddrs		*ifs, *i;
	struct sockaddr_in	*sin;
	bool			 found = false;

	if (getifaddrs(&ifs) == -1)
		return (false);
	for (i = ifs; i != NULL && !found; i = i->ifa_next) {
		if (i->ifa_addr == NULL || i->ifa_addr->sa_family != AF_INET)
			continue;
		sin = (struct sockaddr_in *)i->ifa_addr;
		if ((ntohl(sin->sin_addr.s_addr) >> 24) == 127)
			continue;
		inet_ntop(AF_INET, &sin->sin_addr, out, (socklen_t)len);
		found = true;
	}
	freeifaddrs(ifs);
	return (found);
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
	struct url	 u, bad;
	struct buf	 r = BUF_INIT;
	char		*id, *pane, *url, *body, host[64], addr[64];
	int64_t		 cursor;

	(void)state;
	id = start_getpass(&group, "Vault passphrase: ", 1, &pane, &cursor);
	url = ask(id, &u);
	body = form(SECRET);

	bad = u;
	snprintf(bad.path, sizeof bad.path, "/s/%064d", 0);
	assert_int_equal(http("127.0.0.1", u.port, "GET", bad.path, u.host,
	    NULL, NULL, &r), 404);
	assert_int_equal(post_secret(&bad, NULL, NULL, &r), 404);
	snprintf(bad.path, sizeof bad.path, "%.*s", (int)strlen(u.path) - 1,
	    u.path);
	assert_int_equal(post_secret(&bad, NULL, NULL, &r), 404);
	snprintf(host, sizeof host, "localhost:%u", u.port);
	assert_int_equal(http("127.0.0.1", u.port, "GET", u.path, host, NULL,
	    NULL, &r), 403);
	assert_int_equal(post_secret(&u, "evil.example", "http://evil.example",
	    &r), 403);
	assert_int_equal(post_secret(&u, NULL, "http://evil.example", &r),
	    403);
	assert_int_equal(post_secret(&u, NULL, "null", &r), 403);
	assert_int_equal(http("127.0.0.1", u.port, "POST", u.path, u.host,
	    NULL, body, &r), 403);
	assert_int_equal(http("127.0.0.1", u.port, "PUT", u.path, u.host,
	    u.origin, body, &r), 405);
	if (other_address(addr, sizeof addr))
		assert_int_equal(http(addr, u.port, "GET", u.path, u.host,
		    NULL, NULL, &r), -1);
	else
		fprintf(stderr, "test_refusals: no non-loopback address to "
		    "try\n");
	nothing_typed(&group, id, cursor, NULL);

	assert_int_equal(post_secret(&u, NULL, NULL, &r), 200);
	got_secret(id, &cursor);
	no_trace(&group, pane, "Vault passphrase:");
	stop(id);
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
	char		*id, *pane, *url, args[300];
	int64_t		 cursor = 0;

	(void)state;
	id = group_start("[\"sh\",\"-c\",\"stty -echo; printf 'PIN: '; "
	    "read -r p; stty echo; echo; printf 'Name: '; read -r n; "
	    "echo name=${#n}\"]", &pane);
	d = rd_until_waiting(id, &cursor, NULL);
	assert_true(input_hidden(d));
	json_doc_free(d);
	url = ask(id, &u);
	snprintf(args, sizeof args, "{\"paneId\":\"%s\",\"keys\":\"1234\","
	    "\"timeoutMs\":%d}", pane, LONG_MS);
	d = call_ok("send_keys", args);
	cursor = sc_int(d, "cursor");
	if (!sc_bool(d, "waitingForInput")) {
		json_doc_free(d);
		d = rd_until_waiting(id, &cursor, NULL);
	}
	assert_false(input_hidden(d));
	json_doc_free(d);

	assert_int_equal(post_secret(&u, NULL, NULL, &r), 409);
	assert_non_null(strstr(buf_cstr(&r), "echo"));
	nothing_typed(&group, id, cursor, "name=");
	no_trace(&group, pane, "Name:");
	stop(id);
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
	char		*id, *pane, *args;
	int64_t		 cursor, t0;
	int		 st;

	(void)state;
	assert_int_equal(pmx_open(&E, env), 0);
	id = start_getpass(&E, "Password: ", 1, &pane, &cursor);
	xasprintf(&args, "{\"programId\":\"%s\"}", id);
	d = sc_call_ok(&E, "ask_user_secret", args);
	free(args);
	url_parse(sc_need_str(d, "urlForUser"), &u);
	assert_int_equal(sc_int(d, "expiresInMs"), 1);
	json_doc_free(d);
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
	st = post_secret(&u, NULL, NULL, &r);
	if (st != 410 && st != -1)
		fail_msg("status %d: %s", st, buf_cstr(&r));
	nothing_typed(&E, id, cursor, NULL);
	assert_int_equal(pmx_close(&E), 0);
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
	char	want[80];

	read_line(want);
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

	url_parse(url, &u);
	assert_int_equal(post_secret(&u, NULL, NULL, &r), 200);
	buf_free(&r);
}

/* ask_user_secret called on E for program id, with more members of
 * params (JSON, or ""); the call's id. */
static int64_t
call_secret(struct pmx *E, const char *id, const char *meta)
{
	char	*line;
	int64_t	 call;

	xasprintf(&line, "{\"name\":\"ask_user_secret\",\"arguments\":"
	    "{\"programId\":\"%s\"}%s}", id, meta);
	call = pmx_send(E, "tools/call", line);
	free(line);
	return (call);
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
	const char		*env[] = { "PROGMUX_DEBUG=1", NULL };
	char			*id, *pane, *line, eid[64], *url;
	int64_t			 call, cursor;
	bool			 complete = false;

	(void)state;
	assert_int_equal(pmx_open_bare(&E, env), 0);
	call = pmx_send(&E, "initialize", "{\"protocolVersion\":"
	    "\"2025-11-25\",\"capabilities\":{\"elicitation\":{\"form\":{},"
	    "\"url\":{}}},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}");
	json_doc_free(pmx_wait(&E, call, LONG_MS));
	line = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}";
	pmx_send_raw(&E, line, strlen(line));
	id = start_getpass(&E, "Key passphrase: ", 1, &pane, &cursor);

	call = call_secret(&E, id, ",\"_meta\":{\"progressToken\":\"pt\"}");
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
	no_trace(&E, pane, "Key passphrase:");
	free(id);
	free(pane);

	/* Declined: answered at once, nothing typed. */
	id = start_getpass(&E, "Key passphrase: ", 1, &pane, &cursor);
	call = call_secret(&E, id, "");
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

/* ask_user_secret for program id in the 2026-07-28 era, first asked:
 * answered input_required, an elicitation/create of mode url in
 * inputRequests (kept as artefact if not NULL); its requestState in rs,
 * the page's address (allocated) returned. */
static char *
input_required(const char *id, char rs[64], const char *artefact)
{
	struct json_doc		*d;
	const struct json	*r, *q;
	char			*url;

	d = pmx_wait(&group, call_secret(&group, id, "," META26), LONG_MS);
	assert_non_null(d);
	if (artefact != NULL)
		keep_artefact(artefact, d);
	r = json_get(json_root(d), "result");
	assert_string_equal(json_str(json_get(r, "resultType"), NULL),
	    "input_required");
	q = json_get(json_get(r, "inputRequests"), "secret");
	assert_string_equal(json_str(json_get(q, "method"), NULL),
	    "elicitation/create");
	assert_string_equal(json_str(json_get(json_get(q, "params"), "mode"),
	    NULL), "url");
	url = xstrdup(json_str(json_get(json_get(q, "params"), "url"), NULL));
	snprintf(rs, 64, "%s", json_str(json_get(r, "requestState"), NULL));
	json_doc_free(d);
	return (url);
}

/* The same call made again with requestState rs and the person's
 * action: the call's id. */
static int64_t
answered(const char *id, const char *rs, const char *action)
{
	char	*more;
	int64_t	 call;

	xasprintf(&more, ",\"requestState\":\"%s\",\"inputResponses\":"
	    "{\"secret\":{\"action\":\"%s\"}}," META26, rs, action);
	call = call_secret(&group, id, more);
	free(more);
	return (call);
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
	struct json_doc	*d;
	char		*id, *pane, *url, rs[64];
	int64_t		 call, cursor;

	(void)state;
	id = start_getpass(&group, "Vault passphrase: ", 1, &pane, &cursor);
	url = input_required(id, rs, "input-required-2026-07-28.json");
	call = answered(id, rs, "accept");
	submit(url);
	d = pmx_wait(&group, call, LONG_MS);
	assert_non_null(d);
	assert_string_equal(json_str(json_get(json_get(json_root(d), "result"),
	    "resultType"), NULL), "complete");
	reply_typed(d);
	json_doc_free(d);
	free(url);
	no_trace(&group, pane, "Vault passphrase:");
	stop(id);
	free(id);
	free(pane);

	/* Declined. */
	id = start_getpass(&group, "Vault passphrase: ", 1, &pane, &cursor);
	free(input_required(id, rs, NULL));
	d = pmx_wait(&group, answered(id, rs, "decline"), LONG_MS);
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
		cmocka_unit_test(test_listed),
		cmocka_unit_test(test_page),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_echo_back_on),
		cmocka_unit_test(test_expired),
		cmocka_unit_test(test_elicit_2025),
		cmocka_unit_test(test_elicit_2026),
	};

	return (cmocka_run_group_tests(tests, page_setup, page_teardown));
}

#else	/* !PROGMUX_SECRET_PAGE */

/* Built without its page's library, the tool is not listed. */
static void
test_not_built(void **state)
{
	struct json_doc	*d;

	(void)state;
	if (find_tool(list_tools(&group, &d), "ask_user_secret") != NULL)
		fail_msg("built without its page, progmux lists "
		    "ask_user_secret");
	json_doc_free(d);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_not_built),
	};

	return (cmocka_run_group_tests(tests, page_setup, page_teardown));
}

#endif	/* PROGMUX_SECRET_PAGE */
