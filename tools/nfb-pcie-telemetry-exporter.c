/*
 * nfb-pcie-telemetry-exporter: serves the PCIe telemetry of NDK cards to
 * Prometheus (docs/exporter.md).  The exporter itself is the pt_serve
 * library; this is its command line, its log and its signals.
 *
 * Exit status: 0 after SIGINT or SIGTERM (a clean shutdown), 1 when the
 * server cannot start, 2 for a bad command line (one line on stderr).
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcie_telemetry/bus.h"
#include "pcie_telemetry/serve.h"
#include "pcie_telemetry/version.h"

#define PROG "nfb-pcie-telemetry-exporter"

static pthread_mutex_t log_mu = PTHREAD_MUTEX_INITIALIZER;

/* One log line on stderr, whole (the pollers and the server log from
 * their own threads). */
static void log_line(void *arg, const char *line)
{
	(void)arg;
	pthread_mutex_lock(&log_mu);
	fprintf(stderr, PROG ": %s\n", line);
	pthread_mutex_unlock(&log_mu);
}

static int printed(void)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, PROG ": cannot write to standard output: %s\n", strerror(errno));
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct pt_serve_config c;
	struct pt_serve *s;
	char msg[1024];
	sigset_t stop;
	int action, sig;

	pt_serve_config_default(&c);
	action = pt_serve_parse_args(argc, argv, &c, msg, sizeof msg);
	if (action < 0) {
		fprintf(stderr, PROG ": %s\n", msg);
		return 2;
	}
	if (action == PT_SERVE_HELP)
		return pt_serve_usage(stdout, PROG) < 0 ? 1 : printed();
	if (action == PT_SERVE_VERSION) {
		printf(PROG " %s (pcie-telemetry, libnfb backend %s)\n", PT_VERSION_STRING,
		       pt_bus_have_nfb() ? "built in" : "not built");
		return printed();
	}
	c.log = log_line;
	/* Every thread inherits the mask: the signals reach sigwait alone. */
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &stop, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (pt_serve_start(&c, &s, msg, sizeof msg) < 0) {
		fprintf(stderr, PROG ": %s\n", msg);
		return 1;
	}
	snprintf(msg, sizeof msg, "listening on http://%s%s", pt_serve_address(s), c.path);
	log_line(NULL, msg);
	while (sigwait(&stop, &sig) != 0)
		;
	pt_serve_stop(s);
	return 0;
}
