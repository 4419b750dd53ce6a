#include "buzzer.h"

#include <avr/io.h>

#include "config.h"

static uint16_t on_ms, off_ms;
static uint8_t left;     /* beeps still to start after the current one */
static uint8_t sounding; /* tone output connected */
static uint8_t busy;
static uint32_t phase_ms; /* when the current on or off phase began */

void buzzer_init(void) {
    DDRB |= BUZZ_BIT;
    TCCR1A = 0;
    TCCR1B = _BV(WGM12); /* CTC on OCR1A, clock stopped until a tone starts */
}

static void tone(uint8_t on) {
    sounding = on;
    if (on) {
        TCNT1 = 0;
        TCCR1A = _BV(COM1A0);             /* toggle OC1A on each compare match */
        TCCR1B = _BV(WGM12) | _BV(CS11); /* prescaler 8 */
    } else {
        TCCR1A = 0;
        TCCR1B = _BV(WGM12);
        PORTB &= (uint8_t)~BUZZ_BIT;
    }
}

void buzzer_start(uint16_t freq_hz, uint16_t on, uint16_t off, uint8_t count, uint32_t now_ms) {
    OCR1A = (uint16_t)(F_CPU / (2UL * 8UL * freq_hz) - 1);
    on_ms = on;
    off_ms = off;
    left = (uint8_t)(count - 1);
    busy = 1;
    phase_ms = now_ms;
    tone(1);
}

void buzzer_stop(void) {
    busy = 0;
    tone(0);
}

void buzzer_update(uint32_t now_ms) {
    if (!busy) return;
    uint32_t dt = now_ms - phase_ms;
    if (sounding && dt >= on_ms) {
        tone(0);
        phase_ms += on_ms;
        if (!left) busy = 0;
    } else if (!sounding && dt >= off_ms) {
        left--;
        phase_ms += off_ms;
        tone(1);
    }
}

uint8_t buzzer_busy(void) { return busy; }
