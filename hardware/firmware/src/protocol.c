#include "protocol.h"

#include <avr/pgmspace.h>
#include <stdlib.h>
#include <string.h>

#include "beeprec.h"
#include "buttons.h"
#include "buzzer.h"
#include "config.h"
#include "crc16.h"
#include "leds.h"
#include "uart.h"

#define CACHE_LEN 4   /* remembered replies for repeated sequence numbers */
#define EVENT_LEN 8   /* events kept for REPLAY */
#define MAX_TOKENS 8

enum { EV_BOOT, EV_BTN, EV_HOLD, EV_FAILSAFE };

typedef struct {
    uint16_t seq;
    uint16_t crc; /* of the command line: the same number with a different line is a new command */
    char reply[LINE_MAX];
} cached_t;

typedef struct {
    uint16_t n;
    uint8_t type;
    uint8_t arg;
    uint32_t ms;
} event_t;

static char line[LINE_MAX];
static uint8_t line_len;
static uint8_t line_bad; /* LINE_BINARY or LINE_LONG: dropped when its '\n' arrives, answered X FORMAT / X LONG */
#define LINE_BINARY 1 /* a byte outside 0x20..0x7E (a '\r' anywhere but at the end): a bad shape */
#define LINE_LONG 2

static cached_t cache[CACHE_LEN];
static uint8_t cache_next;
static event_t events[EVENT_LEN];
static uint16_t event_n;
static uint8_t boot_cause;

static uint32_t last_host_ms, last_heartbeat_ms;
static uint8_t idle = 1; /* fail-safe idle state: at boot and after HOST_SILENCE_MS without a valid frame */
static uint8_t reset_requested;
static uint16_t crc_errors, duplicates;

static const char color_names[COLOR_COUNT][6] PROGMEM = {"off", "red", "green", "amber", "blue"};
static const char mode_chars[] = "01BFP"; /* MODE_OFF .. MODE_PULSE */

/* ---- output ---------------------------------------------------------------------------------------------- */

static char out[LINE_MAX];
static uint8_t out_len;

static void out_begin(char kind) {
    out[0] = kind;
    out_len = 1;
}

static void out_str(const char *s) {
    out[out_len++] = ' ';
    while (*s && out_len < LINE_MAX - 7) out[out_len++] = *s++;
}

/* The same for a string kept in flash (PSTR), which keeps constant text out of the 2 KB of RAM. */
static void out_P(const char *s) {
    out[out_len++] = ' ';
    char c;
    while ((c = (char)pgm_read_byte(s++)) && out_len < LINE_MAX - 7) out[out_len++] = c;
}

static void out_u32(uint32_t v) {
    char buf[11];
    out_str(ultoa(v, buf, 10));
}

/* Appends "*CRC\n" to the line in `out`. */
static void out_frame(void) {
    static const char hex[] = "0123456789ABCDEF";
    uint16_t crc = crc16_xmodem(out, out_len);
    out[out_len++] = '*';
    for (int8_t shift = 12; shift >= 0; shift -= 4) out[out_len++] = hex[(crc >> shift) & 0xF];
    out[out_len++] = '\n';
    out[out_len] = 0;
}

/* Frames and sends the line, leaving it in `out` for the duplicate cache. */
static void out_send(void) {
    out_frame();
    uart_puts(out);
}

/* Remembers the reply in `out` to the command numbered `seq` whose line has CRC `crc`. */
static void cache_put(uint16_t seq, uint16_t crc) {
    cached_t *c = &cache[cache_next];
    cache_next = (uint8_t)((cache_next + 1) % CACHE_LEN);
    c->seq = seq;
    c->crc = crc;
    memcpy(c->reply, out, (size_t)out_len + 1);
}

/* ---- events ---------------------------------------------------------------------------------------------- */

static void event_send(const event_t *e) {
    static const char causes[5][9] PROGMEM = {"power", "external", "brownout", "watchdog", "unknown"};
    out_begin('E');
    out_u32(e->n);
    switch (e->type) {
    case EV_BOOT:
        out_P(PSTR("BOOT"));
        out_u32(PROTO_VERSION);
        out_P(PSTR(FW_VERSION));
        out_P(causes[e->arg < 4 ? e->arg : 4]);
        break;
    case EV_BTN:
    case EV_HOLD:
        out_P(e->type == EV_BTN ? PSTR("BTN") : PSTR("HOLD"));
        out_u32(e->arg);
        out_u32(e->ms);
        break;
    default:
        out_P(PSTR("FAILSAFE"));
        out_u32(e->ms);
        break;
    }
    out_send();
}

static void event_emit(uint8_t type, uint8_t arg, uint32_t ms) {
    if (++event_n == 0) event_n = 1;
    event_t *e = &events[event_n % EVENT_LEN];
    e->n = event_n;
    e->type = type;
    e->arg = arg;
    e->ms = ms;
    event_send(e);
}

void protocol_boot(uint8_t mcusr) {
    /* MCUSR bits: PORF 0, EXTRF 1, BORF 2, WDRF 3; report the most telling one. */
    boot_cause = 4;
    for (uint8_t bit = 0; bit < 4; bit++)
        if (mcusr & (1 << bit)) boot_cause = bit;
    leds_window(COLOR_BLUE, MODE_PULSE, 0);
    uint16_t seq, crc;
    if (beeprec_boot(&seq, &crc)) { /* the last beep played before the reset: a resend of it is a repeat */
        out_begin('A');
        out_u32(seq);
        out_P(PSTR("OK"));
        out_frame();
        cache_put(seq, crc);
    }
    uart_puts("\n"); /* ends a line the reset cut off, which would otherwise swallow the BOOT line at the host */
    event_emit(EV_BOOT, boot_cause, 0);
}

/* ---- commands -------------------------------------------------------------------------------------------- */

static int8_t parse_color(const char *s) {
    for (uint8_t i = 0; i < COLOR_COUNT; i++)
        if (!strcmp_P(s, color_names[i])) return (int8_t)i;
    return -1;
}

/* Seat and window modes a host may ask for: 0 off, 1 on, B blink, F fast blink (P is the board's own). */
static int8_t parse_mode(const char *s) {
    if (s[0] == 0 || s[1] != 0) return -1;
    const char *p = strchr(mode_chars, s[0]);
    return p && s[0] != 'P' ? (int8_t)(p - mode_chars) : -1;
}

/* Unsigned decimal in [lo, hi], no sign, no leading junk; -1 if not. */
static int32_t parse_num(const char *s, int32_t lo, int32_t hi) {
    if (!*s || strlen(s) > 5) return -1;
    int32_t v = 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9') return -1;
        v = v * 10 + (*s - '0');
    }
    return v < lo || v > hi ? -1 : v;
}

static void leave_idle(uint32_t now_ms) {
    if (!idle) return;
    idle = 0;
    leds_window(COLOR_OFF, MODE_OFF, now_ms);
    leds_link(1);
}

static void enter_idle(uint32_t now_ms) {
    idle = 1;
    for (uint8_t i = 0; i < 4; i++) leds_seat(i, MODE_OFF, now_ms);
    leds_window(COLOR_BLUE, MODE_PULSE, now_ms);
    buzzer_stop();
    leds_link(0);
    event_emit(EV_FAILSAFE, 0, now_ms);
}

/* Each handler checks its arguments and builds the reply in `out` (after "A <seq>"), returning 0, or returns 1 for
 * "ERR ARG" without acting. */
typedef uint8_t (*handler_t)(char **arg, uint32_t now_ms);

static uint16_t replay_from; /* set by REPLAY: events to resend once its reply is out */
static uint16_t line_seq, line_crc; /* the command being run: a BEEP keeps them in EEPROM (beeprec.c) */

static uint8_t cmd_hello(char **arg, uint32_t now_ms) {
    (void)now_ms;
    if (parse_num(arg[0], 0, 65535) != PROTO_VERSION) {
        out_P(PSTR("ERR PROTO"));
        out_u32(PROTO_VERSION);
        return 0;
    }
    memset(cache, 0, sizeof cache); /* a new host session: its sequence numbers start again */
    beeprec_spend();
    out_P(PSTR("OK HELLO"));
    out_u32(PROTO_VERSION);
    out_P(PSTR(FW_VERSION));
    out_P(PSTR(BOARD_NAME));
    out_u32(event_n);
    return 0;
}

static uint8_t cmd_ping(char **arg, uint32_t now_ms) {
    (void)arg;
    out_P(PSTR("OK"));
    out_u32(now_ms);
    return 0;
}

static uint8_t cmd_leds(char **arg, uint32_t now_ms) {
    int8_t color = parse_color(arg[0]), mode = parse_mode(arg[1]);
    int8_t seat_modes[4];
    if (color < 0 || mode < 0 || strlen(arg[2]) != 4) return 1;
    for (uint8_t i = 0; i < 4; i++) {
        char one[2] = {arg[2][i], 0};
        if ((seat_modes[i] = parse_mode(one)) < 0) return 1;
    }
    leds_window((uint8_t)color, (uint8_t)mode, now_ms);
    for (uint8_t i = 0; i < 4; i++) /* an unchanged blinking seat keeps its phase */
        if (leds_seat_mode(i) != (uint8_t)seat_modes[i]) leds_seat(i, (uint8_t)seat_modes[i], now_ms);
    out_P(PSTR("OK"));
    return 0;
}

static uint8_t cmd_win(char **arg, uint32_t now_ms) {
    int8_t color = parse_color(arg[0]), mode = parse_mode(arg[1]);
    if (color < 0 || mode < 0) return 1;
    leds_window((uint8_t)color, (uint8_t)mode, now_ms);
    out_P(PSTR("OK"));
    return 0;
}

static uint8_t cmd_seat(char **arg, uint32_t now_ms) {
    int32_t seat = parse_num(arg[0], 0, 3);
    int8_t mode = parse_mode(arg[1]);
    if (seat < 0 || mode < 0) return 1;
    leds_seat((uint8_t)seat, (uint8_t)mode, now_ms);
    out_P(PSTR("OK"));
    return 0;
}

static uint8_t cmd_beep(char **arg, uint32_t now_ms) {
    int32_t freq = parse_num(arg[0], 100, 8000), on = parse_num(arg[1], 1, 2000);
    int32_t off = parse_num(arg[2], 0, 2000), count = parse_num(arg[3], 1, 9);
    if (freq < 0 || on < 0 || off < 0 || count < 0) return 1;
    beeprec_save(line_seq, line_crc); /* before the tone: a tone that sounded always has its record */
    buzzer_start((uint16_t)freq, (uint16_t)on, (uint16_t)off, (uint8_t)count, now_ms);
    beeprec_saved();
    out_P(PSTR("OK"));
    return 0;
}

static uint8_t cmd_quiet(char **arg, uint32_t now_ms) {
    (void)arg;
    (void)now_ms;
    buzzer_stop();
    out_P(PSTR("OK"));
    return 0;
}

static uint8_t cmd_status(char **arg, uint32_t now_ms) {
    (void)arg;
    char seats[5], mode[2] = {mode_chars[leds_window_mode()], 0};
    for (uint8_t i = 0; i < 4; i++) seats[i] = mode_chars[leds_seat_mode(i)];
    seats[4] = 0;
    out_P(PSTR("OK"));
    out_P(color_names[leds_window_color()]);
    out_str(mode);
    out_str(seats);
    out_u32(buzzer_busy());
    out_u32(crc_errors);
    out_u32(duplicates);
    out_u32(now_ms);
    return 0;
}

/* Event numbers run 1..65535 and wrap to 1: ``back`` steps back along that circle, ``ahead`` says how far n is
 * past last (0 or less: last or older; half the circle ahead counts as newer), as hardware/protocol.py does. */
static uint16_t back(uint16_t n, uint16_t steps) {
    return (uint16_t)(((uint32_t)n - 1u + 65535u - steps) % 65535u + 1u);
}

static int32_t ahead(uint16_t n, uint16_t last) {
    uint32_t s = ((uint32_t)n + 65535u - last) % 65535u;
    return s < 32768u ? (int32_t)s : (int32_t)s - 65535;
}

/* The held event k steps back from the newest, or NULL where none was emitted yet. */
static event_t *held(uint8_t k) {
    if (!event_n) return NULL;
    uint16_t m = back(event_n, k);
    event_t *e = &events[m % EVENT_LEN];
    return e->n == m ? e : NULL;
}

static uint8_t cmd_replay(char **arg, uint32_t now_ms) {
    (void)now_ms;
    int32_t from = parse_num(arg[0], 1, 65535);
    if (from < 0) return 1;
    replay_from = (uint16_t)from;
    uint16_t first = (uint16_t)from;
    for (int8_t k = EVENT_LEN - 1; k >= 0; k--) {
        event_t *e = held((uint8_t)k);
        if (e && ahead(e->n, replay_from) >= 0) {
            first = e->n;
            break;
        }
    }
    out_P(PSTR("OK"));
    out_u32(first);
    out_u32(event_n);
    return 0;
}

static uint8_t cmd_reset(char **arg, uint32_t now_ms) {
    (void)arg;
    (void)now_ms;
    reset_requested = 1;
    out_P(PSTR("OK"));
    return 0;
}

typedef struct {
    char verb[7];
    uint8_t argc;
    handler_t run;
} command_t;

static const command_t commands[] PROGMEM = {
    {"HELLO", 1, cmd_hello}, {"PING", 0, cmd_ping},     {"LEDS", 3, cmd_leds},     {"WIN", 2, cmd_win},
    {"SEAT", 2, cmd_seat},   {"BEEP", 4, cmd_beep},     {"QUIET", 0, cmd_quiet},   {"STATUS", 0, cmd_status},
    {"REPLAY", 1, cmd_replay}, {"RESET", 0, cmd_reset},
};

static void run_command(char **tok, uint8_t n, uint32_t now_ms) {
    for (uint8_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        if (strcmp_P(tok[0], commands[i].verb)) continue;
        uint8_t argc = pgm_read_byte(&commands[i].argc);
        handler_t run = (handler_t)pgm_read_ptr(&commands[i].run);
        if (n - 1 != argc || run(tok + 1, now_ms)) out_P(PSTR("ERR ARG"));
        return;
    }
    out_P(PSTR("ERR VERB"));
}

/* A notice for a line that could not be trusted (no sequence number can be acknowledged). */
static void reject(const char *why_P) {
    out_begin('X');
    out_P(why_P);
    out_send();
}

static uint8_t hexval(char c) {
    if (c >= '0' && c <= '9') return (uint8_t)(c - '0');
    if (c >= 'A' && c <= 'F') return (uint8_t)(c - 'A' + 10);
    return 0xFF;
}

/* One complete line without its '\n': check the frame, answer a repeat from the cache, or run it. */
static void handle_line(uint32_t now_ms) {
    if (line_len < 6 || line[line_len - 5] != '*') {
        reject(PSTR("FORMAT"));
        return;
    }
    uint16_t want = 0;
    for (uint8_t i = line_len - 4; i < line_len; i++) {
        uint8_t v = hexval(line[i]);
        if (v == 0xFF) {
            reject(PSTR("FORMAT"));
            return;
        }
        want = (uint16_t)(want << 4 | v);
    }
    uint8_t body_len = (uint8_t)(line_len - 5);
    uint16_t crc = crc16_xmodem(line, body_len);
    if (crc != want) {
        crc_errors++;
        reject(PSTR("CRC"));
        return;
    }
    line[body_len] = 0;
    if (line[0] == ' ' || line[body_len - 1] == ' ' || strstr(line, "  ")) { /* exactly one space between fields */
        reject(PSTR("FORMAT"));
        return;
    }
    char *tok[MAX_TOKENS];
    uint8_t n = 0;
    for (char *p = strtok(line, " "); p && n < MAX_TOKENS; p = strtok(0, " ")) tok[n++] = p;
    int32_t seq = n >= 3 && !strcmp(tok[0], "C") ? parse_num(tok[1], 1, 65535) : -1;
    if (seq < 0) {
        reject(PSTR("FORMAT"));
        return;
    }
    last_host_ms = now_ms; /* any valid frame, a repeat included, proves the host is alive */
    leave_idle(now_ms);
    for (uint8_t i = 0; i < CACHE_LEN; i++) {
        if (cache[i].seq == (uint16_t)seq && cache[i].crc == crc) {
            duplicates++;
            uart_puts(cache[i].reply);
            return;
        }
    }
    replay_from = 0;
    line_seq = (uint16_t)seq;
    line_crc = crc;
    out_begin('A');
    out_u32((uint32_t)seq);
    run_command(tok + 2, (uint8_t)(n - 2), now_ms);
    out_send();
    cache_put((uint16_t)seq, crc);
    if (replay_from) {
        for (int8_t k = EVENT_LEN - 1; k >= 0; k--) {  /* oldest first, across the 65535 -> 1 wrap */
            event_t *e = held((uint8_t)k);
            if (e && ahead(e->n, replay_from) >= 0) event_send(e);
        }
    }
}

void protocol_poll(uint32_t now_ms) {
    int16_t c;
    while ((c = uart_getc()) >= 0) {
        if (c == '\n') {
            if (line_len && line[line_len - 1] == '\r') line_len--;
            if (!line_bad && memchr(line, '\r', line_len)) line_bad = LINE_BINARY;
            if (line_bad == LINE_LONG)
                reject(PSTR("LONG"));
            else if (line_bad)
                reject(PSTR("FORMAT"));
            else if (line_len)
                handle_line(now_ms);
            line_len = 0;
            line_bad = 0;
        } else if ((c < 0x20 && c != '\r') || c > 0x7E) {
            if (!line_bad) line_bad = LINE_BINARY; /* binary noise: the line is dropped at its end */
        } else if (line_len >= LINE_MAX - 1) {
            line_bad = LINE_LONG;
        } else {
            line[line_len++] = (char)c;
        }
    }
}

void protocol_tick(uint32_t now_ms) {
    uint8_t seat, held;
    uint32_t at;
    while (buttons_pop(&seat, &held, &at)) event_emit(held ? EV_HOLD : EV_BTN, seat, at);
    if (!idle && now_ms - last_host_ms >= HOST_SILENCE_MS) enter_idle(now_ms);
    if (now_ms - last_heartbeat_ms >= HEARTBEAT_MS) {
        last_heartbeat_ms = now_ms;
        out_begin('H');
        out_u32(now_ms);
        out_u32(event_n);
        out_str(idle ? "IDLE" : "LINK");
        out_send();
    }
}

uint8_t protocol_reset_requested(void) { return reset_requested && uart_tx_idle(); }
