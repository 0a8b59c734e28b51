/*
 * spool_write.c — a stream of the spool, written (spool_write.h).
 *
 * Text goes to the last segment file; a segment holds w->seg bytes, then
 * the next begins (its file made when its first byte comes). Before a
 * write would take the text kept past the ceiling, the oldest segment
 * after the head goes: the middle is dropped, the head and the end stay.
 *
 * A file system that is full (ENOSPC, EDQUOT, EFBIG, or less free than
 * its reserve, spool.h, when a segment begins) is met the same way, step
 * by step, each step followed by the write again: the oldest segment
 * after the head goes; else the segment being written (it was the only
 * one after the head); else the head is cut to its first quarter. With
 * nothing of ours left to free, the text that cannot be written is
 * counted as dropped, so the writer never waits and the end is kept as
 * soon as there is room again. After a full file system, segments are
 * an eighth of what was kept, so that each step frees a little only.
 *
 * Output that never reached us (spool_w_hole: the pane's writer dropped
 * it) is a hole in the text: the text kept after the head goes with it,
 * the range then ending where the text goes on, so that there is still
 * one range and the end is kept.
 *
 * The dropped range's edges fall on the start of a line where one is
 * near (SPOOL_ALIGN_BACK before the head's end, the first line of the
 * segment after the range), else on a character's start. The record
 * (spool.h) is rewritten after each change, once its space is freed.
 */
#include <sys/types.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compat.h"
#include "spool.h"
#include "spool_write.h"
#include "utf8.h"
#include "xmalloc.h"

#define SPOOL_SHRINK_MIN	(64u * 1024)	/* segments after a full fs */

static char	spool_w_buf[SPOOL_ALIGN_BACK];

/* Start a stream: nothing written, nothing dropped. */
void
spool_w_init(struct spool_w *w, int dfd, char stream, uint64_t max)
{
	memset(w, 0, sizeof *w);
	w->dfd = dfd;
	w->stream = stream;
	w->max = max;
	w->seg = spool_seg_size(max);
	w->fd = -1;
}

/* Let go of the segments' particulars and the open file. */
void
spool_w_free(struct spool_w *w)
{
	if (w->fd != -1)
		close(w->fd);
	w->fd = -1;
	free(w->segs);
	w->segs = NULL;
	w->nsegs = w->segs_cap = 0;
}

/* Write nothing more. */
void
spool_w_stop(struct spool_w *w)
{
	w->stopped = true;
	if (w->fd != -1)
		close(w->fd);
	w->fd = -1;
}

/* Has a range been dropped? */
static bool
spool_w_dropped(const struct spool_w *w)
{
	return (w->drop.why != SPOOL_WHY_NONE);
}

/* Bytes kept: the head and what follows the dropped range. */
uint64_t
spool_w_kept(const struct spool_w *w)
{
	if (!spool_w_dropped(w))
		return (w->len);
	return (w->drop.from + (w->len - w->drop.to));
}

/* The segment being written: the last, unless it is the head after a
 * drop (nothing more goes there). NULL: none. */
static struct spool_w_seg *
spool_w_cur(struct spool_w *w)
{
	if (w->nsegs == 0 || (w->nsegs == 1 && spool_w_dropped(w)))
		return (NULL);
	return (&w->segs[w->nsegs - 1]);
}

uint64_t
spool_w_seg_start(const struct spool_w *w)
{
	return (w->nsegs > 0 ? w->segs[w->nsegs - 1].start : 0);
}

/* Open segment s's file for reading (its head, to look back in). */
static int
spool_w_open_seg(struct spool_w *w, const struct spool_w_seg *s, int flags)
{
	char	name[SPOOL_NAME_MAX];

	spool_seg_name(name, sizeof name, w->stream, s->start);
	return (openat(w->dfd, name, flags | O_NOFOLLOW | O_CLOEXEC, 0600));
}

/* Remove segment i's file and its entry. */
static void
spool_w_unlink(struct spool_w *w, size_t i)
{
	char	name[SPOOL_NAME_MAX];

	if (i == w->nsegs - 1 && w->fd != -1) {
		close(w->fd);
		w->fd = -1;
	}
	spool_seg_name(name, sizeof name, w->stream, w->segs[i].start);
	unlinkat(w->dfd, name, 0);
	memmove(&w->segs[i], &w->segs[i + 1], (w->nsegs - i - 1) *
	    sizeof *w->segs);
	w->nsegs--;
}

/* LFs and characters in bytes [a, b) of fd (offsets in the file). */
static void
spool_w_count(int fd, uint64_t a, uint64_t b, uint64_t *lines,
    uint64_t *chars)
{
	ssize_t	n;
	size_t	want, i;

	*lines = *chars = 0;
	while (a < b) {
		want = b - a < sizeof spool_w_buf ? (size_t)(b - a) :
		    sizeof spool_w_buf;
		n = pread(fd, spool_w_buf, want, (off_t)a);
		if (n <= 0)
			return;
		for (i = 0; i < (size_t)n; i++) {
			*lines += spool_w_buf[i] == '\n';
			*chars += !utf8_is_cont(spool_w_buf[i]);
		}
		a += (uint64_t)n;
	}
}

/*
 * Where the head may end, at or before end (an offset in the head's
 * file): after the last LF of the SPOOL_ALIGN_BACK bytes before end, else
 * on the start of the character that holds end. *chars: the characters
 * in [that, end) (no LF is there).
 */
static uint64_t
spool_w_head_end(int fd, uint64_t end, uint64_t *chars)
{
	uint64_t	 lo = end > SPOOL_ALIGN_BACK ? end - SPOOL_ALIGN_BACK : 0;
	const char	*lf;
	ssize_t		 n;
	size_t		 i, at;

	*chars = 0;
	if (fd == -1 || end == 0 ||
	    (n = pread(fd, spool_w_buf, (size_t)(end - lo), (off_t)lo)) <= 0)
		return (end);
	if ((lf = compat_memrchr(spool_w_buf, '\n', (size_t)n)) != NULL)
		at = (size_t)(lf - spool_w_buf) + 1;
	else {
		/* A character that begins before end and ends past it. */
		at = (size_t)n;
		for (i = (size_t)n; i > 0 && (size_t)n - i < UTF8_MAX; i--)
			if (!utf8_is_cont(spool_w_buf[i - 1])) {
				if ((i - 1) + utf8_seq_len(spool_w_buf[i - 1]) >
				    (size_t)n)
					at = i - 1;
				break;
			}
	}
	*chars = utf8_count(spool_w_buf + at, (size_t)n - at);
	return (lo + at);
}

/*
 * The first drop: the head (segment 0) ends at hend (hlines, hchars
 * before it); from is chosen there, the head's file cut to it.
 */
static void
spool_w_begin_drop(struct spool_w *w, uint64_t hend, uint64_t hlines,
    uint64_t hchars, enum spool_why why, int err)
{
	uint64_t	back;
	int		fd;

	fd = w->nsegs > 0 ? spool_w_open_seg(w, &w->segs[0], O_RDWR) : -1;
	w->drop.from = spool_w_head_end(fd, hend, &back);
	w->head_lines = hlines;
	w->head_chars = hchars - back;
	if (fd != -1) {
		if (ftruncate(fd, (off_t)w->drop.from) == -1) {
			/* Not cut, it is only a little longer. */
		}
		close(fd);
	}
	w->drop.to = w->drop.from;
	w->drop.why = why;
	w->drop.err = err;
}

/* The range now ends at to, with tlines and tchars before it. */
static void
spool_w_drop_to(struct spool_w *w, uint64_t to, uint64_t tlines,
    uint64_t tchars, enum spool_why why, int err)
{
	w->drop.to = to;
	w->drop.lines = tlines - w->head_lines;
	w->drop.chars = tchars - w->head_chars;
	if (why > w->drop.why) {	/* (none, ceiling, full, lost) */
		w->drop.why = why;
		w->drop.err = err;
	}
	w->changed = true;
}

/* Tell a new reader: the record, once the space is free. */
static void
spool_w_record(struct spool_w *w)
{
	spool_meta_write(w->dfd, w->stream, &w->drop);
}

/*
 * Drop the oldest segment after the head (segs[1]); the range then ends
 * on the next segment's first line, or its first character.
 */
static void
spool_w_drop_oldest(struct spool_w *w, enum spool_why why, int err)
{
	struct spool_w_seg	*nx = &w->segs[2];
	uint64_t		 to, tl, tc;

	if (!spool_w_dropped(w))
		spool_w_begin_drop(w, w->segs[1].start, w->segs[1].lines,
		    w->segs[1].chars, why, err);
	if (nx->lf != 0 && nx->lf - nx->start <= SPOOL_ALIGN_BACK) {
		to = nx->lf;
		tl = nx->lines + 1;
		tc = nx->lf_chars;
	} else {
		to = nx->cs != 0 ? nx->cs : nx->start;
		tl = nx->lines;
		tc = nx->chars;
	}
	spool_w_unlink(w, 1);
	spool_w_drop_to(w, to, tl, tc, why, err);
	spool_w_record(w);
}

/* Drop the segment being written (the only one after the head): the
 * range ends where the text does. */
static void
spool_w_drop_current(struct spool_w *w, int err)
{
	struct spool_w_seg	*c = &w->segs[w->nsegs - 1];

	if (!spool_w_dropped(w))
		spool_w_begin_drop(w, c->start, c->lines, c->chars,
		    SPOOL_WHY_NOSPACE, err);
	spool_w_unlink(w, w->nsegs - 1);
	spool_w_drop_to(w, w->len, w->lines, w->chars, SPOOL_WHY_NOSPACE, err);
	spool_w_record(w);
}

/* The head alone was being written: keep its first quarter. */
static void
spool_w_cut_head(struct spool_w *w, int err)
{
	uint64_t	cut = w->len / 4, l, c;
	int		fd;

	if (w->fd != -1) {
		close(w->fd);
		w->fd = -1;
	}
	if ((fd = spool_w_open_seg(w, &w->segs[0], O_RDONLY)) == -1)
		l = c = 0;
	else {
		spool_w_count(fd, cut, w->len, &l, &c);
		close(fd);
	}
	spool_w_begin_drop(w, cut, w->lines - l, w->chars - c,
	    SPOOL_WHY_NOSPACE, err);
	spool_w_drop_to(w, w->len, w->lines, w->chars, SPOOL_WHY_NOSPACE, err);
	spool_w_record(w);
}

/* A hole in the text: the head stays, what was kept after it goes. */
void
spool_w_hole(struct spool_w *w)
{
	struct spool_w_seg	*c;

	if (w->stopped)
		return;
	if (w->fd != -1) {
		close(w->fd);
		w->fd = -1;
	}
	if (!spool_w_dropped(w) && w->nsegs <= 1) {
		/* The head alone, to here (nothing, if nothing came). */
		c = w->nsegs > 0 ? &w->segs[0] : NULL;
		if (c == NULL) {
			w->drop.from = w->drop.to = w->len;
			w->head_lines = w->lines;
			w->head_chars = w->chars;
			w->drop.why = SPOOL_WHY_LOST;
		} else
			spool_w_begin_drop(w, w->len, w->lines, w->chars,
			    SPOOL_WHY_LOST, 0);
	} else if (!spool_w_dropped(w))
		spool_w_begin_drop(w, w->segs[1].start, w->segs[1].lines,
		    w->segs[1].chars, SPOOL_WHY_LOST, 0);
	while (w->nsegs > 1)
		spool_w_unlink(w, w->nsegs - 1);
	spool_w_drop_to(w, w->len, w->lines, w->chars, SPOOL_WHY_LOST, 0);
	spool_w_record(w);
}

/*
 * Segments from now on: an eighth of what there is room for (what is
 * kept, and avail more), not below SPOOL_SHRINK_MIN unless they were.
 */
static void
spool_w_shrink(struct spool_w *w, uint64_t avail)
{
	uint64_t	room = spool_w_kept(w), seg;

	if (avail != UINT64_MAX)
		room += avail;
	seg = room / 8;
	if (seg < SPOOL_SHRINK_MIN)
		seg = SPOOL_SHRINK_MIN;
	if (seg < w->seg)
		w->seg = seg;
}

/*
 * The file system refused (err): free a step of ours. True if something
 * was freed (try the write again), false if nothing of ours is left to.
 */
static bool
spool_w_nospace(struct spool_w *w, int err)
{
	struct spool_w_seg	*cur = spool_w_cur(w);

	spool_w_shrink(w, 0);
	if (w->nsegs >= 3) {
		spool_w_drop_oldest(w, SPOOL_WHY_NOSPACE, err);
		return (true);
	}
	if (cur != NULL && w->nsegs == 2) {
		if (cur->start == w->len) {	/* nothing in it yet */
			spool_w_unlink(w, 1);
			return (spool_w_nospace(w, err));
		}
		spool_w_drop_current(w, err);
		return (true);
	}
	if (cur != NULL && w->len > 0) {	/* the head alone */
		spool_w_cut_head(w, err);
		return (true);
	}
	return (false);
}

/* A new segment begins at len: its particulars (its file comes with
 * its first byte). Before, room for it if the file system is short. */
static void
spool_w_next_seg(struct spool_w *w)
{
	struct spool_w_seg	*s;
	uint64_t		 avail;

	if (w->fd != -1) {
		close(w->fd);
		w->fd = -1;
	}
	avail = spool_free(w->dfd);
	if (avail < w->seg) {
		spool_w_shrink(w, avail);
		while (w->nsegs >= 3 && (avail = spool_free(w->dfd)) < w->seg)
			spool_w_drop_oldest(w, SPOOL_WHY_NOSPACE, ENOSPC);
	}
	if (w->nsegs == w->segs_cap) {
		w->segs_cap = w->segs_cap ? w->segs_cap * 2 : 8;
		w->segs = xreallocarray(w->segs, w->segs_cap, sizeof *w->segs);
	}
	s = &w->segs[w->nsegs++];
	memset(s, 0, sizeof *s);
	s->start = w->len;
	s->lines = w->lines;
	s->chars = w->chars;
}

/* Count n bytes offered at len, in segment s (NULL: dropped). */
static void
spool_w_account(struct spool_w *w, struct spool_w_seg *s, const char *p,
    size_t n)
{
	const char	*lf;
	size_t		 i;

	if (s != NULL && s->cs == 0) {
		for (i = 0; i < n && utf8_is_cont(p[i]); i++)
			;
		if (i < n)
			s->cs = w->len + i;
	}
	if (s != NULL && s->lf == 0 &&
	    (lf = memchr(p, '\n', n)) != NULL) {
		s->lf = w->len + (uint64_t)(lf - p) + 1;
		s->lf_chars = w->chars + utf8_count(p, (size_t)(lf - p) + 1);
	}
	for (i = 0; i < n; i++) {
		w->lines += p[i] == '\n';
		w->chars += !utf8_is_cont(p[i]);
	}
	w->len += n;
}

/* The bytes that could not be kept anywhere: the range grows over them
 * (it ends where the text does: nothing is kept after it). */
static void
spool_w_lose(struct spool_w *w, const char *p, size_t n, int err)
{
	if (!spool_w_dropped(w)) {
		/* (Only before the first byte: the head is kept empty, its
		 * entry without a file.) */
		w->drop.from = w->drop.to = w->len;
		w->head_lines = w->lines;
		w->head_chars = w->chars;
		if (w->fd != -1)
			close(w->fd);
		w->fd = -1;
	}
	spool_w_account(w, NULL, p, n);
	spool_w_drop_to(w, w->len, w->lines, w->chars, SPOOL_WHY_NOSPACE, err);
	spool_w_record(w);
}

/* Append text to the stream. */
void
spool_w_write(struct spool_w *w, const char *p, size_t n)
{
	struct spool_w_seg	*cur;
	uint64_t		 k;
	ssize_t			 m;

	while (n > 0 && !w->stopped) {
		cur = spool_w_cur(w);
		if (cur == NULL || w->len - cur->start >= w->seg) {
			spool_w_next_seg(w);
			cur = &w->segs[w->nsegs - 1];
		}
		k = w->seg - (w->len - cur->start);
		if (k > n)
			k = n;
		while (spool_w_kept(w) + k > w->max && w->nsegs >= 3) {
			spool_w_drop_oldest(w, SPOOL_WHY_CEILING, 0);
			cur = &w->segs[w->nsegs - 1];
		}
		if (w->fd == -1)
			w->fd = spool_w_open_seg(w, cur, O_WRONLY | O_CREAT |
			    O_APPEND);
		m = w->fd == -1 ? -1 : write(w->fd, p, (size_t)k);
		if (m == -1 && errno == EINTR)
			continue;
		if (m <= 0) {
			if (m == 0)
				errno = ENOSPC;
			if (!spool_w_nospace(w, errno)) {
				spool_w_lose(w, p, (size_t)k, errno);
				p += k;
				n -= k;
			}
			continue;
		}
		spool_w_account(w, cur, p, (size_t)m);
		p += m;
		n -= (size_t)m;
	}
}
