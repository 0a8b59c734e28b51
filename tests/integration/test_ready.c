/*
 * test_ready.c — ready means ready: a wait ends when the program's
 * process tree listens on a port (untilPort), a URL answers below 400
 * (untilUrl), a file is there (untilFile, untilFileMatch), the program
 * went quiet after a line (untilQuietMs) or said READY=1 on its
 * NOTIFY_SOCKET; reason says which, and every report names the ports
 * the tree listens on.
 *
 * Each server is a real one, started by the test through progmux: a
 * Python http.server on a port the test picked, one that binds port 0
 * and prints nothing, one whose forked child listens, one that answers
 * 503 for 2 s and then 200, a program that makes its ready file late,
 * READY=1 through systemd-notify and through a plain datagram, one that
 * prints for 2 s and goes quiet, and one that is never ready. What a
 * server knows of itself (its port, its child's pid) it writes to a
 * file of the test's, never to its output, so the test compares what
 * progmux found with the truth. Every wait is bounded by LONG_MS and
 * ends on the event it names; no assertion is on a duration.
 */
#include <sys/socket.h>
#include <sys/stat.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
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
#include "needs.h"
#include "xmalloc.h"

#define LONG_MS		20000	/* a wait the tests must not reach */

/* The outer NOTIFY_SOCKET progmux itself is given: no program of its
 * may see it. */
#define OUTER_NOTIFY	"NOTIFY_SOCKET=/nonexistent/outer.sock"

/* A script in the group's directory (its path, allocated). */
static char *
script(const char *name, const char *text)
{
	char	*path;
	FILE	*f;

	xasprintf(&path, "%s/%s", group.dir, name);
	if ((f = fopen(path, "w")) == NULL || fputs(text, f) == EOF ||
	    fclose(f) == EOF)
		fail_msg("cannot write %s: %s", path, strerror(errno));
	return (path);
}

/* A TCP port nobody listens on now, on 127.0.0.1. */
static unsigned
free_port(void)
{
	struct sockaddr_in	sin;
	socklen_t		len = sizeof sin;
	int			fd;

	memset(&sin, 0, sizeof sin);
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_true((fd = socket(AF_INET, SOCK_STREAM, 0)) != -1);
	assert_int_equal(bind(fd, (struct sockaddr *)&sin, sizeof sin), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&sin, &len), 0);
	close(fd);
	return (ntohs(sin.sin_port));
}

/* Does 127.0.0.1:port take a connection? */
static bool
connects(unsigned port)
{
	struct sockaddr_in	sin;
	int			fd, ret;

	memset(&sin, 0, sizeof sin);
	sin.sin_family = AF_INET;
	sin.sin_port = htons((uint16_t)port);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_true((fd = socket(AF_INET, SOCK_STREAM, 0)) != -1);
	ret = connect(fd, (struct sockaddr *)&sin, sizeof sin);
	close(fd);
	return (ret == 0);
}

/* What a server wrote to path, once it is there (bounded). */
static char *
told(const char *path)
{
	int64_t	 deadline = now_ms() + LONG_MS;
	char	*s;
	size_t	 len;

	while ((s = pmx_read_file(path, &len)) == NULL) {
		if (now_ms() > deadline)
			fail_msg("%s never came", path);
		poll(NULL, 0, 20);
	}
	return (s);
}

/* Do ports (an array of the result, or of a list entry) hold
 * address:port? */
static bool
ports_hold(const struct json *ports, const char *address, unsigned port)
{
	const struct json	*p;
	size_t			 i;

	for (i = 0; ports != NULL && i < json_len(ports); i++) {
		p = json_at(ports, i);
		if (strcmp(json_str(json_get(p, "address"), NULL), address) ==
		    0 && json_int(json_get(p, "port")) == (int64_t)port)
			return (true);
	}
	return (false);
}

/* The reply's reason, which must be want. */
static void
reason_is(const struct json_doc *d, const char *want)
{
	const char	*r = sc_need_str(d, "reason");

	if (strcmp(r, want) != 0)
		fail_msg("reason %s, not %s: %s", r, want, pmx_text(d));
}

/* start_program with args (a JSON object's members), which must succeed;
 * its programId in *id (allocated). */
static struct json_doc *
start(const char *members, char **id)
{
	char		*args;
	struct json_doc	*d;

	xasprintf(&args, "{%s}", members);
	d = call_ok("start_program", args);
	free(args);
	*id = xstrdup(sc_need_str(d, "programId"));
	return (d);
}

/* The program's first line, once whole: where the test knows it runs. */
static int64_t
first_line(const char *id, const char *needle)
{
	struct json_doc	*d;
	int64_t		 cursor = 0, t0 = now_ms();
	bool		 seen = false;

	while (!seen) {
		d = rd(id, cursor, LONG_MS, "");
		seen = strstr(sc_need_str(d, "text"), needle) != NULL;
		cursor = sc_int(d, "cursor");
		if (!seen && (sc_bool(d, "ended") || now_ms() - t0 > LONG_MS))
			fail_msg("%s never wrote %s: %s", id, needle,
			    pmx_text(d));
		json_doc_free(d);
	}
	return (cursor);
}

/*
 * Start python3 on the script text (written as name in the group's
 * directory), its one argument a file of the test's in which it tells
 * two numbers about itself (its ports; its child's pid and port);
 * members are the call's other fields. The reply (the id in *id) and the
 * two numbers, once told.
 */
static struct json_doc *
start_teller(const char *name, const char *text, const char *members,
    char **id, unsigned *a, unsigned *b)
{
	struct json_doc	*d;
	char		*py = script(name, text), *out, *got, args[1024];

	xasprintf(&out, "%s/%s.told", group.dir, name);
	snprintf(args, sizeof args, "\"argv\":[\"python3\",\"%s\",\"%s\"]%s",
	    py, out, members);
	d = start(args, id);
	got = told(out);
	if (sscanf(got, "%u %u", a, b) != 2)
		fail_msg("%s told \"%s\"", name, got);
	free(got);
	free(out);
	free(py);
	return (d);
}

/*
 * A Python http.server on the port the test gave it: start_program with
 * untilPort returns once it listens (reason port), naming
 * 127.0.0.1:PORT in ports and in the text; a read with untilPort then
 * returns at once; list_programs and run_program name the port too;
 * stopped, nothing listens there any more.
 */
static void
test_http_server_port(void **state)
{
	struct json_doc		*d, *ld;
	const struct json	*it;
	unsigned		 port = free_port(), port2;
	char			*id, *id2, args[512], want[64];

	(void)state;
	PMX_NEED(osdep_features() & OSDEP_PORTS, PMX_NO_PORTS);
	snprintf(args, sizeof args, "\"argv\":[\"python3\",\"-m\","
	    "\"http.server\",\"--bind\",\"127.0.0.1\",\"%u\"],\"untilPort\":%u,"
	    "\"timeoutMs\":%d", port, port, LONG_MS);
	d = start(args, &id);
	reason_is(d, "port");
	assert_true(ports_hold(sc_get(d, "ports"), "127.0.0.1", port));
	snprintf(want, sizeof want, "listening on 127.0.0.1:%u", port);
	assert_non_null(strstr(pmx_text(d), want));
	assert_string_equal(sc_need_str(d, "outcome"), "running");
	assert_true(connects(port));
	json_doc_free(d);

	snprintf(args, sizeof args, "\"untilPort\":%u", port);
	d = rd(id, 0, LONG_MS, args);
	reason_is(d, "port");
	json_doc_free(d);

	assert_non_null(it = listed(&group, id, &ld));
	assert_true(ports_hold(json_get(it, "ports"), "127.0.0.1", port));
	assert_non_null(strstr(pmx_text(ld), want));
	json_doc_free(ld);

	/* run_program's report, of a server still running at its timeout. */
	port2 = free_port();
	snprintf(args, sizeof args, "{\"argv\":[\"python3\",\"-m\","
	    "\"http.server\",\"--bind\",\"127.0.0.1\",\"%u\"],"
	    "\"timeoutMs\":1500}", port2);
	d = call_ok("run_program", args);
	id2 = xstrdup(sc_need_str(d, "programId"));
	if (strcmp(sc_need_str(d, "outcome"), "running") == 0 &&
	    connects(port2)) {
		/* (It listened before the run's answer: named there.) */
		json_doc_free(d);
		d = rd(id2, 0, 0, "");
		assert_true(ports_hold(sc_get(d, "ports"), "127.0.0.1",
		    port2));
	}
	json_doc_free(d);
	stop(id2);

	stop(id);
	assert_false(connects(port));
	free(id);
	free(id2);
}

/* A server that binds port 0 (on 127.0.0.1, and on ::1 where there is
 * IPv6) and prints nothing, writing its ports to a file of the test's. */
static const char silent_py[] =
	"import socket, sys, time\n"
	"s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen()\n"
	"p6 = 0\n"
	"try:\n"
	"    s6 = socket.socket(socket.AF_INET6)\n"
	"    s6.bind(('::1', 0)); s6.listen(); p6 = s6.getsockname()[1]\n"
	"except OSError:\n"
	"    pass\n"
	"open(sys.argv[1] + '.tmp', 'w').write('%d %d' % "
	"(s.getsockname()[1], p6))\n"
	"import os; os.rename(sys.argv[1] + '.tmp', sys.argv[1])\n"
	"time.sleep(120)\n";

/*
 * It prints nothing, so only the kernel says it is ready: untilPort 0
 * returns with the very port it bound (and its IPv6 one), the text
 * names both, and the text of the program is empty.
 */
static void
test_silent_port_zero(void **state)
{
	struct json_doc	*d;
	char		*id, args[128], want[80];
	unsigned	 p4 = 0, p6 = 0;

	(void)state;
	PMX_NEED(osdep_features() & OSDEP_PORTS, PMX_NO_PORTS);
	snprintf(args, sizeof args, ",\"untilPort\":0,\"timeoutMs\":%d",
	    LONG_MS);
	d = start_teller("silent.py", silent_py, args, &id, &p4, &p6);
	reason_is(d, "port");
	/* (The walk may find the first before the second is bound.) */
	json_doc_free(d);
	d = rd(id, 0, 0, "");
	assert_true(ports_hold(sc_get(d, "ports"), "127.0.0.1", p4));
	snprintf(want, sizeof want, "127.0.0.1:%u", p4);
	assert_non_null(strstr(pmx_text(d), want));
	if (p6 != 0) {
		assert_true(ports_hold(sc_get(d, "ports"), "::1", p6));
		snprintf(want, sizeof want, "[::1]:%u", p6);
		assert_non_null(strstr(pmx_text(d), want));
	}
	assert_string_equal(sc_need_str(d, "text"), "");
	json_doc_free(d);
	stop(id);
	free(id);
}

/* A server whose forked child listens (port 0), telling the child's pid
 * and port; the parent only waits for it. */
static const char fork_py[] =
	"import os, socket, sys, time\n"
	"pid = os.fork()\n"
	"if pid == 0:\n"
	"    s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen()\n"
	"    open(sys.argv[1] + '.tmp', 'w').write('%d %d' % "
	"(os.getpid(), s.getsockname()[1]))\n"
	"    os.rename(sys.argv[1] + '.tmp', sys.argv[1])\n"
	"    time.sleep(120)\n"
	"else:\n"
	"    print('parent %d' % os.getpid(), flush=True)\n"
	"    os.waitpid(pid, 0)\n";

/* The port belongs to the tree: the child's port, not the program's own
 * process's, ends untilPort 0 and is in the report. */
static void
test_forked_child_port(void **state)
{
	struct json_doc	*d;
	char		*id, args[128];
	unsigned	 cpid = 0, port = 0;
	int64_t		 deadline;

	(void)state;
	PMX_NEED(osdep_features() & OSDEP_PORTS, PMX_NO_PORTS);
	snprintf(args, sizeof args, ",\"untilPort\":0,\"timeoutMs\":%d",
	    LONG_MS);
	d = start_teller("fork.py", fork_py, args, &id, &cpid, &port);
	reason_is(d, "port");
	assert_true(ports_hold(sc_get(d, "ports"), "127.0.0.1", port));
	json_doc_free(d);
	/* The program itself is the parent, not the child that listens. */
	first_line(id, "parent ");
	stop(id);
	deadline = now_ms() + LONG_MS;
	while (pmx_alive((pid_t)cpid) && now_ms() < deadline)
		poll(NULL, 0, 20);
	assert_false(pmx_alive((pid_t)cpid));
	free(id);
}

/* A server answering 503 for its first 2 s, then 200 (its log lines on
 * standard error, in the pane). */
static const char slow_py[] =
	"import http.server, sys, time\n"
	"t0 = time.monotonic()\n"
	"class H(http.server.BaseHTTPRequestHandler):\n"
	"    def do_GET(self):\n"
	"        self.send_response(503 if time.monotonic() - t0 < 2 else "
	"200)\n"
	"        self.send_header('Content-Length', '0')\n"
	"        self.end_headers()\n"
	"http.server.HTTPServer(('127.0.0.1', int(sys.argv[1])), H)"
	".serve_forever()\n";

/*
 * untilUrl waits through the 503s to the 200: the reply comes with
 * reason url, and the server's own log (the text) shows it answered 503
 * before the 200 that ended the wait.
 */
static void
test_url_503_then_200(void **state)
{
	struct json_doc	*d;
	char		*py = script("slow.py", slow_py), *id;
	char		 args[1024];
	const char	*text, *a, *b;
	unsigned	 port = free_port();

	(void)state;
	snprintf(args, sizeof args, "\"argv\":[\"python3\",\"%s\",\"%u\"],"
	    "\"untilUrl\":\"http://localhost:%u/health\",\"timeoutMs\":%d",
	    py, port, port, LONG_MS);
	d = start(args, &id);
	reason_is(d, "url");
	text = sc_need_str(d, "text");
	a = strstr(text, "\"GET /health HTTP/1.1\" 503");
	b = strstr(text, "\"GET /health HTTP/1.1\" 200");
	if (a == NULL || (b != NULL && b < a))
		fail_msg("no 503 before the end of the wait: %s", text);
	json_doc_free(d);
	/* Its 200 is logged too, once the wait ended on it. */
	first_line(id, "\"GET /health HTTP/1.1\" 200");
	stop(id);
	free(py);
	free(id);
}

/*
 * A program that makes ready.flag (in the group's directory) late, and
 * writes "ready" into it a second later, waited for with clause: the
 * file's content when the reply came (allocated).
 */
static char *
file_wait(const char *clause)
{
	struct json_doc	*d;
	char		*id, *flag, *content, args[1024];
	size_t		 len;

	xasprintf(&flag, "%s/ready.flag", group.dir);
	unlink(flag);
	snprintf(args, sizeof args, "\"argv\":[\"sh\",\"-c\",\"sleep 0.5; "
	    "echo starting > ready.flag.tmp; mv ready.flag.tmp ready.flag; "
	    "echo made; sleep 1; echo ready >> ready.flag; echo said; "
	    "sleep 60\"],\"startDirectory\":\"%s\",%s,\"timeoutMs\":%d",
	    group.dir, clause, LONG_MS);
	d = start(args, &id);
	reason_is(d, "file");
	content = pmx_read_file(flag, &len);
	assert_non_null(content);
	json_doc_free(d);
	stop(id);
	unlink(flag);
	free(flag);
	free(id);
	return (content);
}

/*
 * untilFile alone returns once the file is there (a relative path taken
 * from startDirectory); with untilFileMatch only once its content
 * matches, so when the reply comes the file already says ready.
 */
static void
test_file_late(void **state)
{
	char	*content, clause[600];

	(void)state;
	free(file_wait("\"untilFile\":\"ready.flag\""));
	snprintf(clause, sizeof clause, "\"untilFile\":\"%s/ready.flag\","
	    "\"untilFileMatch\":\"^ready$\"", group.dir);
	content = file_wait(clause);
	if (strstr(content, "ready\n") == NULL)
		fail_msg("the wait ended on \"%s\", before it matched",
		    content);
	free(content);
}

/* A program that says READY=1 (and a status) in a plain datagram once
 * the test makes go.flag, telling the path it was given. */
static const char notify_py[] =
	"import os, socket, sys, time\n"
	"print('booting ' + os.environ.get('NOTIFY_SOCKET', '[unset]'), "
	"flush=True)\n"
	"while not os.path.exists(sys.argv[1]):\n"
	"    time.sleep(0.02)\n"
	"s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)\n"
	"s.sendto(b'STATUS=warming up\\nMAINPID=1\\nREADY=1\\n', "
	"os.environ['NOTIFY_SOCKET'])\n"
	"time.sleep(120)\n";

/*
 * READY=1 in a plain datagram on the NOTIFY_SOCKET in progmux's runtime
 * directory (never the one progmux itself was given) ends a read that
 * waits for text (reason ready, status reported), once: the next read
 * waits as usual; stopped, the socket's name is gone.
 */
static void
test_notify_datagram(void **state)
{
	struct json_doc	*d;
	char		*py = script("notify.py", notify_py), *go, *id, *dir;
	char		 args[1024], sock[512];
	const char	*text;
	int64_t		 cursor, rid;

	(void)state;
	xasprintf(&go, "%s/go.flag", group.dir);
	unlink(go);
	snprintf(args, sizeof args, "\"argv\":[\"python3\",\"%s\",\"%s\"]",
	    py, go);
	json_doc_free(start(args, &id));
	d = rd(id, 0, LONG_MS, "");
	text = sc_need_str(d, "text");
	if (sscanf(text, "booting %511s", sock) != 1)
		fail_msg("no first line: %s", text);
	dir = rundir_of(&group);
	if (strncmp(sock, dir, strlen(dir)) != 0)
		fail_msg("NOTIFY_SOCKET %s is not in the runtime directory %s",
		    sock, dir);
	cursor = sc_int(d, "cursor");
	json_doc_free(d);

	/* A read waiting for text, dispatched (the ping after it answered
	 * first), then the program is let go. */
	snprintf(args, sizeof args, "{\"name\":\"read_program\",\"arguments\":"
	    "{\"programId\":\"%s\",\"cursor\":%lld,\"timeoutMs\":%d}}", id,
	    (long long)cursor, LONG_MS);
	rid = pmx_send(&group, "tools/call", args);
	expect_ping_next(&group);
	free(script("go.flag", "go\n"));
	d = pmx_wait(&group, rid, LONG_MS + 5000);
	assert_non_null(d);
	reason_is(d, "ready");
	assert_true(sc_bool(d, "ready"));
	assert_string_equal(sc_need_str(d, "status"), "warming up");
	assert_non_null(strstr(pmx_text(d), "status \"warming up\""));
	json_doc_free(d);

	/* Once: the next read waits, and still says it is ready. */
	d = rd(id, cursor, 1000, "");
	reason_is(d, "timeout");
	assert_true(sc_bool(d, "ready"));
	json_doc_free(d);

	stop(id);
	assert_true(wait_path_gone(sock, LONG_MS));
	unlink(go);
	free(go);
	free(dir);
	free(py);
	free(id);
}

/* READY=1 and a status through systemd-notify: start_program returns
 * with reason ready. */
static void
test_notify_systemd(void **state)
{
	struct json_doc	*d;
	char		*id, args[512];

	(void)state;
	PMX_NEED(access("/usr/bin/systemd-notify", X_OK) == 0 ||
	    access("/bin/systemd-notify", X_OK) == 0, PMX_NO_SYSTEMD_NOTIFY);
	snprintf(args, sizeof args, "\"argv\":[\"sh\",\"-c\",\"echo up; "
	    "systemd-notify --status='Serving on 8000' --ready; "
	    "echo notified; sleep 60\"],\"timeoutMs\":%d", LONG_MS);
	d = start(args, &id);
	reason_is(d, "ready");
	assert_true(sc_bool(d, "ready"));
	assert_string_equal(sc_need_str(d, "status"), "Serving on 8000");
	assert_non_null(strstr(pmx_text(d), "it said READY=1"));
	json_doc_free(d);
	stop(id);
	free(id);
}

/*
 * A program that prints a line every 0.1 s for 2 s and then goes quiet:
 * untilQuietMs, longer than its gaps, returns after the last line (all
 * 20 are in the text), the program still running.
 */
static void
test_quiet_after_burst(void **state)
{
	struct json_doc	*d;
	char		*id, args[512];

	(void)state;
	snprintf(args, sizeof args, "\"argv\":[\"sh\",\"-c\",\"i=0; "
	    "while [ $i -lt 20 ]; do i=$((i+1)); echo line $i; sleep 0.1; "
	    "done; sleep 60\"],\"untilQuietMs\":1500,\"timeoutMs\":%d",
	    LONG_MS);
	d = start(args, &id);
	reason_is(d, "quiet");
	assert_non_null(strstr(sc_need_str(d, "text"), "line 20\n"));
	assert_string_equal(sc_need_str(d, "outcome"), "running");
	json_doc_free(d);
	stop(id);
	free(id);
}

/*
 * A program that is never ready: the read times out (reason timeout),
 * the program still running, and says what each clause saw.
 */
static void
test_never_ready(void **state)
{
	struct json_doc	*d;
	char		*id, args[1024];
	unsigned	 port = free_port();
	bool		 ports = osdep_features() & OSDEP_PORTS;

	(void)state;
	json_doc_free(start("\"argv\":[\"sleep\",\"60\"]", &id));
	snprintf(args, sizeof args, "%s\"untilUrl\":\"http://127.0.0.1:%u/\","
	    "\"untilFile\":\"%s/never.flag\",\"untilQuietMs\":300",
	    ports ? "\"untilPort\":0," : "", port, group.dir);
	d = rd(id, 0, 2000, args);
	reason_is(d, "timeout");
	assert_int_equal(sc_int(d, "effectiveTimeoutMs"), 2000);
	assert_string_equal(sc_need_str(d, "outcome"), "running");
	assert_non_null(strstr(pmx_text(d), "wait ran out"));
	assert_non_null(strstr(pmx_text(d), "not there"));
	assert_non_null(strstr(pmx_text(d), "no answer"));
	assert_non_null(strstr(pmx_text(d), "never that quiet"));
	if (ports)
		assert_non_null(strstr(pmx_text(d), "no port listened on"));
	json_doc_free(d);
	stop(id);
	free(id);
}

/* Start args (a start_program's), then send its pane keys with the
 * reply's members; the reply, the program's id in *id (to stop). */
static struct json_doc *
keys_to(const char *args, const char *keys, const char *members, char **id)
{
	struct json_doc	*d;
	char		*pane, call[1024];

	*id = pmx_start_program(&group, args, &pane);
	assert_non_null(*id);
	snprintf(call, sizeof call, "{\"paneId\":\"%s\",\"keys\":\"%s\",%s}",
	    pane, keys, members);
	d = call_ok("send_keys", call);
	free(pane);
	return (d);
}

/* The CPU time pid has used, in ms (from /proc). */
static int64_t
cpu_ms(pid_t pid)
{
	char			 path[64], *st, *rp;
	unsigned long long	 ut = 0, stime = 0;
	size_t			 len;

	snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
	assert_non_null(st = pmx_read_file(path, &len));
	assert_non_null(rp = strrchr(st, ')'));
	if (sscanf(rp + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu "
	    "%llu", &ut, &stime) != 2)
		fail_msg("cannot read %s", path);
	free(st);
	return ((int64_t)(ut + stime) * 1000 / sysconf(_SC_CLK_TCK));
}

/* A server that takes connections and never answers them. */
static const char mute_py[] =
	"import socket, sys, time\n"
	"s = socket.socket(); s.bind(('127.0.0.1', int(sys.argv[1])))\n"
	"s.listen(64); print('mute', flush=True); time.sleep(120)\n";

/*
 * untilUrl on a server that never answers: each GET waits its 2 s in
 * the loop without costing it anything (the front's CPU time over the
 * 3 s wait stays far below what a wait looking again in a loop burns),
 * and the read times out saying there was no answer.
 */
static void
test_url_never_answers(void **state)
{
	struct json_doc	*d;
	char		*py = script("mute.py", mute_py), *id, args[512];
	unsigned	 port = free_port();
	int64_t		 cpu;

	(void)state;
	snprintf(args, sizeof args, "\"argv\":[\"python3\",\"%s\",\"%u\"],"
	    "\"until\":\"^mute\",\"timeoutMs\":%d", py, port, LONG_MS);
	json_doc_free(start(args, &id));
	cpu = cpu_ms(group.front);
	snprintf(args, sizeof args, "\"untilUrl\":\"http://127.0.0.1:%u/\"",
	    port);
	d = rd(id, 0, 3000, args);
	cpu = cpu_ms(group.front) - cpu;
	print_message("the front used %lld ms of CPU in the 3 s wait\n",
	    (long long)cpu);
	reason_is(d, "timeout");
	assert_non_null(strstr(pmx_text(d), "no answer within 2 s"));
	assert_true(cpu < 500);
	json_doc_free(d);
	stop(id);
	free(py);
	free(id);
}

/*
 * One call from keys to the end: send_keys with tail waits for the end
 * (the last line), where without it the reply stops at the first burst;
 * with until, for its line; with untilPort, for the port the keys made
 * it open.
 */
static void
test_send_keys_waits(void **state)
{
	struct json_doc	*d;
	char		*id, members[64];

	(void)state;
	snprintf(members, sizeof members, "\"tail\":1,\"timeoutMs\":%d",
	    LONG_MS);
	d = keys_to("{\"argv\":[\"sh\",\"-c\",\"printf 'Go on? [y/N] '; "
	    "read a; i=0; while [ $i -lt 5 ]; do i=$((i+1)); echo step $i; "
	    "sleep 0.3; done; echo all done\"]}", "y", members, &id);
	reason_is(d, "ended");
	assert_string_equal(sc_need_str(d, "text"), "all done\n");
	assert_true(sc_bool(d, "ended"));
	json_doc_free(d);
	stop(id);
	free(id);

	d = keys_to("{\"argv\":[\"sh\",\"-c\",\"read a; i=0; while [ $i "
	    "-lt 5 ]; do i=$((i+1)); echo step $i; sleep 0.3; done; "
	    "sleep 60\"]}", "go", "\"until\":\"^step 3$\"", &id);
	reason_is(d, "matched");
	assert_true(sc_bool(d, "matched"));
	assert_non_null(strstr(sc_need_str(d, "text"), "step 3\n"));
	assert_null(strstr(sc_need_str(d, "text"), "step 4"));
	json_doc_free(d);
	stop(id);
	free(id);

	if (!(osdep_features() & OSDEP_PORTS))
		return;
	d = keys_to("{\"argv\":[\"python3\",\"-c\",\"import socket, time\\n"
	    "input('serve? ')\\ns = socket.socket(); s.bind(('127.0.0.1', 0)); "
	    "s.listen(); time.sleep(60)\"]}", "yes", "\"untilPort\":0", &id);
	reason_is(d, "port");
	assert_true(json_len(sc_get(d, "ports")) == 1);
	json_doc_free(d);
	stop(id);
	free(id);
}

/* start_program with until: the line, reason matched, running on. */
static void
test_start_until(void **state)
{
	struct json_doc	*d;
	char		*id, args[512];

	(void)state;
	snprintf(args, sizeof args, "\"argv\":[\"sh\",\"-c\",\"echo "
	    "compiling; sleep 0.3; echo 'VITE ready in 120 ms'; sleep 60\"],"
	    "\"until\":\"ready in \\\\d+ ms\",\"timeoutMs\":%d", LONG_MS);
	d = start(args, &id);
	reason_is(d, "matched");
	assert_true(sc_bool(d, "matched"));
	assert_string_equal(sc_need_str(d, "text"),
	    "compiling\nVITE ready in 120 ms\n");
	assert_string_equal(sc_need_str(d, "outcome"), "running");
	assert_non_null(sc_need_str(d, "paneId"));
	json_doc_free(d);
	stop(id);
	free(id);
}

/* What the clauses refuse, each with what to do instead. */
static void
test_clauses_refused(void **state)
{
	char	args[512];

	(void)state;
	refused("start_program", "{\"argv\":[\"true\"],\"untilUrl\":"
	    "\"https://127.0.0.1:8443/\"}", "http://", NULL);
	refused("start_program", "{\"argv\":[\"true\"],\"untilUrl\":"
	    "\"http://example.com/\"}", "this machine", NULL);
	refused("start_program", "{\"argv\":[\"true\"],\"untilUrl\":"
	    "\"http://192.0.2.1:8080/\"}", "this machine", NULL);
	refused("start_program", "{\"argv\":[\"true\"],\"untilFileMatch\":"
	    "\"x\"}", "goes with untilFile", NULL);
	refused("start_program", "{\"argv\":[\"true\"],\"untilFile\":"
	    "\"x.flag\"}", "absolute", NULL);
	snprintf(args, sizeof args, "{\"argv\":[\"true\"],\"untilFile\":"
	    "\"%s/x\",\"untilFileMatch\":\"(\"}", group.dir);
	refused("start_program", args, "untilFileMatch", NULL);
	refused("send_keys", "{\"paneId\":\"%0\",\"keys\":\"x\",\"filter\":"
	    "\"y\"}", "read_program takes it", NULL);
	if (!(osdep_features() & OSDEP_PORTS))
		refused("start_program", "{\"argv\":[\"true\"],\"untilPort\":0}",
		    "cannot tell which ports", NULL);
}

/*
 * The port seam as this build has it: where the system tells, a report
 * of a program that listens names the port; where it cannot, untilPort
 * is refused and every report of a running program says its ports are
 * unknown, in the result and the text.
 */
static void
test_ports_seam(void **state)
{
	struct json_doc	*d;
	char		*id;
	unsigned	 p4 = 0, p6 = 0;

	(void)state;
	json_doc_free(start_teller("seam.py", silent_py, "", &id, &p4, &p6));
	d = rd(id, 0, 0, "");
	if (osdep_features() & OSDEP_PORTS) {
		assert_true(ports_hold(sc_get(d, "ports"), "127.0.0.1", p4));
		assert_null(sc_get(d, "portsUnknown"));
	} else {
		assert_null(sc_get(d, "ports"));
		assert_non_null(strstr(sc_need_str(d, "portsUnknown"),
		    "cannot tell"));
		assert_non_null(strstr(pmx_text(d), "ports unknown"));
	}
	json_doc_free(d);
	stop(id);
	free(id);
}

/* A program that says READY=1 at once. */
static const char ready_py[] =
	"import os, socket, time\n"
	"socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM).sendto(b'READY=1', "
	"os.environ['NOTIFY_SOCKET'])\n"
	"time.sleep(60)\n";

/*
 * Robust mode (a private tmux server of progmux's own), in both eras on
 * one connection: a 2026-07-28 start_program (its _meta names the
 * version) waits for its untilFile, which the silent server writes once
 * it listens, and its reply names the port (or, where the system cannot
 * tell, says so); a 2025 one returns on READY=1.
 */
static void
test_robust_both_eras(void **state)
{
	struct pmx	 c;
	struct json_doc	*d;
	char		*py = script("robust.py", silent_py), *out, *rpy, *got;
	char		 params[1500];
	unsigned	 p4 = 0, p6 = 0;
	int64_t		 rid;

	(void)state;
	open_mode(&c, true, NULL);
	xasprintf(&out, "%s/robust.told", group.dir);
	unlink(out);
	snprintf(params, sizeof params, "{\"name\":\"start_program\","
	    "\"arguments\":{\"argv\":[\"python3\",\"%s\",\"%s\"],"
	    "\"untilFile\":\"%s\",\"timeoutMs\":%d},\"_meta\":{\"io."
	    "modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io."
	    "modelcontextprotocol/clientCapabilities\":{}}}", py, out, out,
	    LONG_MS);
	rid = pmx_send(&c, "tools/call", params);
	assert_non_null(d = pmx_wait(&c, rid, LONG_MS + 5000));
	assert_false(pmx_is_error(d));
	reason_is(d, "file");
	got = told(out);
	assert_int_equal(sscanf(got, "%u %u", &p4, &p6), 2);
	free(got);
	if (osdep_features() & OSDEP_PORTS)
		assert_true(ports_hold(sc_get(d, "ports"), "127.0.0.1", p4));
	else
		assert_non_null(sc_get(d, "portsUnknown"));
	json_doc_free(d);

	rpy = script("robust_ready.py", ready_py);
	snprintf(params, sizeof params, "{\"argv\":[\"python3\",\"%s\"],"
	    "\"timeoutMs\":%d}", rpy, LONG_MS);
	d = sc_call_ok(&c, "start_program", params);
	reason_is(d, "ready");
	json_doc_free(d);
	assert_int_equal(pmx_close(&c), 0);
	free(rpy);
	free(out);
	free(py);
}

static int
ready_setup(void **state)
{
	static const char *const env[] = { OUTER_NOTIFY, NULL };

	(void)state;
	return (group_open(env));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_http_server_port),
		cmocka_unit_test(test_silent_port_zero),
		cmocka_unit_test(test_forked_child_port),
		cmocka_unit_test(test_url_503_then_200),
		cmocka_unit_test(test_file_late),
		cmocka_unit_test(test_notify_datagram),
		cmocka_unit_test(test_notify_systemd),
		cmocka_unit_test(test_quiet_after_burst),
		cmocka_unit_test(test_never_ready),
		cmocka_unit_test(test_url_never_answers),
		cmocka_unit_test(test_send_keys_waits),
		cmocka_unit_test(test_start_until),
		cmocka_unit_test(test_clauses_refused),
		cmocka_unit_test(test_ports_seam),
		cmocka_unit_test(test_robust_both_eras),
	};

	return (HARNESS_RUN("ready", tests, ready_setup, group_teardown));
}
