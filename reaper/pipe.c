/*
 * pipe.c — `progmux-reaper --pipe DIR DEV:INO NAME BYTES`: the pane's
 * writer.
 *
 * tmux's pipe-pane runs it (through sh -c, every word ours) with the
 * pane's output on its standard input. It opens the output FIFO NAME
 * only through the runtime directory the front made (checked against
 * DEV:INO, ours, 0700: a directory swapped in under the same path is
 * never written to) and removes the FIFO's name once open, so nothing
 * else can open it. Then it copies what tmux gives it into the FIFO as
 * records (record.h), so the reaper knows the stream is whole.
 *
 * It never stops reading tmux: tmux keeps what a pipe-pane command has
 * not read, without bound. If the reaper does not read (stopped, or not
 * scheduled on a loaded machine), up to BYTES wait here: the text
 * ceiling (PROGMUX_OUTPUT_MAX_BYTES, at least PIPE_BACKLOG_MIN), as the
 * front keeps no more than that of a program's text anyway. Past it the
 * pane's bytes are dropped and counted, and a "lost" record takes their
 * place in the stream, so the loss is said, never silent. The
 * launcher's markers (OSC 5522, proto.h) are kept even then, so the
 * program's end is still read; up to PIPE_MARKS_MAX bytes of them beyond
 * the backlog. At EOF (the pane is gone, or pipe-pane was turned off)
 * what waits is written while the reaper is there to read it (a reaper
 * that is gone is EPIPE at once), for PIPE_LINGER_MS at most, and it
 * exits; the reaper then reads EOF.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "fdutil.h"
#include "proto.h"
#include "reaper.h"
#include "record.h"
#include "rundir.h"
#include "timeutil.h"

#define PIPE_LINGER_MS	60000	/* at EOF, to hand over what waits */
#define PIPE_MARKS_MAX	(64u * 1024)	/* markers kept past the backlog */
#define PIPE_BACKLOG_MIN (1024u * 1024)	/* whatever BYTES says */
#define PIPE_BACKLOG_MAX ((uint64_t)1 << 40)

static char	pipe_buf[PIPE_RECORD_MAX];
static size_t	pipe_backlog;		/* BYTES: the most that waits here */

/* A marker being picked out of bytes that are dropped. */
static struct {
	size_t	matched;			/* of MARKER_PREFIX */
	char	body[sizeof MARKER_PREFIX + MARKER_NONCE_LEN + MARKER_MAX];
	size_t	len;				/* 0: not in one */
} pipe_mark;

/* Say why on standard error (tmux's job output: nobody's) and stop. */
static int
pipe_fail(const char *what, const char *why)
{
	dprintf(STDERR_FILENO, "progmux-pipe: %s: %s\n", what, why);
	return (1);
}

/* A "lost" record for what was dropped, if anything was. */
static void
pipe_put_lost(struct buf *q, uint8_t *seq, uint64_t *lost)
{
	unsigned char	cnt[8];
	int		i;

	if (*lost == 0)
		return;
	for (i = 0; i < 8; i++)
		cnt[i] = (unsigned char)(*lost >> (56 - 8 * i));
	record_put(q, seq, PIPE_LOST, cnt, sizeof cnt);
	*lost = 0;
}

/*
 * Bytes that are dropped may hold the launcher's markers: keep each
 * whole (prefix to BEL) as a record of its own, after the "lost" record
 * of what went before it. Anything that only looks like a marker and
 * outgrows one is dropped with the rest.
 */
static void
pipe_drop(struct buf *q, uint8_t *seq, uint64_t *lost, const char *p,
    size_t n)
{
	static const char	prefix[] = MARKER_PREFIX;
	size_t			i;
	char			ch;

	for (i = 0; i < n; i++) {
		ch = p[i];
		(*lost)++;
		if (pipe_mark.len > 0) {
			if (pipe_mark.len == sizeof pipe_mark.body) {
				pipe_mark.len = pipe_mark.matched = 0;
				continue;
			}
			pipe_mark.body[pipe_mark.len++] = ch;
			if (ch != '\a')
				continue;
			*lost -= pipe_mark.len;
			if (q->len < pipe_backlog + PIPE_MARKS_MAX) {
				pipe_put_lost(q, seq, lost);
				record_put(q, seq, PIPE_DATA, pipe_mark.body,
				    pipe_mark.len);
			} else
				*lost += pipe_mark.len;
			pipe_mark.len = pipe_mark.matched = 0;
			continue;
		}
		if (ch == prefix[pipe_mark.matched])
			pipe_mark.matched++;
		else
			pipe_mark.matched = ch == prefix[0] ? 1 : 0;
		if (pipe_mark.matched == sizeof prefix - 1) {
			memcpy(pipe_mark.body, prefix, sizeof prefix - 1);
			pipe_mark.len = sizeof prefix - 1;
		}
	}
}

/* Take what tmux has: a record, or dropped past the backlog. */
static int
pipe_read(struct buf *q, uint8_t *seq, uint64_t *lost)
{
	ssize_t	n;

	n = read(STDIN_FILENO, pipe_buf, sizeof pipe_buf);
	if (n == -1 && (errno == EAGAIN || errno == EINTR))
		return (0);
	if (n <= 0)
		return (-1);		/* EOF: the pane is gone */
	if (*lost > 0 || pipe_mark.len > 0 ||
	    q->len + (size_t)n + 2 * PIPE_HEADER + 8 > pipe_backlog) {
		/* Dropping goes on until the queue is down to half (and a
		 * marker being picked out is whole). */
		if (q->len > pipe_backlog / 2 || pipe_mark.len > 0) {
			pipe_drop(q, seq, lost, pipe_buf, (size_t)n);
			return (0);
		}
		/* A marker's start picked out so far goes on with the rest. */
		*lost -= pipe_mark.matched;
		pipe_put_lost(q, seq, lost);
		if (pipe_mark.matched > 0)
			record_put(q, seq, PIPE_DATA, MARKER_PREFIX,
			    pipe_mark.matched);
		pipe_mark.matched = 0;
	}
	pipe_put_lost(q, seq, lost);
	record_put(q, seq, PIPE_DATA, pipe_buf, (size_t)n);
	return (0);
}

/* Hand over what waits, for at most PIPE_LINGER_MS. */
static int
pipe_linger(int out, struct buf *q)
{
	struct pollfd	pfd = { out, POLLOUT, 0 };
	int64_t		deadline = now_ms() + PIPE_LINGER_MS;

	while (q->len > 0 && now_ms() < deadline) {
		if (poll(&pfd, 1, poll_timeout(deadline)) == -1 &&
		    errno != EINTR)
			break;
		if (fd_flush(out, q) == -1)
			break;
	}
	return (0);
}

/* BYTES: digits only, the backlog; at least PIPE_BACKLOG_MIN. */
static int
pipe_parse_backlog(const char *s, size_t *out)
{
	uint64_t	v = 0;

	if (*s == '\0')
		return (-1);
	for (; *s != '\0'; s++) {
		if (*s < '0' || *s > '9' || v > PIPE_BACKLOG_MAX)
			return (-1);
		v = v * 10 + (uint64_t)(*s - '0');
	}
	if (v > PIPE_BACKLOG_MAX || v > SIZE_MAX / 2)
		return (-1);
	*out = v < PIPE_BACKLOG_MIN ? PIPE_BACKLOG_MIN : (size_t)v;
	return (0);
}

/* The writer: what it holds is freed on every way out. */
int
pipe_main(const char *dir, const char *id, const char *name,
    const char *backlog)
{
	struct pollfd	 pfd[2];
	struct buf	 q = BUF_INIT;
	uint64_t	 lost = 0;
	uint8_t		 seq = 0;
	char		*cause = NULL;
	int		 dfd, out, rc = 0;

	signal(SIGPIPE, SIG_IGN);
	if (pipe_parse_backlog(backlog, &pipe_backlog) == -1)
		return (pipe_fail(backlog, "not a byte count"));
	if ((dfd = rundir_open_checked(dir, id, &cause)) == -1) {
		rc = pipe_fail(dir, cause);
		free(cause);
		return (rc);
	}
	out = rundir_open_fifo(dfd, name, O_WRONLY | O_NONBLOCK);
	if (out == -1) {
		rc = pipe_fail(name, errno == ENXIO ? "nobody reads it" :
		    strerror(errno));
		close(dfd);
		return (rc);
	}
	unlinkat(dfd, name, 0);		/* both ends open: no name needed */
	close(dfd);
	record_put(&q, &seq, PIPE_HELLO, NULL, 0);	/* the gate may open */
	fd_nonblock(STDIN_FILENO, 1);
	for (;;) {
		pfd[0] = (struct pollfd){ STDIN_FILENO, POLLIN, 0 };
		pfd[1] = (struct pollfd){ out, q.len > 0 ? POLLOUT : 0, 0 };
		if (poll(pfd, 2, -1) == -1) {
			if (errno == EINTR)
				continue;
			rc = pipe_fail("poll", strerror(errno));
			goto done;
		}
		if ((pfd[1].revents & (POLLERR | POLLHUP)) != 0)
			goto done;	/* the reaper is gone */
		if (pfd[1].revents != 0 && fd_flush(out, &q) == -1)
			goto done;
		if (pfd[0].revents != 0 && pipe_read(&q, &seq, &lost) == -1)
			break;
	}
	pipe_put_lost(&q, &seq, &lost);
	rc = pipe_linger(out, &q);
done:
	buf_free(&q);
	close(out);
	return (rc);
}
