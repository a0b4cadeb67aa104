/// Sequence-number accounting for one RTP stream: RFC 3550 appendix A.1 (16-bit wrap,
/// MAX_DROPOUT, MAX_MISORDER, resynchronisation after a restart), extended with a window of
/// received sequence numbers so duplicates and late packets are told apart and loss is never
/// negative.
public struct SequenceTracker: Sendable {
  /// RFC 3550 A.1: a forward jump of up to MAX_DROPOUT is a gap, not a restart.
  public static let maxDropout: UInt16 = 3000
  /// RFC 3550 A.1: a packet up to MAX_MISORDER behind the highest is late (or a duplicate).
  public static let maxMisorder: UInt16 = 100
  /// RFC 3550 A.1: MIN_SEQUENTIAL packets in sequence validate a source.
  public static let minSequential = 2
  /// Width of the received-packet window: above MAX_MISORDER, so every late packet A.1 accepts
  /// (at most 100 behind the highest) is checked against it, and a slot leaving the window is
  /// final. 128 bits keep the fields the in-order path touches within 64 bytes.
  static let windowBits: Int64 = 128

  // Fields the in-order path touches come first (64 bytes); the rest follow.

  /// Highest extended sequence number seen.
  private(set) var maxExtended: Int64 = -1
  /// Extended (cycle-counting) sequence number of the first packet of the current run.
  private(set) var baseExtended: Int64 = 0
  /// Packets that filled an expected slot (in order or late, never a duplicate).
  public private(set) var countedPackets: Int64 = 0
  /// Consecutive in-sequence packets, for RFC 3550 A.1 probation.
  public private(set) var sequentialRun = 0
  private var currentLossBurst: Int64 = 0
  /// Longest run of consecutive sequence numbers that never arrived within the window.
  public private(set) var longestLossBurst: Int64 = 0
  /// Bit i set: extended sequence number with (n mod windowBits) == i was received.
  private var window: UInt128 = 0
  /// RFC 3550 A.1 `bad_seq`: after a big jump, the sequence number that would confirm a restart.
  private var badSequence: Int64 = -1
  /// Expected packets of runs closed by a restart.
  private var expectedBeforeRestart: Int64 = 0
  public private(set) var duplicates: Int64 = 0
  /// Packets that arrived after a higher sequence number (late or reordered).
  public private(set) var latePackets: Int64 = 0
  /// Confirmed restarts (RFC 3550 A.1 resynchronisation).
  public private(set) var restarts: Int64 = 0

  public init() {}

  /// Packets expected from the sequence numbers, over every run (RFC 3550 A.3).
  public var expected: Int64 {
    maxExtended < 0 ? 0 : expectedBeforeRestart + maxExtended - baseExtended + 1
  }

  /// Expected minus received, clamped at zero: duplicates never hide loss nor make it negative.
  public var lost: Int64 { max(0, expected - countedPackets) }

  /// The highest sequence number received, with the cycle count in the upper bits.
  public var extendedHighest: Int64 { maxExtended }

  /// Whether the stream passed RFC 3550 A.1 probation (MIN_SEQUENTIAL in-sequence packets).
  public var isValidated: Bool { sequentialRun >= Self.minSequential - 1 }

  public enum Outcome: Sendable, Equatable {
    case inOrder
    case late
    case duplicate
    /// A big jump not (yet) confirmed as a restart; not counted as received.
    case stray
    case restart
  }

  @inline(__always)
  @discardableResult
  public mutating func record(_ sequence: UInt16) -> Outcome {
    guard maxExtended >= 0 else {
      start(at: Int64(sequence))
      return .inOrder
    }
    let highest = UInt16(truncatingIfNeeded: maxExtended)
    let forward = sequence &- highest
    if forward == 0 {
      sequentialRun = 0
      duplicates += 1
      return .duplicate
    }
    if forward == 1 {
      recordNext()
      return .inOrder
    }
    if forward < Self.maxDropout {
      sequentialRun = 0
      advance(to: maxExtended + Int64(forward))
      mark(maxExtended)
      countedPackets += 1
      return .inOrder
    }
    if forward <= UInt16.max - Self.maxMisorder {
      // A very large jump: a restart if the next packet follows it (RFC 3550 A.1).
      let extended = maxExtended + Int64(forward)
      if badSequence >= 0 && UInt16(truncatingIfNeeded: badSequence) == sequence {
        restarts += 1
        expectedBeforeRestart += maxExtended - baseExtended + 1
        // The packet that made the jump opens the new run with this one.
        latePackets -= 1
        start(at: extended - 1)
        recordNext()
        return .restart
      }
      badSequence = extended + 1
      sequentialRun = 0
      latePackets += 1
      return .stray
    }
    // Behind the highest by at most MAX_MISORDER: late, or a duplicate of one already seen.
    sequentialRun = 0
    let extended = maxExtended - Int64(UInt16.max - forward) - 1
    guard extended >= baseExtended else {
      latePackets += 1
      return .late
    }
    if isMarked(extended) {
      duplicates += 1
      return .duplicate
    }
    mark(extended)
    countedPackets += 1
    latePackets += 1
    return .late
  }

  /// The capture was blind between the last packet and the next, whose number is `sequence`
  /// (`CaptureBlindSpan`): the run closes at the highest number and a new one starts just
  /// before `sequence`, so the numbers between count neither as expected nor as lost (RFC 3550
  /// A.1's resynchronisation, without a restart: the sender did not restart). A number at or
  /// behind the highest changes nothing. Record the packet itself next. Returns how many
  /// numbers were skipped.
  @discardableResult
  public mutating func skip(to sequence: UInt16) -> Int64 {
    guard maxExtended >= 0 else { return 0 }
    let forward = sequence &- UInt16(truncatingIfNeeded: maxExtended)
    guard forward > 1, forward <= UInt16.max - Self.maxMisorder else { return 0 }
    let extended = maxExtended + Int64(forward)
    expectedBeforeRestart += maxExtended - baseExtended + 1
    window = 0
    baseExtended = extended
    maxExtended = extended - 1
    badSequence = -1
    currentLossBurst = 0
    return Int64(forward) - 1
  }

  /// The loss burst still open at the end of the window, included in `longestLossBurst` at
  /// report time.
  public var longestLossBurstIncludingWindow: Int64 {
    var longest = longestLossBurst
    var run = currentLossBurst
    var sequence = max(baseExtended, maxExtended - Self.windowBits + 1)
    while sequence <= maxExtended {
      if isMarked(sequence) {
        run = 0
      } else {
        run += 1
        longest = max(longest, run)
      }
      sequence += 1
    }
    return longest
  }

  /// The common case, kept short: the next number in sequence. The slot it takes is the one
  /// leaving the window, so that slot is finalised and marked in one place.
  @inline(__always)
  private mutating func recordNext() {
    sequentialRun &+= 1
    let next = maxExtended &+ 1
    if next - Self.windowBits >= baseExtended { finalise(slot: next) }
    mark(next)
    maxExtended = next
    countedPackets &+= 1
  }

  private mutating func start(at extended: Int64) {
    window = 0
    baseExtended = extended
    maxExtended = extended
    badSequence = -1
    currentLossBurst = 0
    sequentialRun = 0
    mark(extended)
    countedPackets += 1
  }

  /// Moves the highest sequence number forward. Slots that leave the window are final: one
  /// never filled is a lost packet and extends the current loss burst.
  private mutating func advance(to newMax: Int64) {
    let oldMax = maxExtended
    let lastFinal = newMax - Self.windowBits
    var sequence = max(oldMax - Self.windowBits + 1, baseExtended)
    while sequence <= lastFinal {
      if sequence <= oldMax {
        finalise(slot: sequence)
      } else {
        // Jumped over and already out of the window: never received.
        currentLossBurst += 1
        longestLossBurst = max(longestLossBurst, currentLossBurst)
      }
      sequence += 1
    }
    // Slots that now stand for new sequence numbers still hold bits from windowBits earlier.
    sequence = max(oldMax + 1, newMax - Self.windowBits + 1)
    while sequence <= newMax {
      clear(sequence)
      sequence += 1
    }
    maxExtended = newMax
  }

  @inline(__always)
  private mutating func finalise(slot sequence: Int64) {
    if isMarked(sequence) {
      currentLossBurst = 0
    } else {
      currentLossBurst += 1
      if currentLossBurst > longestLossBurst { longestLossBurst = currentLossBurst }
    }
  }

  @inline(__always)
  private func isMarked(_ extended: Int64) -> Bool {
    window & Self.bit(extended) != 0
  }

  @inline(__always)
  private mutating func mark(_ extended: Int64) {
    window |= Self.bit(extended)
  }

  @inline(__always)
  private mutating func clear(_ extended: Int64) {
    window &= ~Self.bit(extended)
  }

  /// The window bit of an extended sequence number.
  @inline(__always)
  private static func bit(_ extended: Int64) -> UInt128 {
    1 << UInt128(truncatingIfNeeded: extended & (windowBits - 1))
  }
}
