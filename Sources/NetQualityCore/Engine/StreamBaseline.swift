/// A stream's cumulative counts at the previous tick, kept for every stream between ticks: a
/// window is the difference between the counts harvested now and these.
///
/// The packet counts are kept in their low 32 bits and a window's change is the wrapping
/// difference read as signed, exact while it stays within ±2^31 — a 2-second window would
/// need a billion packets a second — however large the totals grow: 40 bytes a stream instead
/// of 64 (2.4 MB at 100,000 streams). Payload bytes keep 64 bits (2^31 bytes in a window is
/// only 8.6 Gbit/s).
struct StreamBaseline {
  /// The stream the baseline belongs to (indices are reused after a stream is forgotten).
  var firstArrival = CaptureTime(nanosecondsSinceEpoch: 0)
  private var payloadBytes: Int64 = 0
  private var packets: UInt32 = 0
  private var expected: UInt32 = 0
  private var counted: UInt32 = 0
  private var silenceLoss: UInt32 = 0
  private var duplicates: UInt32 = 0
  private var late: UInt32 = 0

  init(firstArrival: CaptureTime = CaptureTime(nanosecondsSinceEpoch: 0)) {
    self.firstArrival = firstArrival
  }

  /// Moves the baseline to `counts` and returns what changed since it: the window's counts.
  mutating func advance(to counts: StreamCounts) -> StreamCounts {
    var change = StreamCounts()
    change.packets = Self.step(&packets, to: counts.packets)
    change.expected = Self.step(&expected, to: counts.expected)
    change.counted = Self.step(&counted, to: counts.counted)
    change.silenceLoss = Self.step(&silenceLoss, to: counts.silenceLoss)
    change.duplicates = Self.step(&duplicates, to: counts.duplicates)
    change.late = Self.step(&late, to: counts.late)
    change.payloadBytes = counts.payloadBytes &- payloadBytes
    payloadBytes = counts.payloadBytes
    return change
  }

  /// The signed change from the kept low 32 bits to `total`'s, which it then keeps.
  private static func step(_ kept: inout UInt32, to total: Int64) -> Int64 {
    let low = UInt32(truncatingIfNeeded: total)
    defer { kept = low }
    return Int64(Int32(bitPattern: low &- kept))
  }
}
