/*
 * nfb-pcie-telemetry: signals.  SIGINT and SIGTERM ask the run to stop
 * at the next step (pt_bus_request_stop); the report loop then ends
 * cleanly: status 0 in watch mode, never half a report.
 */
#include <string.h>

#include "cli.h"
#include "pcie_telemetry/bus.h"

static void on_signal(int sig)
{
	(void)sig;
	pt_bus_request_stop();
}

void cli_signals_install(struct cli_signals *s)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	/* No SA_RESTART: a sleep or a blocked write returns at once.  A
	 * second signal acts as usual, in case a step hangs. */
	sa.sa_flags = (int)SA_RESETHAND;
	sigaction(SIGINT, &sa, &s->old_int);
	sigaction(SIGTERM, &sa, &s->old_term);
	/* A closed output is a write error (EPIPE), so that --record still
	 * ends its file properly. */
	sa.sa_handler = SIG_IGN;
	sa.sa_flags = 0;
	sigaction(SIGPIPE, &sa, &s->old_pipe);
}

void cli_signals_restore(struct cli_signals *s)
{
	sigaction(SIGINT, &s->old_int, NULL);
	sigaction(SIGTERM, &s->old_term, NULL);
	sigaction(SIGPIPE, &s->old_pipe, NULL);
}
