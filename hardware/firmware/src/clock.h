/* 1 ms system tick on Timer2; also samples the buttons so their timestamps do not depend on the main loop. */
#ifndef CLOCK_H
#define CLOCK_H
#include <stdint.h>

void clock_init(void);
uint32_t clock_ms(void);         /* milliseconds since boot */
uint8_t clock_tick_pending(void); /* true once per elapsed tick; clears the flag */
uint8_t clock_tick_waiting(void); /* the same without clearing, for the sleep check (interrupts off) */

#endif
