/*
 * spool_read.c — a program's text read from its spool (spool_read.h).
 *
 * The reader knows the segments' starts (told, or listed by
 * spool_restore), the dropped range, and how far the text goes; it reads
 * each new byte once, in order, into the window and the counts, and sets
 * a checkpoint (offset, lines and characters before it) every SPOOL_CP
 * bytes, at 0 and at the gap's end. Any count is then a checkpoint and
 * at most SPOOL_CP + SPOOL_CHUNK bytes read; any byte is in the window
 * or one pread away. Only the last segment's file is kept open; the
 * others are opened for a read and closed, so that a segment the writer
 * removes frees its space at once. Once the text is complete
 * (spool_rest) the reader holds no descriptor at all: the directory is
 * opened again for each read, and only if it is the one it was (its
 * device and inode), so that ended programs cost no descriptors.
 *
 * The writer only appends, and removes only what it has recorded as
 * dropped (common/spool.c), so a read of a range the reader still
 * believes kept finds either the bytes or no file (a short read: the
 * news of the drop follows). The news names the last segment only: a
 * read that finds its segment short (one began since, untold) lists the
 * directory again (spool_relist) and reads once more.
 */
#include <sys/types.h>
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compat.h"
#include "spool.h"
#include "spool_read.h"
#include "utf8.h"
#include "xmalloc.h"

struct spool_cp {
	size_t		 off;		/* a checkpoint: this offset, */
	size_t		 lines, chars;	/* and the LFs and characters before */
};

struct spool {
	const int		*parentfd;	/* where the directory is */
	char			*name;		/* its name there */
	dev_t			 dev;		/* and what it is */
	ino_t			 ino;
	int			 dfd;		/* it, open; -1 at rest */
	bool			 rest;		/* the text is complete */
	char			 stream;
	struct textbuf		*win;		/* the window, fed here */
	uint64_t		 told;		/* how far the text goes */
	uint64_t		*segs;		/* the segments' starts, kept */
	size_t			 nsegs, segs_cap;
	struct spool_drop	 drop;		/* why NONE: nothing dropped */
	size_t			 head_lines;	/* before drop.from */
	size_t			 head_chars;
	struct spool_cp		*cps;
	size_t			 ncps, cps_cap;
	int			 fd;		/* the last segment's, or -1 */
	uint64_t		 fd_start;
	bool			 head_known;	/* head_lines, head_chars */
};

static char	spool_buf[SPOOL_CHUNK];

/* What is read at a time fits the window's room (textbuf_grow). */
_Static_assert(SPOOL_CHUNK <= TEXTBUF_WINDOW_MIN, "a chunk past a window");

/* Is part of it dropped? */
static bool
spool_dropped(const struct spool *sp)
{
	return (sp != NULL && sp->drop.why != SPOOL_WHY_NONE);
}

/* What was dropped, or NULL when all of the text is kept. */
const struct spool_drop *
spool_drop_of(const struct spool *sp)
{
	return (spool_dropped(sp) ? &sp->drop : NULL);
}

/* Put a checkpoint at off, in its place (none twice). */
static void
spool_cp_add(struct spool *sp, size_t off, size_t lines, size_t chars)
{
	size_t	i = sp->ncps;

	while (i > 0 && sp->cps[i - 1].off > off)
		i--;
	if (i > 0 && sp->cps[i - 1].off == off)
		return;
	if (sp->ncps == sp->cps_cap) {
		sp->cps_cap = sp->cps_cap ? sp->cps_cap * 2 : 16;
		sp->cps = xreallocarray(sp->cps, sp->cps_cap, sizeof *sp->cps);
	}
	memmove(&sp->cps[i + 1], &sp->cps[i], (sp->ncps - i) *
	    sizeof *sp->cps);
	sp->cps[i] = (struct spool_cp){ off, lines, chars };
	sp->ncps++;
}

/* Open the spool's directory: name in parentfd, a directory of ours,
 * never through a link, and (once known) the one it was. */
static int
spool_dir_open(struct spool *sp)
{
	struct stat	st;
	int		fd;

	if (sp->dfd != -1)
		return (sp->dfd);
	fd = openat(*sp->parentfd, sp->name, O_RDONLY | O_DIRECTORY |
	    O_NOFOLLOW | O_CLOEXEC);
	if (fd == -1)
		return (-1);
	if (fstat(fd, &st) == -1 || st.st_uid != geteuid() ||
	    (sp->ino != 0 && (st.st_dev != sp->dev || st.st_ino != sp->ino))) {
		close(fd);
		return (-1);
	}
	sp->dev = st.st_dev;
	sp->ino = st.st_ino;
	return (sp->dfd = fd);
}

/* At rest, a read lets go of the descriptors it opened. */
static void
spool_let_go(struct spool *sp)
{
	if (!sp->rest)
		return;
	if (sp->fd != -1)
		close(sp->fd);
	if (sp->dfd != -1)
		close(sp->dfd);
	sp->fd = sp->dfd = -1;
}

static int	spool_restore(struct spool *);

/*
 * A reader of stream in the spool directory name of *parentfd (kept
 * open while the text grows), its text into win, with what the spool
 * already holds (nothing, for a program just started; all of it, for a
 * reader that comes later); NULL with errno.
 */
struct spool *
spool_open(const int *parentfd, const char *name, char stream,
    struct textbuf *win)
{
	struct spool	*sp;
	int		 saved;

	sp = xcalloc(1, sizeof *sp);
	sp->parentfd = parentfd;
	sp->name = xstrdup(name);
	sp->dfd = sp->fd = -1;
	sp->stream = stream;
	sp->win = win;
	win->spool = sp;
	spool_cp_add(sp, 0, 0, 0);
	if (spool_dir_open(sp) == -1 || spool_restore(sp) == -1) {
		saved = errno;
		spool_close(sp);
		errno = saved;
		return (NULL);
	}
	return (sp);
}

/* The text is complete: hold no descriptor from now on. */
void
spool_rest(struct spool *sp)
{
	if (sp == NULL)
		return;
	sp->rest = true;
	spool_let_go(sp);
}

/* Let go of the reader (its window stays its owner's). */
void
spool_close(struct spool *sp)
{
	if (sp == NULL)
		return;
	sp->rest = true;
	spool_let_go(sp);
	if (sp->win != NULL)
		sp->win->spool = NULL;
	free(sp->name);
	free(sp->segs);
	free(sp->cps);
	free(sp);
}

/* Bytes kept on disk. */
uint64_t
spool_kept(const struct spool *sp)
{
	if (!spool_dropped(sp))
		return (sp->told);
	return (sp->drop.from + (sp->told - sp->drop.to));
}

/* Learn of a segment starting at start (the segments only grow). */
static void
spool_seg_add(struct spool *sp, uint64_t start)
{
	if (sp->nsegs > 0 && sp->segs[sp->nsegs - 1] >= start)
		return;
	if (sp->nsegs == sp->segs_cap) {
		sp->segs_cap = sp->segs_cap ? sp->segs_cap * 2 : 8;
		sp->segs = xreallocarray(sp->segs, sp->segs_cap,
		    sizeof *sp->segs);
	}
	sp->segs[sp->nsegs++] = start;
}

/* The segment holding off: the last whose start is at or before it. */
static size_t
spool_seg_find(const struct spool *sp, uint64_t off)
{
	size_t	lo = 0, hi = sp->nsegs, mid;

	while (hi - lo > 1) {
		mid = lo + (hi - lo) / 2;
		if (sp->segs[mid] <= off)
			lo = mid;
		else
			hi = mid;
	}
	return (lo);
}

/* Open segment i's file for reading: a regular file of ours. */
static int
spool_seg_open(struct spool *sp, size_t i)
{
	char		name[SPOOL_NAME_MAX];
	struct stat	st;
	int		fd;

	if (i == sp->nsegs - 1 && sp->fd != -1 &&
	    sp->fd_start == sp->segs[i])
		return (sp->fd);
	spool_seg_name(name, sizeof name, sp->stream, sp->segs[i]);
	if (spool_dir_open(sp) == -1)
		return (-1);
	fd = openat(sp->dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC);
	if (fd == -1)
		return (-1);
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode)) {
		close(fd);
		return (-1);
	}
	if (i == sp->nsegs - 1) {
		if (sp->fd != -1)
			close(sp->fd);
		sp->fd = fd;
		sp->fd_start = sp->segs[i];
	}
	return (fd);
}

/* Compare segment starts, for qsort. */
static int
spool_seg_cmp(const void *a, const void *b)
{
	uint64_t	x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x < y ? -1 : x > y);
}

/* Learn the segments from the directory itself: those there now. */
static int
spool_relist(struct spool *sp)
{
	struct dirent	*de;
	uint64_t	 start;
	DIR		*dir;
	int		 fd;

	if (spool_dir_open(sp) == -1 ||
	    (fd = fcntl(sp->dfd, F_DUPFD_CLOEXEC, 0)) == -1)
		return (-1);
	if ((dir = fdopendir(fd)) == NULL) {
		close(fd);
		return (-1);
	}
	rewinddir(dir);		/* (the offset is dfd's, read before) */
	sp->nsegs = 0;
	while ((de = readdir(dir)) != NULL)
		if (spool_seg_parse(de->d_name, sp->stream, &start)) {
			if (sp->nsegs == sp->segs_cap) {
				sp->segs_cap = sp->segs_cap ? sp->segs_cap * 2 :
				    8;
				sp->segs = xreallocarray(sp->segs,
				    sp->segs_cap, sizeof *sp->segs);
			}
			sp->segs[sp->nsegs++] = start;
		}
	closedir(dir);
	if (sp->nsegs > 1)
		qsort(sp->segs, sp->nsegs, sizeof *sp->segs, spool_seg_cmp);
	if (sp->fd != -1 && (sp->nsegs == 0 ||
	    sp->segs[sp->nsegs - 1] != sp->fd_start)) {
		close(sp->fd);
		sp->fd = -1;
	}
	return (0);
}

/* Bytes [off, off + n) from the segment files into dst: how many came.
 * Fewer when the files do not hold them (gone: the drop's news is on
 * its way). */
static size_t
spool_read_segs(struct spool *sp, uint64_t off, size_t n, char *dst)
{
	size_t	i, got = 0, k;
	ssize_t	m;
	int	fd;

	while (got < n && sp->nsegs > 0) {
		i = spool_seg_find(sp, off);
		if (sp->segs[i] > off)
			break;
		k = n - got;
		if (i + 1 < sp->nsegs && sp->segs[i + 1] - off < k)
			k = (size_t)(sp->segs[i + 1] - off);
		if ((fd = spool_seg_open(sp, i)) == -1)
			break;
		m = pread(fd, dst + got, k, (off_t)(off - sp->segs[i]));
		if (fd != sp->fd)
			close(fd);
		if (m <= 0)
			break;
		got += (size_t)m;
		off += (uint64_t)m;
		if ((size_t)m < k)
			break;
	}
	return (got);
}

/* The same, listing the segments again if they fell short once. */
static size_t
spool_read_files(struct spool *sp, uint64_t off, size_t n, char *dst)
{
	size_t	got;

	got = spool_read_segs(sp, off, n, dst);
	if (got < n && spool_relist(sp) == 0)
		got += spool_read_segs(sp, off + got, n - got, dst + got);
	spool_let_go(sp);
	return (got);
}

/* Bytes [off, off + n) of the text kept: the window's, else the files'. */
size_t
spool_fetch(struct spool *sp, size_t off, size_t n, char *dst)
{
	const struct textbuf	*w = sp->win;
	size_t			 got = 0, k;

	if (off < w->base) {
		k = w->base - off < n ? w->base - off : n;
		got = spool_read_files(sp, off, k, dst);
		if (got < k)
			return (got);
	}
	if (got < n && off + got >= w->base && off + got < w->len) {
		k = w->len - (off + got);
		if (k > n - got)
			k = n - got;
		memcpy(dst + got, w->data + (off + got - w->base), k);
		got += k;
	}
	return (got);
}

/* LFs and characters in [a, b) of the text (within a run). */
static void
spool_count(struct spool *sp, size_t a, size_t b, size_t *lines,
    size_t *chars)
{
	size_t	n, m, i;

	*lines = *chars = 0;
	while (a < b) {
		n = b - a < sizeof spool_buf ? b - a : sizeof spool_buf;
		if ((m = spool_fetch(sp, a, n, spool_buf)) == 0)
			return;
		for (i = 0; i < m; i++) {
			*lines += spool_buf[i] == '\n';
			*chars += !utf8_is_cont(spool_buf[i]);
		}
		a += m;
	}
}

/* The last checkpoint at or before off. */
static const struct spool_cp *
spool_cp_find(const struct spool *sp, size_t off)
{
	size_t	lo = 0, hi = sp->ncps, mid;

	while (hi - lo > 1) {
		mid = lo + (hi - lo) / 2;
		if (sp->cps[mid].off <= off)
			lo = mid;
		else
			hi = mid;
	}
	return (&sp->cps[lo]);
}

/* LFs and characters before off, through the index. In the gap: as at
 * its start, and at its end those before the end. */
void
spool_counts_at(struct spool *sp, size_t off, size_t *lines, size_t *chars)
{
	const struct spool_cp	*cp;
	size_t			 l, c;

	if (off > sp->win->len)
		off = sp->win->len;
	if (spool_dropped(sp) && off >= sp->drop.from) {
		if (off == sp->drop.to) {
			*lines = sp->head_lines + sp->drop.lines;
			*chars = sp->head_chars + sp->drop.chars;
			return;
		}
		if (off < sp->drop.to) {
			*lines = sp->head_lines;
			*chars = sp->head_chars;
			return;
		}
	}
	cp = spool_cp_find(sp, off);
	spool_count(sp, cp->off, off, &l, &c);
	*lines = cp->lines + l;
	*chars = cp->chars + c;
}

/*
 * The reaper dropped [from, to) (the range may have only grown since the
 * last news): forget the segments and checkpoints in it, and if the
 * window is past its start, go on at its end.
 */
static void
spool_apply_drop(struct spool *sp, const struct spool_drop *d)
{
	struct textbuf	*w = sp->win;
	size_t		 i, j, lines, chars;

	/* What the head holds, once the window has read it. */
	if (!sp->head_known && w->len == d->from) {
		sp->head_lines = w->lines;
		sp->head_chars = w->chars;
		sp->head_known = true;
	} else if (!sp->head_known && w->len > d->from) {
		spool_counts_at(sp, d->from, &sp->head_lines, &sp->head_chars);
		sp->head_known = true;
	}
	sp->drop = *d;
	/* The segments wholly in the range go (the head's stays). */
	for (i = j = 0; i < sp->nsegs; i++)
		if (i == 0 || i + 1 == sp->nsegs || sp->segs[i + 1] > d->to)
			sp->segs[j++] = sp->segs[i];
	sp->nsegs = j;
	if (sp->fd != -1 && sp->fd_start != 0 && sp->fd_start < d->to &&
	    (sp->nsegs == 0 || sp->segs[sp->nsegs - 1] != sp->fd_start)) {
		close(sp->fd);
		sp->fd = -1;
	}
	for (i = j = 0; i < sp->ncps; i++)
		if (sp->cps[i].off < d->from || sp->cps[i].off >= d->to)
			sp->cps[j++] = sp->cps[i];
	sp->ncps = j;
	if (w->len < d->from)
		return;		/* the window is not there yet */
	lines = sp->head_lines + d->lines;
	chars = sp->head_chars + d->chars;
	if (w->len < d->to)
		textbuf_skip(w, d->to, lines, chars);
	else if (w->base < d->to)
		textbuf_trim(w, d->to);
	spool_cp_add(sp, d->to, lines, chars);
}

/* Read what the reaper has written and the window has not, in order;
 * over the gap, the counts jump. */
static void
spool_catch_up(struct spool *sp)
{
	struct textbuf	*w = sp->win;
	size_t		 end, n, m;

	while (w->len < sp->told) {
		if (spool_dropped(sp) && w->len >= sp->drop.from &&
		    w->len < sp->drop.to) {
			spool_apply_drop(sp, &sp->drop);
			continue;
		}
		end = spool_dropped(sp) && w->len < sp->drop.from ?
		    sp->drop.from : sp->told;
		n = end - w->len < SPOOL_CHUNK ? end - w->len : SPOOL_CHUNK;
		if (w->len - sp->cps[sp->ncps - 1].off >= SPOOL_CP)
			spool_cp_add(sp, w->len, w->lines, w->chars);
		if ((m = spool_read_files(sp, w->len, n, spool_buf)) == 0)
			break;
		textbuf_append(w, spool_buf, m);
	}
	w->cut = spool_dropped(sp);
}

/* The reaper's news. */
void
spool_told(struct spool *sp, const struct spool_news *nw)
{
	if (nw->len > 0 || nw->seg > 0)
		spool_seg_add(sp, nw->seg);
	if (nw->drop.why != SPOOL_WHY_NONE && (!spool_dropped(sp) ||
	    nw->drop.to != sp->drop.to || nw->drop.why != sp->drop.why))
		spool_apply_drop(sp, &nw->drop);
	if (nw->len > sp->told)
		sp->told = nw->len;
	spool_catch_up(sp);
}

/* Read what the directory holds, as a reader that saw nothing: the
 * record, the segments, the text to the end of the last (-1: errno). */
static int
spool_restore(struct spool *sp)
{
	struct spool_drop	 d;
	struct stat		 st;
	char			 name[SPOOL_NAME_MAX];

	if (spool_meta_read(sp->dfd, sp->stream, &d) == -1 ||
	    spool_relist(sp) == -1)
		return (-1);
	sp->told = d.why != SPOOL_WHY_NONE ? d.to : 0;
	if (sp->nsegs > 0) {
		spool_seg_name(name, sizeof name, sp->stream,
		    sp->segs[sp->nsegs - 1]);
		if (fstatat(sp->dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    sp->segs[sp->nsegs - 1] + (uint64_t)st.st_size > sp->told)
			sp->told = sp->segs[sp->nsegs - 1] +
			    (uint64_t)st.st_size;
	}
	if (d.why != SPOOL_WHY_NONE)
		sp->drop = d;
	spool_catch_up(sp);
	return (0);
}

/* After the k-th LF from off (k > 0), or end if there are fewer. */
static size_t
spool_after_lfs(struct spool *sp, size_t off, size_t end, size_t k)
{
	const char	*p, *q;
	size_t		 n;

	while (off < end) {
		n = end - off < sizeof spool_buf ? end - off : sizeof spool_buf;
		if ((n = spool_fetch(sp, off, n, spool_buf)) == 0)
			break;
		for (p = spool_buf; (q = memchr(p, '\n', n - (size_t)(p -
		    spool_buf))) != NULL; p = q + 1)
			if (--k == 0)
				return (off + (size_t)(q - spool_buf) + 1);
		off += n;
	}
	return (end);
}

/* Where line n starts. */
size_t
spool_line_off(const struct textbuf *t, size_t n)
{
	struct spool		*sp = t->spool;
	const struct spool_cp	*cp;
	size_t			 want = n > 0 ? n - 1 : 0, lo, hi, mid;
	size_t			 end;

	if (sp == NULL) {
		if (want == 0 || t->data == NULL)
			return (0);
		for (lo = 0; lo < t->len; lo++)
			if (t->data[lo] == '\n' && --want == 0)
				return (lo + 1);
		return (t->len);
	}
	end = t->len;
	if (spool_dropped(sp) && want > sp->head_lines) {
		if (want <= sp->head_lines + sp->drop.lines)
			return (sp->drop.to);
	} else if (spool_dropped(sp))
		end = sp->drop.from;
	if (want == 0)
		return (0);
	/* The last checkpoint with fewer LFs before it than want. */
	lo = 0;
	hi = sp->ncps;
	while (hi - lo > 1) {
		mid = lo + (hi - lo) / 2;
		if (sp->cps[mid].lines < want && sp->cps[mid].off < end)
			lo = mid;
		else
			hi = mid;
	}
	cp = &sp->cps[lo];
	if (cp->lines >= want)
		lo = cp->off;
	else
		lo = spool_after_lfs(sp, cp->off, end, want - cp->lines);
	/* (A line that starts where the gap does is read after it.) */
	if (spool_dropped(sp) && lo >= sp->drop.from && lo < sp->drop.to)
		return (sp->drop.to);
	return (lo);
}

