/*
 * fdutil.c — descriptor chores (see fdutil.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>

#include "fdutil.h"
#include "osdep.h"

int
fd_nonblock(int fd, int on)
{
	int	fl;

	if ((fl = fcntl(fd, F_GETFL)) == -1)
		return (-1);
	fl = on ? (fl | O_NONBLOCK) : (fl & ~O_NONBLOCK);
	return (fcntl(fd, F_SETFL, fl));
}

int
fd_cloexec(int fd, int on)
{
	int	fl;

	if ((fl = fcntl(fd, F_GETFD)) == -1)
		return (-1);
	fl = on ? (fl | FD_CLOEXEC) : (fl & ~FD_CLOEXEC);
	return (fcntl(fd, F_SETFD, fl));
}

ssize_t
fd_read_into(int fd, struct buf *b, size_t max)
{
	ssize_t	n;

	buf_reserve(b, max);
	do
		n = read(fd, b->data + b->len, max);
	while (n == -1 && errno == EINTR);
	if (n > 0)
		b->len += (size_t)n;
	return (n);
}

int
fd_flush(int fd, struct buf *b)
{
	ssize_t	n;

	while (b->len > 0) {
		n = write(fd, b->data, b->len);
		if (n == -1) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				return (0);
			return (-1);
		}
		buf_drain(b, (size_t)n);
	}
	return (0);
}

int
fd_write_all(int fd, const void *p, size_t len)
{
	const char	*c = p;
	ssize_t		 n;

	while (len > 0) {
		n = write(fd, c, len);
		if (n == -1) {
			if (errno == EINTR)
				continue;
			return (-1);
		}
		c += n;
		len -= (size_t)n;
	}
	return (0);
}

/* The highest descriptor number worth a loop, when close_range fails. */
static int
fd_max(void)
{
	int	max = (int)sysconf(_SC_OPEN_MAX);

	return (max < 0 || max > 65536 ? 65536 : max);
}

/* Mark every descriptor from lowfd up close-on-exec. */
void
fd_cloexec_from(int lowfd)
{
	int	fd, max;

	if (osdep_close_range(lowfd, -1, 1) == 0)
		return;
	for (fd = lowfd, max = fd_max(); fd < max; fd++)
		fd_cloexec(fd, 1);
}

void
fd_closefrom(int lowfd, int keep)
{
	int	fd, max;

	if (keep < lowfd) {
		if (osdep_close_range(lowfd, -1, 0) == 0)
			return;
	} else {
		if ((keep == lowfd ||
		    osdep_close_range(lowfd, keep - 1, 0) == 0) &&
		    osdep_close_range(keep + 1, -1, 0) == 0)
			return;
	}
	for (fd = lowfd, max = fd_max(); fd < max; fd++)
		if (fd != keep)
			close(fd);
}

/* How the working directory is held to come back to it: for search
 * only where the system can, so that one we may enter but not list
 * (mode 0311) will do. */
#if defined(O_SEARCH)
#define FD_CWD_OPEN	(O_SEARCH | O_CLOEXEC)
#elif defined(O_PATH)
#define FD_CWD_OPEN	(O_PATH | O_DIRECTORY | O_CLOEXEC)
#else
#define FD_CWD_OPEN	(O_RDONLY | O_DIRECTORY | O_CLOEXEC)
#endif

/*
 * fn(arg) in a child that enters dfd, for a working directory we cannot
 * hold at all (a folder macOS's privacy controls keep from us): what fn
 * does to the file system and to the descriptors the child shares with
 * us (a socket's connection) is ours; its result and errno come back in
 * the child's exit status.
 */
static int
fd_in_dir_child(int dfd, int (*fn)(void *), void *arg)
{
	pid_t	pid;
	int	st;

	if ((pid = fork()) == -1)
		return (-1);
	if (pid == 0)
		_exit(fchdir(dfd) == 0 && fn(arg) == 0 ? 0 :
		    errno > 0 && errno < 256 ? errno : EIO);
	while (waitpid(pid, &st, 0) == -1)
		if (errno != EINTR)
			return (-1);
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return (0);
	errno = WIFEXITED(st) ? WEXITSTATUS(st) : EIO;
	return (-1);
}

int
fd_in_dir(int dfd, int (*fn)(void *), void *arg)
{
	int	cwd, ret, err;

	if ((cwd = open(".", FD_CWD_OPEN)) == -1)
		return (fd_in_dir_child(dfd, fn, arg));
	if (fchdir(dfd) == -1) {
		err = errno;
		close(cwd);
		errno = err;
		return (-1);
	}
	ret = fn(arg);
	err = errno;
	if (fchdir(cwd) == -1) {
		err = errno;
		ret = -1;
	}
	close(cwd);
	errno = err;
	return (ret);
}

struct fd_conn {
	int		 sock;
	const char	*name;
};

/* connect(2), or bind(2), by a name in the working directory (fd_in_dir's). */
static int
fd_sock_here(struct fd_conn *c, bool bind_it)
{
	struct sockaddr_un	 sa;

	memset(&sa, 0, sizeof sa);
	sa.sun_family = AF_UNIX;
	if (strlen(c->name) >= sizeof sa.sun_path) {
		errno = ENAMETOOLONG;
		return (-1);
	}
	memcpy(sa.sun_path, c->name, strlen(c->name) + 1);
	if (bind_it)
		return (bind(c->sock, (struct sockaddr *)&sa, sizeof sa));
	return (connect(c->sock, (struct sockaddr *)&sa, sizeof sa));
}

/* connect(2) by a name in the working directory. */
static int
fd_connect_here(void *arg)
{
	return (fd_sock_here(arg, false));
}

/* bind(2) by a name in the working directory. */
static int
fd_bind_here(void *arg)
{
	return (fd_sock_here(arg, true));
}

int
fd_connect_in(int sock, int dfd, const char *name)
{
	struct fd_conn	c = { sock, name };

	return (fd_in_dir(dfd, fd_connect_here, &c));
}

int
fd_bind_in(int sock, int dfd, const char *name)
{
	struct fd_conn	c = { sock, name };

	return (fd_in_dir(dfd, fd_bind_here, &c));
}

/*
 * strerror(err), except that running out of descriptors says which limit
 * and how to raise it. The text is in a static buffer.
 */
const char *
fd_strerror(int err)
{
	static char	text[256];
	struct rlimit	rl;

	if (err == ENFILE)
		return ("the system is out of file descriptors (ENFILE): "
		    "close some programs or raise fs.file-max");
	if (err != EMFILE)
		return (strerror(err));
	if (getrlimit(RLIMIT_NOFILE, &rl) == -1)
		return ("out of file descriptors (RLIMIT_NOFILE): raise it "
		    "with ulimit -n");
	snprintf(text, sizeof text, "out of file descriptors (RLIMIT_NOFILE "
	    "soft %llu hard %llu): raise it with ulimit -n",
	    (unsigned long long)rl.rlim_cur, (unsigned long long)rl.rlim_max);
	return (text);
}

/* fd, moved to a number at least min if it is below. */
int
fd_above(int fd, int min)
{
	int	nfd;

	if (fd == -1 || fd >= min)
		return (fd);
	if ((nfd = fcntl(fd, F_DUPFD_CLOEXEC, min)) == -1)
		return (fd);	/* (the spawn then fails on its own) */
	close(fd);
	return (nfd);
}
