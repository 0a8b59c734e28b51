/*
 * test_framing.c — how build/progmux takes its lines in and gives replies out.
 *
 * Each test starts its own progmux on a private tmux server (tests/client.c)
 * and writes its stdin as a client may: an 8 MiB message, messages over
 * 16 MiB, a client that sends 5000 reads without reading a reply (the
 * front's memory stays bounded and every reply comes, in order), CRLF line
 * endings, empty lines, a message split over many writes, and stdin EOF,
 * idle or with a read waiting. A ping whose reply is the very next line
 * shows that nothing else came (rpc.h).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>

#include "client.h"
#include "harness.h"
#include "needs.h"
#include "xmalloc.h"

/* A ping line padded by a params._meta string of pad bytes. */
static char *
padded_ping(size_t pad, const char *id, size_t *len)
{
	struct buf	b = BUF_INIT;

	buf_printf(&b, "{\"jsonrpc\":\"2.0\",\"id\":%s,\"method\":\"ping\","
	    "\"params\":{\"_meta\":{\"pad\":\"", id);
	buf_reserve(&b, pad + 16);
	memset(b.data + b.len, 'a', pad);
	b.len += pad;
	buf_adds(&b, "\"}}}");
	*len = b.len;
	return (b.data);
}

/* Pins: an 8 MiB message is read whole and answered. */
static void
test_message_8mib(void **state)
{
	struct pmx	*c = *state;
	struct json_doc	*d;
	struct buf	 b = BUF_INIT;
	char		*line, *got;
	size_t		 len;

	line = padded_ping(8u << 20, "\"big\"", &len);
	pmx_send_raw(c, line, len);
	free(line);
	d = next_line(c);
	assert_envelope(d);
	got = id_raw(d);
	assert_string_equal(got, "\"big\"");
	free(got);
	assert_non_null(json_get(json_root(d), "result"));
	json_doc_free(d);

	/* A tools/call with a huge unknown field: the field is named. */
	buf_adds(&b, "{\"jsonrpc\":\"2.0\",\"id\":\"big2\",\"method\":"
	    "\"tools/call\",\"params\":{\"name\":\"read_program\","
	    "\"arguments\":{\"programId\":\"p9\",\"hugeField\":\"");
	buf_reserve(&b, (8u << 20) + 16);
	memset(b.data + b.len, 'z', 8u << 20);
	b.len += 8u << 20;
	buf_adds(&b, "\"}}}");
	pmx_send_raw(c, b.data, b.len);
	buf_free(&b);
	d = next_line(c);
	assert_true(pmx_is_error(d));
	assert_non_null(strstr(pmx_text(d), "hugeField"));
	json_doc_free(d);
	expect_ping_next(c);
}

/* Pins: a message over 16 MiB gets one -32700 "too large" error carrying
 * its id when that stands near its start, else "id": null, and the server
 * answers the next ping. */
static void
test_message_too_large(void **state)
{
	struct pmx		*c = *state;
	struct json_doc		*d;
	const struct json	*m;
	struct buf		 b = BUF_INIT;
	char			*line;
	size_t			 len;

	line = padded_ping(17u << 20, "1", &len);
	pmx_send_raw(c, line, len);
	free(line);
	d = next_line(c);
	assert_error(d, -32700, "1");
	m = json_get(json_get(json_root(d), "error"), "message");
	assert_non_null(strstr(json_str(m, NULL), "too large"));
	json_doc_free(d);
	expect_ping_next(c);
	/* Twice in a row, then a normal message right after. */
	line = padded_ping(20u << 20, "\"two\"", &len);
	pmx_send_raw(c, line, len);
	pmx_send_raw(c, line, len);
	free(line);
	d = next_line(c);
	assert_error(d, -32700, "\"two\"");
	json_doc_free(d);
	d = next_line(c);
	assert_error(d, -32700, "\"two\"");
	json_doc_free(d);
	expect_ping_next(c);
	/* No id in the message, or only after the padding: null. */
	line = padded_ping(17u << 20, "1", &len);
	memcpy(strstr(line, "\"id\""), "\"ix\"", 4);
	pmx_send_raw(c, line, len);
	free(line);
	d = next_line(c);
	assert_error(d, -32700, NULL);
	json_doc_free(d);
	buf_adds(&b, "{\"jsonrpc\":\"2.0\",\"method\":\"ping\",\"params\":"
	    "{\"_meta\":{\"pad\":\"");
	buf_reserve(&b, 17u << 20);
	memset(b.data + b.len, 'a', 17u << 20);
	b.len += 17u << 20;
	buf_adds(&b, "\"}},\"id\":9}");
	pmx_send_raw(c, b.data, b.len);
	buf_free(&b);
	d = next_line(c);
	assert_error(d, -32700, NULL);
	json_doc_free(d);
	expect_ping_next(c);
}

#define SLOW_READS	5000	/* read_program requests a client sends */
#define SLOW_HWM_KB	(128 * 1024)	/* the front's peak RSS may reach */
#define SLOW_ASAN_KB	(64 * 1024)	/* more for AddressSanitizer's own */

/* Write what c's stdin takes now from b (non-blocking); false if none. */
static bool
slow_write(struct pmx *c, struct buf *b)
{
	ssize_t	n;
	bool	any = false;

	while (b->len > 0) {
		n = write(c->to, b->data, b->len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		buf_drain(b, (size_t)n);
		any = true;
	}
	return (any);
}

/* Check one reply line: id want, and the same bytes as the model after
 * the id (the reply to the same read). */
static void
slow_check(const char *line, size_t len, int64_t want, struct buf *model)
{
	char		 head[64];
	struct json_doc	*d;
	const char	*after;
	size_t		 hl, rest;

	hl = (size_t)snprintf(head, sizeof head,
	    "{\"jsonrpc\":\"2.0\",\"id\":%lld,", (long long)want);
	if (len < hl || memcmp(line, head, hl) != 0)
		fail_msg("reply %lld out of order or malformed: %.80s",
		    (long long)want, line);
	after = line + hl;
	rest = len - hl;
	if (model->len == 0) {
		if ((d = json_parse(line, len, NULL)) == NULL)
			fail_msg("reply %lld is not JSON", (long long)want);
		if (pmx_is_error(d) || strncmp(json_str(json_get(pmx_sc(d),
		    "text"), NULL), "1\n2\n3\n", 6) != 0)
			fail_msg("reply %lld is not the page read",
			    (long long)want);
		json_doc_free(d);
		buf_add(model, after, rest);
		return;
	}
	if (rest != model->len || memcmp(after, model->data, rest) != 0)
		fail_msg("reply %lld differs from the first (%zu bytes, not "
		    "%zu)", (long long)want, rest, model->len);
}

/*
 * Pins: a client that sends 5000 reads of a full page without reading
 * any reply does not make the front's memory grow with them: its peak
 * RSS (VmHWM) stays under SLOW_HWM_KB (more under AddressSanitizer),
 * where queueing every reply took about 290 MB. The front stops taking requests and the client's writes
 * stall; once the client reads, every reply arrives, in order, each the
 * whole page (byte for byte the first reply but for its id).
 */
static void
test_slow_client_bounded(void **state)
{
	struct pmx	 c2, *c = &c2;
	const char	*env[2] = { NULL, NULL };
	char		*asan;
	long		 limit;
	struct json_doc	*d;
	struct buf	 out = BUF_INIT, in = BUF_INIT, model = BUF_INIT;
	struct pollfd	 pfd[3];
	char		*prog, *nl;
	int64_t		 first, next, deadline;
	long		 hwm;
	ssize_t		 n;
	int		 i, pending, npfd;

	/*
	 * Under AddressSanitizer freed blocks wait in a quarantine (256 MB
	 * by default), which would count here as the front's own memory:
	 * keep it small. Other builds ignore the variable.
	 */
	(void)state;
	PMX_NEED_PEAK_MEMORY();
	xasprintf(&asan, "ASAN_OPTIONS=%s%squarantine_size_mb=4",
	    getenv("ASAN_OPTIONS") ? getenv("ASAN_OPTIONS") : "",
	    getenv("ASAN_OPTIONS") ? ":" : "");
	env[0] = asan;
	assert_int_equal(pmx_open(c, env), 0);
	d = pmx_call(c, "run_program", "{\"argv\":[\"seq\",\"1\",\"200000\"],"
	    "\"keep\":true,\"timeoutMs\":60000}", 90000);
	assert_non_null(d);
	assert_false(pmx_is_error(d));
	assert_string_equal(json_str(json_get(pmx_sc(d), "outcome"), NULL),
	    "completed");
	prog = xstrdup(json_str(json_get(pmx_sc(d), "programId"), NULL));
	json_doc_free(d);

	first = c->next_id + 1000;
	for (i = 0; i < SLOW_READS; i++)
		buf_printf(&out, "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"method\":"
		    "\"tools/call\",\"params\":{\"name\":\"read_program\","
		    "\"arguments\":{\"programId\":\"%s\",\"cursor\":0}}}\n",
		    (long long)(first + i), prog);
	assert_int_equal(fcntl(c->to, F_SETFL, O_NONBLOCK), 0);

	/*
	 * Write without reading until everything is written and read by
	 * the front, or until its stdin stays full for 5 s (it holds back).
	 */
	deadline = now_ms() + 120000;
	while (now_ms() < deadline) {
		if (!slow_write(c, &out)) {
			if (out.len == 0) {
				if (ioctl(c->to, FIONREAD, &pending) == -1 ||
				    pending == 0)
					break;
			}
			pfd[0] = (struct pollfd){ c->to, POLLOUT, 0 };
			pfd[1] = (struct pollfd){ c->err, POLLIN, 0 };
			if (poll(pfd, 2, 5000) == 0)
				break;
			if (pfd[1].revents)
				pmx_drain_err(c);
			if (out.len == 0 && !(pfd[0].revents & POLLOUT))
				continue;
		}
	}

	/* Now read every reply, writing the rest as the front takes it. */
	next = first;
	deadline = now_ms() + 300000;
	while (next < first + SLOW_READS && now_ms() < deadline) {
		while ((nl = memchr(in.data ? in.data : "", '\n', in.len)) !=
		    NULL) {
			slow_check(in.data, (size_t)(nl - in.data), next++,
			    &model);
			buf_drain(&in, (size_t)(nl - in.data) + 1);
		}
		npfd = 0;
		pfd[npfd++] = (struct pollfd){ c->from, POLLIN, 0 };
		pfd[npfd++] = (struct pollfd){ c->err, POLLIN, 0 };
		if (out.len > 0)
			pfd[npfd++] = (struct pollfd){ c->to, POLLOUT, 0 };
		if (poll(pfd, npfd, 1000) <= 0)
			continue;
		if (pfd[1].revents)
			pmx_drain_err(c);
		if (npfd == 3 && pfd[2].revents)
			slow_write(c, &out);
		if (pfd[0].revents) {
			buf_reserve(&in, 1 << 20);
			n = read(c->from, in.data + in.len, 1 << 20);
			if (n == 0)
				fail_msg("progmux closed stdout");
			if (n > 0)
				in.len += (size_t)n;
		}
	}
	assert_int_equal(next, first + SLOW_READS);
	assert_int_equal(in.len, 0);
	hwm = pmx_status_kb(c->front, "VmHWM");
	assert_true(hwm > 0);
	/* A sanitizer build (the front's too) keeps shadow memory and
	 * redzones as well. */
	limit = SLOW_HWM_KB + (SANITIZED ? SLOW_ASAN_KB : 0);
	if (hwm > limit)
		fail_msg("progmux peaked at %ld kB of RSS, over %ld", hwm,
		    limit);
	fprintf(stderr, "slow client: progmux peak RSS %ld kB\n", hwm);
	assert_int_equal(fcntl(c->to, F_SETFL, 0), 0);
	expect_ping_next(c);
	assert_int_equal(pmx_close(c), 0);
	free(asan);
	free(prog);
	buf_free(&out);
	buf_free(&in);
	buf_free(&model);
}

/* Pins: CRLF line endings are accepted. */
static void
test_crlf(void **state)
{
	struct pmx	*c = *state;
	struct json_doc	*d;
	char		*got;

	send_line(c, "{\"jsonrpc\":\"2.0\",\"id\":\"crlf\",\"method\":"
	    "\"ping\"}\r");
	d = next_line(c);
	got = id_raw(d);
	assert_string_equal(got, "\"crlf\"");
	assert_non_null(json_get(json_root(d), "result"));
	free(got);
	json_doc_free(d);
	/* Two CRLF messages in one write. */
	send_line(c, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\r\n"
	    "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\r");
	d = next_line(c);
	assert_int_equal(json_int(json_get(json_root(d), "id")), 1);
	json_doc_free(d);
	d = next_line(c);
	assert_int_equal(json_int(json_get(json_root(d), "id")), 2);
	json_doc_free(d);
}

/* Pins: empty and blank lines are ignored, not answered. */
static void
test_empty_lines(void **state)
{
	struct pmx	*c = *state;

	send_line(c, "");
	send_line(c, "   ");
	send_line(c, "\r");
	send_line(c, "\t \r");
	send_line(c, "\n\n");
	expect_ping_next(c);
}

/* Pins: a message split over many writes is put back together. */
static void
test_split_writes(void **state)
{
	struct pmx	*c = *state;
	const char	*m = "{\"jsonrpc\":\"2.0\",\"id\":\"split\","
			    "\"method\":\"ping\"}\n";
	struct json_doc	*d;
	char		*got;
	size_t		 i;

	for (i = 0; m[i] != '\0'; i++) {
		if (write(c->to, m + i, 1) != 1)
			fail_msg("write: short");
		if (i % 8 == 0)
			poll(NULL, 0, 1);
	}
	d = next_line(c);
	got = id_raw(d);
	assert_string_equal(got, "\"split\"");
	free(got);
	json_doc_free(d);
}

/* Close progmux's stdin: it exits with status 0 within 2 s. */
static void
eof_exits(struct pmx *c)
{
	int64_t	t0 = now_ms();

	close(c->to);
	c->to = -1;
	assert_int_equal(pmx_wait_exit(c, 2000), 0);
	assert_true(now_ms() - t0 < 2000);
}

/* Pins: stdin EOF ends progmux with status 0 within 2 s. */
static void
test_eof_exit(void **state)
{
	struct pmx	*c = *state;

	expect_ping_next(c);
	eof_exits(c);
}

/* Pins: EOF with a read waiting on a running program drains: a last
 * line without LF is answered, and the read too, when its own wait (1.5
 * s) is over; then progmux exits 0. */
static void
test_eof_exit_busy(void **state)
{
	struct pmx	*c = *state;
	const char	*last = "{\"jsonrpc\":\"2.0\",\"id\":\"last\","
			    "\"method\":\"ping\"}";
	struct json_doc	*d;
	char		*prog, *got;
	bool		 seen_last = false, seen_w = false;

	prog = start_sleeper(c);
	send_read(c, "\"w\"", prog, 1500);
	if (write(c->to, last, strlen(last)) != (ssize_t)strlen(last))
		fail_msg("write: short");
	close(c->to);
	c->to = -1;
	while (!seen_last || !seen_w) {
		d = next_line(c);
		got = id_raw(d);
		assert_non_null(got);
		if (strcmp(got, "\"last\"") == 0)
			seen_last = true;
		else {
			assert_string_equal(got, "\"w\"");
			assert_non_null(json_get(json_root(d), "result"));
			seen_w = true;
		}
		free(got);
		json_doc_free(d);
	}
	assert_int_equal(pmx_wait_exit(c, 5000), 0);
	free(prog);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, rpc_setup, rpc_teardown)
		T(test_message_8mib),
		T(test_message_too_large),
		T(test_slow_client_bounded),
		T(test_crlf),
		T(test_empty_lines),
		T(test_split_writes),
		T(test_eof_exit),
		T(test_eof_exit_busy),
#undef T
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}

