/*
 * quiet.c — warnings about an end that the exit may explain.
 *
 * When an MCP client exits it often ends the whole process tree it
 * started (opencode and Kilo send SIGTERM to every descendant, then to
 * progmux), so the tmux control client, the private tmux server or a
 * reaper can die a moment before progmux hears of its own exit (a signal
 * or stdin's EOF). Such an end is what the user asked for: it says
 * nothing above debug level. One that progmux outlives by QUIET_MS is
 * said then, as a warning on stderr and to the client (log_notify).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "log.h"
#include "server.h"
#include "timeutil.h"
#include "xmalloc.h"

#define QUIET_MS	500

struct quiet_msg {
	int64_t			 due;
	char			*logger;
	char			*warning;	/* for stderr */
	char			*notice;	/* for the client */
	struct quiet_msg	*next;
};

static struct quiet_msg	 *quiet_head, **quiet_tail = &quiet_head;
static struct loop_timer *quiet_timer;
static bool		  quiet_exiting;

/* Free one message. */
static void
quiet_free(struct quiet_msg *m)
{
	free(m->logger);
	free(m->warning);
	free(m->notice);
	free(m);
}

/* Take the first message off the list. */
static struct quiet_msg *
quiet_pop(void)
{
	struct quiet_msg	*m = quiet_head;

	if (m != NULL && (quiet_head = m->next) == NULL)
		quiet_tail = &quiet_head;
	return (m);
}

/* The timer: say every message that is due; wait for the next. */
static void
quiet_cb(void *arg)
{
	struct quiet_msg	*m;
	int64_t			 now = now_ms();

	(void)arg;
	while (quiet_head != NULL && quiet_head->due <= now) {
		m = quiet_pop();
		log_warn("%s", m->warning);
		log_notify(LOG_NOTIFY_WARNING, m->logger, "%s", m->notice);
		quiet_free(m);
	}
	if (quiet_head != NULL)
		loop_timer_set(quiet_timer, quiet_head->due);
}

/*
 * Say warning (on stderr) and notice (to the client, as logger) QUIET_MS
 * from now, unless the exit begins first. Takes both strings.
 */
void
quiet_warn(const char *logger, char *warning, char *notice)
{
	struct quiet_msg	*m;

	log_debug("%s", warning);
	if (quiet_exiting) {
		free(warning);
		free(notice);
		return;
	}
	m = xcalloc(1, sizeof *m);
	m->due = now_ms() + QUIET_MS;
	m->logger = xstrdup(logger);
	m->warning = warning;
	m->notice = notice;
	*quiet_tail = m;
	quiet_tail = &m->next;
	if (quiet_timer == NULL)
		quiet_timer = loop_timer_new(quiet_cb, NULL);
	if (!loop_timer_pending(quiet_timer))
		loop_timer_set(quiet_timer, m->due);
}

/* The exit begins: nothing waiting is said, nor anything later. */
void
quiet_exit(void)
{
	struct quiet_msg	*m;

	quiet_exiting = true;
	while ((m = quiet_pop()) != NULL) {
		log_debug("not said, progmux exits: %s", m->warning);
		quiet_free(m);
	}
	if (quiet_timer != NULL) {
		loop_timer_free(quiet_timer);
		quiet_timer = NULL;
	}
}
