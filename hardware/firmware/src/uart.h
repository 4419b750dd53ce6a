/* Interrupt-driven UART with receive and transmit ring buffers. */
#ifndef UART_H
#define UART_H
#include <stdint.h>

void uart_init(void);
int16_t uart_getc(void);       /* next received byte, or -1 */
uint8_t uart_rx_ready(void);   /* a byte is waiting */
void uart_puts(const char *s); /* queues s; waits only if the transmit ring is full */
uint8_t uart_tx_idle(void);    /* nothing left to send (safe to reset) */
uint16_t uart_overruns(void);  /* bytes lost because the receive ring was full */

#endif
