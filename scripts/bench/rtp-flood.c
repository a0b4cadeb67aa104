/* Load generator for the agent benchmark (scripts/bench-agent.sh): RTP streams from many
 * loopback addresses at a steady packet rate, written in batches with sendmmsg(2) on a raw
 * socket (IP_HDRINCL), so one core reaches a few hundred thousand packets/s and every stream
 * can have its own source address. Only loopback addresses are used: sources 127.16.0.0 and
 * up, destination 127.0.0.1.
 *
 *   rtp-flood [options]
 *     --streams N      concurrent streams (default 10000)
 *     --rate PPS       packets per second over all streams (default 100000)
 *     --seconds S      duration (default 60)
 *     --per-peer K     streams per source address, i.e. per peer (default 1)
 *     --lifetime L     seconds a stream lives before its slot starts a new stream from a new
 *                      address and SSRC (churn: calls ending and starting); 0 = forever
 *     --generation G   first identity generation (a second churn wave uses new addresses)
 *     --dport P        destination UDP port (default 41000)
 *
 * Streams are served round robin, so each gets RATE / STREAMS packets/s; the RTP timestamp
 * advances by the 8 kHz clock over that interval, so jitter stays near 0. Prints one line:
 * "sent SECONDS DISTINCT_STREAMS" (packets the kernel accepted, the time taken, the number of
 * distinct streams started). A UDP socket bound on the destination port with a tiny receive
 * buffer swallows the packets, so the kernel answers none with an ICMP port unreachable
 * (which loopback does not rate-limit). */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/ip.h>
#include <netinet/udp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum { BATCH = 512, PAYLOAD = 160, RTP_HEADER = 12 };
enum { PACKET = sizeof(struct iphdr) + sizeof(struct udphdr) + RTP_HEADER + PAYLOAD };

static uint64_t now_ns(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec;
}

static long option(int argc, char **argv, const char *name, long fallback) {
  for (int i = 1; i + 1 < argc; i++)
    if (strcmp(argv[i], name) == 0) return strtol(argv[i + 1], NULL, 10);
  return fallback;
}

int main(int argc, char **argv) {
  long streams = option(argc, argv, "--streams", 10000);
  long rate = option(argc, argv, "--rate", 100000);
  long seconds = option(argc, argv, "--seconds", 60);
  long per_peer = option(argc, argv, "--per-peer", 1);
  long lifetime = option(argc, argv, "--lifetime", 0);
  long generation0 = option(argc, argv, "--generation", 0);
  long dport = option(argc, argv, "--dport", 41000);
  if (streams < 1 || rate < 1 || seconds < 1 || per_peer < 1 || lifetime < 0 || dport < 1 ||
      dport > 65535) {
    fprintf(stderr, "rtp-flood: bad option (see the comment at the top of rtp-flood.c)\n");
    return 2;
  }
  int sink = socket(AF_INET, SOCK_DGRAM, 0);
  int tiny = 1;
  setsockopt(sink, SOL_SOCKET, SO_RCVBUF, &tiny, sizeof tiny);
  struct sockaddr_in destination = {.sin_family = AF_INET, .sin_port = htons((uint16_t)dport)};
  destination.sin_addr.s_addr = htonl(0x7F000001);
  if (bind(sink, (struct sockaddr *)&destination, sizeof destination) != 0) {
    perror("rtp-flood: bind the swallowing socket");
    return 1;
  }
  int raw = socket(AF_INET, SOCK_RAW, IPPROTO_RAW);
  if (raw < 0) {
    perror("rtp-flood: raw socket (needs root)");
    return 1;
  }
  int big = 8 << 20;
  setsockopt(raw, SOL_SOCKET, SO_SNDBUF, &big, sizeof big);

  /* Per stream: sequence number, RTP timestamp and the generation it is in. */
  uint16_t *sequence = calloc((size_t)streams, sizeof *sequence);
  uint32_t *timestamp = calloc((size_t)streams, sizeof *timestamp);
  long *generation = calloc((size_t)streams, sizeof *generation);
  static uint8_t packets[BATCH][PACKET];
  static struct iovec vectors[BATCH];
  static struct mmsghdr messages[BATCH];
  for (int i = 0; i < BATCH; i++) {
    vectors[i].iov_base = packets[i];
    vectors[i].iov_len = PACKET;
    messages[i].msg_hdr.msg_name = &destination;
    messages[i].msg_hdr.msg_namelen = sizeof destination;
    messages[i].msg_hdr.msg_iov = &vectors[i];
    messages[i].msg_hdr.msg_iovlen = 1;
    memset(packets[i] + PACKET - PAYLOAD, 0xD5, PAYLOAD); /* PCMU silence */
  }
  for (long s = 0; s < streams; s++) generation[s] = -1;
  /* 8 kHz clock ticks between two packets of one stream (RFC 3551 PCMU). */
  uint32_t step = (uint32_t)((8000.0 * (double)streams) / (double)rate + 0.5);
  uint64_t start = now_ns(), total = (uint64_t)rate * (uint64_t)seconds;
  uint64_t sent = 0, distinct = 0, next = 0;
  long cursor = 0;
  while (next < total) {
    /* Packets due by now (rate * elapsed), in batches; then sleep to the next millisecond. */
    uint64_t elapsed = now_ns() - start;
    uint64_t due = (uint64_t)((double)rate * (double)elapsed / 1e9);
    if (due > total) due = total;
    if (due <= next) {
      struct timespec pause = {0, 1000000};
      nanosleep(&pause, NULL);
      continue;
    }
    while (next < due) {
      int count = (int)((due - next) < BATCH ? (due - next) : BATCH);
      double at = (double)elapsed / 1e9;
      for (int i = 0; i < count; i++) {
        long s = cursor;
        cursor = (cursor + 1) % streams;
        /* Slot s restarts every LIFETIME seconds, staggered over the slots. */
        long g = generation0;
        if (lifetime > 0) g += (long)((at + (double)lifetime * (double)s / (double)streams) / (double)lifetime);
        if (g != generation[s]) {
          generation[s] = g;
          sequence[s] = (uint16_t)(s * 7919);
          timestamp[s] = (uint32_t)s * 104729u;
          distinct++;
        }
        uint64_t identity = (uint64_t)g * (uint64_t)streams + (uint64_t)s;
        uint32_t peer = (uint32_t)(identity / (uint64_t)per_peer);
        uint8_t *p = packets[i];
        struct iphdr *ip = (struct iphdr *)p;
        memset(ip, 0, sizeof *ip);
        ip->version = 4;
        ip->ihl = 5;
        ip->ttl = 64;
        ip->protocol = IPPROTO_UDP;
        ip->tot_len = htons(PACKET);
        ip->saddr = htonl((127u << 24) + (16u << 16) + peer);
        ip->daddr = destination.sin_addr.s_addr;
        struct udphdr *udp = (struct udphdr *)(p + sizeof *ip);
        udp->source = htons((uint16_t)(30000 + identity % (uint64_t)per_peer));
        udp->dest = htons((uint16_t)dport);
        udp->len = htons(PACKET - sizeof *ip);
        udp->check = 0; /* optional in IPv4 (RFC 768) */
        uint8_t *rtp = p + sizeof *ip + sizeof *udp;
        rtp[0] = 0x80;
        rtp[1] = 0; /* PCMU */
        uint16_t seq = htons(sequence[s]++);
        uint32_t ts = htonl(timestamp[s]);
        timestamp[s] += step;
        uint32_t ssrc = htonl(0x10AD0000u ^ (uint32_t)identity);
        memcpy(rtp + 2, &seq, 2);
        memcpy(rtp + 4, &ts, 4);
        memcpy(rtp + 8, &ssrc, 4);
      }
      int done = 0;
      while (done < count) {
        int n = sendmmsg(raw, messages + done, (unsigned)(count - done), 0);
        if (n < 0) {
          if (errno == EINTR) continue;
          if (errno == ENOBUFS || errno == EAGAIN) break; /* counted as not sent */
          perror("rtp-flood: sendmmsg");
          return 1;
        }
        done += n;
      }
      sent += (uint64_t)done;
      next += (uint64_t)count;
    }
  }
  double took = (double)(now_ns() - start) / 1e9;
  printf("%llu %.2f %llu\n", (unsigned long long)sent, took, (unsigned long long)distinct);
  return 0;
}
