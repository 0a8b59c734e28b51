/*
 * test_page.c — ask_user_secret's page owes the person an answer,
 * whatever else happens on its port, and types nothing it cannot type
 * exactly:
 *
 *   - under attack from other local processes, of this user and of
 *     another one (nobody, when the test runs as root): connections
 *     sending their request one byte every 2 s, hundreds of idle ones, a
 *     flood of new ones; the person's every GET and the POST of the
 *     secret are answered within 2 s, and the program reads the secret;
 *   - a connection that takes too long to send its request is closed,
 *     however it trickles;
 *   - of two submissions racing, one is taken and the other is answered
 *     410, never closed without an answer;
 *   - a secret that is not valid UTF-8 (0xFF, the one byte tmux's
 *     command parser drops, among them) is refused with 400 before
 *     anything is typed, and the page says why; a valid one with
 *     characters from all over Unicode is typed exactly;
 *   - what a browser never sends (a header twice, chunked bodies, no
 *     length, an oversized head or body, a body that never comes) is
 *     answered with its status, and nothing is typed.
 *
 * The attackers are tests/fixtures/pageflood.c, built beside progmux;
 * the program is tests/fixtures/getpass.c, which prints a hash of what
 * it read. Every wait is on the event itself, bounded.
 */
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
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
#include "harness.h"
#include "timeutil.h"
#include "xmalloc.h"

#define LONG_MS		20000	/* a read's timeout, never reached */
#define PERSON_MS	2000	/* the person's every answer comes by then */
#define ANSWER_MS	10000	/* any other answer */
#define CLOSED_MS	15000	/* a request too slow is closed by then */
#define READY_MS	20000	/* the attackers hold their connections */
#define NOBODY		65534

static char	*getpass_exe;		/* the fixtures, beside progmux */
static char	*pageflood_exe;
static bool	has_tool;		/* ask_user_secret is listed */

/* The page as ask_user_secret gave it. */
struct page {
	unsigned	port;
	char		host[64];	/* "127.0.0.1:PORT" */
	char		origin[80];	/* "http://127.0.0.1:PORT" */
	char		path[200];	/* "/s/TOKEN" */
};

/* One attacker process (pageflood). */
struct attacker {
	pid_t		pid;
	int		out;		/* its stdout */
	const char	*what;
};

static struct attacker	attackers[4];	/* running ones, ended by the next
					   test or the group's end */

static int
page_setup(void **state)
{
	struct json_doc	*d;

	(void)state;
	free(getpass_exe);
	free(pageflood_exe);
	getpass_exe = fixture_path("getpass");
	pageflood_exe = fixture_path("pageflood");
	if (group_open(NULL) != 0)
		return (-1);
	has_tool = find_tool(list_tools(&group, &d), "ask_user_secret") !=
	    NULL;
	json_doc_free(d);
	return (0);
}

/* --- the program and its page ----------------------------------------- */

/*
 * Read id from *cursor on, a read at a time, until one is what is
 * wanted: waiting at its hidden prompt (want NULL), or holding the line
 * want. A line "read ..." other than want fails at once (something else
 * was typed), as does the program's end or 3 long reads' time. Waiting
 * for the prompt, each read is of 1 s: a wait already told (by the read
 * that brought the last line) would not end a longer one.
 */
static void
read_on(const char *id, int64_t *cursor, const char *want)
{
	struct json_doc	*d;
	const char	*text;
	int64_t		 t0 = now_ms();
	bool		 done;

	for (;;) {
		d = rd(id, *cursor, want == NULL ? 1000 : LONG_MS, "");
		*cursor = sc_int(d, "cursor");
		text = sc_need_str(d, "text");
		if (want == NULL)
			done = sc_bool(d, "waitingForInput") &&
			    json_bool(sc_get(d, "inputHidden"));
		else if (!(done = strstr(text, want) != NULL) &&
		    strstr(text, "read ") != NULL)
			fail_msg("the program read something else: %s",
			    pmx_text(d));
		if (!done && (sc_bool(d, "ended") ||
		    now_ms() - t0 > 3 * LONG_MS))
			fail_msg("%s: not %s: %s", id, want != NULL ? want :
			    "waiting for hidden input", pmx_text(d));
		json_doc_free(d);
		if (done)
			return;
	}
}

/* Start getpass asking times times; its id once it waits at its hidden
 * prompt (the read's cursor in *cursor). */
static char *
start_getpass(int times, int64_t *cursor)
{
	char	*exe, *args, *id;

	exe = pmx_jstr(getpass_exe);
	xasprintf(&args, "{\"argv\":[%s,\"Vault passphrase: \",\"%d\"]}", exe,
	    times);
	if ((id = pmx_start_program(&group, args, NULL)) == NULL)
		fail_msg("start_program %s failed", args);
	free(args);
	free(exe);
	*cursor = 0;
	read_on(id, cursor, NULL);
	return (id);
}

/* ask_user_secret for id (a client without URL elicitation: the address
 * comes in the result). */
static void
ask(const char *id, struct page *pg)
{
	struct json_doc	*d;
	const char	*url, *h, *sl;
	char		 args[200];

	snprintf(args, sizeof args, "{\"programId\":\"%s\"}", id);
	d = call_ok("ask_user_secret", args);
	url = sc_need_str(d, "urlForUser");
	h = url + strlen("http://");
	sl = strchr(h, '/');
	if (strncmp(url, "http://127.0.0.1:", 17) != 0 || sl == NULL)
		fail_msg("not a page on 127.0.0.1: %s", url);
	snprintf(pg->host, sizeof pg->host, "%.*s", (int)(sl - h), h);
	snprintf(pg->origin, sizeof pg->origin, "http://%s", pg->host);
	snprintf(pg->path, sizeof pg->path, "%s", sl);
	pg->port = (unsigned)atoi(h + 10);
	json_doc_free(d);
}

/* Read on until the program's line for secret s (len bytes) came: its
 * length and hash (FNV-1a, as getpass prints it). */
static void
typed(const char *id, int64_t *cursor, const char *s, size_t len)
{
	uint64_t	h = 14695981039346656037ULL;
	char		want[100];
	size_t		i;

	for (i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 1099511628211ULL;
	}
	snprintf(want, sizeof want, "read %zu characters, hash %016llx", len,
	    (unsigned long long)h);
	read_on(id, cursor, want);
}

/* Nothing was typed: the program still waits with nothing read. */
static void
nothing_typed(const char *id, int64_t cursor)
{
	struct json_doc	*d;
	char		 args[200];

	snprintf(args, sizeof args, "{\"programId\":\"%s\",\"cursor\":%lld,"
	    "\"timeoutMs\":0}", id, (long long)cursor);
	d = call_ok("read_program", args);
	if (strstr(pmx_text(d), "read ") != NULL)
		fail_msg("something was typed: %s", pmx_text(d));
	assert_true(sc_bool(d, "waitingForInput"));
	json_doc_free(d);
}

/* --- HTTP, as raw as a test needs it ----------------------------------- */

/* A connection to 127.0.0.1:port, non-blocking, made by deadline (ms of
 * now_ms()); -1 if it was refused or did not come. */
static int
dial(unsigned port, int64_t deadline)
{
	struct sockaddr_in	sin;
	struct pollfd		p;
	socklen_t		elen = sizeof (int);
	int			fd, err = 0;

	if ((fd = socket(AF_INET, SOCK_STREAM, 0)) == -1)
		fail_msg("socket: %s", strerror(errno));
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	memset(&sin, 0, sizeof sin);
	sin.sin_family = AF_INET;
	sin.sin_port = htons((uint16_t)port);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (connect(fd, (struct sockaddr *)&sin, sizeof sin) == 0)
		return (fd);
	if (errno == EINPROGRESS) {
		p.fd = fd;
		p.events = POLLOUT;
		while (poll(&p, 1, poll_timeout(deadline)) == -1 &&
		    errno == EINTR)
			;
		if ((p.revents & POLLOUT) && getsockopt(fd, SOL_SOCKET,
		    SO_ERROR, &err, &elen) == 0 && err == 0)
			return (fd);
	}
	close(fd);
	return (-1);
}

/* Write len bytes of p to fd by deadline; false if they did not go. */
static bool
put(int fd, const char *p, size_t len, int64_t deadline)
{
	struct pollfd	pf = { fd, POLLOUT, 0 };
	ssize_t		n;

	while (len > 0) {
		if ((n = write(fd, p, len)) > 0) {
			p += n;
			len -= (size_t)n;
			continue;
		}
		if (n == -1 && errno != EAGAIN && errno != EINTR)
			return (false);
		if (poll(&pf, 1, poll_timeout(deadline)) == 0)
			return (false);
	}
	return (true);
}

/*
 * The answer on fd, read until the server closes it or deadline: its
 * status, -1 if it closed (or reset) the connection without an answer,
 * -2 if no whole answer came by deadline. fd is closed; the answer is
 * in *resp.
 */
static int
answer(int fd, int64_t deadline, struct buf *resp)
{
	struct pollfd	p = { fd, POLLIN, 0 };
	char		chunk[4096];
	ssize_t		n;
	int		status = 0, r;

	buf_reset(resp);
	for (;;) {
		if ((n = read(fd, chunk, sizeof chunk)) > 0) {
			buf_add(resp, chunk, (size_t)n);
			continue;
		}
		if (n == 0 || (errno != EAGAIN && errno != EINTR))
			break;
		if ((r = poll(&p, 1, poll_timeout(deadline))) == 0) {
			close(fd);
			return (-2);
		}
	}
	close(fd);
	if (resp->len == 0)
		return (-1);
	if (sscanf(buf_cstr(resp), "HTTP/1.1 %d ", &status) != 1)
		fail_msg("not an HTTP answer: %s", buf_cstr(resp));
	return (status);
}

/* A request to the page: method on its path, its Host, Origin (NULL: none) and a
 * form body holding len bytes of secret s (NULL: no body), as a browser
 * sends it. */
static char *
request(const struct page *pg, const char *method, const char *origin,
    const char *s, size_t len)
{
	struct buf	 b = BUF_INIT, body = BUF_INIT;
	char		*out;
	size_t		 i;

	if (s != NULL) {
		buf_adds(&body, "secret=");
		for (i = 0; i < len; i++)
			buf_printf(&body, "%%%02X", (unsigned char)s[i]);
	}
	buf_printf(&b, "%s %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: test\r\n",
	    method, pg->path, pg->host);
	if (origin != NULL)
		buf_printf(&b, "Origin: %s\r\n", origin);
	if (s != NULL)
		buf_printf(&b, "Content-Type: application/x-www-form-urlencoded"
		    "\r\nContent-Length: %zu\r\n", body.len);
	buf_printf(&b, "Connection: close\r\n\r\n%s", buf_cstr(&body));
	out = xstrdup(buf_cstr(&b));
	buf_free(&b);
	buf_free(&body);
	return (out);
}

/* Send raw (len bytes) and take the answer, all within ms. */
static int
exchange(const struct page *pg, const char *raw, size_t len, int ms,
    struct buf *resp)
{
	int64_t	deadline = now_ms() + ms;
	int	fd;

	buf_reset(resp);
	if ((fd = dial(pg->port, deadline)) == -1)
		return (now_ms() >= deadline ? -2 : -1);
	/* What did not go may have been refused early: the answer says. */
	(void)put(fd, raw, len, deadline);
	return (answer(fd, deadline, resp));
}

/* The person's GET: the form, within PERSON_MS. */
static void
person_gets(const struct page *pg)
{
	struct buf	 r = BUF_INIT;
	char		*q = request(pg, "GET", NULL, NULL, 0);
	int64_t		 t0 = now_ms();
	int		 st;

	st = exchange(pg, q, strlen(q), PERSON_MS, &r);
	if (st == -1)
		fail_msg("the person's GET: the connection was closed without "
		    "an answer after %lld ms", (long long)(now_ms() - t0));
	if (st == -2)
		fail_msg("the person's GET: no answer within %d ms",
		    PERSON_MS);
	if (st != 200 || strstr(buf_cstr(&r), "type=password") == NULL)
		fail_msg("the person's GET: %d: %s", st, buf_cstr(&r));
	free(q);
	buf_free(&r);
}

/* The person's POST of secret s: answered st, with want in its text,
 * within PERSON_MS. */
static void
person_posts(const struct page *pg, const char *s, size_t len, int want_st,
    const char *want)
{
	struct buf	 r = BUF_INIT;
	char		*q = request(pg, "POST", pg->origin, s, len);
	int		 st;

	st = exchange(pg, q, strlen(q), PERSON_MS, &r);
	if (st == -1)
		fail_msg("the person's POST: closed without an answer");
	if (st == -2)
		fail_msg("the person's POST: no answer within %d ms",
		    PERSON_MS);
	if (st != want_st || strstr(buf_cstr(&r), want) == NULL)
		fail_msg("the person's POST: %d (not %d with \"%s\"): %s", st,
		    want_st, want, buf_cstr(&r));
	free(q);
	buf_free(&r);
}

/* --- attackers --------------------------------------------------------- */

/* Start pageflood on the page's port (as uid, unless -1); it holds its
 * connections (its "ready") before this returns. */
static void
attack(struct attacker *a, const struct page *pg, const char *mode, int n,
    int uid)
{
	struct pollfd	 p;
	char		 port[16], count[16], ustr[16], line[64];
	char		*argv[8];
	int		 io[2], i = 0;
	ssize_t		 got = 0, r;
	int64_t		 deadline = now_ms() + READY_MS;

	snprintf(port, sizeof port, "%u", pg->port);
	snprintf(count, sizeof count, "%d", n);
	snprintf(ustr, sizeof ustr, "%d", uid);
	argv[i++] = pageflood_exe;
	if (uid != -1) {
		argv[i++] = "-u";
		argv[i++] = ustr;
	}
	argv[i++] = port;
	argv[i++] = (char *)mode;
	argv[i++] = count;
	argv[i] = NULL;
	assert_int_equal(pipe(io), 0);
	if ((a->pid = fork()) == 0) {
		dup2(io[1], 1);
		close(io[0]);
		close(io[1]);
		execv(pageflood_exe, argv);
		_exit(127);
	}
	close(io[1]);
	a->out = io[0];
	a->what = mode;
	for (i = 0; attackers[i].pid != 0; i++)
		;
	attackers[i] = *a;
	/* Its "ready": it holds N connections. */
	p.fd = a->out;
	p.events = POLLIN;
	while (got < (ssize_t)sizeof line - 1 && memchr(line, '\n',
	    (size_t)got) == NULL) {
		r = -1;
		if (poll(&p, 1, poll_timeout(deadline)) > 0)
			r = read(a->out, line + got, sizeof line - 1 -
			    (size_t)got);
		if (r <= 0)
			fail_msg("pageflood %s %d (uid %d) never said ready",
			    mode, n, uid);
		got += r;
	}
	line[got] = '\0';
	if (strncmp(line, "ready", 5) != 0)
		fail_msg("pageflood: %s", line);
}

/* Stop it (by its pid), and say what it made. */
static void
attack_end(struct attacker *a)
{
	char	line[128];
	ssize_t	n;
	int	st;

	for (n = 0; n < (ssize_t)(sizeof attackers / sizeof attackers[0]); n++)
		if (attackers[n].pid == a->pid)
			attackers[n].pid = 0;
	kill(a->pid, SIGTERM);
	assert_int_equal(waitpid(a->pid, &st, 0), a->pid);
	n = read(a->out, line, sizeof line - 1);
	line[n > 0 ? n : 0] = '\0';
	print_message("pageflood %s: %s", a->what, line);
	close(a->out);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		fail_msg("pageflood %s ended with status %d", a->what, st);
}

/* No attacker is left: run before each test and after the last (cmocka
 * runs a test's teardown only when it passed). */
static int
attackers_end(void **state)
{
	size_t	i;

	(void)state;
	for (i = 0; i < sizeof attackers / sizeof attackers[0]; i++) {
		if (attackers[i].pid == 0)
			continue;
		kill(attackers[i].pid, SIGKILL);
		waitpid(attackers[i].pid, NULL, 0);
		close(attackers[i].out);
		attackers[i].pid = 0;
	}
	return (0);
}

static int
page_teardown(void **state)
{
	attackers_end(state);
	return (group_teardown(state));
}

/* The other user, or -1 (and why) when this test cannot be one. */
static int
other_uid(void)
{
	if (geteuid() == 0)
		return (NOBODY);
	print_message("not tried as another user: the test runs as uid %d, "
	    "and only root can be nobody\n", (int)geteuid());
	return (-1);
}

/*
 * The person against what attackers do, mode with n connections from
 * this user and n from another: the form (each of gets GETs) and the
 * secret, each within 2 s; the program reads it.
 */
static void
under_attack(const char *mode, int n, int gets)
{
	struct attacker	 a[2];
	struct page	 pg;
	const char	 s[] = "under-attack pa$$ w0rd";
	char		*id;
	int64_t		 cursor;
	int		 i, na = 0, uid = other_uid();

	if (!has_tool)
		skip();
	id = start_getpass(1, &cursor);
	ask(id, &pg);
	attack(&a[na++], &pg, mode, n, -1);
	if (uid != -1)
		attack(&a[na++], &pg, mode, n, uid);
	for (i = 0; i < gets; i++) {
		person_gets(&pg);
		poll(NULL, 0, 500);	/* the loads spread over the attack */
	}
	person_posts(&pg, s, strlen(s), 200, "typed into the program");
	for (i = 0; i < na; i++)
		attack_end(&a[i]);
	typed(id, &cursor, s, strlen(s));
	free(id);
}

/* Connections sending their request one byte every 2 s, more than the
 * page keeps at once: the person still gets the page. */
static void
test_slow_headers(void **state)
{
	(void)state;
	under_attack("slow", 48, 5);
}

/* Hundreds of connections that send nothing. */
static void
test_idle(void **state)
{
	(void)state;
	under_attack("idle", 150, 3);
}

/* New connections as fast as the attackers can make them. */
static void
test_flood(void **state)
{
	(void)state;
	under_attack("flood", 200, 3);
}

/*
 * A connection has a bounded time to send its whole request: one that
 * trickles a byte every 250 ms, and one that sends nothing, are both
 * closed (an answer, 408, or none) long before they would be done.
 */
static void
test_deadline(void **state)
{
	struct page	 pg;
	struct buf	 r = BUF_INIT;
	struct pollfd	 p;
	char		*id, *q, junk[256];
	int64_t		 cursor, deadline, t0;
	size_t		 sent = 0;
	int		 fd, idle;
	bool		 closed = false;

	(void)state;
	if (!has_tool)
		skip();
	id = start_getpass(1, &cursor);
	ask(id, &pg);
	q = request(&pg, "GET", NULL, NULL, 0);
	q[strlen(q) - 2] = '\0';	/* it would end, but never gets there */
	t0 = now_ms();
	deadline = t0 + CLOSED_MS;
	fd = dial(pg.port, deadline);
	idle = dial(pg.port, deadline);
	assert_true(fd != -1 && idle != -1);
	p.fd = fd;
	p.events = POLLIN;
	while (!closed && now_ms() < deadline) {
		if (sent < strlen(q) && write(fd, q + sent, 1) == 1)
			sent++;
		if (poll(&p, 1, 250) == 1)
			closed = read(fd, junk, sizeof junk) >= 0 ||
			    errno != EAGAIN;
	}
	if (!closed)
		fail_msg("a request trickling one byte every 250 ms was still "
		    "open after %d ms (%zu bytes sent)", CLOSED_MS, sent);
	print_message("the trickling request was closed after %lld ms\n",
	    (long long)(now_ms() - t0));
	close(fd);
	if (answer(idle, deadline, &r) == -2)
		fail_msg("a connection that sent nothing was still open after "
		    "%d ms", CLOSED_MS);
	print_message("the connection that sent nothing was closed after "
	    "%lld ms\n", (long long)(now_ms() - t0));
	person_gets(&pg);
	nothing_typed(id, cursor);
	stop(id);
	free(q);
	free(id);
	buf_free(&r);
}

/*
 * Two submissions racing, each sent whole but its last byte, then both
 * last bytes at once: one is taken (200), the other answered 410; never
 * a connection closed without an answer. Five rounds, a page each.
 */
static void
test_racing(void **state)
{
	struct page	 pg;
	struct buf	 r = BUF_INIT;
	char		*id, *q[2], s[2][40];
	int64_t		 cursor, deadline;
	int		 round, fd[2], st[2], i, taken;

	(void)state;
	if (!has_tool)
		skip();
	id = start_getpass(5, &cursor);
	for (round = 0; round < 5; round++) {
		ask(id, &pg);
		deadline = now_ms() + ANSWER_MS;
		for (i = 0; i < 2; i++) {
			snprintf(s[i], sizeof s[i], "racer-%d-of-round-%d", i,
			    round);
			q[i] = request(&pg, "POST", pg.origin, s[i],
			    strlen(s[i]));
			assert_true((fd[i] = dial(pg.port, deadline)) != -1);
			assert_true(put(fd[i], q[i], strlen(q[i]) - 1,
			    deadline));
		}
		/* Let both be read but their last byte (this only shapes the
		 * race: whatever the server read, both must be answered). */
		poll(NULL, 0, 100);
		for (i = 0; i < 2; i++)
			assert_true(put(fd[i], q[i] + strlen(q[i]) - 1, 1,
			    deadline));
		for (i = 0; i < 2; i++) {
			st[i] = answer(fd[i], deadline, &r);
			if (st[i] < 0)
				fail_msg("round %d: submission %d: %s", round,
				    i, st[i] == -1 ? "closed without an answer"
				    : "no answer");
			free(q[i]);
		}
		if (!((st[0] == 200 && st[1] == 410) ||
		    (st[0] == 410 && st[1] == 200)))
			fail_msg("round %d: answers %d and %d, not 200 and 410",
			    round, st[0], st[1]);
		taken = st[0] == 200 ? 0 : 1;
		typed(id, &cursor, s[taken], strlen(s[taken]));
		if (round < 4)
			read_on(id, &cursor, NULL);
	}
	free(id);
	buf_free(&r);
}

/*
 * A secret that is not valid UTF-8 is refused with 400, its page saying
 * so, and nothing is typed (0xFF the first: tmux's command parser drops
 * it, and the program would read the rest while the page said "Sent").
 * Then one from all over Unicode (Latin, the euro sign, a C1 control, a
 * private-use character, an emoji, U+10FFFF) is typed exactly.
 */
static void
test_bytes(void **state)
{
	static const struct {
		const char	*s;
		const char	*what;
	} bad[] = {
		{ "a\xff" "b", "0xFF" },
		{ "a\xfe" "b", "0xFE" },
		{ "a\x80" "b", "a lone continuation byte" },
		{ "a\xc3", "a sequence cut short" },
		{ "a\xc0\xaf" "b", "an overlong form" },
		{ "a\xed\xa0\x80" "b", "a surrogate" },
		{ "a\xf4\x90\x80\x80" "b", "past U+10FFFF" },
	};
	const char	 good[] = "p\xc3\xa4ss-\xe2\x82\xac-\xc2\x85-\xee\x80\x80-"
	    "\xf0\x9f\x98\x80-\xf4\x8f\xbf\xbf!";
	struct page	 pg;
	struct buf	 r = BUF_INIT;
	char		*id, *q;
	int64_t		 cursor;
	size_t		 i;
	int		 st;

	(void)state;
	if (!has_tool)
		skip();
	id = start_getpass(1, &cursor);
	ask(id, &pg);
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		q = request(&pg, "POST", pg.origin, bad[i].s,
		    strlen(bad[i].s));
		st = exchange(&pg, q, strlen(q), ANSWER_MS, &r);
		if (st != 400 || strstr(buf_cstr(&r), "UTF-8") == NULL)
			fail_msg("a secret with %s: %d: %s", bad[i].what, st,
			    buf_cstr(&r));
		free(q);
		nothing_typed(id, cursor);
	}
	person_posts(&pg, good, strlen(good), 200, "typed into the program");
	typed(id, &cursor, good, strlen(good));
	free(id);
	buf_free(&r);
}

/* Send raw to the page; its answer must be want, within ANSWER_MS. */
static void
raw_is(const struct page *pg, const char *what, const char *raw, size_t len,
    int want)
{
	struct buf	r = BUF_INIT;
	int		st;

	st = exchange(pg, raw, len, ANSWER_MS, &r);
	if (st != want)
		fail_msg("%s: %d, not %d: %s", what, st, want, buf_cstr(&r));
	buf_free(&r);
}

/*
 * What a browser never sends gets its status: a Host or a length twice,
 * a chunked body, none of a length, a head too big, a body too big (not
 * waited for), a body that never comes (408 at the deadline), a query, a
 * TLS handshake, HTTP/2's preface. Nothing is typed; the page still
 * serves the person.
 */
static void
test_http(void **state)
{
	static const char hello[] = "\x16\x03\x01\x02\x00\x01\x00\x01"
	    "\xfc\x03\x03\r\n\r\n";
	static const char h2[] = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
	struct page	 pg;
	struct buf	 b = BUF_INIT;
	char		*id, *q;
	int64_t		 cursor;
	size_t		 i;

	(void)state;
	if (!has_tool)
		skip();
	id = start_getpass(1, &cursor);
	ask(id, &pg);
	buf_printf(&b, "GET %s HTTP/1.1\r\nHost: %s\r\nHost: %s\r\n\r\n",
	    pg.path, pg.host, pg.host);
	raw_is(&pg, "Host twice", b.data, b.len, 400);
	buf_reset(&b);
	buf_printf(&b, "POST %s HTTP/1.1\r\nHost: %s\r\nOrigin: %s\r\n"
	    "Content-Length: 9\r\nContent-Length: 9\r\n\r\nsecret=ab",
	    pg.path, pg.host, pg.origin);
	raw_is(&pg, "Content-Length twice", b.data, b.len, 400);
	buf_reset(&b);
	buf_printf(&b, "POST %s HTTP/1.1\r\nHost: %s\r\nOrigin: %s\r\n"
	    "Transfer-Encoding: chunked\r\n\r\n9\r\nsecret=ab\r\n0\r\n\r\n",
	    pg.path, pg.host, pg.origin);
	raw_is(&pg, "a chunked body", b.data, b.len, 411);
	buf_reset(&b);
	buf_printf(&b, "POST %s HTTP/1.1\r\nHost: %s\r\nOrigin: %s\r\n\r\n",
	    pg.path, pg.host, pg.origin);
	raw_is(&pg, "no Content-Length", b.data, b.len, 411);
	buf_reset(&b);
	buf_printf(&b, "POST %s HTTP/1.1\r\nHost: %s\r\nOrigin: %s\r\n"
	    "Content-Length: 200000000\r\n\r\nsecret=", pg.path, pg.host,
	    pg.origin);
	raw_is(&pg, "a 200 MB body", b.data, b.len, 413);
	buf_reset(&b);
	buf_printf(&b, "GET %s HTTP/1.1\r\nHost: %s\r\nX-Big: ", pg.path,
	    pg.host);
	for (i = 0; i < 20000; i++)
		buf_addc(&b, 'x');
	buf_adds(&b, "\r\n\r\n");
	raw_is(&pg, "a 20 kB header", b.data, b.len, 431);
	buf_reset(&b);
	buf_printf(&b, "GET %s HTTP/1.1\r\nHost: %s\r\n X-Folded: 1\r\n\r\n",
	    pg.path, pg.host);
	raw_is(&pg, "a folded header line", b.data, b.len, 400);
	buf_reset(&b);
	buf_printf(&b, "GET %s?x=1 HTTP/1.1\r\nHost: %s\r\n\r\n", pg.path,
	    pg.host);
	raw_is(&pg, "a query", b.data, b.len, 404);
	raw_is(&pg, "a TLS ClientHello", hello, sizeof hello - 1, 400);
	raw_is(&pg, "HTTP/2's preface", h2, sizeof h2 - 1, 400);
	buf_reset(&b);
	buf_printf(&b, "POST %s HTTP/1.1\r\nHost: %s\r\nOrigin: %s\r\n"
	    "Content-Length: 30\r\n\r\nsecret=ab", pg.path, pg.host,
	    pg.origin);
	raw_is(&pg, "a body that never comes", b.data, b.len, 408);
	nothing_typed(id, cursor);
	q = request(&pg, "GET", NULL, NULL, 0);
	raw_is(&pg, "the form", q, strlen(q), 200);
	free(q);
	stop(id);
	free(id);
	buf_free(&b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_slow_headers, attackers_end),
		cmocka_unit_test_setup(test_idle, attackers_end),
		cmocka_unit_test_setup(test_flood, attackers_end),
		cmocka_unit_test_setup(test_deadline, attackers_end),
		cmocka_unit_test_setup(test_racing, attackers_end),
		cmocka_unit_test_setup(test_bytes, attackers_end),
		cmocka_unit_test_setup(test_http, attackers_end),
	};

	signal(SIGPIPE, SIG_IGN);
	return (HARNESS_RUN("page", tests, page_setup, page_teardown));
}
