/*
 * rundir.c — the runtime directory's lock, and removing a dead one.
 *
 * Nothing here follows a symbolic link or trusts a name alone. A
 * directory is removed only if it is named progmux-XXXXXX, is a real
 * directory (lstat, then opened O_NOFOLLOW and checked to be the same
 * one), is ours with mode 0700, holds a regular file "lock" of ours on
 * which LOCK_EX|LOCK_NB succeeds (no process of its instance is alive),
 * and holds nothing but what an instance makes: its FIFOs, its programs'
 * spools (p<N>.text, holding their text: spool.h), its tmux
 * socket once no server listens on it (and the lock file a tmux client
 * starting that server makes beside it), config files. Every removal is
 * relative to the directory's descriptor (unlinkat), so a path swapped
 * meanwhile is never followed. Library code: no printing, no exiting.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "compat.h"
#include "osdep.h"
#include "proto.h"
#include "rundir.h"
#include "spool.h"
#include "timeutil.h"
#include "xmalloc.h"

#define RUNDIR_SUFFIX_LEN	6	/* mkdtemp's XXXXXX */
#define RUNDIR_TRIES		3	/* to empty and remove it */

/* Is name progmux-XXXXXX, as mkdtemp makes it? */
static bool
rundir_name_ok(const char *name)
{
	size_t	plen = strlen(RUNDIR_PREFIX), i;

	if (strncmp(name, RUNDIR_PREFIX, plen) != 0 ||
	    strlen(name) != plen + RUNDIR_SUFFIX_LEN)
		return (false);
	for (i = plen; name[i] != '\0'; i++)
		if (!isalnum((unsigned char)name[i]))
			return (false);
	return (true);
}

/* A directory of ours that nobody else may enter. */
static bool
rundir_mine(const struct stat *st)
{
	return (S_ISDIR(st->st_mode) && st->st_uid == geteuid() &&
	    (st->st_mode & 07777) == 0700);
}

/* A program's file, as the front and its reaper name them: p<N> and
 * the suffix. */
static bool
rundir_program_name(const char *name, const char *suffix)
{
	const char	*p = name + 1;

	if (name[0] != 'p' || !isdigit((unsigned char)*p))
		return (false);
	while (isdigit((unsigned char)*p))
		p++;
	return (strcmp(p, suffix) == 0);
}

/* A program's FIFO, as the front names them: p<N>.out, .ctl or .err. */
static bool
rundir_fifo_name(const char *name)
{
	return (rundir_program_name(name, ".out") ||
	    rundir_program_name(name, ".ctl") ||
	    rundir_program_name(name, ".err"));
}

/* A config file: *.conf. */
static bool
rundir_conf_name(const char *name)
{
	size_t	n = strlen(name);

	return (n > 5 && strcmp(name + n - 5, ".conf") == 0);
}

/*
 * Does a server listen on the socket dfd/name? Waits up to wait_ms for
 * it to stop; anything but a refusal (or the socket gone) counts as a
 * listener, so a server is never taken for dead.
 */
static bool
rundir_listening(int dfd, const char *name, int64_t wait_ms)
{
	int64_t	deadline = now_ms() + wait_ms;
	int	fd, ret, error;

	for (;;) {
		fd = compat_socket(AF_UNIX, SOCK_STREAM, 0, O_CLOEXEC |
		    O_NONBLOCK);
		if (fd == -1)
			return (true);
		ret = osdep_connect_at(fd, dfd, name);
		error = errno;
		close(fd);
		if (ret == -1 && (error == ECONNREFUSED || error == ENOENT))
			return (false);
		if (now_ms() >= deadline)
			return (true);
		poll(NULL, 0, 20);
	}
}

/* Remove what an instance leaves in dfd (not the lock); how many
 * entries are left besides the lock. */
static int
rundir_empty(int dfd, int64_t wait_ms)
{
	DIR		*d;
	struct dirent	*de;
	struct stat	 st;
	const char	*n;
	int		 fd, left = 0;
	bool		 known;

	if ((fd = fcntl(dfd, F_DUPFD_CLOEXEC, 0)) == -1)
		return (-1);
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return (-1);
	}
	while ((de = readdir(d)) != NULL) {
		n = de->d_name;
		if (strcmp(n, ".") == 0 || strcmp(n, "..") == 0 ||
		    strcmp(n, RUNDIR_LOCK) == 0)
			continue;
		if (fstatat(dfd, n, &st, AT_SYMLINK_NOFOLLOW) == -1) {
			if (errno != ENOENT)
				left++;
			continue;
		}
		/* (A FIFO's name can be a regular file: pipe-pane's sh
		 * makes one if it opens the FIFO after it was removed.) */
		/* A program's spool (spool.h): emptied, then removed. */
		if (S_ISDIR(st.st_mode) && spool_dir_name(n)) {
			if (spool_dir_remove(dfd, n) == -1 && errno != ENOENT)
				left++;
			continue;
		}
		known = st.st_uid == geteuid() &&
		    (((S_ISFIFO(st.st_mode) || S_ISREG(st.st_mode)) &&
		    rundir_fifo_name(n)) ||
		    (S_ISREG(st.st_mode) && (rundir_conf_name(n) ||
		    strcmp(n, "tmux.lock") == 0)) ||
		    (S_ISSOCK(st.st_mode) && strcmp(n, "tmux") == 0 &&
		    !rundir_listening(dfd, n, wait_ms)) ||
		    (S_ISSOCK(st.st_mode) &&
		    rundir_program_name(n, PROTO_NOTIFY_SUFFIX)));
		if (!known || (unlinkat(dfd, n, 0) == -1 && errno != ENOENT))
			left++;
	}
	closedir(d);
	return (left);
}

/* Make the lock file in directory dfd and hold LOCK_SH on it. */
int
rundir_lock_at(int dfd)
{
	char	tmp[32];
	int	fd, saved;

	/* Made under another name and locked before it is "lock": a
	 * sweeper never finds it unlocked while we live. */
	snprintf(tmp, sizeof tmp, "%s.%ld", RUNDIR_LOCK, (long)getpid());
	fd = openat(dfd, tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, 0600);
	if (fd == -1)
		return (-1);
	if (flock(fd, LOCK_SH) == -1 ||
	    renameat(dfd, tmp, dfd, RUNDIR_LOCK) == -1) {
		saved = errno;
		unlinkat(dfd, tmp, 0);
		close(fd);
		errno = saved;
		return (-1);
	}
	return (fd);
}

/* Can another user change (rename, replace, remove entries of) the
 * directory st describes? */
static bool
rundir_unsafe(const struct stat *st)
{
	if (st->st_uid != geteuid() && st->st_uid != 0)
		return (true);
	return ((st->st_mode & (S_IWGRP | S_IWOTH)) != 0 &&
	    (st->st_mode & S_ISVTX) == 0);
}

/*
 * Open base for making a runtime directory in it, only if no other user
 * can change it or any directory above it: each is owned by us or root,
 * and group- or other-writable only with the sticky bit (as /tmp). The
 * path is resolved first, then walked one component at a time with
 * O_NOFOLLOW from the root, so what is checked is what is opened.
 */
int
rundir_base_open(const char *base, char **cause)
{
	char		*real, *comp, *slash, *end;
	struct stat	 st;
	int		 fd, next;

	if ((real = realpath(base, NULL)) == NULL) {
		xasprintf(cause, "%s: %s", base, strerror(errno));
		return (-1);
	}
	fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	/* Each turn checks the directory fd, named real up to end. */
	for (comp = real, end = real + 1;; comp = slash + 1) {
		if (fd == -1 || fstat(fd, &st) == -1) {
			xasprintf(cause, "%.*s: %s", (int)(end - real), real,
			    strerror(errno));
			break;
		}
		if (rundir_unsafe(&st)) {
			xasprintf(cause, "%.*s is %s", (int)(end - real), real,
			    st.st_uid != geteuid() && st.st_uid != 0 ?
			    "owned by another user" : "writable by other "
			    "users and not sticky");
			break;
		}
		while (*comp == '/')
			comp++;
		if (*comp == '\0') {
			free(real);
			return (fd);		/* all of it checked */
		}
		if ((slash = strchr(comp, '/')) != NULL)
			*slash = '\0';
		next = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC);
		end = comp + strlen(comp);
		if (slash != NULL)
			*slash = '/';
		else
			slash = end - 1;	/* the next turn ends it */
		close(fd);
		fd = next;
	}
	if (fd != -1)
		close(fd);
	free(real);
	return (-1);
}

/* Make a fresh progmux-XXXXXX (0700) in basefd: its descriptor, and its
 * name in name; -1 with errno. */
int
rundir_make(int basefd, char *name, size_t len)
{
	static const char	 set[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmn"
	    "opqrstuvwxyz0123456789";
	unsigned char		 rnd[RUNDIR_SUFFIX_LEN];
	struct stat		 st;
	int			 tries, i, fd;

	if (len < sizeof RUNDIR_PREFIX + RUNDIR_SUFFIX_LEN) {
		errno = ENAMETOOLONG;
		return (-1);
	}
	for (tries = 0; tries < 100; tries++) {
		if (getentropy(rnd, sizeof rnd) == -1)
			return (-1);
		memcpy(name, RUNDIR_PREFIX, sizeof RUNDIR_PREFIX - 1);
		for (i = 0; i < RUNDIR_SUFFIX_LEN; i++)
			name[sizeof RUNDIR_PREFIX - 1 + i] =
			    set[rnd[i] % (sizeof set - 1)];
		name[sizeof RUNDIR_PREFIX - 1 + RUNDIR_SUFFIX_LEN] = '\0';
		if (mkdirat(basefd, name, 0700) == -1) {
			if (errno == EEXIST)
				continue;
			return (-1);
		}
		fd = openat(basefd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC);
		if (fd == -1 || fstat(fd, &st) == -1 || !rundir_mine(&st)) {
			if (fd != -1)
				close(fd);
			errno = EPERM;
			return (-1);
		}
		return (fd);
	}
	errno = EEXIST;
	return (-1);
}

/*
 * The rendezvous of the leases (rundir.h): progmux.lease.UID in basefd,
 * made 0700 if it is not there, opened without following a link, and
 * used only if it is a directory of ours of mode 0700. Another user who
 * made that name first (in a shared /tmp) gets nothing from it: it is
 * refused, and no lease is offered.
 */
int
rundir_lease_open(int basefd, char *name, size_t len, char **cause)
{
	struct stat	st;
	int		fd;

	snprintf(name, len, "%s%lu", RUNDIR_LEASE, (unsigned long)geteuid());
	if (mkdirat(basefd, name, 0700) == -1 && errno != EEXIST) {
		xasprintf(cause, "cannot make %s: %s", name, strerror(errno));
		return (-1);
	}
	fd = openat(basefd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	if (fd == -1) {
		xasprintf(cause, "%s: %s", name, errno == ELOOP ||
		    errno == ENOTDIR ? "not a directory (a symbolic link, not "
		    "followed, or a file)" : strerror(errno));
		return (-1);
	}
	if (fstat(fd, &st) == -1 || !rundir_mine(&st)) {
		xasprintf(cause, "%s is not a private directory of yours (it "
		    "must be yours, with mode 0700)", name);
		close(fd);
		return (-1);
	}
	return (fd);
}

/* "DEV:INO" of the directory dfd, as the processes that must find it
 * again are given it. */
void
rundir_id(int dfd, char *buf, size_t len)
{
	struct stat	st;

	if (fstat(dfd, &st) == -1)
		memset(&st, 0, sizeof st);
	snprintf(buf, len, "%llu:%llu", (unsigned long long)st.st_dev,
	    (unsigned long long)st.st_ino);
}

/*
 * Open dir (not following a link) only if it is the directory id names,
 * ours, mode 0700: what a launcher or a pane's writer reaches the FIFOs
 * through, so a directory swapped in under the same path is never read
 * from or run out of. The fd, or -1 with *cause.
 */
int
rundir_open_checked(const char *dir, const char *id, char **cause)
{
	char		want[64];
	struct stat	st;
	int		fd;

	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd == -1) {
		xasprintf(cause, "cannot open the runtime directory %s: %s",
		    dir, strerror(errno));
		return (-1);
	}
	rundir_id(fd, want, sizeof want);
	if (fstat(fd, &st) == -1 || strcmp(want, id) != 0 ||
	    !rundir_mine(&st)) {
		xasprintf(cause, "%s is not the runtime directory progmux "
		    "made (it was replaced); refusing to use it", dir);
		close(fd);
		return (-1);
	}
	return (fd);
}

/* Hold LOCK_SH on the lock of the runtime directory dir (checked as
 * rundir_open_checked does): its fd, or -1 with *cause. */
int
rundir_join(const char *dir, const char *id, char **cause)
{
	struct stat	st;
	int		dfd, fd;

	if ((dfd = rundir_open_checked(dir, id, cause)) == -1)
		return (-1);
	fd = openat(dfd, RUNDIR_LOCK, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC);
	close(dfd);
	if (fd == -1 || fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) ||
	    st.st_uid != geteuid() || flock(fd, LOCK_SH | LOCK_NB) == -1) {
		xasprintf(cause, "cannot hold the lock of %s: %s", dir,
		    fd == -1 ? strerror(errno) : "not a file of ours, or "
		    "being removed");
		if (fd != -1)
			close(fd);
		return (-1);
	}
	return (fd);
}

/* Open dfd/name as a FIFO of ours (never a link), with flags; -1 with
 * errno (EPERM: something else is there). */
int
rundir_open_fifo(int dfd, const char *name, int flags)
{
	struct stat	st;
	int		fd;

	fd = openat(dfd, name, flags | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
	if (fd == -1)
		return (-1);
	if (fstat(fd, &st) == -1 || !S_ISFIFO(st.st_mode) ||
	    st.st_uid != geteuid()) {
		close(fd);
		errno = EPERM;
		return (-1);
	}
	return (fd);
}

/* Remove parentfd/name if it is provably a dead instance's directory. */
int
rundir_remove_dead(int parentfd, const char *name, int64_t wait_ms)
{
	struct stat	st, dst, lst;
	int		dfd, lfd = -1, removed = 0, tries;

	if (!rundir_name_ok(name) ||
	    fstatat(parentfd, name, &st, AT_SYMLINK_NOFOLLOW) == -1 ||
	    !rundir_mine(&st))
		return (0);
	dfd = openat(parentfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	if (dfd == -1)
		return (0);
	if (fstat(dfd, &dst) == -1 || dst.st_dev != st.st_dev ||
	    dst.st_ino != st.st_ino || !rundir_mine(&dst))
		goto out;
	/* (O_NONBLOCK: a FIFO planted as "lock" must not block us.) */
	lfd = openat(dfd, RUNDIR_LOCK, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC);
	if (lfd == -1 || fstat(lfd, &lst) == -1 || !S_ISREG(lst.st_mode) ||
	    lst.st_uid != geteuid() || flock(lfd, LOCK_EX | LOCK_NB) == -1)
		goto out;
	/* Nobody of that instance lives. The lock goes last, and only if
	 * the directory can go with it: else a later try can still prove
	 * what it is. */
	for (tries = 0; tries < RUNDIR_TRIES && !removed; tries++) {
		/* (Again if a late writer made an entry meanwhile.) */
		if (rundir_empty(dfd, wait_ms) != 0 ||
		    (unlinkat(dfd, RUNDIR_LOCK, 0) == -1 && errno != ENOENT))
			break;
		if (unlinkat(parentfd, name, AT_REMOVEDIR) == 0)
			removed = 1;
	}
out:
	if (lfd != -1)
		close(lfd);
	close(dfd);
	return (removed);
}

/* The same, for a path: its parent is opened, then as above. */
int
rundir_remove_path(const char *dir, int64_t wait_ms)
{
	char	*parent, *slash;
	int	 pfd, removed = 0;

	if ((parent = strdup(dir)) == NULL)
		return (0);
	if ((slash = strrchr(parent, '/')) != NULL) {
		*slash = '\0';
		pfd = open(slash == parent ? "/" : parent, O_RDONLY |
		    O_DIRECTORY | O_CLOEXEC);
		if (pfd != -1) {
			removed = rundir_remove_dead(pfd, slash + 1, wait_ms);
			close(pfd);
		}
	}
	free(parent);
	return (removed);
}

/* Remove every dead instance's directory under base. */
int
rundir_sweep(const char *base)
{
	DIR		*d;
	struct dirent	*de;
	int		 bfd, fd, n = 0;

	if ((bfd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
		return (0);
	if ((fd = fcntl(bfd, F_DUPFD_CLOEXEC, 0)) == -1 ||
	    (d = fdopendir(fd)) == NULL) {
		if (fd != -1)
			close(fd);
		close(bfd);
		return (0);
	}
	while ((de = readdir(d)) != NULL)
		if (rundir_name_ok(de->d_name))
			n += rundir_remove_dead(bfd, de->d_name, 0);
	closedir(d);
	close(bfd);
	return (n);
}
