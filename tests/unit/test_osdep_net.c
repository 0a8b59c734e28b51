/*
 * test_osdep_net.c — the contract of common/osdep.h for sockets, held to
 * whichever port this build has, as test_osdep.c holds the rest: a
 * listening socket that hands over only connections that sent something
 * (osdep_defer_accept), and the walk of the TCP ports a tree listens on
 * (osdep_ports_*), in another network namespace too where Linux gives
 * one. What a port says it lacks must fail with ENOSYS; what it says it
 * has must work.
 *
 * Every child is made here, waited on with a deadline (never a sleep),
 * and ended by its pid and reaped before its test ends.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#ifdef __linux__
#include <sched.h>
#endif

#include <cmocka.h>

#include "compat.h"
#include "osdep.h"
#include "timeutil.h"

#include "osdep_child.h"

/*
 * A listening socket deferred (osdep_defer_accept) does not hand over a
 * connection that has sent nothing, though the connection is made (the
 * peer's connect returned); once it sends a byte, it is handed over with
 * it. A port without it says ENOSYS and hands it over at once.
 */
static void
test_defer_accept(void **state)
{
	struct sockaddr_in	sin;
	socklen_t		slen = sizeof sin;
	int			lfd, c, s, r;
	char			ch;

	(void)state;
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(lfd != -1);
	memset(&sin, 0, sizeof sin);
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(lfd, (struct sockaddr *)&sin, sizeof sin), 0);
	assert_int_equal(listen(lfd, 8), 0);
	assert_int_equal(getsockname(lfd, (struct sockaddr *)&sin, &slen), 0);
	assert_int_equal(fcntl(lfd, F_SETFL, O_NONBLOCK), 0);
	r = osdep_defer_accept(lfd, 1);
	c = socket(AF_INET, SOCK_STREAM, 0);
	assert_int_equal(connect(c, (struct sockaddr *)&sin, sizeof sin), 0);
	if (!(osdep_features() & OSDEP_DEFER_ACCEPT)) {
		assert_int_equal(r, -1);
		assert_int_equal(errno, ENOSYS);
		assert_true(readable(lfd, WAIT_MS));
		assert_true((s = accept(lfd, NULL, NULL)) != -1);
	} else {
		assert_int_equal(r, 0);
		assert_int_equal(accept(lfd, NULL, NULL), -1);
		assert_true(errno == EAGAIN || errno == EWOULDBLOCK);
		assert_int_equal(write(c, "x", 1), 1);
		assert_true(readable(lfd, WAIT_MS));
		assert_true((s = accept(lfd, NULL, NULL)) != -1);
		assert_int_equal(read(s, &ch, 1), 1);
		assert_int_equal(ch, 'x');
	}
	close(s);
	close(c);
	close(lfd);
}

/* A TCP socket of ours on addr (an IPv4 or IPv6 literal), port 0,
 * listening or only bound; its port in *port. -1 if the system has no
 * such address (no IPv6). */
static int
tcp_on(const char *addr, bool listening, unsigned *port)
{
	struct sockaddr_storage	 ss;
	struct sockaddr_in	*in = (struct sockaddr_in *)&ss;
	struct sockaddr_in6	*in6 = (struct sockaddr_in6 *)&ss;
	socklen_t		 len;
	int			 fd, family = strchr(addr, ':') ? AF_INET6 :
				     AF_INET;

	memset(&ss, 0, sizeof ss);
	if (family == AF_INET) {
		in->sin_family = AF_INET;
		assert_int_equal(inet_pton(AF_INET, addr, &in->sin_addr), 1);
		len = sizeof *in;
	} else {
		in6->sin6_family = AF_INET6;
		assert_int_equal(inet_pton(AF_INET6, addr, &in6->sin6_addr),
		    1);
		len = sizeof *in6;
	}
	if ((fd = socket(family, SOCK_STREAM, 0)) == -1)
		return (-1);
	if (bind(fd, (struct sockaddr *)&ss, len) == -1 ||
	    (listening && listen(fd, 4) == -1)) {
		close(fd);
		return (-1);
	}
	assert_int_equal(getsockname(fd, (struct sockaddr *)&ss, &len), 0);
	*port = ntohs(family == AF_INET ? in->sin_port : in6->sin6_port);
	return (fd);
}

/* A whole walk of root's ports, in steps of 8; how many steps it took.
 * The walk is in *wp. */
static int
ports_walk(pid_t root, struct osdep_ports **wp)
{
	int	steps = 0;

	assert_non_null(*wp = osdep_ports_new(root));
	while (osdep_ports_step(*wp, 8) == 0)
		assert_true(++steps < 100000);
	return (steps + 1);
}

/* Is family addr:port among what w found? */
static bool
ports_has(const struct osdep_ports *w, int family, const char *addr,
    unsigned port)
{
	const struct osdep_listen	*v;
	unsigned char			 a[16];
	size_t				 i, n = osdep_ports_found(w, &v);

	assert_int_equal(inet_pton(family, addr, a), 1);
	for (i = 0; i < n; i++)
		if (v[i].family == family && v[i].port == port &&
		    memcmp(v[i].addr, a, family == AF_INET ? 4 : 16) == 0)
			return (true);
	return (false);
}

#ifdef __linux__
/* In the child: a network namespace of its own (through a user
 * namespace), a socket listening on 0.0.0.0 there, its port (0 if it
 * could not) written to the descriptor arg points to. */
static void
netns_listen(void *arg)
{
	unsigned	port = 0;

	if (unshare(CLONE_NEWUSER | CLONE_NEWNET) == -1 ||
	    tcp_on("0.0.0.0", true, &port) == -1)
		port = 0;
	(void)!write(*(int *)arg, &port, sizeof port);
}

/*
 * A tree in a network namespace of its own (a user namespace lets us
 * make one): its listening sockets are not the kernel's answer to us,
 * so the walk reads them from its /proc/PID/net/tcp.
 */
static void
ports_other_netns(void)
{
	struct osdep_ports	*w;
	unsigned		 port = 0;
	int			 p[2], tell, hold;
	pid_t			 pid;

	assert_int_equal(compat_pipe2(p, O_CLOEXEC), 0);
	pid = child(netns_listen, &p[1], &tell, &hold);
	close(p[1]);
	assert_int_equal(read(p[0], &port, sizeof port), (ssize_t)sizeof port);
	close(p[0]);
	if (port == 0)
		print_message("no network namespace of our own here: the walk "
		    "of another namespace's tables is not tried\n");
	else {
		ports_walk(pid, &w);
		assert_true(ports_has(w, AF_INET, "0.0.0.0", port));
		osdep_ports_free(w);
	}
	close(hold);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	close(tell);
}
#endif

/*
 * Pins: a walk finds what a tree listens on, IPv4 and IPv6, in a child
 * and in a grandchild, a step at a time (a socket, a process); not a
 * socket bound without listening, nor one of a process outside the tree
 * (ours); nothing once the tree is gone; it keeps at most
 * OSDEP_PORTS_FOUND, saying it was cut; and on Linux it finds those of a
 * tree in another network namespace too. A port that cannot tell fails
 * with ENOSYS.
 */
static void
test_ports(void **state)
{
	struct osdep_ports	*w;
	unsigned		 p4, p6 = 0, pb, pm, many[OSDEP_PORTS_FOUND + 6];
	int			 l4, l6, b, m, fds[OSDEP_PORTS_FOUND + 6];
	int			 t[2], h[2], i, n, steps;
	char			 c;
	pid_t			 pid, g;

	(void)state;
	if ((w = osdep_ports_new(getpid())) == NULL) {
		assert_int_equal(errno, ENOSYS);
		assert_false(osdep_features() & OSDEP_PORTS);
		return;
	}
	assert_true(osdep_features() & OSDEP_PORTS);
	osdep_ports_free(w);
	assert_true((l4 = tcp_on("127.0.0.1", true, &p4)) != -1);
	l6 = tcp_on("::1", true, &p6);		/* -1: no IPv6 here */
	assert_true((b = tcp_on("127.0.0.1", false, &pb)) != -1);
	assert_true((m = tcp_on("127.0.0.1", true, &pm)) != -1);
	for (i = 0; i < OSDEP_PORTS_FOUND + 6; i++)
		assert_true((fds[i] = tcp_on("127.0.0.1", true, &many[i])) !=
		    -1);
	assert_int_equal(compat_pipe2(t, O_CLOEXEC), 0);
	assert_int_equal(compat_pipe2(h, O_CLOEXEC), 0);
	if ((pid = fork()) == 0) {
		close(h[1]);
		close(m);
		for (i = 0; i < OSDEP_PORTS_FOUND + 6; i++)
			close(fds[i]);
		if ((g = fork()) == 0) {	/* the grandchild: IPv6 */
			close(l4);
			close(b);
			(void)!write(t[1], "g", 1);
			while (read(h[0], &c, 1) == -1 && errno == EINTR)
				;
			_exit(0);
		}
		if (l6 != -1)
			close(l6);
		(void)!write(t[1], "c", 1);
		while (read(h[0], &c, 1) == -1 && errno == EINTR)
			;
		waitpid(g, NULL, 0);
		_exit(0);
	}
	assert_true(pid > 0);
	close(l4);
	if (l6 != -1)
		close(l6);
	close(b);
	close(t[1]);
	close(h[0]);
	assert_true(read_byte(t[0]) != -1);
	assert_true(read_byte(t[0]) != -1);

	steps = ports_walk(pid, &w);
	assert_true(steps > 1);		/* in steps, not in one go */
	assert_true(ports_has(w, AF_INET, "127.0.0.1", p4));
	if (l6 != -1)
		assert_true(ports_has(w, AF_INET6, "::1", p6));
	n = (int)osdep_ports_found(w, &(const struct osdep_listen *){ NULL });
	assert_int_equal(n, l6 != -1 ? 2 : 1);
	assert_false(ports_has(w, AF_INET, "127.0.0.1", pb));
	assert_false(ports_has(w, AF_INET, "127.0.0.1", pm));
	assert_int_equal(osdep_ports_cut(w), 0);
	osdep_ports_free(w);

	/* Ours (the test's): more than a walk keeps. */
	ports_walk(getpid(), &w);
	assert_int_equal((int)osdep_ports_found(w,
	    &(const struct osdep_listen *){ NULL }), OSDEP_PORTS_FOUND);
	assert_true(osdep_ports_cut(w) & OSDEP_PORTS_CUT_FOUND);
	osdep_ports_free(w);

	close(h[1]);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	close(t[0]);
	ports_walk(pid, &w);
	assert_int_equal((int)osdep_ports_found(w,
	    &(const struct osdep_listen *){ NULL }), 0);
	osdep_ports_free(w);
	close(m);
	for (i = 0; i < OSDEP_PORTS_FOUND + 6; i++)
		close(fds[i]);
#ifdef __linux__
	ports_other_netns();
#endif
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defer_accept),
		cmocka_unit_test(test_ports),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
