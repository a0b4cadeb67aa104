import Glibc

/// A set of descriptors in `select`'s bitmap form (glibc: 64-bit words, bit fd % 64 of word
/// fd / 64; the FD_SET macros are not imported into Swift).
struct DescriptorSet {
  /// FD_SETSIZE: `select` cannot watch a descriptor at or above it.
  static let limit: Int32 = 1024
  fileprivate var bits = fd_set()

  mutating func insert(_ descriptor: Int32) {
    let (word, mask) = Self.position(of: descriptor)
    withUnsafeMutableBytes(of: &bits) { raw in
      let current = raw.load(fromByteOffset: word * 8, as: UInt64.self)
      raw.storeBytes(of: current | mask, toByteOffset: word * 8, as: UInt64.self)
    }
  }

  func contains(_ descriptor: Int32) -> Bool {
    let (word, mask) = Self.position(of: descriptor)
    return withUnsafeBytes(of: bits) { raw in
      raw.load(fromByteOffset: word * 8, as: UInt64.self) & mask != 0
    }
  }

  private static func position(of descriptor: Int32) -> (word: Int, mask: UInt64) {
    (Int(descriptor) / 64, 1 << UInt64(descriptor % 64))
  }
}

/// Waits until one of `descriptors` (all below `DescriptorSet.limit`) is readable,
/// `timeoutNanoseconds` have passed or a stop signal came, and returns the readable ones (none
/// after a timeout or a signal).
///
/// `pselect` rather than `poll`: its timeout is in nanoseconds (poll's whole milliseconds
/// would send packets up to 1 ms late) and it sets the signal mask atomically with the wait
/// (see `StopSignals`). `ppoll` would do both, but Swift's Glibc module does not export it.
func waitForReadable(
  _ descriptors: [Int32], timeoutNanoseconds: Int64, signals: StopSignals
) -> DescriptorSet {
  var readable = DescriptorSet()
  var highest: Int32 = -1
  for descriptor in descriptors {
    readable.insert(descriptor)
    highest = max(highest, descriptor)
  }
  let timeout = max(0, timeoutNanoseconds)
  var interval = timespec(
    tv_sec: Int(timeout / 1_000_000_000), tv_nsec: Int(timeout % 1_000_000_000))
  var mask = signals.waitMask
  let ready = pselect(highest + 1, &readable.bits, nil, nil, &interval, &mask)
  // 0: the timeout; -1 with EINTR: a signal (the caller checks for a stop).
  return ready > 0 ? readable : DescriptorSet()
}
