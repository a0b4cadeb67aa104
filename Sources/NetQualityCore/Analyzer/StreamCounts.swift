/// A stream's cumulative counts since it began: what a window is the difference of. The harvest
/// carries them for every stream (`StreamHarvest.Stream`) and the scorer keeps each stream's
/// counts at the previous tick (`StreamBaseline`), so a window is one subtraction.
public struct StreamCounts: Sendable, Equatable {
  public var packets: Int64 = 0
  /// RFC 3550 A.3: the extended highest sequence number minus the first, plus one.
  public var expected: Int64 = 0
  /// Packets that filled an expected slot: expected - counted is the loss so far.
  public var counted: Int64 = 0
  /// Of the loss, the packets that went missing across silences of a second or more (outages,
  /// which the connection state reports).
  public var silenceLoss: Int64 = 0
  public var duplicates: Int64 = 0
  /// Packets that arrived after a higher sequence number (late or reordered).
  public var late: Int64 = 0
  public var payloadBytes: Int64 = 0

  public init() {}
}

extension RTPStream {
  /// The stream's cumulative counts.
  var counts: StreamCounts {
    var counts = StreamCounts()
    counts.packets = packets
    counts.expected = sequence.expected
    counts.counted = sequence.countedPackets
    counts.silenceLoss = silenceLoss
    counts.duplicates = sequence.duplicates
    counts.late = sequence.latePackets
    counts.payloadBytes = payloadBytes
    return counts
  }
}
