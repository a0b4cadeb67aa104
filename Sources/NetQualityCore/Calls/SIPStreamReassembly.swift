/// SIP over TCP (RFC 3261 section 18.3): messages framed by Content-Length in a byte stream, so
/// a message may span segments and a segment may hold several. Most SIP messages fit one
/// segment and are read in place; only a message cut by a segment boundary is kept, in a
/// buffer of its connection, until the segments that complete it arrive in order.
///
/// Bounded: at most `maxConnections` connections hold a partial message (the oldest is let go
/// for a new one), each at most `maxBufferedBytes`; a gap in the sequence numbers (a segment
/// the capture missed) drops the partial message, and reading resumes at the next segment that
/// starts a message.
struct SIPStreamReassembly: Sendable {
  static let maxConnections = 1024
  static let maxBufferedBytes = SIPMessage.Limits.headerBytes + SIPMessage.Limits.bodyBytes

  struct Connection: Sendable {
    var nextSequence: UInt32
    var buffer: [UInt8]
    var lastTime: CaptureTime
  }

  struct Key: Hashable, Sendable {
    var source: Endpoint
    var destination: Endpoint
  }

  var connections: [Key: Connection] = [:]

  /// The messages completed by a segment, in order, and the reasons for what could not be read.
  struct Output {
    var messages: [SIPMessage] = []
    var malformed: [SIPMalformedReason] = []
    /// Messages that needed more than one segment.
    var reassembled = 0
  }

  /// One segment with payload `payload` and sequence number `sequence` from `source` to
  /// `destination`.
  mutating func segment(
    _ payload: UnsafeRawBufferPointer, sequence: UInt32, source: Endpoint,
    destination: Endpoint, at time: CaptureTime
  ) -> Output {
    var output = Output()
    guard !payload.isEmpty else { return output }
    let key = Key(source: source, destination: destination)
    let next = sequence &+ UInt32(truncatingIfNeeded: payload.count)
    if var connection = connections.removeValue(forKey: key) {
      // The segment's place against what was read: the next bytes, a retransmission (all
      // before them, or overlapping them), or a gap.
      let offset = Int(Int32(bitPattern: connection.nextSequence &- sequence))
      if offset >= payload.count {
        connections[key] = connection  // a retransmission of what was read
        return output
      }
      if offset >= 0 {
        connection.buffer.append(contentsOf: payload[offset...])
        connection.nextSequence = next
        connection.lastTime = time
        read(&connection.buffer, into: &output, continued: true)
        keep(connection, for: key, into: &output)
        return output
      }
      // A gap: the partial message cannot be completed.
      output.malformed.append(.reassembly)
    }
    // No partial message waiting: a segment that starts a message is read in place.
    guard SIPMessage.looksLikeSIP(payload) || Self.startsWithKeepAlive(payload) else {
      return output
    }
    let (consumed, partial) = Self.readMessages(payload, into: &output, continued: false)
    if partial {
      let rest = Array(UnsafeRawBufferPointer(rebasing: payload[consumed...]))
      keep(Connection(nextSequence: next, buffer: rest, lastTime: time), for: key, into: &output)
    }
    return output
  }

  /// Reads the complete messages at the front of `buffer`, leaving a partial one.
  private func read(_ buffer: inout [UInt8], into output: inout Output, continued: Bool) {
    let (consumed, partial) = buffer.withUnsafeBytes { bytes in
      Self.readMessages(bytes, into: &output, continued: continued)
    }
    if partial {
      buffer.removeFirst(consumed)
    } else {
      buffer.removeAll()
    }
  }

  /// The complete messages at the front of `bytes` (keep-alives between them skipped) into
  /// `output`: the bytes they took, and whether a partial message follows them. Bytes that are
  /// not SIP, or a malformed message (counted), end the reading: the rest cannot be framed.
  static func readMessages(
    _ bytes: UnsafeRawBufferPointer, into output: inout Output, continued: Bool
  ) -> (consumed: Int, partial: Bool) {
    var consumed = 0
    while consumed < bytes.count {
      let rest = UnsafeRawBufferPointer(rebasing: bytes[consumed...])
      let skipped = keepAliveLength(rest)
      if skipped > 0 {
        consumed += skipped
        continue
      }
      switch SIPMessage.parse(rest, framing: .stream) {
      case .message(let message, let length):
        output.messages.append(message)
        if continued && consumed == 0 { output.reassembled += 1 }
        consumed += max(1, length)
      case .incomplete:
        return (consumed, true)
      case .notSIP:
        return (consumed, false)
      case .malformed(let reason):
        output.malformed.append(reason)
        return (consumed, false)
      }
    }
    return (consumed, false)
  }

  /// Keeps a connection whose buffer holds a partial message, within the bounds.
  private mutating func keep(_ connection: Connection, for key: Key, into output: inout Output) {
    guard !connection.buffer.isEmpty else { return }
    guard connection.buffer.count <= Self.maxBufferedBytes else {
      output.malformed.append(.reassembly)
      return
    }
    if connections.count >= Self.maxConnections,
      let oldest = connections.min(by: { $0.value.lastTime < $1.value.lastTime })?.key
    {
      connections[oldest] = nil
      output.malformed.append(.reassembly)
    }
    connections[key] = connection
  }

  /// Partial messages older than `cutoff` (their connection went quiet) are let go.
  mutating func forget(before cutoff: CaptureTime) {
    guard connections.values.contains(where: { $0.lastTime < cutoff }) else { return }
    connections = connections.filter { $0.value.lastTime >= cutoff }
  }

  /// RFC 5626 section 3.5.1: a CRLF CRLF keep-alive ping (or its CRLF pong) between messages.
  static func keepAliveLength(_ bytes: UnsafeRawBufferPointer) -> Int {
    var index = 0
    while index < bytes.count, bytes.byte(at: index) == 0x0D || bytes.byte(at: index) == 0x0A {
      index += 1
    }
    return index
  }

  static func startsWithKeepAlive(_ bytes: UnsafeRawBufferPointer) -> Bool {
    keepAliveLength(bytes) > 0
  }
}
