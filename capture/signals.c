#include "signals.h"

#include <signal.h>
#include <stdatomic.h>
#include <string.h>

static volatile sig_atomic_t stop_signal;
/* lock-free atomics: safe in a handler, and nothing counted is lost */
static atomic_uint usr1, usr2, hup;

static void on_signal(int sig)
{
	if (!stop_signal)
		stop_signal = sig;
}

static void on_request(int sig)
{
	atomic_fetch_add(sig == SIGUSR1 ? &usr1 : sig == SIGUSR2 ? &usr2 : &hup, 1);
}

void cap_signals_install(bool hup_is_request)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (!hup_is_request)
		sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = on_request;
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGUSR2, &sa, NULL);
	if (hup_is_request)
		sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
}

int cap_signal_pending(void)
{
	return stop_signal;
}

unsigned cap_signal_take(int sig)
{
	return atomic_exchange(sig == SIGUSR1 ? &usr1 : sig == SIGUSR2 ? &usr2 : &hup, 0);
}

void cap_signals_default(void)
{
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	signal(SIGUSR1, SIG_DFL);
	signal(SIGUSR2, SIG_DFL);
}
