#include "crc16.h"

#include <util/crc16.h>

uint16_t crc16_xmodem(const char *data, uint8_t len) {
    uint16_t crc = 0;
    while (len--) crc = _crc_xmodem_update(crc, (uint8_t)*data++);
    return crc;
}
