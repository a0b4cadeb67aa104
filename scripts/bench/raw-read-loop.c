/* The baseline of the benchmark: the plainest libpcap read loop over a capture file, touching
 * the last byte of each frame so the read cannot be skipped. Prints the packet count.
 *
 *   raw-read-loop FILE               pcap_open_offline: stdio's default 4 KiB buffer
 *   raw-read-loop FILE BUFFER_BYTES  pcap_fopen_offline on a FILE given that stdio buffer, as
 *                                    netquality's reader does (256 KiB, starting half a page
 *                                    into its allocation: see PcapFileReader.swift) */
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  char error[PCAP_ERRBUF_SIZE];
  if (argc != 2 && argc != 3) {
    fprintf(stderr, "usage: %s FILE [BUFFER_BYTES]\n", argv[0]);
    return 2;
  }
  pcap_t *handle;
  if (argc == 2) {
    handle = pcap_open_offline_with_tstamp_precision(argv[1], PCAP_TSTAMP_PRECISION_NANO, error);
  } else {
    size_t size = strtoul(argv[2], NULL, 10);
    FILE *file = fopen(argv[1], "rb");
    if (!file || size == 0) {
      perror(argv[1]);
      return 1;
    }
    char *allocation = malloc(size + 4096);
    if (!allocation) return 1;
    setvbuf(file, allocation + 2048, _IOFBF, size);
    handle = pcap_fopen_offline_with_tstamp_precision(file, PCAP_TSTAMP_PRECISION_NANO, error);
  }
  if (!handle) {
    fprintf(stderr, "%s\n", error);
    return 1;
  }
  struct pcap_pkthdr *header;
  const u_char *data;
  unsigned long packets = 0, checksum = 0;
  while (pcap_next_ex(handle, &header, &data) == 1) {
    packets++;
    checksum += header->caplen ? data[header->caplen - 1] : 0;
  }
  printf("%lu packets (checksum %lu)\n", packets, checksum);
  pcap_close(handle);
  return 0;
}
