/*
 * fdutil.h — descriptor chores shared by every process.
 */
#ifndef PROGMUX_FDUTIL_H
#define PROGMUX_FDUTIL_H

#include <stddef.h>
#include <sys/types.h>

#include "buf.h"

int	fd_nonblock(int, int on);
int	fd_cloexec(int, int on);
/* Read what is there (up to max bytes) and append it to b. Returns bytes
 * read, 0 at EOF, -1 with errno (EAGAIN when nothing was there). */
ssize_t	fd_read_into(int, struct buf *, size_t max);
/* Write as much of b as the descriptor takes and drain it. Returns 0 when
 * all or part went (or EAGAIN), -1 on a real error (EPIPE...). */
int	fd_flush(int, struct buf *);
/* Write all of p, blocking if need be (EINTR retried). */
int	fd_write_all(int, const void *, size_t);
/* Close every descriptor from lowfd up, except keep (or -1). */
void	fd_closefrom(int lowfd, int keep);
void	fd_cloexec_from(int lowfd);
/* fd, moved to a number at least min if it is below (close-on-exec);
 * -1 stays -1. */
int	fd_above(int fd, int min);
/*
 * Call fn(arg) with dfd as the working directory, then go back: a call on
 * a name in dfd, reached through dfd itself, where the system has no *at
 * form of it (connect, mkfifo before macOS 13). For a process with one
 * thread. The working directory need not be readable; one that cannot
 * be held at all is left alone, fn running in a child (a fork) that
 * enters dfd. fn's result, with its errno; -1 if the directory could not
 * be entered or left.
 */
int	fd_in_dir(int dfd, int (*fn)(void *), void *arg);
/* connect(2) sock to the Unix socket name in dfd, through fd_in_dir. */
int	fd_connect_in(int sock, int dfd, const char *name);
/* bind(2) sock to the name in dfd, the same way. */
int	fd_bind_in(int sock, int dfd, const char *name);
/* strerror, but EMFILE and ENFILE name the limit and how to raise it. */
const char *fd_strerror(int err);

#endif
