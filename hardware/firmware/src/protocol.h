/* The serial protocol of hardware/PROTOCOL.md: framing, CRC check, verbs, duplicate cache, events. */
#ifndef PROTOCOL_H
#define PROTOCOL_H
#include <stdint.h>

void protocol_boot(uint8_t mcusr);         /* sends the BOOT event */
void protocol_poll(uint32_t now_ms);         /* consumes received bytes, runs complete lines */
void protocol_tick(uint32_t now_ms);         /* heartbeat, fail-safe, button events */
uint8_t protocol_reset_requested(void);      /* a RESET command was acknowledged */

#endif
