/// A directed address/port pair: the flow a stream travels on. Stored as two addresses and the
/// ports packed in one word (40 bytes, where two `Endpoint`s took 48), as one is kept per flow
/// in the analyzer's flow table.
struct FlowKey: Hashable {
  let sourceAddress: IPAddress
  let destinationAddress: IPAddress
  /// Source port in the high 16 bits, destination port in the low 16.
  let ports: UInt32

  init(sourceAddress: IPAddress, destinationAddress: IPAddress, ports: UInt32) {
    self.sourceAddress = sourceAddress
    self.destinationAddress = destinationAddress
    self.ports = ports
  }

  /// The flow `key` travels on.
  init(_ key: StreamKey) {
    self.init(
      sourceAddress: key.sourceAddress, destinationAddress: key.destinationAddress,
      ports: UInt32(truncatingIfNeeded: key.portsAndSSRC >> 32))
  }

  /// The same pair the other way.
  var reversed: FlowKey {
    FlowKey(
      sourceAddress: destinationAddress, destinationAddress: sourceAddress,
      ports: ports << 16 | ports >> 16)
  }
}

/// What the analyzer knows of one flow: its streams (the siblings a new stream is compared with
/// to recognise retransmissions, `RepairCheck`), and whether a validated stream used it (a
/// stream on it, or on the reverse flow, is then RTP too: `StreamConfirmation.flow`).
///
/// A confirmed flow stays while a stream on it or on the reverse flow is live (see `remove`).
/// A set of confirmed flows beside the table kept them until the analyzer compacted, which an
/// agent with fewer than 4,096 stream slots never does: it grew by a flow or two per call for
/// good. One table instead of the two also saves a 48-byte bucket per flow (12 MB at 100,000
/// streams).
struct FlowStreams {
  /// nil once every stream on the flow was forgotten.
  var indices: StreamIndices?
  var confirmed = false
}

extension Dictionary where Key == FlowKey, Value == FlowStreams {
  /// Adds stream `index` under `flow`.
  mutating func add(_ index: Int32, under flow: FlowKey) {
    if self[flow]?.indices?.append(index) == nil {
      self[flow, default: FlowStreams()].indices = StreamIndices(index)
    }
  }

  /// Removes stream `index` from under `flow`. With its last stream the flow goes, unless it
  /// is confirmed and the reverse flow has streams (which its confirmation confirms); and a
  /// reverse flow kept only for that goes with it. So a confirmation lasts while a stream on
  /// the pair does, and the table holds no flow of a call long over.
  mutating func remove(_ index: Int32, under flow: FlowKey) {
    guard self[flow]?.indices?.remove(index) == false else { return }
    let reverse = flow.reversed
    if self[flow]?.confirmed == true, self[reverse]?.indices != nil {
      self[flow]?.indices = nil
    } else {
      self[flow] = nil
    }
    if let other = self[reverse], other.indices == nil { self[reverse] = nil }
  }

  /// A validated stream used `flow` or the reverse flow.
  func isConfirmed(_ flow: FlowKey) -> Bool {
    self[flow]?.confirmed == true || self[flow.reversed]?.confirmed == true
  }
}
