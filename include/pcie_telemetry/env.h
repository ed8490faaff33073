/*
 * pcie-telemetry: the simulated NDK card (DMA ports, PTC, PCIe link and
 * host) that drives the firmware model's inputs cycle by cycle.
 *
 * Prefix: pte_.  Errors: negative errno values, message in the caller's
 * buffer.
 *
 * (Skeleton contract: the functions below are what the sim bus backend
 * and the command need.  The env module owns this header and extends it.)
 */
#ifndef PCIE_TELEMETRY_ENV_H
#define PCIE_TELEMETRY_ENV_H

#include <stddef.h>
#include <stdint.h>

#include "pcie_telemetry/model.h"

#ifdef __cplusplus
extern "C" {
#endif

struct pte_card;

/* spec: NULL or "" = the default realistic mixed load; a preset name;
 * or the path of a scenario file. */
int pte_card_open(const char *spec, struct pte_card **out, char *msg, size_t msglen);
void pte_card_free(struct pte_card *c);

/* Run every clock domain for that much simulated time. */
int pte_card_run(struct pte_card *c, double seconds);
/* Simulated time since power-up, in seconds. */
double pte_card_now(const struct pte_card *c);

/* MI access while the whole card keeps running. */
uint32_t pte_card_mi_read(struct pte_card *c, uint32_t addr);
void pte_card_mi_write(struct pte_card *c, uint32_t addr, uint32_t data);

ptm_model *pte_card_model(struct pte_card *c);

/* Built-in presets. */
size_t pte_preset_count(void);
const char *pte_preset_name(size_t i);
const char *pte_preset_summary(size_t i);

#ifdef __cplusplus
}
#endif
#endif
