/* The last BEEP the board played (its sequence number and the CRC of its line), kept in EEPROM so that a board
 * reset between playing a beep and acknowledging it does not make the host's resend sound it again: at boot the
 * record goes back into the repeat cache (protocol.c). A HELLO (a new host session, whose numbers start again)
 * marks it spent.
 *
 * Wear: an EEPROM cell takes about 100,000 erase/write cycles and a busy table beeps on every discard, so the
 * record moves one slot on with each beep through a ring of SLOTS slots: a beep writes the four bytes of the next
 * slot and its mark, then clears the previous mark. The newest record is the marked slot whose successor is not
 * marked. Mark values: MARK_LIVE (a record of the current host session) and MARK_SPENT (the newest slot, but a
 * HELLO came since); anything else is an old slot. hardware/beep_record.py is the same logic for the emulator. */
#include "beeprec.h"

#include <avr/eeprom.h>

#define SLOTS 200
#define SLOT_BYTES 5 /* mark, sequence number (2, little-endian), CRC of the command line (2) */
#define MARK_LIVE 0xB5
#define MARK_SPENT 0x5B

static uint8_t newest = SLOTS - 1; /* the newest slot: the next record goes into the one after it */
static uint8_t newest_marked;     /* 0 until a marked slot is found at boot or written */
static int16_t previous = -1;     /* the marked slot that beeprec_saved clears, -1 for none */

static uint8_t *slot_at(uint8_t slot, uint8_t offset) {
    return (uint8_t *)(uint16_t)(slot * SLOT_BYTES + offset);
}

static uint8_t mark(uint8_t slot) { return eeprom_read_byte(slot_at(slot, 0)); }

static uint8_t marked(uint8_t slot) {
    uint8_t m = mark(slot);
    return m == MARK_LIVE || m == MARK_SPENT;
}

static uint8_t after(uint8_t slot) { return slot + 1 == SLOTS ? 0 : slot + 1; }

uint8_t beeprec_boot(uint16_t *seq, uint16_t *crc) {
    uint8_t found = 0;
    for (uint8_t s = 0; s < SLOTS && !found; s++) {
        if (marked(s) && !marked(after(s))) {
            newest = s;
            found = 1;
        }
    }
    /* Any other mark is left by a reset while the previous one was being cleared (or by another program's data):
     * clear it, so that the next boot finds the same newest slot. */
    for (uint8_t s = 0; s < SLOTS; s++)
        if (marked(s) && (s != newest || !found)) eeprom_update_byte(slot_at(s, 0), 0);
    newest_marked = found;
    if (!found || mark(newest) != MARK_LIVE) return 0;
    *seq = eeprom_read_word((const uint16_t *)slot_at(newest, 1));
    *crc = eeprom_read_word((const uint16_t *)slot_at(newest, 3));
    return 1;
}

void beeprec_save(uint16_t seq, uint16_t crc) {
    uint8_t next = after(newest);
    previous = newest_marked ? newest : -1;
    eeprom_update_word((uint16_t *)slot_at(next, 1), seq);
    eeprom_update_word((uint16_t *)slot_at(next, 3), crc);
    /* The mark last, started but not waited for: the tone starts at once, and a reset (not a power loss) lets a
     * started EEPROM write finish, so a tone never sounds without its record. */
    eeprom_update_byte(slot_at(next, 0), MARK_LIVE);
    newest = next;
    newest_marked = 1;
}

void beeprec_saved(void) {
    /* This waits for the new mark's write (3.3 ms) before starting to clear the old one, which then finishes in the
     * background: the new mark is in place before the old one goes. */
    if (previous >= 0) eeprom_update_byte(slot_at((uint8_t)previous, 0), 0);
    previous = -1;
}

void beeprec_spend(void) {
    if (!newest_marked || mark(newest) != MARK_LIVE) return; /* written only once after each beep */
    eeprom_update_byte(slot_at(newest, 0), MARK_SPENT);
    eeprom_busy_wait();
}
