/*
 * nfb-pcie-telemetry: errors for the user.  Every message goes through
 * cli_print_error(), which escapes control characters: an argument with
 * a newline in it never turns an error into two lines.
 */
#include <errno.h>
#include <stdarg.h>
#include <string.h>

#include "cli.h"
#include "util/pt_util.h"

int cli_fail(struct cli_error *e, int status, const char *fmt, ...)
{
	va_list ap;

	e->status = status;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	return -1;
}

void cli_print_error(FILE *err, const char *msg)
{
	char line[4 * CLI_MSG_LEN];

	fprintf(err, CLI_PROG ": %s\n", pt_util_esc(line, sizeof(line), msg));
	fflush(err);
}

int cli_printed(FILE *out, FILE *err)
{
	if (fflush(out) != 0 || ferror(out)) {
		char msg[CLI_MSG_LEN];

		snprintf(msg, sizeof(msg), "cannot write to standard output: %s", strerror(errno));
		cli_print_error(err, msg);
		return CLI_EXIT_RUNTIME;
	}
	return 0;
}
