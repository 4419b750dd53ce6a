#include "uart.h"

#include <avr/interrupt.h>
#include <avr/io.h>

#include "config.h"

#define RX_LEN 64 /* powers of two: the index wrap is a mask */
#define TX_LEN 128

static volatile uint8_t rx_buf[RX_LEN];
static volatile uint8_t rx_head, rx_tail;
static volatile uint8_t tx_buf[TX_LEN];
static volatile uint8_t tx_head, tx_tail;
static volatile uint16_t overruns;

void uart_init(void) {
    UCSR0A = _BV(U2X0);
    UBRR0 = (uint16_t)(F_CPU / (8UL * BAUD) - 1);
    UCSR0C = _BV(UCSZ01) | _BV(UCSZ00); /* 8N1 */
    UCSR0B = _BV(RXEN0) | _BV(TXEN0) | _BV(RXCIE0);
}

ISR(USART_RX_vect) {
    uint8_t c = UDR0;
    uint8_t next = (uint8_t)((rx_head + 1) & (RX_LEN - 1));
    if (next == rx_tail) {
        overruns++;
        return;
    }
    rx_buf[rx_head] = c;
    rx_head = next;
}

ISR(USART_UDRE_vect) {
    if (tx_tail == tx_head) {
        UCSR0B &= (uint8_t)~_BV(UDRIE0);
        return;
    }
    UDR0 = tx_buf[tx_tail];
    tx_tail = (uint8_t)((tx_tail + 1) & (TX_LEN - 1));
}

int16_t uart_getc(void) {
    if (rx_tail == rx_head) return -1;
    uint8_t c = rx_buf[rx_tail];
    rx_tail = (uint8_t)((rx_tail + 1) & (RX_LEN - 1));
    return c;
}

void uart_puts(const char *s) {
    while (*s) {
        uint8_t next = (uint8_t)((tx_head + 1) & (TX_LEN - 1));
        while (next == tx_tail) {
        } /* the UDRE interrupt drains the ring at 25 kB/s */
        tx_buf[tx_head] = (uint8_t)*s++;
        tx_head = next;
        UCSR0A |= _BV(TXC0); /* writing 1 clears "transmit complete" until this byte is out */
        UCSR0B |= _BV(UDRIE0);
    }
}

uint8_t uart_tx_idle(void) { return tx_tail == tx_head && (UCSR0A & _BV(TXC0)); }

uint8_t uart_rx_ready(void) { return rx_tail != rx_head; }

uint16_t uart_overruns(void) { return overruns; }
