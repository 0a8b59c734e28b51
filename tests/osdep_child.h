/*
 * osdep_child.h — what the tests of common/osdep.h (test_osdep.c,
 * test_osdep_net.c) share: a wait on a descriptor with a deadline, and a
 * child of the test's own that says when it is ready and exits when told,
 * ended by its pid and reaped. Include it after cmocka.h.
 */
#ifndef PROGMUX_TESTS_OSDEP_CHILD_H
#define PROGMUX_TESTS_OSDEP_CHILD_H

#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <unistd.h>

#include "compat.h"
#include "timeutil.h"

#define WAIT_MS		10000	/* any event here comes well before */

/* Is fd readable within ms? */
static inline bool
readable(int fd, int ms)
{
	struct pollfd	pfd = { fd, POLLIN, 0 };
	int64_t		deadline = now_ms() + ms;
	int		n;

	for (;;) {
		n = poll(&pfd, 1, poll_timeout(deadline));
		if (n == -1 && errno == EINTR)
			continue;
		if (n == 1 && (pfd.revents & POLLNVAL))
			fail_msg("poll says descriptor %d is not one", fd);
		return (n == 1);
	}
}

/* Read one byte from fd within WAIT_MS: it, or -1. */
static inline int
read_byte(int fd)
{
	unsigned char	c;

	if (!readable(fd, WAIT_MS) || read(fd, &c, 1) != 1)
		return (-1);
	return (c);
}

/* End a child of ours and reap it. */
static inline void
end_child(pid_t pid)
{
	if (pid <= 0)
		return;
	kill(pid, SIGKILL);
	while (waitpid(pid, NULL, 0) == -1 && errno == EINTR)
		;
}

/*
 * A child that says "r" on the pipe it returns (*tell) once fn has run in
 * it, then waits until that pipe's other end (*hold) is closed and
 * exits 0. fn may be NULL.
 */
static inline pid_t
child(void (*fn)(void *), void *arg, int *tell, int *hold)
{
	int	t[2], h[2];
	char	c;
	pid_t	pid;

	assert_int_equal(compat_pipe2(t, O_CLOEXEC), 0);
	assert_int_equal(compat_pipe2(h, O_CLOEXEC), 0);
	if ((pid = fork()) == 0) {
		close(t[0]);
		close(h[1]);
		if (fn != NULL)
			fn(arg);
		(void)!write(t[1], "r", 1);
		while (read(h[0], &c, 1) == -1 && errno == EINTR)
			;
		_exit(0);
	}
	assert_true(pid > 0);
	close(t[1]);
	close(h[0]);
	*tell = t[0];
	*hold = h[1];
	assert_int_equal(read_byte(*tell), 'r');
	return (pid);
}

#endif
