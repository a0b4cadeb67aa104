import NetQualityCore

extension PacketBuilder {
  /// An Ethernet frame of an IPv4 TCP segment (RFC 9293 section 3.1: a 20-byte header with
  /// ACK and PSH set) carrying `payload`, for SIP over TCP.
  public static func tcpFrame(
    source: Endpoint, destination: Endpoint, sequence: UInt32, payload: [UInt8]
  ) -> [UInt8] {
    var tcp: [UInt8] = []
    tcp.appendBigEndian(source.port)
    tcp.appendBigEndian(destination.port)
    tcp.appendBigEndian(sequence)
    tcp.appendBigEndian(UInt32(1))  // acknowledgment number
    tcp.append(0x50)  // data offset 5 words
    tcp.append(0x18)  // PSH, ACK
    tcp.appendBigEndian(UInt16(65_535))  // window
    tcp.appendBigEndian(UInt16(0))  // checksum: not checked by the decoder
    tcp.appendBigEndian(UInt16(0))  // urgent pointer
    tcp.append(contentsOf: payload)
    var frame: [UInt8] = [0x02, 0, 0, 0, 0, 0x02, 0x02, 0, 0, 0, 0, 0x01, 0x08, 0x00]
    frame.append(0x45)
    frame.append(0)
    frame.appendBigEndian(UInt16(truncatingIfNeeded: 20 + tcp.count))
    frame.appendBigEndian(UInt16(0x1234))
    frame.appendBigEndian(UInt16(0x4000))  // don't fragment
    frame.append(64)
    frame.append(6)
    frame.appendBigEndian(UInt16(0))
    frame.appendBigEndian(source.address.ipv4Value ?? 0)
    frame.appendBigEndian(destination.address.ipv4Value ?? 0)
    frame.append(contentsOf: tcp)
    return frame
  }
}
