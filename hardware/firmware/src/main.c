/* mahj signal board firmware: ATmega328P at 16 MHz (Arduino Uno). See hardware/PROTOCOL.md and README.md.
 *
 * Everything is driven by two interrupts (UART receive, 1 ms Timer2 tick); the main loop handles what they
 * queued, updates LED patterns and beeps, and sleeps (idle mode keeps UART and timers running) until the next
 * interrupt. The watchdog resets the board if the loop ever stops running. */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/power.h>
#include <avr/sleep.h>
#include <avr/wdt.h>

#include "buttons.h"
#include "buzzer.h"
#include "clock.h"
#include "leds.h"
#include "protocol.h"
#include "uart.h"

/* The reset cause, saved before anything clears it; the watchdog must be stopped this early because after a
 * watchdog reset it stays armed with the shortest timeout. */
static uint8_t mcusr_at_boot __attribute__((section(".noinit")));

void early_init(void) __attribute__((naked, used, section(".init3")));
void early_init(void) {
    mcusr_at_boot = MCUSR;
    MCUSR = 0;
    wdt_disable();
}

int main(void) {
    power_adc_disable();
    power_spi_disable();
    power_twi_disable();
    leds_init();
    buzzer_init();
    buttons_init();
    uart_init();
    clock_init();
    set_sleep_mode(SLEEP_MODE_IDLE);
    sei();
    wdt_enable(WDTO_250MS);
    protocol_boot(mcusr_at_boot);

    for (;;) {
        wdt_reset();
        uint32_t now = clock_ms();
        protocol_poll(now);
        if (clock_tick_pending()) {
            leds_update(now);
            buzzer_update(now);
            protocol_tick(now);
        }
        if (protocol_reset_requested()) {
            wdt_enable(WDTO_15MS);
            for (;;) {
            } /* the watchdog resets the chip; the next thing the host hears is a BOOT event */
        }
        cli();
        if (!clock_tick_waiting() && !uart_rx_ready()) {
            sleep_enable();
            sei();
            sleep_cpu(); /* the atomic sei; sleep pair cannot miss a wake-up */
            sleep_disable();
        }
        sei();
    }
}
