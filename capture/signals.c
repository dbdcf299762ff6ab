#include "signals.h"

#include <signal.h>
#include <string.h>

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	if (!stop_signal)
		stop_signal = sig;
}

void cap_signals_install(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
}

int cap_signal_pending(void)
{
	return stop_signal;
}

void cap_signals_default(void)
{
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
}
