/* Piezo beeps: a tone pattern (frequency, on, off, count) played from the 1 ms tick; a new one replaces it. */
#ifndef BUZZER_H
#define BUZZER_H
#include <stdint.h>

void buzzer_init(void);
void buzzer_start(uint16_t freq_hz, uint16_t on_ms, uint16_t off_ms, uint8_t count, uint32_t now_ms);
void buzzer_stop(void);
void buzzer_update(uint32_t now_ms);
uint8_t buzzer_busy(void);

#endif
