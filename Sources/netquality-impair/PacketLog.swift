/// What became of one packet, as written in the packet log.
enum PacketFate: String {
  case dropped
  case overflow
  case oversize
  case sent
  /// The extra copy of a duplicated packet (its original has its own `sent` line).
  case duplicated
  case sendError = "send_error"
}

/// The packet log's lines (`--log`), one per packet fate, gathered in memory by the socket loop
/// and handed to `OutputWriter` with every stats write: the loop never waits on the disk.
/// Lines are added when the fate is known, drops at arrival and sends at departure, so they are
/// in the order things happened, not in arrival order.
struct PacketLog {
  static let header = "direction,arrival_index,arrival_ns,fate,applied_delay_ns\n"
  private var pending: [UInt8] = []

  init() {
    // A second of 50 packet/s both ways is about 6 KB; 64 KB saves regrowing in most tests.
    pending.reserveCapacity(1 << 16)
  }

  /// `appliedDelayNanoseconds` is nil for a packet that was never sent (the column is empty).
  mutating func record(
    direction: Direction, arrivalIndex: Int64, arrivalNanoseconds: Int64, fate: PacketFate,
    appliedDelayNanoseconds: Int64? = nil
  ) {
    let delay = appliedDelayNanoseconds.map(String.init) ?? ""
    pending.append(
      contentsOf:
        "\(direction.name),\(arrivalIndex),\(arrivalNanoseconds),\(fate.rawValue),\(delay)\n".utf8)
  }

  /// The lines gathered since the last call.
  mutating func take() -> [UInt8] {
    defer { pending.removeAll(keepingCapacity: true) }
    return pending
  }
}
