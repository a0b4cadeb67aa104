/// The capture: read once at start (the sockets are opened then).
enum CaptureKeys {
  static let all: [ConfigurationKey] = [
    .value("interfaces", \.interfaces, .restart) { walker, node, name in
      walker.list(node, name).enumerated().compactMap { walker.string($1, "\(name)[\($0)]") }
    },
    .string("bpf_filter", \.bpfFilter, .restart),
    // 64 bytes: an Ethernet, IPv6 and UDP header and an RTP header's first bytes; 256 KiB:
    // libpcap's own maximum (MAXIMUM_SNAPLEN).
    .integer("snaplen", \.snapLength, in: 64...262_144, .restart),
    .integer("buffer_size_mb", \.bufferMegabytes, in: 1...2048, .restart),
  ]
}
