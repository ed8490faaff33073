/*
 * pcie-telemetry: the Prometheus exporter as a library (the command is
 * tools/nfb-pcie-telemetry-exporter.c; docs/exporter.md).
 *
 * A background poller per device reads the component (SNAPSHOT, the
 * counter window, the registers), extends the counters across wraps
 * (extend.h) and clears the lowest-value marks; an HTTP server
 * (libmicrohttpd) renders the last poll's data on every scrape.  A
 * scrape never reaches a device: the HTTP side lives in its own library
 * (pt_serve_http), which links neither a bus nor the reader.
 *
 * Prefix: pt_serve_.  Errors: a negative errno and a one-line message in
 * the caller's buffer; the library never prints (its log lines go to the
 * caller's log function) and never exits.
 */
#ifndef PCIE_TELEMETRY_SERVE_H
#define PCIE_TELEMETRY_SERVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The default port: outside 9100-9999, the range of the Prometheus
 * wiki's "default port allocations" (full since 2023), and outside
 * Prometheus' own 9090-9094. */
#define PT_SERVE_DEFAULT_PORT 10942
#define PT_SERVE_DEFAULT_LISTEN "127.0.0.1:10942"
#define PT_SERVE_DEFAULT_PATH "/metrics"
#define PT_SERVE_DEFAULT_POLL 0.5       /* seconds */
#define PT_SERVE_DEFAULT_CONNECTIONS 64
#define PT_SERVE_DEFAULT_TIMEOUT 10.0   /* seconds a connection may sit idle */
#define PT_SERVE_MAX_DEVICES 32
/* Before the clocks are measured (two polls), the poll interval assumes
 * both clocks run at this rate (no FPGA fabric clock is faster). */
#define PT_SERVE_CLOCK_BOUND_HZ 1e9

struct pt_serve_device {
	const char *device; /* as given to -d; NULL: the libnfb default device */
	unsigned index;     /* component index (-i) */
	bool index_set;     /* -i given for this device */
};

struct pt_serve_config {
	const char *listen; /* --web.listen-address */
	const char *path;   /* --web.telemetry-path */
	unsigned max_connections;
	double timeout;       /* --web.connection-timeout, seconds */
	double poll_interval; /* --poll.interval, seconds */
	struct pt_serve_device devices[PT_SERVE_MAX_DEVICES];
	unsigned ndevices;
	/* Log lines (no newline); NULL: none.  Called from any thread. */
	void (*log)(void *arg, const char *line);
	void *log_arg;
};

/* The defaults above, no device (which means the libnfb default one). */
void pt_serve_config_default(struct pt_serve_config *c);

/* What the command line asks for. */
enum pt_serve_action { PT_SERVE_RUN, PT_SERVE_HELP, PT_SERVE_VERSION };

/*
 * Parse the options (argv[0] is the program) into c, which
 * pt_serve_config_default() prepared: the action, or -EINVAL with one
 * line naming the option and the value at fault.  c keeps pointers into
 * argv.  Options: docs/exporter.md; values as `--name=value` or
 * `--name value`, short options as `-d X` or `-dX`, `--` ends them.
 */
int pt_serve_parse_args(int argc, char *const argv[], struct pt_serve_config *c, char *msg,
			size_t msglen);
/* The help text (every option of the table, with its default).  0 or -EIO. */
int pt_serve_usage(FILE *out, const char *prog);

/* A running exporter. */
struct pt_serve;

/*
 * Bind the listening socket, start one poller per device and the HTTP
 * server.  A device that cannot be opened is no error here: it shows as
 * `up 0` and is retried.  Errors: the address cannot be resolved or
 * bound (-EADDRINUSE, ...), -ENOMEM, the HTTP server does not start.
 */
int pt_serve_start(const struct pt_serve_config *c, struct pt_serve **out, char *msg,
		   size_t msglen);
/* Where it listens, as HOST:PORT with the real port ("127.0.0.1:10942",
 * "[::]:43210"). */
const char *pt_serve_address(const struct pt_serve *s);
/* Stop the server and the pollers, close the devices, free everything. */
void pt_serve_stop(struct pt_serve *s);

#ifdef __cplusplus
}
#endif
#endif
