/*
 * spool.h — a program's text on disk: the files of its spool, as the
 * reaper writes them (reaper/spool_write.c) and a front reads them
 * (server/spool.c).
 *
 * The front makes one directory per program in the runtime directory,
 * p<N>.text (0700, reached only through the runtime directory's
 * descriptor), and gives the reaper its descriptor open. In it each
 * stream of text (SPOOL_OUT, the program's output; SPOOL_ERR, its
 * standard error when it is kept apart) is a run of segment files, each
 * named by the stream's letter and the offset of its first byte in the
 * text ("o0", "o67108864", ...): a segment holds the text from its
 * offset to the next segment's. Text is only appended, so an offset (a
 * cursor) names the same byte for ever.
 *
 * Past the ceiling, or when the file system is full, the middle goes:
 * the head (the text before `from`, in the first segment) stays, the
 * oldest segments after it are removed, and the text between `from` and
 * `to` is dropped; the most recent text is always kept. There is at
 * most one dropped range; it only grows at its end. `from` is the start
 * of a line where the head has one near its end, `to` likewise in the
 * text after the range (they are where the writer could cut, not
 * promises about lines). What was dropped, with its lines and
 * characters, is written to the stream's record "o.meta" (replaced
 * whole, through a temporary name) before any file is removed, so that
 * a reader that did not see the text go (a new front) knows what it was.
 * The text kept is therefore rebuilt from the directory alone: the
 * record, the segments' names, and the last segment's size.
 */
#ifndef PROGMUX_SPOOL_H
#define PROGMUX_SPOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SPOOL_OUT		'o'	/* the program's text */
#define SPOOL_ERR		'e'	/* its standard error, kept apart */
#define SPOOL_DIR_SUFFIX	".text"	/* p<N>.text in the runtime dir */
#define SPOOL_NAME_MAX		32	/* a segment's or record's name */
#define SPOOL_SEGMENTS		16	/* a ceiling's worth of segments */
#define SPOOL_SEG_MIN		256	/* bytes: the smallest segment */
#define SPOOL_SEG_MAX		(64u * 1024 * 1024)
#define SPOOL_ALIGN_BACK	(64u * 1024) /* a line's end looked for */
#define SPOOL_RESERVE_MIN	(1024u * 1024) /* left free on the fs */
#define SPOOL_RESERVE_SHIFT	5	/* and 1/32 of it */

/* Why the middle went. */
enum spool_why {
	SPOOL_WHY_NONE,
	SPOOL_WHY_CEILING,	/* past PROGMUX_OUTPUT_MAX_BYTES */
	SPOOL_WHY_NOSPACE,	/* the file system (or its reserve) is full */
	SPOOL_WHY_LOST		/* some of the output never reached us */
};

/* The dropped range of a stream: [from, to), and what it held. */
struct spool_drop {
	uint64_t	 from, to;	/* from == to: nothing dropped */
	uint64_t	 lines;		/* LFs in [from, to) */
	uint64_t	 chars;		/* code points that begin in it */
	enum spool_why	 why;
	int		 err;		/* SPOOL_WHY_NOSPACE: the errno */
};

struct statvfs;

/* A stream's segment size for a ceiling of max bytes. */
uint64_t spool_seg_size(uint64_t max);
/* The name of stream's segment starting at start, or of its record. */
void	spool_seg_name(char *, size_t, char stream, uint64_t start);
void	spool_meta_name(char *, size_t, char stream, bool tmp);
/* Is name one of stream's segments? Its start in *start. */
bool	spool_seg_parse(const char *name, char stream, uint64_t *start);
/* Write stream's record in dfd (through a temporary name): 0, or -1
 * with errno. */
int	spool_meta_write(int dfd, char stream, const struct spool_drop *);
/* Read it: 1, 0 if there is none (nothing dropped), -1 with errno
 * (EINVAL: not a record). */
int	spool_meta_read(int dfd, char stream, struct spool_drop *);
/* The words for why, as a result's reason says it. */
const char *spool_why_name(enum spool_why);
/* Bytes the text may not take of a file system: what it keeps free. */
uint64_t spool_reserve(const struct statvfs *);
/* Bytes free for the text on the file system of fd, past the reserve
 * (0 when within it); UINT64_MAX if it cannot tell. */
uint64_t spool_free(int fd);
/* Is name a program's spool directory, p<N>.text? */
bool	spool_dir_name(const char *name);
/* Make the spool directory name (0700) in parentfd and open it: its
 * descriptor, or -1 with errno. */
int	spool_dir_make(int parentfd, const char *name);
/* Remove what a spool holds from its directory dfd: how many entries
 * are left (not ours, or not removable), or -1 with errno. */
int	spool_dir_empty(int dfd);
/* Empty and remove the spool directory name in parentfd, if it is one
 * of ours (a directory, 0700, never through a link): 0 when it is gone,
 * -1 with errno (ENOTEMPTY: something else is in it). */
int	spool_dir_remove(int parentfd, const char *name);

#endif
