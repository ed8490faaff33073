/*
 * nfb-pcie-telemetry: shows the PCIe telemetry of an NDK card
 * (PCIE_TELEMETRY_MI), a drop-in for the upstream Python tool of the same
 * name: the same options, the same report and JSON byte for byte.  The
 * command is pt_cli_main() (cli.c); cli.h lists the parts.
 */
#include <stdio.h>
#include <unistd.h>

#include "cli.h"
#include "pcie_telemetry/env.h"

/* A long run on the simulated card shows how far it got (terminal only). */
static void show_progress(void *arg, double done, double total)
{
	FILE *err = arg;
	if (done < total)
		fprintf(err, "\rsimulating %.2f of %.2f s ", done, total);
	else
		fputs("\r\033[K", err);
}

int main(int argc, char **argv)
{
	if (isatty(STDERR_FILENO))
		pte_progress_default(show_progress, stderr, 2.0);
	return pt_cli_main(argc, argv, stdout, stderr);
}
