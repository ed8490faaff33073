/*
 * pcie-telemetry: scenario keys set on top of a scenario ("what if" runs,
 * --sweep): "SECTION.KEY=VALUE" becomes the scenario text
 * "[SECTION]\nKEY = VALUE\n", parsed like a file, so every key, section and
 * value rule of docs/scenarios.md applies and a message names the override.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "env/env_priv.h"

#define OVERRIDE_MAX 256 /* characters of one override */

/* "SECTION.KEY=VALUE" into its three parts (in buf); -1 when malformed. */
static int split(const char *ov, char *buf, size_t len, const char **sec, const char **key,
		 const char **val)
{
	char *eq, *dot;

	if (strlen(ov) >= len)
		return -1;
	memcpy(buf, ov, strlen(ov) + 1);
	for (const char *p = buf; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return -1; /* would start a line of its own */
	eq = strchr(buf, '=');
	if (!eq)
		return -1;
	*eq = '\0';
	dot = strrchr(buf, '.');
	if (!dot || dot == buf || !dot[1] || !eq[1])
		return -1;
	*dot = '\0';
	*sec = buf;
	*key = dot + 1;
	*val = eq + 1;
	return 0;
}

/* "ORIGIN:2: what" -> "ORIGIN: what": the override is one line. */
static void drop_line(char *msg, size_t origin_len)
{
	char *p = msg + origin_len;

	if (strncmp(msg, "override", 8) != 0 || *p != ':')
		return;
	size_t digits = strspn(p + 1, "0123456789");

	if (digits && p[1 + digits] == ':')
		memmove(p, p + 1 + digits, strlen(p + 1 + digits) + 1);
}

/* Where the override set keys: not a line of the file any more. */
static void forget_lines(struct pte_scenario *s, const struct pte_scenario *before)
{
	const size_t keys = sizeof(s->line_gen) / sizeof(s->line_gen[0]);

	for (unsigned e = 0; e < PTM_MAX_ENDPOINTS; e++)
		for (size_t k = 0; k < keys; k++)
			if (s->line_ep[e][k] != before->line_ep[e][k])
				s->line_ep[e][k] = 0;
	for (size_t k = 0; k < keys; k++)
		if (s->line_gen[k] != before->line_gen[k])
			s->line_gen[k] = 0;
	memcpy(s->origin, before->origin, sizeof(s->origin));
}

static int one(struct pte_scenario *s, const char *ov, char *msg, size_t msglen)
{
	char buf[OVERRIDE_MAX], text[OVERRIDE_MAX + 16], origin[OVERRIDE_MAX + 16];
	const char *sec, *key, *val;
	struct pte_scenario *before;
	int rc;

	snprintf(origin, sizeof(origin), "override '%s'", ov);
	if (split(ov, buf, sizeof(buf), &sec, &key, &val) < 0) {
		snprintf(msg, msglen,
			 "%s: expected SECTION.KEY=VALUE of a scenario file (at most %d characters), "
			 "for example endpoint.mrrs=1024",
			 origin, OVERRIDE_MAX - 1);
		return -EINVAL;
	}
	snprintf(text, sizeof(text), "[%s]\n%s = %s\n", sec, key, val);
	before = malloc(sizeof(*before));
	if (!before) {
		snprintf(msg, msglen, "%s: out of memory", origin);
		return -ENOMEM;
	}
	*before = *s;
	rc = pte_scenario_parse_text(text, origin, s, msg, msglen);
	if (rc < 0)
		drop_line(msg, strlen(origin));
	else
		forget_lines(s, before);
	free(before);
	return rc;
}

int pte_scenario_override(struct pte_scenario *s, const char *const *ov, size_t n, int *which,
			  char *msg, size_t msglen)
{
	for (size_t i = 0; i < n; i++) {
		int rc = one(s, ov[i], msg, msglen);

		if (rc < 0) {
			if (which)
				*which = (int)i;
			return rc;
		}
	}
	return 0;
}
