/*
 * test_buf.c — the growable byte buffer (common/buf.c).
 *
 * Draining is linear: a buffer consumed one byte at a time moves, in all,
 * no more bytes than it drains (counted from where data points after each
 * drain, not timed). Contents stay exact through any mix of adds, drains,
 * resets and growth (checked against a plain copy), and storage drained
 * and reset is reused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rand.h"

#include "buf.h"
#include "xmalloc.h"

#define TEST_DRAIN_BYTES	(64 * 1024)

static uint64_t	test_rng = 2463534242ULL;
#define test_rand()	test_xorshift(&test_rng)

/*
 * Pins: draining a 64 KiB buffer one byte at a time moves at most 64 KiB
 * in all. After each drain either data advanced by exactly the byte
 * drained (nothing moved) or the rest was moved (counted as its length);
 * the old buf_drain moved the whole rest every time, about 2 GiB here.
 */
static void
test_drain_linear(void **state)
{
	struct buf	 b = BUF_INIT;
	const char	*prev;
	size_t		 i, moved = 0, moves = 0;

	(void)state;
	for (i = 0; i < TEST_DRAIN_BYTES; i++)
		buf_addc(&b, (char)('a' + i % 26));
	for (i = 1; i < TEST_DRAIN_BYTES; i++) {
		prev = b.data;
		buf_drain(&b, 1);
		assert_int_equal(b.len, TEST_DRAIN_BYTES - i);
		if (b.data[0] != (char)('a' + i % 26))
			fail_msg("byte %zu is wrong after a drain", i);
		if (b.data != prev + 1) {
			moved += b.len;
			moves++;
		}
	}
	if (moved > TEST_DRAIN_BYTES)
		fail_msg("%zu bytes moved to drain %d (%zu moves)", moved,
		    TEST_DRAIN_BYTES, moves);
	/* It does reclaim the head: not every drain left the bytes put. */
	assert_true(moves > 0);
	buf_drain(&b, 1);
	assert_int_equal(b.len, 0);
	buf_free(&b);
}

/*
 * Pins: a queue that is topped up and drained in uneven pieces, reset and
 * grown, always holds exactly what was added and not yet drained.
 */
static void
test_queue_model(void **state)
{
	struct buf	 b = BUF_INIT;
	char		*model, chunk[700];
	size_t		 mlen = 0, mcap = 1 << 20, n, i, round;

	(void)state;
	model = xmalloc(mcap);
	for (round = 0; round < 20000; round++) {
		switch (test_rand() % 8) {
		case 0: case 1: case 2: case 3:
			n = test_rand() % sizeof chunk;
			for (i = 0; i < n; i++)
				chunk[i] = (char)test_rand();
			if (mlen + n > mcap)
				break;
			buf_add(&b, chunk, n);
			memcpy(model + mlen, chunk, n);
			mlen += n;
			break;
		case 4: case 5: case 6:
			n = test_rand() % 1000;
			if (n > mlen)
				n = mlen;
			buf_drain(&b, n);
			memmove(model, model + n, mlen - n);
			mlen -= n;
			break;
		default:
			if (test_rand() % 50 == 0) {
				buf_reset(&b);
				mlen = 0;
			} else
				buf_cstr(&b);
			break;
		}
		assert_int_equal(b.len, mlen);
		assert_true(b.len < b.cap);
		if (mlen > 0 && memcmp(b.data, model, mlen) != 0)
			fail_msg("contents differ after round %zu", round);
	}
	free(model);
	buf_free(&b);
}

/* Pins: a drained-out buffer starts again at its storage's start, and a
 * partly drained one keeps its bytes through a reset and a regrowth. */
static void
test_reuse(void **state)
{
	struct buf	 b = BUF_INIT;
	char		*base;

	(void)state;
	buf_adds(&b, "hello, world");
	base = b.data;
	buf_drain(&b, 7);
	assert_int_equal(b.len, 5);
	assert_memory_equal(b.data, "world", 5);
	buf_drain(&b, 5);
	assert_int_equal(b.len, 0);
	assert_ptr_equal(b.data, base);
	buf_adds(&b, "0123456789");
	buf_drain(&b, 2);
	assert_ptr_equal(b.data, base + 2);
	buf_reserve(&b, 100000);
	assert_true(b.cap >= b.len + 100000 + 1);
	assert_memory_equal(b.data, "23456789", 8);
	assert_string_equal(buf_cstr(&b), "23456789");
	buf_reset(&b);
	assert_int_equal(b.len, 0);
	buf_free(&b);
	assert_null(b.data);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_drain_linear),
		cmocka_unit_test(test_queue_model),
		cmocka_unit_test(test_reuse),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
