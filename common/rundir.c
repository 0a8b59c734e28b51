/*
 * rundir.c — the runtime directory's lock, and removing a dead one.
 *
 * Nothing here follows a symbolic link or trusts a name alone. A
 * directory is removed only if it is named progmux-XXXXXX, is a real
 * directory (lstat, then opened O_NOFOLLOW and checked to be the same
 * one), is ours with mode 0700, holds a regular file "lock" of ours on
 * which LOCK_EX|LOCK_NB succeeds (no process of its instance is alive),
 * and holds nothing but what an instance makes: its FIFOs, its tmux
 * socket once no server listens on it, config files. Every removal is
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
#include <sys/un.h>

#include "rundir.h"
#include "timeutil.h"

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

/* A program's FIFO, as the front names them: p<N>.out, .ctl or .err. */
static bool
rundir_fifo_name(const char *name)
{
	const char	*p = name + 1;

	if (name[0] != 'p' || !isdigit((unsigned char)*p))
		return (false);
	while (isdigit((unsigned char)*p))
		p++;
	return (strcmp(p, ".out") == 0 || strcmp(p, ".ctl") == 0 ||
	    strcmp(p, ".err") == 0);
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
	struct sockaddr_un	sa;
	int64_t			deadline = now_ms() + wait_ms;
	int			fd, ret, error;

	memset(&sa, 0, sizeof sa);
	sa.sun_family = AF_UNIX;
	if ((size_t)snprintf(sa.sun_path, sizeof sa.sun_path,
	    "/proc/self/fd/%d/%s", dfd, name) >= sizeof sa.sun_path)
		return (true);
	for (;;) {
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC |
		    SOCK_NONBLOCK, 0);
		if (fd == -1)
			return (true);
		ret = connect(fd, (struct sockaddr *)&sa, sizeof sa);
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
		known = st.st_uid == geteuid() &&
		    (((S_ISFIFO(st.st_mode) || S_ISREG(st.st_mode)) &&
		    rundir_fifo_name(n)) ||
		    (S_ISREG(st.st_mode) && rundir_conf_name(n)) ||
		    (S_ISSOCK(st.st_mode) && strcmp(n, "tmux") == 0 &&
		    !rundir_listening(dfd, n, wait_ms)));
		if (!known || (unlinkat(dfd, n, 0) == -1 && errno != ENOENT))
			left++;
	}
	closedir(d);
	return (left);
}

/* Make dir's lock file and hold LOCK_SH on it. */
int
rundir_lock(const char *dir)
{
	char	tmp[32];
	int	dfd, fd, saved;

	if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1)
		return (-1);
	/* Made under another name and locked before it is "lock": a
	 * sweeper never finds it unlocked while we live. */
	snprintf(tmp, sizeof tmp, "%s.%ld", RUNDIR_LOCK, (long)getpid());
	fd = openat(dfd, tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, 0600);
	if (fd == -1)
		goto fail;
	if (flock(fd, LOCK_SH) == -1 ||
	    renameat(dfd, tmp, dfd, RUNDIR_LOCK) == -1) {
		saved = errno;
		unlinkat(dfd, tmp, 0);
		close(fd);
		errno = saved;
		goto fail;
	}
	close(dfd);
	return (fd);
fail:
	saved = errno;
	close(dfd);
	errno = saved;
	return (-1);
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
