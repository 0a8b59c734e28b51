/*
 * log.h — diagnostics on stderr, never stdout.
 *
 * stdout is the JSON-RPC stream; everything a person may want to read goes
 * to stderr, prefixed with the process's name. log_debug() is silent unless
 * PROGMUX_DEBUG is set in the environment.
 *
 * log_notify() is for what the client should see too (a reaper killed,
 * tmux gone): it goes to the sink a process sets with log_set_sink(), and
 * nowhere without one. Levels are RFC 5424's, in MCP's order.
 */
#ifndef PROGMUX_LOG_H
#define PROGMUX_LOG_H

void	log_init(const char *name);
void	log_warn(const char *, ...) __attribute__((format(printf, 1, 2)));
void	log_info(const char *, ...) __attribute__((format(printf, 1, 2)));
void	log_debug_(const char *, ...) __attribute__((format(printf, 1, 2)));
extern int log_debug_on;

#define log_debug(fmt, ...) do {					\
	if (log_debug_on)						\
		log_debug_("%s: " fmt, __func__, ##__VA_ARGS__);	\
} while (0)

#define LOG_NOTIFY_INFO		1
#define LOG_NOTIFY_WARNING	3
#define LOG_NOTIFY_ERROR	4
typedef void (*log_sink_cb)(int level, const char *logger, const char *msg);
void	log_set_sink(log_sink_cb);
void	log_notify(int level, const char *logger, const char *, ...)
	    __attribute__((format(printf, 3, 4)));

/* What cannot happen: say so and abort. */
void	fatalx(const char *, ...) __attribute__((format(printf, 1, 2),
	    noreturn));

#endif
