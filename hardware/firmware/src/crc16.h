/* CRC-16/XMODEM (poly 0x1021, init 0, no reflection, no final xor): check value 0x31C3 for "123456789". */
#ifndef CRC16_H
#define CRC16_H
#include <stdint.h>

uint16_t crc16_xmodem(const char *data, uint8_t len);

#endif
