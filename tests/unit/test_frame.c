/*
 * test_frame.c — the frame codec between front, reaper and launcher
 * (common/frame.c): a 4-byte big-endian length, then one msgpack map whose
 * "t" names the message.
 *
 * Round trips of every field kind, frames cut at every byte and fed in
 * pieces, many frames in one buffer, lengths out of bounds (refused from
 * the header alone), and bodies that are not one msgpack map with a type.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frame.h"
#include "proto.h"

/* Append a frame header for len bytes. */
static void
put_header(struct buf *b, uint32_t len)
{
	unsigned char	h[4];

	h[0] = len >> 24;
	h[1] = len >> 16;
	h[2] = len >> 8;
	h[3] = len;
	buf_add(b, h, 4);
}

/* Append a frame of the given raw body bytes. */
static void
put_raw(struct buf *b, const void *body, size_t len)
{
	put_header(b, (uint32_t)len);
	buf_add(b, body, len);
}

/* Append a frame "seq" {n}. */
static void
put_seq(struct buf *b, int64_t n)
{
	struct msg_out	m;

	msg_begin(&m, "seq", 1);
	msg_int(&m, "n", n);
	msg_end(&m, b);
}

/* Take one frame that must be refused, with a cause holding want. */
static void
take_bad(struct buf *b, const char *want)
{
	struct msg	 m;
	char		*cause = NULL;

	memset(&m, 0, sizeof m);
	assert_int_equal(frame_take(b, &m, &cause), -1);
	assert_non_null(cause);
	if (strstr(cause, want) == NULL)
		fail_msg("cause \"%s\" lacks \"%s\"", cause, want);
	free(cause);
}

/* Every field kind comes back as written. */
static void
test_round_trip(void **state)
{
	static char *const argv[] = { "sh", "-c", "", "\xc3\xa9" };
	struct buf	 q = BUF_INIT;
	struct msg_out	 o;
	struct msg	 m;
	char		*cause = NULL, *s, **v;
	const char	*p;
	size_t		 len, n;
	int64_t		 i;

	(void)state;
	msg_begin(&o, MSG_START, 9);
	msg_str(&o, "dir", "/tmp/a b");
	msg_strn(&o, "nul", "a\0b", 3);
	msg_bin(&o, "bin", "\x00\xff\x80", 3);
	msg_int(&o, "neg", -5);
	msg_int(&o, "min", INT64_MIN);
	msg_int(&o, "max", INT64_MAX);
	msg_bool(&o, "yes", true);
	msg_str(&o, "none", NULL);
	msg_strv(&o, "argv", argv, 4);
	msg_end(&o, &q);

	assert_int_equal(frame_take(&q, &m, &cause), 1);
	assert_null(cause);
	assert_int_equal(q.len, 0);
	assert_true(msg_is(&m, MSG_START));
	assert_false(msg_is(&m, MSG_STOP));
	s = msg_dup_str(&m, "dir");
	assert_string_equal(s, "/tmp/a b");
	free(s);
	p = msg_get_bytes(&m, "nul", &len);
	assert_int_equal(len, 3);
	assert_memory_equal(p, "a\0b", 3);
	p = msg_get_bytes(&m, "bin", &len);
	assert_int_equal(len, 3);
	assert_memory_equal(p, "\x00\xff\x80", 3);
	assert_true(msg_get_int(&m, "neg", &i));
	assert_true(i == -5);
	assert_true(msg_get_int(&m, "min", &i));
	assert_true(i == INT64_MIN);
	assert_true(msg_get_int(&m, "max", &i));
	assert_true(i == INT64_MAX);
	assert_true(msg_get_bool(&m, "yes"));
	assert_false(msg_get_bool(&m, "dir"));	/* not a boolean */
	assert_non_null(msg_get(&m, "none"));
	assert_int_equal(msg_get(&m, "none")->type, MSGPACK_OBJECT_NIL);
	assert_null(msg_dup_str(&m, "none"));
	assert_null(msg_get(&m, "absent"));
	assert_false(msg_get_int(&m, "absent", &i));
	assert_false(msg_get_int(&m, "dir", &i));	/* not an integer */
	v = msg_dup_strv(&m, "argv", &n);
	assert_int_equal(n, 4);
	assert_string_equal(v[0], "sh");
	assert_string_equal(v[2], "");
	assert_string_equal(v[3], "\xc3\xa9");
	assert_null(v[4]);
	strv_free(v);
	assert_null(msg_dup_strv(&m, "dir", &n));	/* not an array */
	msg_free(&m);
	buf_free(&q);
}

/* A frame arriving a byte at a time, or cut anywhere in two, is taken
 * only once whole, and the bytes after it stay. */
static void
test_partial(void **state)
{
	struct buf	 whole = BUF_INIT, in = BUF_INIT;
	struct msg	 m;
	char		*cause = NULL;
	size_t		 i, cut, got;
	int64_t		 n;

	(void)state;
	put_seq(&whole, 1);
	put_seq(&whole, 2);
	put_seq(&whole, 3);

	/* A byte at a time: three frames, in order, each once whole. */
	got = 0;
	for (i = 0; i < whole.len; i++) {
		buf_add(&in, whole.data + i, 1);
		switch (frame_take(&in, &m, &cause)) {
		case 1:
			assert_true(msg_get_int(&m, "n", &n));
			assert_true(n == (int64_t)++got);
			msg_free(&m);
			/* the first two end exactly a third of the way */
			assert_int_equal(i + 1, whole.len * got / 3);
			break;
		case 0:
			break;
		default:
			fail_msg("refused at byte %zu: %s", i, cause);
		}
	}
	assert_int_equal(got, 3);
	assert_int_equal(in.len, 0);

	/* Cut in two anywhere: nothing before the cut is a whole frame
	 * unless it holds one; after the rest, all three come out. */
	for (cut = 0; cut <= whole.len; cut++) {
		buf_reset(&in);
		buf_add(&in, whole.data, cut);
		got = 0;
		while (frame_take(&in, &m, &cause) == 1) {
			msg_free(&m);
			got++;
		}
		assert_int_equal(got, cut * 3 / whole.len);
		buf_add(&in, whole.data + cut, whole.len - cut);
		while (frame_take(&in, &m, &cause) == 1) {
			assert_true(msg_get_int(&m, "n", &n));
			assert_true(n == (int64_t)++got);
			msg_free(&m);
		}
		assert_null(cause);
		assert_int_equal(got, 3);
		assert_int_equal(in.len, 0);
	}
	buf_free(&whole);
	buf_free(&in);
}

/* Many frames in one buffer come out in order, and nothing else. */
static void
test_many(void **state)
{
	struct buf	 q = BUF_INIT;
	struct msg	 m;
	char		*cause = NULL;
	int64_t		 i, n;

	(void)state;
	for (i = 0; i < 5000; i++)
		put_seq(&q, i);
	for (i = 0; i < 5000; i++) {
		assert_int_equal(frame_take(&q, &m, &cause), 1);
		assert_true(msg_is(&m, "seq"));
		assert_true(msg_get_int(&m, "n", &n));
		assert_true(n == i);
		msg_free(&m);
	}
	assert_int_equal(frame_take(&q, &m, &cause), 0);
	assert_int_equal(q.len, 0);
	buf_free(&q);
}

/* A length of 0 or past PROTO_FRAME_MAX is refused from the header alone;
 * PROTO_FRAME_MAX itself is waited for. */
static void
test_bounds(void **state)
{
	struct buf	 b = BUF_INIT;
	struct msg	 m;
	char		*cause = NULL;

	(void)state;
	put_header(&b, PROTO_FRAME_MAX + 1);
	take_bad(&b, "out of bounds");
	buf_reset(&b);
	put_header(&b, 0xffffffffu);
	take_bad(&b, "out of bounds");
	buf_reset(&b);
	put_header(&b, 0);
	take_bad(&b, "out of bounds");
	buf_reset(&b);
	put_header(&b, PROTO_FRAME_MAX);
	buf_add(&b, "\x81", 1);
	assert_int_equal(frame_take(&b, &m, &cause), 0);
	assert_null(cause);
	buf_reset(&b);
	buf_add(&b, "\x00\x00\x00", 3);	/* not even a header yet */
	assert_int_equal(frame_take(&b, &m, &cause), 0);
	buf_free(&b);
}

/* A body that is not one msgpack map with a string "t" is refused. */
static void
test_bad_msgpack(void **state)
{
	static const struct {
		const char	*body;
		size_t		 len;
		const char	*want;
	} bad[] = {
		{ "\x90", 1, "not one msgpack map" },		/* [] */
		{ "\x01", 1, "not one msgpack map" },		/* 1 */
		{ "\x81\xa1t", 3, "not one msgpack map" },	/* cut short */
		{ "\x81\xa1t\xa1x\x00", 6, "not one msgpack map" }, /* more */
		{ "\xc1", 1, "not one msgpack map" },		/* never used */
		{ "\x80", 1, "no message type" },		/* {} */
		{ "\x81\xa1t\x01", 4, "no message type" },	/* t: 1 */
		{ "\x81\xa1u\xa1x", 5, "no message type" },	/* u: "x" */
		{ "\x81\xa1t\xb0" "0123456789abcdef", 20, "no message type" },
	};
	struct buf	 b = BUF_INIT;
	struct msg	 m;
	char		*cause = NULL;
	size_t		 i;

	(void)state;
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		buf_reset(&b);
		put_raw(&b, bad[i].body, bad[i].len);
		take_bad(&b, bad[i].want);
	}
	/* A 15-byte type is the longest taken. */
	buf_reset(&b);
	put_raw(&b, "\x81\xa1t\xaf" "0123456789abcde", 19);
	assert_int_equal(frame_take(&b, &m, &cause), 1);
	assert_true(msg_is(&m, "0123456789abcde"));
	msg_free(&m);
	buf_free(&b);
}

/* Integers msg_get_int cannot hold as int64_t are not read. */
static void
test_int_range(void **state)
{
	struct buf	 b = BUF_INIT;
	struct msg	 m;
	char		*cause = NULL;
	int64_t		 i = 7;

	(void)state;
	/* {"t":"x","u":2^64-1} */
	put_raw(&b, "\x82\xa1t\xa1x\xa1u\xcf\xff\xff\xff\xff\xff\xff\xff\xff",
	    16);
	assert_int_equal(frame_take(&b, &m, &cause), 1);
	assert_false(msg_get_int(&m, "u", &i));
	assert_true(i == 7);
	msg_free(&m);
	buf_free(&b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_partial),
		cmocka_unit_test(test_many),
		cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_bad_msgpack),
		cmocka_unit_test(test_int_range),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
