/* Debounced call buttons. A press is reported with the time of its first contact, not of the end of
 * debouncing, because a call at the same instant as the rack wins. A button still down HOLD_MS after that first
 * contact is reported once more as held (the undo gesture), with the same first-contact time so the host can
 * tell which press it was. */
#ifndef BUTTONS_H
#define BUTTONS_H
#include <stdint.h>

void buttons_init(void);
void buttons_sample(uint32_t now_ms); /* called from the 1 ms tick interrupt */
/* Pops one debounced press (*held = 0) or hold (*held = 1); returns 0 if none. */
uint8_t buttons_pop(uint8_t *seat, uint8_t *held, uint32_t *at_ms);

#endif
