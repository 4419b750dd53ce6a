/* boardrig: runs the mahj board firmware in simavr for the tests and `mahj board check`.
 *
 *   boardrig FIRMWARE.elf LINK_PATH [--fast] [--eeprom FILE]
 *
 * The AVR's UART0 becomes a pseudo-terminal reachable through the symlink LINK_PATH, which the host driver opens
 * like a real serial port. Bytes from the host are fed to the UART at the line rate (one byte per 10 bit times),
 * as a real wire would. Simulated time is throttled to wall-clock time (unless --fast), so host timeouts and
 * board timeouts relate as on a real table; all reported times are simulated nanoseconds. With --eeprom, the AVR's
 * EEPROM starts with FILE's contents (when it exists) and POWEROFF writes it back, so that a power cycle is a new
 * boardrig process on the same FILE. A fresh start is a power-on (MCUSR.PORF); simavr does not model the 3.3 ms an
 * EEPROM byte takes to write on the chip.
 *
 * stdout, one line each:
 *   READY <pty>           the UART is reachable (at start and after REPLUG)
 *   P <ns> <pin> <value>  an output pin changed; BUZZ reports the tone frequency in Hz, 0 when it stops
 *   RX <ns> <line>        the AVR's UART has received the last byte (the '\n') of a host line
 *   TX <ns> <line>        the AVR started sending a line
 *   B <ns> <seat>         reply to PRESS: simulated time of first contact
 *   RS <ns>               reply to RESET: the reset line was pulled at this time
 *   R <ns>                the AVR restarted at this time (RESET command or watchdog)
 *   U <ns> / N <ns> / D <ns> / T <ns> / C <ns>   replies to UNPLUG / NOISE / DROPACK / TIME / CRASH
 *   EE <ns> <hex>         reply to EEPROM: the whole EEPROM
 *   OFF <ns>              reply to POWEROFF, just before boardrig exits
 * stdin commands: PRESS <seat> <hold_ms> | RESET | UNPLUG | REPLUG | NOISE <text> (\n = line end)
 *                 | DROPACK (the next acknowledgement line never reaches the host) | DROPEVENT | TIME | EEPROM
 *                 | CRASH <ms> (the next acknowledgement, and every one after it, never reaches the host; <ms> after
 *                   the first the reset line is pulled: the board acted but resets before the host hears it did)
 *                 | POWEROFF (EEPROM to the --eeprom FILE, then exit) | QUIT
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <pty.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "avr_eeprom.h"
#include "avr_ioport.h"
#include "avr_uart.h"
#include "sim_avr.h"
#include "sim_elf.h"
#include "sim_irq.h"
#include "sim_time.h"

#define F_CPU 16000000UL
#define BAUD 250000UL
#define BYTE_NS (10UL * 1000000000UL / BAUD) /* start + 8 data + stop */

typedef struct {
    char port;
    int bit;
    const char *name;
    int value;
} pin_t;

/* The pin map of hardware/firmware/src/config.h. */
static pin_t pins[] = {
    {'D', 6, "WIN_R", 0}, {'D', 5, "WIN_G", 0}, {'D', 3, "WIN_B", 0}, {'B', 0, "SEAT0", 0}, {'B', 2, "SEAT1", 0},
    {'B', 3, "SEAT2", 0}, {'B', 4, "SEAT3", 0}, {'B', 5, "LINK", 0},
};
#define NPINS (sizeof pins / sizeof pins[0])
#define BUZZ_PORT 'B'
#define BUZZ_BIT 1
#define BTN_PORT 'C' /* PC0..PC3 = seats 0..3 */

static avr_t *avr;
static int dropping; /* the line the AVR is sending now never reaches the host */
static avr_irq_t *uart_in;
static int master = -1, slave = -1;
static const char *link_path;
static const char *eeprom_path;
static int fast;

/* host -> AVR bytes waiting for the wire */
static unsigned char inq[8192];
static size_t inq_head, inq_tail;
static int feeding;
static char rx_line[128];
static size_t rx_len;
/* AVR -> host line being logged */
static char tx_line[128];
static size_t tx_len;
static avr_cycle_count_t tx_start;

/* tone tracking on the buzzer pin */
static int buzz_level, tone_on;
static avr_cycle_count_t buzz_last_edge, buzz_prev_edge;
static int buzz_edges;

static unsigned long long ns(avr_cycle_count_t c) { return (unsigned long long)avr_cycles_to_nsec(avr, c); }

static void emit(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void emit(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
}

/* ---- pins ----------------------------------------------------------------------------------------------- */

static void pin_changed(struct avr_irq_t *irq, uint32_t value, void *param) {
    (void)irq;
    pin_t *p = param;
    value &= 1;
    if ((int)value == p->value) return;
    p->value = (int)value;
    emit("P %llu %s %u\n", ns(avr->cycle), p->name, value);
}

/* A tone is reported when the third edge gives its period, and as stopped when no edge came for two periods. */
static avr_cycle_count_t tone_watch(avr_t *a, avr_cycle_count_t when, void *param) {
    (void)a;
    (void)param;
    if (!tone_on) return 0;
    avr_cycle_count_t half = buzz_last_edge - buzz_prev_edge;
    if (when - buzz_last_edge > 4 * half + 160) {
        tone_on = 0;
        buzz_edges = 0;
        emit("P %llu BUZZ 0\n", ns(buzz_last_edge));
        return 0;
    }
    return when + 2 * half + 16;
}

static void buzz_changed(struct avr_irq_t *irq, uint32_t value, void *param) {
    (void)irq;
    (void)param;
    value &= 1; /* simavr flags timer-driven changes in bit 8 and then repeats the plain level */
    if ((int)value == buzz_level) return;
    buzz_level = (int)value;
    buzz_prev_edge = buzz_last_edge;
    buzz_last_edge = avr->cycle;
    if (tone_on) return;
    static avr_cycle_count_t first;
    if (buzz_edges == 0 || buzz_last_edge - buzz_prev_edge > F_CPU / 50) { /* a fresh start after silence */
        buzz_edges = 1;
        first = buzz_last_edge;
        return;
    }
    if (++buzz_edges == 3) {
        avr_cycle_count_t period = buzz_last_edge - first; /* two half periods */
        tone_on = 1;
        emit("P %llu BUZZ %llu\n", ns(first), (unsigned long long)((F_CPU + period / 2) / period));
        avr_cycle_timer_register(avr, buzz_last_edge - buzz_prev_edge + 16, tone_watch, NULL);
    }
}

/* ---- buttons -------------------------------------------------------------------------------------------- */

typedef struct {
    avr_cycle_count_t at;
    int seat, level;
} btn_step_t;
static btn_step_t steps[64];
static int nsteps;

static void drive_button(int seat, int level) {
    avr_raise_irq(avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ(BTN_PORT), seat), level);
}

static avr_cycle_count_t run_steps(avr_t *a, avr_cycle_count_t when, void *param) {
    (void)a;
    (void)param;
    avr_cycle_count_t next = 0;
    int keep = 0;
    for (int i = 0; i < nsteps; i++) {
        if (steps[i].at <= when)
            drive_button(steps[i].seat, steps[i].level);
        else {
            steps[keep++] = steps[i];
            if (!next || steps[i].at < next) next = steps[i].at;
        }
    }
    nsteps = keep;
    return next;
}

static void add_step(avr_cycle_count_t at, int seat, int level) {
    if (nsteps < (int)(sizeof steps / sizeof steps[0])) steps[nsteps++] = (btn_step_t){at, seat, level};
}

/* Contact bounce as a real push button makes it: make, break, make, break, make over 1.5 ms; the same on release. */
static void press(int seat, unsigned hold_ms) {
    static const unsigned bounce_us[] = {0, 300, 800, 1200, 1500};
    avr_cycle_count_t t0 = avr->cycle + 16, us = F_CPU / 1000000;
    avr_cycle_count_t up = t0 + (avr_cycle_count_t)hold_ms * (F_CPU / 1000);
    for (int i = 0; i < 5; i++) {
        add_step(t0 + bounce_us[i] * us, seat, i % 2);      /* 0 = pressed (to ground) */
        add_step(up + bounce_us[i] * us, seat, !(i % 2));
    }
    avr_cycle_timer_cancel(avr, run_steps, NULL);
    avr_cycle_timer_register(avr, 1, run_steps, NULL);
    emit("B %llu %d\n", ns(t0), seat);
}

static void release_all_buttons(void) {
    for (int i = 0; i < 4; i++) {
        drive_button(i, 0); /* the irq filters repeats: make sure the PIN bit really goes high */
        drive_button(i, 1);
    }
}

static avr_cycle_count_t feed_byte(avr_t *a, avr_cycle_count_t when, void *param);

/* After any reset (RESET command or the firmware's own watchdog reset) the PIN register is cleared, and simavr
 * does not model the pull-ups: put the released buttons' high level back and forget pending presses. simavr's
 * reset also cancels every cycle timer: a tone cut off by the reset is reported stopped, and host bytes still on
 * the wire go on arriving (the one in the UART at the reset is lost, as on the chip). */
static void after_reset(void) {
    emit("R %llu\n", ns(avr->cycle));
    nsteps = 0;
    release_all_buttons();
    rx_len = tx_len = 0;
    dropping = 0; /* a line cut off by the reset never ends */
    if (tone_on) emit("P %llu BUZZ 0\n", ns(avr->cycle));
    tone_on = buzz_edges = 0;
    feeding = 0;
    if (inq_head != inq_tail) {
        feeding = 1;
        avr_cycle_timer_register(avr, 1, feed_byte, NULL);
    }
}

/* ---- UART <-> pty --------------------------------------------------------------------------------------- */

static int acks_to_drop, events_to_drop;
static long crash_ms = -1;           /* CRASH armed: acknowledgements are lost, the reset follows crash_ms later */
static avr_cycle_count_t crash_at;   /* when the reset line is pulled (0: not yet known) */

/* The reset line pulled (the reset button, the Uno's auto-reset): the firmware reports an external reset. */
static void pull_reset(void) {
    avr_reset(avr); /* the main loop sees pc 0 and calls after_reset */
    avr->data[0x54] |= 1 << 1; /* MCUSR.EXTRF */
}

static void uart_out(struct avr_irq_t *irq, uint32_t value, void *param) {
    (void)irq;
    (void)param;
    unsigned char c = (unsigned char)value;
    if (tx_len == 0 && !dropping && c == 'A' && crash_ms >= 0) { /* CRASH: lost, and the reset is coming */
        dropping = 1;
        if (!crash_at) crash_at = avr->cycle + (avr_cycle_count_t)crash_ms * (F_CPU / 1000);
    }
    if (tx_len == 0 && !dropping) { /* DROPACK / DROPEVENT: this whole line gets lost */
        int *to_drop = c == 'A' ? &acks_to_drop : c == 'E' ? &events_to_drop : NULL;
        if (to_drop && *to_drop > 0) {
            (*to_drop)--;
            dropping = 1;
        }
    }
    if (!dropping && master >= 0 && write(master, &c, 1) < 0) {
        /* no reader or buffer full: the byte is lost, as on a real unread port */
    }
    if (dropping && c == '\n') dropping = 0;
    if (!tx_len) tx_start = avr->cycle;
    if (c == '\n') {
        tx_line[tx_len] = 0;
        emit("TX %llu %s\n", ns(tx_start), tx_line);
        tx_len = 0;
    } else if (tx_len < sizeof tx_line - 1 && c >= 0x20 && c < 0x7F) {
        tx_line[tx_len++] = (char)c;
    }
}

static avr_cycle_count_t feed_byte(avr_t *a, avr_cycle_count_t when, void *param) {
    (void)a;
    (void)param;
    if (inq_tail == inq_head) {
        feeding = 0;
        return 0;
    }
    unsigned char c = inq[inq_tail];
    inq_tail = (inq_tail + 1) % sizeof inq;
    avr_raise_irq(uart_in, c);
    if (c == '\n') {
        rx_line[rx_len] = 0;
        /* simavr hands the byte to UDR one byte time after it starts on the wire */
        emit("RX %llu %s\n", ns(when) + BYTE_NS, rx_line);
        rx_len = 0;
    } else if (rx_len < sizeof rx_line - 1 && c >= 0x20 && c < 0x7F) {
        rx_line[rx_len++] = (char)c;
    }
    return when + avr_usec_to_cycles(avr, BYTE_NS / 1000);
}

static void queue_host_bytes(const unsigned char *buf, ssize_t n) {
    for (ssize_t i = 0; i < n; i++) {
        size_t next = (inq_head + 1) % sizeof inq;
        if (next == inq_tail) break;
        inq[inq_head] = buf[i];
        inq_head = next;
    }
    if (!feeding && inq_head != inq_tail) {
        feeding = 1;
        avr_cycle_timer_register(avr, 1, feed_byte, NULL);
    }
}

static void plug(void) {
    if (openpty(&master, &slave, NULL, NULL, NULL) < 0) {
        perror("openpty");
        exit(1);
    }
    struct termios tio;
    tcgetattr(slave, &tio);
    cfmakeraw(&tio);
    tcsetattr(slave, TCSANOW, &tio);
    fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK);
    const char *name = ptsname(master);
    unlink(link_path);
    if (symlink(name, link_path) < 0) {
        perror("symlink");
        exit(1);
    }
    emit("READY %s\n", link_path);
}

static void unplug(void) {
    unlink(link_path);
    if (master >= 0) close(master);
    if (slave >= 0) close(slave);
    master = slave = -1;
    inq_head = inq_tail = 0;
}

/* ---- EEPROM --------------------------------------------------------------------------------------------- */

/* The AVR's EEPROM, read and written in place (simavr's EEPROM_SET/GET copies refuse the whole 1 KB and SET prints
 * to stdout, which is this program's protocol). */
#define EEPROM_BYTES 1024
static uint8_t *eeprom(void) {
    avr_eeprom_desc_t desc = {.ee = NULL, .offset = 0, .size = 0};
    avr_ioctl(avr, AVR_IOCTL_EEPROM_GET, &desc);
    return desc.ee;
}

static void load_eeprom(void) {
    FILE *f = eeprom_path ? fopen(eeprom_path, "rb") : NULL;
    if (!f) return; /* a new board: erased (0xFF) */
    if (fread(eeprom(), 1, EEPROM_BYTES, f) != EEPROM_BYTES) {
        fprintf(stderr, "boardrig: %s is not a %d-byte EEPROM image\n", eeprom_path, EEPROM_BYTES);
        exit(1);
    }
    fclose(f);
}

/* ---- control -------------------------------------------------------------------------------------------- */

static int control(char *cmd) {
    int seat;
    unsigned hold;
    if (sscanf(cmd, "PRESS %d %u", &seat, &hold) == 2 && seat >= 0 && seat < 4) {
        press(seat, hold);
    } else if (!strncmp(cmd, "RESET", 5)) {
        emit("RS %llu\n", ns(avr->cycle));
        pull_reset();
    } else if (!strncmp(cmd, "UNPLUG", 6)) {
        unplug();
        emit("U %llu\n", ns(avr->cycle));
    } else if (!strncmp(cmd, "REPLUG", 6)) {
        plug();
    } else if (!strncmp(cmd, "NOISE ", 6)) {
        char noise[256];
        size_t n = 0;
        for (const char *s = cmd + 6; *s && n < sizeof noise; s++) /* "\n" in the text is a line end */
            noise[n++] = (s[0] == '\\' && s[1] == 'n') ? (s++, '\n') : *s;
        if (master >= 0 && write(master, noise, n) < 0) {
        }
        emit("N %llu\n", ns(avr->cycle));
    } else if (!strncmp(cmd, "DROPACK", 7)) {
        acks_to_drop++;
        emit("D %llu\n", ns(avr->cycle));
    } else if (!strncmp(cmd, "DROPEVENT", 9)) {
        events_to_drop++;
        emit("D %llu\n", ns(avr->cycle));
    } else if (!strncmp(cmd, "TIME", 4)) {
        emit("T %llu\n", ns(avr->cycle));
    } else if (sscanf(cmd, "CRASH %ld", &crash_ms) == 1 && crash_ms >= 0) {
        crash_at = 0;
        emit("C %llu\n", ns(avr->cycle));
    } else if (!strncmp(cmd, "EEPROM", 6)) {
        const uint8_t *ee = eeprom();
        emit("EE %llu ", ns(avr->cycle));
        for (int i = 0; i < EEPROM_BYTES; i++) emit("%02X", ee[i]);
        emit("\n");
    } else if (!strncmp(cmd, "POWEROFF", 8)) {
        FILE *f = eeprom_path ? fopen(eeprom_path, "wb") : NULL;
        if (!f || fwrite(eeprom(), 1, EEPROM_BYTES, f) != EEPROM_BYTES || fclose(f) != 0) {
            fprintf(stderr, "boardrig: cannot write the EEPROM to %s\n", eeprom_path ? eeprom_path : "(no --eeprom)");
            exit(1);
        }
        emit("OFF %llu\n", ns(avr->cycle));
        return 0;
    } else if (!strncmp(cmd, "QUIT", 4)) {
        return 0;
    } else {
        fprintf(stderr, "boardrig: unknown command: %s\n", cmd);
    }
    return 1;
}

static void no_sleep(avr_t *a, avr_cycle_count_t how_long) {
    (void)a;
    (void)how_long; /* the main loop throttles to wall-clock time instead */
}

static long long wall_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: boardrig FIRMWARE.elf LINK_PATH [--fast] [--eeprom FILE]\n");
        return 2;
    }
    link_path = argv[2];
    for (int i = 3; i < argc; i++) {
        if (!strcmp(argv[i], "--fast"))
            fast = 1;
        else if (!strcmp(argv[i], "--eeprom") && i + 1 < argc)
            eeprom_path = argv[++i];
        else {
            fprintf(stderr, "boardrig: unknown argument %s\n", argv[i]);
            return 2;
        }
    }
    setvbuf(stdout, NULL, _IOFBF, 1 << 16);

    elf_firmware_t fw;
    memset(&fw, 0, sizeof fw);
    if (elf_read_firmware(argv[1], &fw) != 0) {
        fprintf(stderr, "boardrig: cannot read %s\n", argv[1]);
        return 1;
    }
    avr = avr_make_mcu_by_name("atmega328p");
    if (!avr) {
        fprintf(stderr, "boardrig: simavr has no atmega328p core\n");
        return 1;
    }
    avr_init(avr);
    fw.frequency = F_CPU;
    avr_load_firmware(avr, &fw);
    avr->sleep = no_sleep;
    avr->log = LOG_ERROR;
    load_eeprom();
    avr->data[0x54] |= 1 << 0; /* MCUSR.PORF: a fresh start is a power-on */

    uint32_t flags = 0;
    avr_ioctl(avr, AVR_IOCTL_UART_GET_FLAGS('0'), &flags);
    flags &= ~(AVR_UART_FLAG_STDIO | AVR_UART_FLAG_POLL_SLEEP);
    avr_ioctl(avr, AVR_IOCTL_UART_SET_FLAGS('0'), &flags);
    uart_in = avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_INPUT);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUTPUT), uart_out, NULL);
    for (size_t i = 0; i < NPINS; i++)
        avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ(pins[i].port), pins[i].bit), pin_changed,
                                &pins[i]);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ(BUZZ_PORT), BUZZ_BIT), buzz_changed, NULL);
    release_all_buttons();
    plug();
    fflush(stdout);

    long long wall0 = wall_ns();
    avr_cycle_count_t cyc0 = avr->cycle;
    char cmd[256];
    size_t cmd_len = 0;
    int at_reset_vector = 1; /* the power-on start is not reported as a reset */
    for (;;) {
        avr_cycle_count_t target = avr->cycle + F_CPU / 1000; /* 1 ms of simulated time per round */
        while (avr->cycle < target) {
            if (crash_at && avr->cycle >= crash_at) { /* CRASH: the reset, then acknowledgements reach the host */
                crash_ms = -1;
                crash_at = 0;
                pull_reset();
            }
            if (avr->pc == 0 && !at_reset_vector) after_reset();
            at_reset_vector = avr->pc == 0;
            int state = avr_run(avr);
            if (state == cpu_Done || state == cpu_Crashed) {
                fprintf(stderr, "boardrig: AVR %s at pc 0x%04x\n", state == cpu_Done ? "stopped" : "crashed",
                        avr->pc);
                return 1;
            }
        }
        if (!fast) {
            long long sim = (long long)avr_cycles_to_nsec(avr, avr->cycle - cyc0);
            long long ahead = sim - (wall_ns() - wall0);
            if (ahead > 0) {
                struct timespec ts = {ahead / 1000000000LL, ahead % 1000000000LL};
                nanosleep(&ts, NULL);
            } else if (ahead < -100000000LL) { /* over 100 ms behind (loaded host): run slower, never race */
                wall0 = wall_ns();
                cyc0 = avr->cycle;
            }
        }
        struct pollfd fds[2] = {{0, POLLIN, 0}, {master, POLLIN, 0}};
        if (poll(fds, master >= 0 ? 2 : 1, 0) > 0) {
            if (fds[0].revents & (POLLIN | POLLHUP)) {
                char c;
                ssize_t n;
                while ((n = read(0, &c, 1)) == 1) {
                    if (c == '\n') {
                        cmd[cmd_len] = 0;
                        cmd_len = 0;
                        if (!control(cmd)) {
                            fflush(stdout);
                            unplug();
                            return 0;
                        }
                        break;
                    }
                    if (cmd_len < sizeof cmd - 1) cmd[cmd_len++] = c;
                }
                if (n == 0) { /* the test that started us is gone */
                    unplug();
                    return 0;
                }
            }
            if (master >= 0 && (fds[1].revents & POLLIN)) {
                unsigned char buf[512];
                ssize_t n = read(master, buf, sizeof buf);
                if (n > 0) queue_host_bytes(buf, n);
            }
        }
        fflush(stdout);
    }
}
