/*
 * nfb-pcie-telemetry: shows the PCIe telemetry of an NDK card
 * (PCIE_TELEMETRY_MI), a drop-in for the upstream Python tool of the same
 * name: the same options, the same report and JSON byte for byte.  The
 * command is pt_cli_main() (cli.c); cli.h lists the parts.
 */
#include <stdio.h>

#include "cli.h"

int main(int argc, char **argv)
{
	return pt_cli_main(argc, argv, stdout, stderr);
}
