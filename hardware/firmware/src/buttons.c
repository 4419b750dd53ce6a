#include "buttons.h"

#include <avr/io.h>
#include <util/atomic.h>

#include "config.h"

#define QUEUE_LEN 8

typedef struct {
    uint8_t stable;   /* 1 = pressed */
    uint8_t diff;     /* consecutive samples differing from stable */
    uint8_t same;     /* consecutive samples equal to stable while a change is armed */
    uint8_t armed;    /* a change started at first_ms */
    uint8_t held;     /* this press was already reported as held */
    uint32_t first_ms;
    uint32_t down_ms; /* first contact of the press now stable */
} button_t;

static button_t buttons[4];
static volatile uint8_t q_seat[QUEUE_LEN];
static volatile uint8_t q_held[QUEUE_LEN];
static volatile uint32_t q_ms[QUEUE_LEN];
static volatile uint8_t q_head, q_tail;

void buttons_init(void) {
    BTN_PORT |= BTN_MASK; /* pull-ups; inputs are the reset default */
}

static void push(uint8_t seat, uint8_t held, uint32_t at) {
    uint8_t next = (uint8_t)((q_head + 1) % QUEUE_LEN);
    if (next == q_tail) return; /* 8 presses or holds unread within a few ms: drop (cannot happen with a live main loop) */
    q_seat[q_head] = seat;
    q_held[q_head] = held;
    q_ms[q_head] = at;
    q_head = next;
}

void buttons_sample(uint32_t now_ms) {
    uint8_t pressed = (uint8_t)(~BTN_PIN & BTN_MASK);
    for (uint8_t i = 0; i < 4; i++) {
        button_t *b = &buttons[i];
        uint8_t raw = (pressed >> i) & 1;
        if (raw != b->stable) {
            if (!b->armed) {
                b->armed = 1;
                b->first_ms = now_ms;
            }
            b->same = 0;
            if (++b->diff >= DEBOUNCE_MS) {
                b->stable = raw;
                b->armed = 0;
                b->diff = 0;
                if (raw) {
                    b->down_ms = b->first_ms;
                    b->held = 0;
                    push(i, 0, b->first_ms);
                }
            }
        } else {
            b->diff = 0;
            if (b->armed && ++b->same >= DEBOUNCE_MS) b->armed = 0; /* it was a glitch */
            if (b->stable && !b->held && now_ms - b->down_ms >= HOLD_MS) {
                b->held = 1;
                push(i, 1, b->down_ms);
            }
        }
    }
}

uint8_t buttons_pop(uint8_t *seat, uint8_t *held, uint32_t *at_ms) {
    uint8_t got = 0;
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE) {
        if (q_tail != q_head) {
            *seat = q_seat[q_tail];
            *held = q_held[q_tail];
            *at_ms = q_ms[q_tail];
            q_tail = (uint8_t)((q_tail + 1) % QUEUE_LEN);
            got = 1;
        }
    }
    return got;
}
