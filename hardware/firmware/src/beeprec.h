/* The last BEEP the board played, kept in EEPROM across a reset (see beeprec.c and PROTOCOL.md). */
#ifndef BEEPREC_H
#define BEEPREC_H
#include <stdint.h>

uint8_t beeprec_boot(uint16_t *seq, uint16_t *crc); /* at boot: 1 and the record if it is of the host's session */
void beeprec_save(uint16_t seq, uint16_t crc);       /* before a BEEP's tone starts: writes the record */
void beeprec_saved(void);                            /* right after the tone started: the record is durable */
void beeprec_spend(void);                            /* HELLO: a new host session, the record no longer counts */

#endif
