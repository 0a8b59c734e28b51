/*
 * timeutil.h — the monotonic clock, in milliseconds, for every deadline.
 */
#ifndef PROGMUX_TIMEUTIL_H
#define PROGMUX_TIMEUTIL_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define DEADLINE_NONE	INT64_MAX

/*
 * The clock of every deadline stops while the system sleeps, as Linux's
 * CLOCK_MONOTONIC does: a program's lifetime and a wait count time
 * awake, and a laptop's lid closed for the night does not end every
 * program at once when it opens. macOS's CLOCK_MONOTONIC counts sleep;
 * its CLOCK_UPTIME_RAW does not.
 */
#ifdef CLOCK_UPTIME_RAW
#define TIMEUTIL_CLOCK	CLOCK_UPTIME_RAW
#else
#define TIMEUTIL_CLOCK	CLOCK_MONOTONIC
#endif

int64_t	now_ms(void);		/* TIMEUTIL_CLOCK */
int64_t	now_us(void);
int64_t	cpu_us(void);		/* CLOCK_PROCESS_CPUTIME_ID: work, for limits */
int64_t	realtime_ms(void);	/* CLOCK_REALTIME, for reports only */
void	realtime_iso(char *, size_t, int64_t ms);	/* ISO 8601, UTC */
/* poll(2) timeout until deadline (-1 for none, 0 if already past). */
int	poll_timeout(int64_t deadline);

#endif
