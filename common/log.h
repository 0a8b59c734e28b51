/*
 * log.h — diagnostics on stderr, never stdout.
 *
 * stdout is the JSON-RPC stream; everything a person may want to read goes
 * to stderr, prefixed with the process's name. log_debug() is silent unless
 * PROGMUX_DEBUG is set in the environment.
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

/* What cannot happen: say so and abort. */
void	fatalx(const char *, ...) __attribute__((format(printf, 1, 2),
	    noreturn));

#endif
