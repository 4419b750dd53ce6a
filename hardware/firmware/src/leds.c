#include "leds.h"

#include <avr/io.h>

#include "config.h"

static const uint8_t seat_bits[4] = SEAT_BITS;
static const uint8_t color_bits[COLOR_COUNT] = {
    0, WIN_R, WIN_G, WIN_R | WIN_G, WIN_B, /* amber = red + green, balanced by the resistors (README) */
};

typedef struct {
    uint8_t mode;
    uint32_t since_ms;
} pattern_t;

static uint8_t win_color;
static pattern_t win, seats[4];

/* Whether a pattern is lit at now_ms. Blink 1 Hz (500/500), fast 4 Hz (125/125), pulse 50 ms every 2 s
 * (the fail-safe "alive, no host" sign). Each phase starts lit when the mode is set. */
static uint8_t lit(const pattern_t *p, uint32_t now_ms) {
    uint32_t dt = now_ms - p->since_ms;
    switch (p->mode) {
    case MODE_ON: return 1;
    case MODE_BLINK: return (dt % 1000u) < 500u;
    case MODE_FAST: return (dt % 250u) < 125u;
    case MODE_PULSE: return (dt % 2000u) < 50u;
    default: return 0;
    }
}

void leds_init(void) {
    WIN_DDR |= WIN_R | WIN_G | WIN_B;
    SEAT_DDR |= seat_bits[0] | seat_bits[1] | seat_bits[2] | seat_bits[3] | LINK_BIT;
}

void leds_update(uint32_t now_ms) {
    uint8_t w = lit(&win, now_ms) ? color_bits[win_color] : 0;
    WIN_PORT = (uint8_t)((WIN_PORT & ~(WIN_R | WIN_G | WIN_B)) | w);
    uint8_t s = 0;
    for (uint8_t i = 0; i < 4; i++)
        if (lit(&seats[i], now_ms)) s |= seat_bits[i];
    uint8_t all = (uint8_t)(seat_bits[0] | seat_bits[1] | seat_bits[2] | seat_bits[3]);
    SEAT_PORT = (uint8_t)((SEAT_PORT & ~all) | s);
}

void leds_window(uint8_t color, uint8_t mode, uint32_t now_ms) {
    win_color = color;
    win.mode = color == COLOR_OFF ? MODE_OFF : mode;
    win.since_ms = now_ms;
    leds_update(now_ms);
}

void leds_seat(uint8_t seat, uint8_t mode, uint32_t now_ms) {
    seats[seat].mode = mode;
    seats[seat].since_ms = now_ms;
    leds_update(now_ms);
}

void leds_link(uint8_t on) {
    if (on)
        SEAT_PORT |= LINK_BIT;
    else
        SEAT_PORT &= (uint8_t)~LINK_BIT;
}

uint8_t leds_window_color(void) { return win_color; }
uint8_t leds_window_mode(void) { return win.mode; }
uint8_t leds_seat_mode(uint8_t seat) { return seats[seat].mode; }
