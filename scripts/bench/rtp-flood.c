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
 *     --two-way 1      a two-way call per stream: the local side (127.0.0.1, port P) sends a
 *                      stream back to each peer, half the packets each way, and both sides
 *                      send RTCP every 5 s (RFC 3550 6.2) on the RTP port + 1 (peers' RTP
 *                      ports even): a sender report with one report block about the other
 *                      side's stream, its LSR and DLSR echoing the other side's last SR
 *                      (RFC 3550 6.4.1: the round trip can be computed), and an SDES CNAME
 *                      (RFC 3550 6.5.1) in the same compound packet. An RTCP packet takes the
 *                      place of that round's media packet of its direction (no sequence
 *                      number used: no loss).
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
/* SR with one report block (RFC 3550 6.4.1: 28 + 24 bytes) and SDES with one CNAME chunk
 * ("nq": 4 + 12 bytes with the end item and padding). */
enum { SR_BYTES = 52, SDES_BYTES = 16, RTCP_BYTES = SR_BYTES + SDES_BYTES };
enum { RTCP_INTERVAL_NS = 5000000000ull };

static void put16(uint8_t *p, uint16_t v) { v = htons(v); memcpy(p, &v, 2); }
static void put32(uint8_t *p, uint32_t v) { v = htonl(v); memcpy(p, &v, 4); }

/* NTP time (RFC 5905) of the monotonic clock: only differences matter here. */
static uint64_t ntp_of(uint64_t ns) {
  return ((ns / 1000000000ull) << 32) | (((ns % 1000000000ull) << 32) / 1000000000ull);
}

/* One side of a stream's call: what its RTP and RTCP need. */
struct side {
  uint16_t sequence;
  uint32_t timestamp;
  uint32_t packets, octets;
  uint64_t next_rtcp_ns;
  /* The middle 32 bits of the other side's last SR and when it came (RFC 3550 6.4.1). */
  uint32_t last_sr_middle;
  uint64_t last_sr_ns;
};

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
  long two_way = option(argc, argv, "--two-way", 0);
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
  if (two_way) {
    /* The RTCP port, and the peers' RTP and RTCP ports on every loopback address. */
    for (long port = 0; port < 1 + 2 * per_peer; port++) {
      struct sockaddr_in also = {.sin_family = AF_INET};
      also.sin_port = htons((uint16_t)(port == 0 ? dport + 1 : 30000 + port - 1));
      also.sin_addr.s_addr = port == 0 ? htonl(0x7F000001) : htonl(INADDR_ANY);
      int swallow = socket(AF_INET, SOCK_DGRAM, 0);
      setsockopt(swallow, SOL_SOCKET, SO_RCVBUF, &tiny, sizeof tiny);
      if (bind(swallow, (struct sockaddr *)&also, sizeof also) != 0) {
        perror("rtp-flood: bind a swallowing socket");
        return 1;
      }
    }
  }
  int raw = socket(AF_INET, SOCK_RAW, IPPROTO_RAW);
  if (raw < 0) {
    perror("rtp-flood: raw socket (needs root)");
    return 1;
  }
  int big = 8 << 20;
  setsockopt(raw, SOL_SOCKET, SO_SNDBUF, &big, sizeof big);

  /* Per stream: each side (0: the peer, 1: the local side) and the generation it is in, and
   * which side sends next. */
  struct side *sides = calloc((size_t)streams * 2, sizeof *sides);
  long *generation = calloc((size_t)streams, sizeof *generation);
  uint8_t *turn = calloc((size_t)streams, 1);
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
  }
  for (long s = 0; s < streams; s++) generation[s] = -1;
  /* 8 kHz clock ticks between two packets of one stream (RFC 3551 PCMU). */
  uint32_t step = (uint32_t)((8000.0 * (double)streams * (two_way ? 2 : 1)) / (double)rate + 0.5);
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
          for (int side = 0; side < 2; side++) {
            struct side *x = &sides[2 * s + side];
            memset(x, 0, sizeof *x);
            x->sequence = (uint16_t)(s * 7919 + side * 30011);
            x->timestamp = (uint32_t)s * 104729u + (uint32_t)side * 7u;
            /* Staggered over the interval, so RTCP is spread evenly. */
            x->next_rtcp_ns = elapsed + (uint64_t)(RTCP_INTERVAL_NS * (uint64_t)s / (uint64_t)streams);
          }
          turn[s] = 0;
          distinct++;
        }
        uint64_t identity = (uint64_t)g * (uint64_t)streams + (uint64_t)s;
        uint32_t peer = htonl((127u << 24) + (16u << 16) + (uint32_t)(identity / (uint64_t)per_peer));
        uint16_t peer_port = (uint16_t)(30000 + (two_way ? 2 : 1) * (identity % (uint64_t)per_peer));
        int local = two_way ? turn[s] : 0;
        if (two_way) turn[s] ^= 1;
        struct side *me = &sides[2 * s + local], *other = &sides[2 * s + !local];
        uint32_t my_ssrc = (local ? 0x20AD0000u : 0x10AD0000u) ^ (uint32_t)identity;
        uint32_t other_ssrc = (local ? 0x10AD0000u : 0x20AD0000u) ^ (uint32_t)identity;
        uint64_t now = start + elapsed;
        int rtcp = two_way && now - start >= me->next_rtcp_ns;
        size_t size = sizeof(struct iphdr) + sizeof(struct udphdr) + (rtcp ? RTCP_BYTES : RTP_HEADER + PAYLOAD);
        uint8_t *p = packets[i];
        vectors[i].iov_len = size;
        struct iphdr *ip = (struct iphdr *)p;
        memset(ip, 0, sizeof *ip);
        ip->version = 4;
        ip->ihl = 5;
        ip->ttl = 64;
        ip->protocol = IPPROTO_UDP;
        ip->tot_len = htons((uint16_t)size);
        ip->saddr = local ? destination.sin_addr.s_addr : peer;
        ip->daddr = local ? peer : destination.sin_addr.s_addr;
        struct udphdr *udp = (struct udphdr *)(p + sizeof *ip);
        uint16_t local_port = (uint16_t)dport;
        udp->source = htons((uint16_t)((local ? local_port : peer_port) + rtcp));
        udp->dest = htons((uint16_t)((local ? peer_port : local_port) + rtcp));
        udp->len = htons((uint16_t)(size - sizeof *ip));
        udp->check = 0; /* optional in IPv4 (RFC 768) */
        uint8_t *body = p + sizeof *ip + sizeof *udp;
        if (rtcp) {
          me->next_rtcp_ns += RTCP_INTERVAL_NS;
          uint64_t ntp = ntp_of(now);
          body[0] = 0x81; /* V=2, one report block */
          body[1] = 200;  /* SR */
          put16(body + 2, SR_BYTES / 4 - 1);
          put32(body + 4, my_ssrc);
          put32(body + 8, (uint32_t)(ntp >> 32));
          put32(body + 12, (uint32_t)ntp);
          put32(body + 16, me->timestamp);
          put32(body + 20, me->packets);
          put32(body + 24, me->octets);
          uint8_t *block = body + 28;
          put32(block, other_ssrc);
          put32(block + 4, 0); /* fraction and cumulative lost: none */
          put32(block + 8, (uint32_t)(uint16_t)(other->sequence - 1));
          put32(block + 12, 0); /* interarrival jitter */
          uint32_t delay = me->last_sr_ns ? (uint32_t)(((now - me->last_sr_ns) << 16) / 1000000000ull) : 0;
          put32(block + 16, me->last_sr_middle);
          put32(block + 20, me->last_sr_middle ? delay : 0);
          /* The other side receives this SR now (loopback): its next report echoes it. */
          other->last_sr_middle = (uint32_t)(ntp >> 16);
          other->last_sr_ns = now;
          uint8_t *sdes = body + SR_BYTES;
          sdes[0] = 0x81; /* V=2, one chunk */
          sdes[1] = 202;  /* SDES */
          put16(sdes + 2, SDES_BYTES / 4 - 1);
          put32(sdes + 4, my_ssrc);
          sdes[8] = 1; /* CNAME */
          sdes[9] = 2;
          sdes[10] = 'n';
          sdes[11] = 'q';
          memset(sdes + 12, 0, 4); /* the end item and padding */
        } else {
          body[0] = 0x80;
          body[1] = 0; /* PCMU */
          put16(body + 2, me->sequence++);
          put32(body + 4, me->timestamp);
          put32(body + 8, my_ssrc);
          memset(body + RTP_HEADER, 0xD5, PAYLOAD); /* PCMU silence */
          me->packets++;
          me->octets += PAYLOAD;
        }
        me->timestamp += step;
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
