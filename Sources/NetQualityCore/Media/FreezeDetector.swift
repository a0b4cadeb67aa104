/// Freezes and pauses of a video stream, from the intervals between its frames, exactly as
/// webrtc-stats defines `freezeCount`, `totalFreezesDuration`, `pauseCount` and
/// `totalPausesDuration` (W3C "Identifiers for WebRTC's Statistics API", RTCInboundRtpStreamStats,
/// section 8.6), applied to the frames' arrivals at the capture point instead of their rendering:
///
/// - a **freeze** is an inter-frame interval ≥ max(3 × avg, avg + 150 ms), where avg is "the
///   linear average of durations of last 30 rendered frames";
/// - a **pause** is an interval in which more than 5 s passed since the last frame; it counts
///   as a pause, never also as a freeze.
///
/// The average is the one libwebrtc, the reference implementation behind Chromium's getStats,
/// computes (`VideoQualityObserver::OnRenderedFrame`, video/video_quality_observer2.cc): a moving
/// average over the last 30 intervals *including the one being judged*, rounded down to whole
/// milliseconds, and judged only once 5 intervals are known (`kMinFrameSamplesToDetectFreeze`);
/// a pause's interval does not enter the average (libwebrtc skips it while paused). A freeze's
/// interval does, as in libwebrtc. Times are nanoseconds; the comparison is in whole
/// milliseconds like libwebrtc's.
struct FreezeDetector: Sendable, Equatable {
  /// `kAvgInterframeDelaysWindowSizeFrames`: the average's window.
  static let averageWindow = 30
  /// `kMinFrameSamplesToDetectFreeze`.
  static let minimumSamples = 5
  /// `kMinIncreaseForFreezeMs`: a freeze is at least this much longer than the average.
  static let minimumIncreaseMilliseconds: Int64 = 150
  /// webrtc-stats `pauseCount`: "more than 5 seconds since the last rendered frame".
  static let pauseMilliseconds: Int64 = 5000

  /// The last intervals in milliseconds, a ring of `averageWindow`.
  private var intervals = InlineArray<30, Int32>(repeating: 0)
  private var intervalCount = 0
  private var nextInterval = 0
  private var sumMilliseconds: Int64 = 0

  /// What an interval was.
  enum Verdict: Equatable {
    case smooth
    case freeze
    case pause
  }

  /// Judges the interval between two consecutive frames, `nanoseconds` long.
  mutating func judge(intervalNanoseconds nanoseconds: Int64) -> Verdict {
    let milliseconds = max(0, nanoseconds / 1_000_000)
    if milliseconds > Self.pauseMilliseconds { return .pause }
    add(milliseconds)
    guard intervalCount >= Self.minimumSamples else { return .smooth }
    let average = sumMilliseconds / Int64(intervalCount)
    let threshold = max(3 * average, average + Self.minimumIncreaseMilliseconds)
    return milliseconds >= threshold ? .freeze : .smooth
  }

  /// The current average interval in milliseconds (nil before `minimumSamples`).
  var averageMilliseconds: Int64? {
    intervalCount >= Self.minimumSamples ? sumMilliseconds / Int64(intervalCount) : nil
  }

  private mutating func add(_ milliseconds: Int64) {
    let value = Int32(clamping: milliseconds)
    if intervalCount == Self.averageWindow {
      sumMilliseconds -= Int64(intervals[nextInterval])
    } else {
      intervalCount += 1
    }
    intervals[nextInterval] = value
    sumMilliseconds += Int64(value)
    nextInterval = (nextInterval + 1) % Self.averageWindow
  }

  static func == (lhs: FreezeDetector, rhs: FreezeDetector) -> Bool {
    lhs.intervalCount == rhs.intervalCount && lhs.sumMilliseconds == rhs.sumMilliseconds
      && lhs.nextInterval == rhs.nextInterval
  }
}
