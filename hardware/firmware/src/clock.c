#include "clock.h"

#include <avr/interrupt.h>
#include <util/atomic.h>

#include "buttons.h"

static volatile uint32_t ms;
static volatile uint8_t ticked;

void clock_init(void) {
    /* CTC, prescaler 128, OCR2A 124: 16 MHz / 128 / 125 = exactly 1000 Hz. */
    TCCR2A = _BV(WGM21);
    TCCR2B = _BV(CS22) | _BV(CS20);
    OCR2A = 124;
    TIMSK2 = _BV(OCIE2A);
}

ISR(TIMER2_COMPA_vect) {
    ms++;
    ticked = 1;
    buttons_sample(ms);
}

uint32_t clock_ms(void) {
    uint32_t v;
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE) { v = ms; }
    return v;
}

uint8_t clock_tick_pending(void) {
    uint8_t t;
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE) {
        t = ticked;
        ticked = 0;
    }
    return t;
}

uint8_t clock_tick_waiting(void) { return ticked; }
