/*
 * ttywait-none.c — the input-wait check (ttywait.h) where the system
 * cannot tell: what a process sleeps in is not shown to an unprivileged
 * process (macOS: no /proc, an empty wchan, and dtrace or a stackshot
 * need root). Every answer is UNKNOWN, and the front goes by an
 * unfinished line unchanged for a while (waiting.c).
 */
#include "ttywait.h"

enum ttywait
ttywait_check(pid_t pid)
{
	(void)pid;
	return (TTYWAIT_UNKNOWN);
}

unsigned
ttywait_cost(void)
{
	return (0);
}

bool
ttywait_can_tell(void)
{
	return (false);
}
