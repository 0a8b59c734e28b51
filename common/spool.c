/*
 * spool.c — the spool's files: their names, the record of what was
 * dropped, the space the text may take, and removing a spool (spool.h).
 *
 * The record is a few lines of text, "key value", so that a person can
 * read it too:
 *
 *	progmux-spool 1
 *	from 1048320
 *	to 9437184
 *	lines 1201534
 *	chars 8388864
 *	why ceiling
 *	err 0
 *
 * Library code: no printing, no exiting; nothing followed through a link.
 */
#include <sys/types.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fdutil.h"
#include "spool.h"

#define SPOOL_META_MAGIC	"progmux-spool 1"
#define SPOOL_META_MAX		512	/* bytes of a record, at most */

static const char *const spool_whys[] = {
	[SPOOL_WHY_NONE] = "none",
	[SPOOL_WHY_CEILING] = "ceiling",
	[SPOOL_WHY_NOSPACE] = "diskFull",
	[SPOOL_WHY_LOST] = "lost"
};

/* A segment's size: a sixteenth of the ceiling, within bounds. */
uint64_t
spool_seg_size(uint64_t max)
{
	uint64_t	seg = max / SPOOL_SEGMENTS;

	if (seg < SPOOL_SEG_MIN)
		seg = SPOOL_SEG_MIN;
	if (seg > SPOOL_SEG_MAX)
		seg = SPOOL_SEG_MAX;
	return (seg);
}

/* "o1048576": the stream's letter and the segment's first offset. */
void
spool_seg_name(char *buf, size_t len, char stream, uint64_t start)
{
	snprintf(buf, len, "%c%" PRIu64, stream, start);
}

/* "o.meta", or "o.meta.tmp" while it is written. */
void
spool_meta_name(char *buf, size_t len, char stream, bool tmp)
{
	snprintf(buf, len, "%c.meta%s", stream, tmp ? ".tmp" : "");
}

/* Is name stream's letter and digits only (no leading zero)? */
bool
spool_seg_parse(const char *name, char stream, uint64_t *start)
{
	const char	*p = name + 1;
	uint64_t	 v = 0;

	if (name[0] != stream || !isdigit((unsigned char)*p) ||
	    (p[0] == '0' && p[1] != '\0'))
		return (false);
	for (; isdigit((unsigned char)*p); p++) {
		if (v > (UINT64_MAX - 9) / 10)
			return (false);
		v = v * 10 + (uint64_t)(*p - '0');
	}
	if (*p != '\0')
		return (false);
	*start = v;
	return (true);
}

/* The reason's name. */
const char *
spool_why_name(enum spool_why why)
{
	return ((unsigned)why < sizeof spool_whys / sizeof *spool_whys ?
	    spool_whys[why] : "none");
}

/* Write the record under a temporary name, then rename it into place. */
int
spool_meta_write(int dfd, char stream, const struct spool_drop *d)
{
	char	tmp[SPOOL_NAME_MAX], name[SPOOL_NAME_MAX], b[SPOOL_META_MAX];
	int	fd, n, saved;

	spool_meta_name(tmp, sizeof tmp, stream, true);
	spool_meta_name(name, sizeof name, stream, false);
	n = snprintf(b, sizeof b, "%s\nfrom %" PRIu64 "\nto %" PRIu64
	    "\nlines %" PRIu64 "\nchars %" PRIu64 "\nwhy %s\nerr %d\n",
	    SPOOL_META_MAGIC, d->from, d->to, d->lines, d->chars,
	    spool_why_name(d->why), d->err);
	unlinkat(dfd, tmp, 0);
	fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, 0600);
	if (fd == -1)
		return (-1);
	if (fd_write_all(fd, b, (size_t)n) == -1) {
		saved = errno;
		close(fd);
		unlinkat(dfd, tmp, 0);
		errno = saved;
		return (-1);
	}
	close(fd);
	if (renameat(dfd, tmp, dfd, name) == -1) {
		saved = errno;
		unlinkat(dfd, tmp, 0);
		errno = saved;
		return (-1);
	}
	return (0);
}

/* One "key value" line of a record into *v; false if it is not that. */
static bool
spool_meta_field(const char **p, const char *key, uint64_t *v)
{
	size_t	 klen = strlen(key);
	char	*end;

	if (strncmp(*p, key, klen) != 0 || (*p)[klen] != ' ' ||
	    !isdigit((unsigned char)(*p)[klen + 1]))
		return (false);
	errno = 0;
	*v = strtoull(*p + klen + 1, &end, 10);
	if (errno != 0 || *end != '\n')
		return (false);
	*p = end + 1;
	return (true);
}

/* Read the record back. */
int
spool_meta_read(int dfd, char stream, struct spool_drop *d)
{
	char		 name[SPOOL_NAME_MAX], b[SPOOL_META_MAX + 1], *nl;
	const char	*p = b;
	struct stat	 st;
	uint64_t	 err;
	ssize_t		 n;
	size_t		 i;
	int		 fd;

	memset(d, 0, sizeof *d);
	spool_meta_name(name, sizeof name, stream, false);
	fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd == -1)
		return (errno == ENOENT ? 0 : -1);
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode)) {
		close(fd);
		errno = EINVAL;
		return (-1);
	}
	n = read(fd, b, SPOOL_META_MAX);
	close(fd);
	if (n <= 0) {
		errno = EINVAL;
		return (-1);
	}
	b[n] = '\0';
	if (strncmp(p, SPOOL_META_MAGIC "\n", strlen(SPOOL_META_MAGIC) + 1) !=
	    0)
		goto bad;
	p += strlen(SPOOL_META_MAGIC) + 1;
	if (!spool_meta_field(&p, "from", &d->from) ||
	    !spool_meta_field(&p, "to", &d->to) ||
	    !spool_meta_field(&p, "lines", &d->lines) ||
	    !spool_meta_field(&p, "chars", &d->chars) ||
	    strncmp(p, "why ", 4) != 0 || (nl = strchr(p, '\n')) == NULL)
		goto bad;
	*nl = '\0';
	for (i = 0; i < sizeof spool_whys / sizeof *spool_whys; i++)
		if (strcmp(p + 4, spool_whys[i]) == 0)
			d->why = (enum spool_why)i;
	p = nl + 1;
	if (!spool_meta_field(&p, "err", &err) || d->to < d->from)
		goto bad;
	d->err = (int)err;
	return (1);
bad:
	memset(d, 0, sizeof *d);
	errno = EINVAL;
	return (-1);
}

/* What the text leaves free of a file system: 1 MiB, or a 32nd of it. */
uint64_t
spool_reserve(const struct statvfs *vfs)
{
	uint64_t	size = (uint64_t)vfs->f_blocks * vfs->f_frsize;

	if ((size >> SPOOL_RESERVE_SHIFT) > SPOOL_RESERVE_MIN)
		return (size >> SPOOL_RESERVE_SHIFT);
	return (SPOOL_RESERVE_MIN);
}

/* Bytes free past the reserve on fd's file system. */
uint64_t
spool_free(int fd)
{
	struct statvfs	vfs;
	uint64_t	avail, reserve;

	if (fstatvfs(fd, &vfs) == -1 || vfs.f_frsize == 0)
		return (UINT64_MAX);
	avail = (uint64_t)vfs.f_bavail * vfs.f_frsize;
	reserve = spool_reserve(&vfs);
	return (avail > reserve ? avail - reserve : 0);
}

/* p<N>.text */
bool
spool_dir_name(const char *name)
{
	const char	*p = name + 1;

	if (name[0] != 'p' || !isdigit((unsigned char)*p))
		return (false);
	while (isdigit((unsigned char)*p))
		p++;
	return (strcmp(p, SPOOL_DIR_SUFFIX) == 0);
}

/* Make parentfd/name, a fresh directory of ours, and open it. */
int
spool_dir_make(int parentfd, const char *name)
{
	struct stat	st;
	int		dfd;

	if (!spool_dir_name(name)) {
		errno = EINVAL;
		return (-1);
	}
	if (mkdirat(parentfd, name, 0700) == -1)
		return (-1);
	dfd = openat(parentfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	if (dfd == -1)
		return (-1);
	if (fstat(dfd, &st) == -1 || st.st_uid != geteuid() ||
	    ((st.st_mode & 07777) != 0700 && fchmod(dfd, 0700) == -1)) {
		close(dfd);
		errno = EPERM;
		return (-1);
	}
	return (dfd);
}

/* Is name one of a spool's own files (a segment or a record)? */
static bool
spool_own_name(const char *name)
{
	static const char	streams[] = { SPOOL_OUT, SPOOL_ERR };
	char			m[SPOOL_NAME_MAX];
	uint64_t		start;
	size_t			i;

	for (i = 0; i < sizeof streams; i++) {
		if (spool_seg_parse(name, streams[i], &start))
			return (true);
		spool_meta_name(m, sizeof m, streams[i], false);
		if (strcmp(name, m) == 0)
			return (true);
		spool_meta_name(m, sizeof m, streams[i], true);
		if (strcmp(name, m) == 0)
			return (true);
	}
	return (false);
}

/* Unlink the spool's own files in dfd (regular files of ours). */
int
spool_dir_empty(int dfd)
{
	DIR		*d;
	struct dirent	*de;
	struct stat	 st;
	int		 fd, left = 0;

	if ((fd = fcntl(dfd, F_DUPFD_CLOEXEC, 0)) == -1)
		return (-1);
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return (-1);
	}
	rewinddir(d);		/* (the offset is dfd's, maybe read before) */
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		if (fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == -1) {
			if (errno != ENOENT)
				left++;
			continue;
		}
		if (!S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
		    !spool_own_name(de->d_name) ||
		    (unlinkat(dfd, de->d_name, 0) == -1 && errno != ENOENT))
			left++;
	}
	closedir(d);
	return (left);
}

/* Empty parentfd/name and remove it, if it is a spool directory of ours. */
int
spool_dir_remove(int parentfd, const char *name)
{
	struct stat	st, dst;
	int		dfd, left;

	if (!spool_dir_name(name) ||
	    fstatat(parentfd, name, &st, AT_SYMLINK_NOFOLLOW) == -1)
		return (-1);
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 07777) != 0700) {
		errno = EPERM;
		return (-1);
	}
	dfd = openat(parentfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	if (dfd == -1)
		return (-1);
	if (fstat(dfd, &dst) == -1 || dst.st_dev != st.st_dev ||
	    dst.st_ino != st.st_ino) {
		close(dfd);
		errno = EPERM;
		return (-1);
	}
	left = spool_dir_empty(dfd);
	close(dfd);
	if (left != 0) {
		errno = left > 0 ? ENOTEMPTY : errno;
		return (-1);
	}
	return (unlinkat(parentfd, name, AT_REMOVEDIR));
}
