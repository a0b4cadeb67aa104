/// Packets lost on each segment of the path through this host, summed over hops
/// (`CallRecord.Hop`; docs/calls.md, "Where the loss happened"): before it, inside it, after it
/// (the far end's reports less the gaps already present at egress).
public struct HopLoss: Sendable, Equatable {
  /// The segments, named as `/metrics` (`segment`), the history's columns (`<segment>_lost`)
  /// and the calls filters (`lost_in`, `--lost-in`) name them.
  public enum Segment: String, CaseIterable, Sendable {
    case upstream, relay, downstream
  }

  public var upstream: Int64 = 0
  public var relay: Int64 = 0
  /// Counted from the hops whose far end reported (`downstreamReported`).
  public var downstream: Int64 = 0
  /// A far end's report reached this host about at least one hop: without one, the downstream
  /// loss is unknown, not 0.
  public var downstreamReported = false

  public init() {}

  public mutating func add(_ hop: CallRecord.Hop) {
    upstream += hop.upstreamLost
    relay += hop.relayLost
    if let lost = hop.downstreamLost {
      downstream += max(0, lost)
      downstreamReported = true
    }
  }

  public subscript(_ segment: Segment) -> Int64 {
    switch segment {
    case .upstream: upstream
    case .relay: relay
    case .downstream: downstream
    }
  }
}

extension CallRecord {
  /// The loss of the call's hops summed per segment; nil for a call whose streams did not pass
  /// through this host.
  public var hopLoss: HopLoss? {
    guard !hops.isEmpty else { return nil }
    var loss = HopLoss()
    for hop in hops { loss.add(hop) }
    return loss
  }

  /// The call passed through this host and lost packets in `segment` (the calls filters).
  public func lost(in segment: HopLoss.Segment) -> Bool {
    (hopLoss?[segment] ?? 0) > 0
  }
}
