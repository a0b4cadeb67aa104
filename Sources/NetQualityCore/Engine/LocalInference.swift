/// Guesses which side of a capture is "us" when no local networks are given: the address that
/// takes part in the most RTP streams (a media server or gateway talks to everyone).
public enum LocalInference {
  public struct Guess: Sendable, Equatable {
    public var address: IPAddress
    /// Streams the address takes part in, of all streams.
    public var streams: Int
    public var of: Int
  }

  public static func guess(_ report: AnalysisReport) -> Guess? {
    var counts: [IPAddress: Int] = [:]
    for stream in report.streams {
      counts[stream.key.sourceAddress, default: 0] += 1
      if stream.key.destinationAddress != stream.key.sourceAddress {
        counts[stream.key.destinationAddress, default: 0] += 1
      }
    }
    // Most streams wins; on a tie, the address that receives more (the listening side), then the
    // lowest address, so the guess is deterministic.
    let received = Dictionary(grouping: report.streams, by: \.key.destinationAddress).mapValues(
      \.count)
    guard
      let best = counts.max(by: {
        ($0.value, received[$0.key] ?? 0, $1.key) < ($1.value, received[$1.key] ?? 0, $0.key)
      })
    else { return nil }
    return Guess(address: best.key, streams: best.value, of: report.streams.count)
  }
}
