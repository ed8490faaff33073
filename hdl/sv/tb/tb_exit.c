/*
 * pcie-telemetry: exit of ptm_trace_tb with a status.  SystemVerilog's
 * $finish has no exit status and Verilator prints a line on stdout for it,
 * so the testbench ends through this DPI-C import instead.
 */
#include <stdio.h>
#include <stdlib.h>

void ptm_tb_exit(int status);

void ptm_tb_exit(int status)
{
	fflush(NULL);
	exit(status);
}
