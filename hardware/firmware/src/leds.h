/* Window RGB LED and seat LEDs with steady and blinking modes, advanced from the 1 ms tick (never blocks). */
#ifndef LEDS_H
#define LEDS_H
#include <stdint.h>

enum { COLOR_OFF, COLOR_RED, COLOR_GREEN, COLOR_AMBER, COLOR_BLUE, COLOR_COUNT };
enum { MODE_OFF, MODE_ON, MODE_BLINK, MODE_FAST, MODE_PULSE };

void leds_init(void);
/* Both setters apply the pins at once (that is the command-to-pin latency) and restart the blink phase. */
void leds_window(uint8_t color, uint8_t mode, uint32_t now_ms);
void leds_seat(uint8_t seat, uint8_t mode, uint32_t now_ms);
void leds_update(uint32_t now_ms);
void leds_link(uint8_t on);
uint8_t leds_window_color(void);
uint8_t leds_window_mode(void);
uint8_t leds_seat_mode(uint8_t seat);

#endif
