/*
 * fuzz_record.c — libFuzzer target for the output FIFO's records
 * (reaper/record.c), which the reaper reads from a FIFO another process
 * may have read from too.
 *
 * The input is taken as a stream, fed in pieces whose size the first
 * byte chooses: the reader must never crash, loop or hand on more bytes
 * than it was given. Then the input's bytes are framed as records and
 * read back: exactly the same bytes must come out.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "proto.h"
#include "record.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/* Feed p in pieces of step bytes; the payload bytes handed on. */
static size_t
fuzz_read(const uint8_t *p, size_t len, size_t step, struct buf *out)
{
	struct record_scan	 rs;
	struct buf		 in = BUF_INIT;
	enum record_kind	 k;
	const char		*d;
	size_t			 off, n, dlen, takes = 0;
	uint64_t		 lost;

	memset(&rs, 0, sizeof rs);
	for (off = 0; off < len; off += n) {
		n = len - off < step ? len - off : step;
		buf_add(&in, p + off, n);
		while ((k = record_take(&rs, &in, &d, &dlen, &lost)) !=
		    RECORD_NONE) {
			if (++takes > 4 * (len + 1))
				abort();	/* no progress */
			if (k == RECORD_DATA)
				buf_add(out, d, dlen);
		}
	}
	buf_free(&in);
	return (out->len);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct buf	w = BUF_INIT, out = BUF_INIT;
	size_t		step, off, n;
	uint8_t		seq = 0;

	if (size == 0)
		return (0);
	step = 1 + data[0] % 64;
	if (fuzz_read(data + 1, size - 1, step, &out) > size)
		abort();
	buf_reset(&out);
	for (off = 1; off < size; off += n) {
		n = size - off < step * 7 ? size - off : step * 7;
		record_put(&w, &seq, PIPE_DATA, data + off, n);
	}
	fuzz_read((const uint8_t *)w.data, w.len, step, &out);
	if (out.len != size - 1 || (out.len > 0 && memcmp(out.data, data + 1,
	    out.len) != 0))
		abort();
	buf_free(&w);
	buf_free(&out);
	return (0);
}
