/*
 * test_reaper_record.c — the output FIFO's records (reaper/record.c):
 * what the pane's writer puts, the reaper takes back whole and in order,
 * in pieces of any size; a "lost" record says how much the writer
 * dropped; a stream someone else read from is said to be broken (never
 * taken for text) and the reader goes on from the next whole record.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "proto.h"
#include "rand.h"
#include "record.h"

/* Take every record from b: the data joined into out, the lost counts
 * and the breaks added up. */
static void
take_all(struct record_scan *rs, struct buf *b, struct buf *out,
    uint64_t *lost, int *broken)
{
	enum record_kind	 k;
	const char		*p;
	size_t			 len;
	uint64_t		 n;

	while ((k = record_take(rs, b, &p, &len, &n)) != RECORD_NONE) {
		if (k == RECORD_DATA)
			buf_add(out, p, len);
		else if (k == RECORD_LOST)
			*lost += n;
		else
			(*broken)++;
	}
}

/* Records fed a byte at a time, and in random pieces, come back whole. */
static void
test_round_trip(void **state)
{
	struct buf		 w = BUF_INIT, in = BUF_INIT, out = BUF_INIT;
	struct buf		 want = BUF_INIT;
	struct record_scan	 rs;
	uint64_t		 lost = 0, x = 12345;
	uint8_t			 seq = 0;
	unsigned char		 cnt[8] = { 0, 0, 0, 0, 0, 0, 0x30, 0x39 };
	char			 chunk[PIPE_RECORD_MAX];
	size_t			 i, n, off;
	int			 broken = 0, round;

	(void)state;
	/* 600 records: more than 256, so the sequence number wraps. */
	for (i = 0; i < 600; i++) {
		n = 1 + test_xorshift(&x) % (i % 50 == 0 ? PIPE_RECORD_MAX :
		    300);
		memset(chunk, 'a' + (int)(i % 26), n);
		record_put(&w, &seq, PIPE_DATA, chunk, n);
		buf_add(&want, chunk, n);
		if (i == 300)
			record_put(&w, &seq, PIPE_LOST, cnt, sizeof cnt);
	}
	for (round = 0; round < 2; round++) {
		memset(&rs, 0, sizeof rs);
		buf_reset(&out);
		lost = 0;
		for (off = 0; off < w.len; off += n) {
			n = round == 0 ? 1 : 1 + test_xorshift(&x) % 70000;
			if (n > w.len - off)
				n = w.len - off;
			buf_add(&in, w.data + off, n);
			take_all(&rs, &in, &out, &lost, &broken);
		}
		assert_int_equal(broken, 0);
		assert_int_equal(lost, 12345);
		assert_int_equal(out.len, want.len);
		assert_memory_equal(out.data, want.data, want.len);
		assert_int_equal(in.len, 0);
	}
	buf_free(&w);
	buf_free(&in);
	buf_free(&out);
	buf_free(&want);
}

/*
 * Bytes taken out of the middle (another reader of the FIFO), whole
 * records taken out, and a header made to look wrong: each is said as
 * broken, no byte of a header ever reaches the text, and every record
 * after the damage comes back.
 */
static void
test_broken(void **state)
{
	static const size_t	 cuts[][2] = {
		{ 20, 5 },	/* inside a record's payload */
		{ 2, 9 },	/* across a header */
		{ 0, 49 },	/* the second record whole */
		{ 44, 1 },	/* its trailer's first byte */
	};
	struct buf		 w = BUF_INIT, in = BUF_INIT, out = BUF_INIT;
	struct record_scan	 rs;
	uint64_t		 lost;
	uint8_t			 seq;
	char			 chunk[40];
	size_t			 i, c, rec = PIPE_HEADER + 37 + PIPE_TRAILER;
	int			 broken;

	(void)state;
	for (c = 0; c < sizeof cuts / sizeof *cuts; c++) {
		buf_reset(&w);
		seq = 0;
		for (i = 0; i < 10; i++) {
			memset(chunk, '0' + (int)i, 37);
			record_put(&w, &seq, PIPE_DATA, chunk, 37);
		}
		/* Cut out bytes of the second record onwards. */
		buf_reset(&in);
		buf_add(&in, w.data, rec + cuts[c][0]);
		buf_add(&in, w.data + rec + cuts[c][0] + cuts[c][1],
		    w.len - rec - cuts[c][0] - cuts[c][1]);
		memset(&rs, 0, sizeof rs);
		buf_reset(&out);
		lost = 0;
		broken = 0;
		take_all(&rs, &in, &out, &lost, &broken);
		assert_true(broken > 0);
		assert_true(rs.lost_sync);
		/* Only payload digits, never a header's bytes. */
		for (i = 0; i < out.len; i++)
			assert_true(out.data[i] >= '0' && out.data[i] <= '9');
		/* The first record, then the last eight whole. */
		assert_memory_equal(out.data, "0000000000", 10);
		assert_true(out.len >= 9 * 37);
		assert_memory_equal(out.data + out.len - 37,
		    "999999999999999999999999999999999999", 36);
	}
	buf_free(&w);
	buf_free(&in);
	buf_free(&out);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_broken),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
