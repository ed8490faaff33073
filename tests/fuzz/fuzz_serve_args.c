/*
 * Fuzz target: the exporter's parsers on arbitrary bytes: the command
 * line (the input cut at NUL bytes into arguments), a listen address and
 * an Accept header (the whole input as one string).  Nothing may crash,
 * hang, leak or leave a message without its NUL.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pcie_telemetry/serve.h"
#include "serve/http.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 1), *argv[64];
	int argc = 1;
	struct pt_serve_config c;
	struct pt_serve_addr a;
	char msg[256];

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	pt_serve_accept_openmetrics(buf);
	if (pt_serve_addr_parse(buf, &a, msg, sizeof msg) < 0 && strlen(msg) >= sizeof msg)
		abort();
	argv[0] = (char *)"exporter";
	for (size_t i = 0; i < size && argc < 63;) {
		argv[argc++] = buf + i;
		i += strlen(buf + i) + 1;
	}
	argv[argc] = NULL;
	pt_serve_config_default(&c);
	msg[0] = '\0';
	if (pt_serve_parse_args(argc, argv, &c, msg, sizeof msg) < 0 && !msg[0])
		abort();
	free(buf);
	return 0;
}
