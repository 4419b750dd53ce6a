/* Debounced call buttons. A press is reported with the time of its first contact, not of the end of
 * debouncing, because a call at the same instant as the rack wins. */
#ifndef BUTTONS_H
#define BUTTONS_H
#include <stdint.h>

void buttons_init(void);
void buttons_sample(uint32_t now_ms); /* called from the 1 ms tick interrupt */
/* Pops one debounced press; returns 0 if none. */
uint8_t buttons_pop(uint8_t *seat, uint32_t *at_ms);

#endif
