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

#include "pcie_telemetry/trace.h"
#include "pcie_telemetry/version.h"

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

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int c;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+hV", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("%s %s\n", prog, PT_VERSION_STRING);
			return 0;
		default:
			if (optopt)
				fprintf(stderr, "%s: unknown option '-%c' (try --help)\n", prog, optopt);
			else
				fprintf(stderr, "%s: unknown option '%s' (try --help)\n", prog,
					argv[optind - 1]);
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
		fprintf(stderr, "%s: unknown command '%s': expected probe or component\n", prog, cmd);
		return 2;
	}
	if (argc - optind != 2) {
		fprintf(stderr, "%s: %s needs exactly one trace FILE (try --help)\n", prog, cmd);
		return 2;
	}
	const char *path = argv[optind + 1];
	FILE *in = strcmp(path, "-") == 0 ? stdin : fopen(path, "r");
	if (!in) {
		fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(errno));
		return 1;
	}
	char msg[512] = "";
	int rc = run(in, strcmp(path, "-") == 0 ? "(stdin)" : path, stdout, msg, sizeof(msg));
	if (in != stdin)
		fclose(in);
	if (rc == 0)
		return 0;
	fprintf(stderr, "%s: %s\n", prog, msg[0] ? msg : strerror(-rc));
	return rc == -EINVAL ? 2 : 1;
}
