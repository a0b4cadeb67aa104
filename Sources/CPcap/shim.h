#ifndef NETQUALITY_CPCAP_SHIM_H
#define NETQUALITY_CPCAP_SHIM_H
#include <pcap/pcap.h>
#endif
