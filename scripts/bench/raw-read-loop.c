/* The baseline of the benchmark: the plainest libpcap read loop over a capture file, touching
 * the last byte of each frame so the read cannot be skipped. Prints the packet count. */
#include <pcap/pcap.h>
#include <stdio.h>

int main(int argc, char **argv) {
  char error[PCAP_ERRBUF_SIZE];
  if (argc != 2) {
    fprintf(stderr, "usage: %s FILE\n", argv[0]);
    return 2;
  }
  pcap_t *handle = pcap_open_offline_with_tstamp_precision(argv[1], PCAP_TSTAMP_PRECISION_NANO, error);
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
