/// RFC 3550 appendix A.8 interarrival jitter, kept in seconds.
///
/// For consecutive packets i-1, i: D = (R_i - R_{i-1}) - (S_i - S_{i-1}) / clock rate, and
/// J += (|D| - J) / 16. The arithmetic is done in floating-point seconds, as Wireshark does, so
/// the figures compare with its RTP stream analysis.
public struct JitterEstimator: Sendable {
  /// RFC 3550 A.8: the gain parameter 1/16 "gives a good noise reduction ratio while
  /// maintaining a reasonable rate of convergence".
  static let gain = 1.0 / 16.0

  private var previousArrivalNanoseconds: Int64 = 0
  private var previousTimestamp: UInt32 = 0
  private var hasPrevious = false
  public private(set) var jitterSeconds = 0.0
  public private(set) var maxJitterSeconds = 0.0
  /// The maximum since `startWindow()`: what the 2-second scoring looks at.
  public private(set) var windowMaxJitterSeconds = 0.0
  private var jitterSumSeconds = 0.0
  public private(set) var samples = 0
  /// Times the transit baseline was dropped (a restart, a timestamp or clock jump).
  public private(set) var resynchronisations = 0

  /// A change of transit time this large between two packets is not the network: no
  /// real-time receiver rides out 3 s of queueing, and a delay that long is an interruption
  /// (4 s by default) for the connection state. It is a new timestamp base (an SBC or relay
  /// restarting the stream, RFC 3550 A.1 re-synchronisation) or a capture clock that jumped,
  /// and one such sample would add |D|/16 to the jitter for many seconds after.
  public static let transitStepSeconds = 3.0

  public init() {}

  /// Forgets the previous packet: the next one starts a new transit baseline and gives no
  /// sample. The estimate itself is kept, as the network did not change.
  public mutating func resynchronise() {
    hasPrevious = false
    resynchronisations &+= 1
  }

  /// Starts a new scoring window: its maximum begins at the current estimate.
  public mutating func startWindow() {
    windowMaxJitterSeconds = jitterSeconds
  }

  public var meanJitterSeconds: Double { samples == 0 ? 0 : jitterSumSeconds / Double(samples) }

  /// Feeds one packet; `secondsPerTick` is 1 / clock rate (a multiply is cheaper than a
  /// divide on the per-packet path). `countsTowardsSummary` is false for packets whose transit time does
  /// not describe the network (the first, a marker bit starting a talkspurt, comfort noise):
  /// they update the estimate but not its maximum and mean, as in Wireshark.
  @inline(__always)
  public mutating func update(
    arrivalNanoseconds: Int64, timestamp: UInt32, secondsPerTick: Double,
    countsTowardsSummary: Bool
  ) {
    defer {
      previousArrivalNanoseconds = arrivalNanoseconds
      previousTimestamp = timestamp
      hasPrevious = true
    }
    guard hasPrevious else { return }
    let arrivalDelta = Double(arrivalNanoseconds &- previousArrivalNanoseconds) * 1e-9
    // Timestamps wrap at 2^32; the signed difference is right across the wrap.
    let mediaDelta = Double(Int32(bitPattern: timestamp &- previousTimestamp)) * secondsPerTick
    let difference = abs(arrivalDelta - mediaDelta)
    guard difference < Self.transitStepSeconds else {
      // A new baseline from this packet (set by the defer above), no sample.
      resynchronisations &+= 1
      return
    }
    jitterSeconds += (difference - jitterSeconds) * Self.gain
    guard countsTowardsSummary else { return }
    if jitterSeconds > maxJitterSeconds { maxJitterSeconds = jitterSeconds }
    if jitterSeconds > windowMaxJitterSeconds { windowMaxJitterSeconds = jitterSeconds }
    jitterSumSeconds += jitterSeconds
    samples &+= 1
  }
}
