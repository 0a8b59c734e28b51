/*
 * reaper.h — the per-program child of the front, and the in-pane launcher.
 *
 * One executable, four modes: `progmux-reaper` (fd 3 is the socket to
 * the front) watches one program; `progmux-reaper --launch DIR ID CTL`
 * is what runs in the program's pane and starts the program itself
 * (launch.c); `progmux-reaper --pipe DIR ID OUT` copies the pane's
 * output into its FIFO (pipe.c); `progmux-reaper --idle PID DIR` holds the
 * session's own window (idle.c).
 */
#ifndef PROGMUX_REAPER_H
#define PROGMUX_REAPER_H

int	reaper_main(void);
int	launch_main(const char *dir, const char *id, const char *ctl);
int	pipe_main(const char *dir, const char *id, const char *out,
	    const char *backlog);
int	idle_main(const char *front_pid, const char *rundir);

#endif
