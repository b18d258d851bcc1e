/* relay: the user-space link between two network namespaces (issue 18).
 *
 * A TUN device in each namespace; every IP packet read from one is written to the other after the
 * direction's serialization time (its IP length x 8 / rate, FIFO behind the packets before it) and
 * one-way delay, as a point-to-point link with an unbounded queue. Optionally a seeded share of the
 * packets is dropped before the link (independently, xorshift64*). No netem is needed.
 *
 *   relay CLIENT_NETNS SERVER_NETNS TUN_NAME UP_DELAY_US UP_RATE_BPS DOWN_DELAY_US DOWN_RATE_BPS
 *         [LOSS SEED]
 *
 * "up" is client -> server. The relay enters each namespace (setns on /run/netns/NAME) to create its
 * TUN device there (IFF_TUN | IFF_NO_PI: raw IP packets), prints "ready" and forwards until SIGTERM or
 * SIGINT, then prints one JSON line of statistics: packets and bytes per direction, drops, and its own
 * delay: how late each packet was written against its due time (sleep wake-up and the write), as
 * median, p99 and max in microseconds, from a histogram of 1 us bins up to 100 ms.
 *
 * Written in C because a packet's lateness is the relay's own error on the path: poll, clock_gettime and
 * write are each a system call, the loop allocates nothing per packet beyond one malloc, and the process
 * runs SCHED_FIFO when allowed with 1 ns timer slack; it sleeps until RELAY_SPIN_US (default 60) before a
 * packet is due and polls without sleeping from there, so a packet leaves within microseconds of its time; a Python loop adds its interpreter time (tens of microseconds a packet) to every packet
 * and its garbage collector's pauses to some, which at 100 Mb/s (120 us a full packet) is a queue of
 * its own.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#define HIST_US 100000
#define MAXPKT 65536

typedef struct pkt {
    int64_t due;
    int len;
    struct pkt *next;
    unsigned char data[];
} pkt;

typedef struct {
    int in_fd, out_fd;
    int64_t delay_ns;
    double ns_per_byte; /* 8e9 / rate */
    int64_t link_free;  /* when the link finishes serializing the last queued packet */
    pkt *head, *tail;
    uint64_t packets, bytes, dropped, queued_max, queued;
} dir_t;

static volatile sig_atomic_t stop;
static uint64_t hist[HIST_US + 1];
static uint64_t late_n, late_over;
static int64_t late_max;
static uint64_t rng;

static void on_signal(int sig) { (void)sig; stop = 1; }

static int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static double uniform(void) {
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return (double)((rng * 2685821657736338717ULL) >> 11) / 9007199254740992.0;
}

static int open_tun(const char *netns, const char *name) {
    char path[256];
    snprintf(path, sizeof path, "/run/netns/%s", netns);
    int nsfd = open(path, O_RDONLY | O_CLOEXEC);
    if (nsfd < 0) { fprintf(stderr, "relay: cannot open %s: %s\n", path, strerror(errno)); exit(2); }
    if (setns(nsfd, CLONE_NEWNET) < 0) { fprintf(stderr, "relay: setns %s: %s\n", netns, strerror(errno)); exit(2); }
    close(nsfd);
    int fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) { fprintf(stderr, "relay: cannot open /dev/net/tun: %s\n", strerror(errno)); exit(2); }
    struct ifreq ifr;
    memset(&ifr, 0, sizeof ifr);
    ifr.ifr_flags = IFF_TUN | IFF_NO_PI;
    strncpy(ifr.ifr_name, name, IFNAMSIZ - 1);
    if (ioctl(fd, TUNSETIFF, &ifr) < 0) {
        fprintf(stderr, "relay: TUNSETIFF %s in %s: %s\n", name, netns, strerror(errno));
        exit(2);
    }
    return fd;
}

static void drain(dir_t *d, unsigned char *buf, int64_t loss_p_set, double loss) {
    for (;;) {
        ssize_t n = read(d->in_fd, buf, MAXPKT);
        if (n < 0) {
            if (errno == EAGAIN || errno == EINTR) return;
            perror("relay: read");
            exit(3);
        }
        if (n == 0) return;
        int64_t t = now_ns();
        if (loss_p_set && uniform() < loss) { d->dropped++; continue; }
        pkt *p = malloc(sizeof(pkt) + (size_t)n);
        if (!p) { fprintf(stderr, "relay: out of memory\n"); exit(3); }
        memcpy(p->data, buf, (size_t)n);
        p->len = (int)n;
        p->next = NULL;
        int64_t start = t > d->link_free ? t : d->link_free;
        d->link_free = start + (int64_t)((double)n * d->ns_per_byte + 0.5);
        p->due = d->link_free + d->delay_ns;
        if (d->tail) d->tail->next = p; else d->head = p;
        d->tail = p;
        d->packets++;
        d->bytes += (uint64_t)n;
        if (++d->queued > d->queued_max) d->queued_max = d->queued;
    }
}

static void deliver(dir_t *d, int64_t t) {
    while (d->head && d->head->due <= t) {
        pkt *p = d->head;
        if (write(d->out_fd, p->data, (size_t)p->len) < 0 && errno != EAGAIN) perror("relay: write");
        int64_t late = now_ns() - p->due;
        if (late < 0) late = 0;
        int64_t us = late / 1000;
        if (us > HIST_US) { late_over++; us = HIST_US; }
        hist[us]++;
        late_n++;
        if (late > late_max) late_max = late;
        d->head = p->next;
        if (!d->head) d->tail = NULL;
        d->queued--;
        free(p);
        t = now_ns();
    }
}

static double quantile_us(double q) {
    if (!late_n) return 0.0;
    uint64_t want = (uint64_t)(q * (double)(late_n - 1)) + 1, seen = 0;
    for (int i = 0; i <= HIST_US; i++) {
        seen += hist[i];
        if (seen >= want) return (double)i + 0.5;
    }
    return (double)HIST_US;
}

int main(int argc, char **argv) {
    if (argc != 8 && argc != 10) {
        fprintf(stderr, "usage: relay CLIENT_NETNS SERVER_NETNS TUN_NAME UP_DELAY_US UP_RATE_BPS "
                        "DOWN_DELAY_US DOWN_RATE_BPS [LOSS SEED]\n");
        return 2;
    }
    double up_delay = atof(argv[4]), up_rate = atof(argv[5]);
    double down_delay = atof(argv[6]), down_rate = atof(argv[7]);
    double loss = argc == 10 ? atof(argv[8]) : 0.0;
    rng = argc == 10 ? strtoull(argv[9], NULL, 10) * 0x9E3779B97F4A7C15ULL + 1 : 1;
    if (up_rate <= 0 || down_rate <= 0 || up_delay < 0 || down_delay < 0 || loss < 0 || loss >= 1) {
        fprintf(stderr, "relay: delays must be >= 0, rates > 0, loss in [0, 1)\n");
        return 2;
    }
    int cfd = open_tun(argv[1], argv[3]);
    int sfd = open_tun(argv[2], argv[3]);
    prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
    struct sched_param sp = {.sched_priority = 30};
    int rt = sched_setscheduler(0, SCHED_FIFO, &sp) == 0;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    dir_t dirs[2] = {
        {.in_fd = cfd, .out_fd = sfd, .delay_ns = (int64_t)(up_delay * 1000), .ns_per_byte = 8e9 / up_rate},
        {.in_fd = sfd, .out_fd = cfd, .delay_ns = (int64_t)(down_delay * 1000), .ns_per_byte = 8e9 / down_rate},
    };
    static unsigned char buf[MAXPKT];
    const char *spin_env = getenv("RELAY_SPIN_US");
    int64_t spin_ns = (int64_t)((spin_env ? atof(spin_env) : 60.0) * 1000);
    printf("ready\n");
    fflush(stdout);
    struct pollfd pf[2] = {{.fd = cfd, .events = POLLIN}, {.fd = sfd, .events = POLLIN}};
    while (!stop) {
        int64_t t = now_ns(), next = -1;
        for (int i = 0; i < 2; i++)
            if (dirs[i].head && (next < 0 || dirs[i].head->due < next)) next = dirs[i].head->due;
        struct timespec ts, *tsp = NULL;
        if (next >= 0) {
            /* sleep until spin_ns before the due time, then poll without sleeping (a sleep's wake-up is
             * tens of microseconds late here; spinning the last stretch takes it out of the path) */
            int64_t wait = next - t - spin_ns;
            if (wait < 0) wait = 0;
            ts.tv_sec = wait / 1000000000LL;
            ts.tv_nsec = wait % 1000000000LL;
            tsp = &ts;
        }
        int r = ppoll(pf, 2, tsp, NULL);
        if (r < 0 && errno != EINTR) { perror("relay: ppoll"); return 3; }
        if (r > 0) {
            if (pf[0].revents & POLLIN) drain(&dirs[0], buf, argc == 10, loss);
            if (pf[1].revents & POLLIN) drain(&dirs[1], buf, argc == 10, loss);
        }
        t = now_ns();
        deliver(&dirs[0], t);
        deliver(&dirs[1], now_ns());
    }
    printf("{\"realtime\": %s, \"up_packets\": %llu, \"up_bytes\": %llu, \"up_dropped\": %llu, "
           "\"up_queue_max\": %llu, \"down_packets\": %llu, \"down_bytes\": %llu, \"down_dropped\": %llu, "
           "\"down_queue_max\": %llu, \"late_packets\": %llu, \"late_median_us\": %.1f, \"late_p99_us\": %.1f, "
           "\"late_max_us\": %.1f, \"late_over_100ms\": %llu}\n",
           rt ? "true" : "false", (unsigned long long)dirs[0].packets, (unsigned long long)dirs[0].bytes,
           (unsigned long long)dirs[0].dropped, (unsigned long long)dirs[0].queued_max,
           (unsigned long long)dirs[1].packets, (unsigned long long)dirs[1].bytes,
           (unsigned long long)dirs[1].dropped, (unsigned long long)dirs[1].queued_max,
           (unsigned long long)late_n, quantile_us(0.5), quantile_us(0.99), (double)late_max / 1000.0,
           (unsigned long long)late_over);
    return 0;
}
