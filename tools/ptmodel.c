/*
 * ptmodel: run a conformance trace through the cycle-exact firmware model.
 *
 *   ptmodel probe FILE       PROBE trace -> PROBE_EXPECTED on stdout
 *   ptmodel component FILE   COMPONENT trace -> COMPONENT_EXPECTED
 *
 * Exit status: 0 success, 1 I/O or internal error, 2 usage error or
 * malformed trace.  Nothing is printed on stdout unless the whole trace
 * ran.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pcie_telemetry/trace.h"
#include "pcie_telemetry/version.h"
#include "util/pt_util.h"

static const char *prog = "ptmodel";

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: %s probe FILE\n"
		"       %s component FILE\n"
		"Run a conformance trace through the cycle-exact model of the\n"
		"PCIE_TELEMETRY_MI firmware and print what the RTL would produce.\n"
		"\n"
		"  probe FILE       PROBE trace (one PCIE_TELEMETRY_PROBE)\n"
		"  component FILE   COMPONENT trace (the whole PCIE_TELEMETRY_MI)\n"
		"  FILE may be - for standard input.\n"
		"\n"
		"  -h, --help       print this help and exit\n"
		"  -V, --version    print the version and exit\n"
		"\n"
		"Exit status: 0 success, 1 I/O error, 2 usage error or malformed trace.\n",
		prog, prog);
}

/* 0, or 1 when what was printed did not reach standard output. */
static int printed(void)
{
	if (fflush(stdout) == 0 && !ferror(stdout))
		return 0;
	fprintf(stderr, "%s: cannot write to standard output: %s\n", prog, strerror(errno));
	return 1;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int c;
	char msg[512] = "", line[2048];
	if (pt_util_std_fds() < 0) {
		fprintf(stderr, "%s: cannot open /dev/null onto a closed standard descriptor\n", prog);
		return 1;
	}
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+hV", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			usage(stdout);
			return printed();
		case 'V':
			printf("%s %s\n", prog, PT_VERSION_STRING);
			return printed();
		default:
			if (optopt)
				snprintf(msg, sizeof(msg), "unknown option '-%c' (try --help)", optopt);
			else
				snprintf(msg, sizeof(msg), "unknown option '%s' (try --help)",
					 argv[optind - 1]);
			fprintf(stderr, "%s: %s\n", prog, pt_util_esc(line, sizeof(line), msg));
			return 2;
		}
	}
	if (argc - optind < 1) {
		fprintf(stderr, "%s: missing command: probe or component (try --help)\n", prog);
		return 2;
	}
	const char *cmd = argv[optind];
	int (*run)(FILE *, const char *, FILE *, char *, size_t);
	if (strcmp(cmd, "probe") == 0) {
		run = ptm_trace_probe_run;
	} else if (strcmp(cmd, "component") == 0) {
		run = ptm_trace_component_run;
	} else {
		fprintf(stderr, "%s: unknown command '%s': expected probe or component\n", prog,
			pt_util_esc(line, sizeof(line), cmd));
		return 2;
	}
	if (argc - optind != 2) {
		fprintf(stderr, "%s: %s needs exactly one trace FILE (try --help)\n", prog, cmd);
		return 2;
	}
	const char *path = argv[optind + 1];
	FILE *in = stdin;
	if (strcmp(path, "-") != 0) {
		/* a FIFO or a device would block or never end: regular files only
		 * (standard input is the way to pipe a trace in) */
		int fd = pt_util_open_file(path, "trace", PTM_TRACE_MAX_BYTES, NULL, msg, sizeof(msg));
		if (fd < 0 || !(in = fdopen(fd, "r"))) {
			if (fd >= 0) {
				snprintf(msg, sizeof(msg), "%s: %s", path, strerror(errno));
				close(fd);
			}
			fprintf(stderr, "%s: %s\n", prog, pt_util_esc(line, sizeof(line), msg));
			return 1;
		}
	}
	int rc = run(in, in == stdin ? "(stdin)" : path, stdout, msg, sizeof(msg));
	if (in != stdin)
		fclose(in);
	if (rc == 0)
		return 0;
	fprintf(stderr, "%s: %s\n", prog,
		pt_util_esc(line, sizeof(line), msg[0] ? msg : strerror(-rc)));
	return rc == -EINVAL ? 2 : 1;
}
