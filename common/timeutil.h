/*
 * timeutil.h — the monotonic clock, in milliseconds, for every deadline.
 */
#ifndef PROGMUX_TIMEUTIL_H
#define PROGMUX_TIMEUTIL_H

#include <stdint.h>

#define DEADLINE_NONE	INT64_MAX

int64_t	now_ms(void);		/* CLOCK_MONOTONIC */
int64_t	now_us(void);
int64_t	cpu_us(void);		/* CLOCK_PROCESS_CPUTIME_ID: work, for limits */
int64_t	realtime_ms(void);	/* CLOCK_REALTIME, for reports only */
/* poll(2) timeout until deadline (-1 for none, 0 if already past). */
int	poll_timeout(int64_t deadline);

#endif
