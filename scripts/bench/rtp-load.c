/* Load for the agent benchmark: STREAMS G.711 streams of 50 packets/s each for SECONDS, every
 * stream from its own loopback address (127.1.x.y), all to 127.0.0.1:DPORT, so the agent sees
 * STREAMS peers and STREAMS streams. Only loopback addresses are used. Prints what it sent.
 *
 *   rtp-load STREAMS SECONDS DPORT */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: %s STREAMS SECONDS DPORT\n", argv[0]);
    return 2;
  }
  int streams = atoi(argv[1]), seconds = atoi(argv[2]), dport = atoi(argv[3]);
  int *sockets = calloc(streams, sizeof(int));
  for (int i = 0; i < streams; i++) {
    sockets[i] = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in source = {.sin_family = AF_INET, .sin_port = htons(30000)};
    source.sin_addr.s_addr = htonl((127u << 24) | (1u << 16) | ((unsigned)(i / 250) << 8) | (unsigned)(i % 250 + 1));
    if (bind(sockets[i], (struct sockaddr *)&source, sizeof source) != 0) {
      perror("bind");
      return 1;
    }
  }
  struct sockaddr_in destination = {.sin_family = AF_INET, .sin_port = htons(dport)};
  destination.sin_addr.s_addr = htonl(0x7F000001);
  uint8_t packet[172];
  memset(packet, 0xD5, sizeof packet);
  struct timespec start, now;
  clock_gettime(CLOCK_MONOTONIC, &start);
  unsigned long sent = 0;
  for (int tick = 0; tick < seconds * 50; tick++) {
    for (int i = 0; i < streams; i++) {
      packet[0] = 0x80;
      packet[1] = 0;  /* PCMU */
      uint16_t sequence = htons((uint16_t)tick);
      uint32_t timestamp = htonl((uint32_t)tick * 160), ssrc = htonl(0x10AD0000u + (uint32_t)i);
      memcpy(packet + 2, &sequence, 2);
      memcpy(packet + 4, &timestamp, 4);
      memcpy(packet + 8, &ssrc, 4);
      if (sendto(sockets[i], packet, sizeof packet, 0, (struct sockaddr *)&destination, sizeof destination) > 0) sent++;
    }
    /* Pace to 20 ms per round. */
    long target_ns = (long)(tick + 1) * 20000000L;
    clock_gettime(CLOCK_MONOTONIC, &now);
    long elapsed_ns = (now.tv_sec - start.tv_sec) * 1000000000L + (now.tv_nsec - start.tv_nsec);
    if (target_ns > elapsed_ns) {
      struct timespec pause = {.tv_sec = (target_ns - elapsed_ns) / 1000000000L, .tv_nsec = (target_ns - elapsed_ns) % 1000000000L};
      nanosleep(&pause, NULL);
    }
  }
  clock_gettime(CLOCK_MONOTONIC, &now);
  double took = (now.tv_sec - start.tv_sec) + (now.tv_nsec - start.tv_nsec) / 1e9;
  printf("%lu %.2f\n", sent, took);
  return 0;
}
