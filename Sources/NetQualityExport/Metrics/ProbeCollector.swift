import NetQualityCore

/// What our STAMP probes measured per probed peer, forward (us to the reflector) and backward
/// (the reflector to us), since the agent started probing; every probed peer, whatever the
/// series budget (what the senders could not send: `ProbeSenderCollector`).
public struct ProbeCollector: MetricsCollector {
  public static let families: [MetricFamily] = [
    .probeInfo, .probeSentTotal, .probeReceivedTotal, .probeLostTotal, .probeLostPending,
    .probeLateAnswersTotal, .probeDuplicatesTotal, .probeReorderedTotal, .probeBadTimestampsTotal,
    .probeRTTSeconds, .probeDelaySeconds, .probeIPDVSeconds, .probeJitterSeconds,
  ]

  /// The tick's peers; those without probes are left out.
  public var peers: [PeerSnapshot]

  public init(peers: [PeerSnapshot]) {
    self.peers = peers
  }

  public func collect(into out: inout MetricsWriter) {
    // By position: a closure over each snapshot copied every one (hundreds of bytes) per tick.
    let probed = peers.indices.compactMap { index in
      peers[index].isProbed ? peers[index].probe.map { (peers[index].peer, $0) } : nil
    }
    out.family(.probeInfo)
    for (peer, probe) in probed {
      out.sample(
        .probeInfo,
        [
          ("peer", peer), ("targets", probe.targets.map(\.description).joined(separator: ",")),
          ("timestamps", probe.kernelTimestamps.map { $0 ? "kernel" : "user" } ?? "none"),
          ("clocks", probe.clocksSynchronized ? "synchronized" : "unsynchronized"),
        ], 1)
    }
    counter(.probeSentTotal, probed, into: &out) { $0.sent }
    counter(.probeReceivedTotal, probed, into: &out) { $0.received }
    out.family(.probeLostTotal)
    for (peer, probe) in probed {
      for (direction, lost) in [
        ("forward", probe.total.forwardLost), ("backward", probe.total.backwardLost),
      ] {
        out.sample(
          .probeLostTotal, [("peer", peer), ("direction", direction)], Double(lost))
      }
    }
    out.family(.probeLostPending)
    for (peer, probe) in probed {
      out.sample(.probeLostPending, [("peer", peer)], Double(probe.pendingLost))
    }
    out.family(.probeLateAnswersTotal)
    for (peer, probe) in probed {
      for (cause, late) in [
        ("reflector_stall", probe.total.lateStalled), ("path_delay", probe.total.lateDelayed),
      ] {
        out.sample(.probeLateAnswersTotal, [("peer", peer), ("cause", cause)], Double(late))
      }
    }
    counter(.probeDuplicatesTotal, probed, into: &out) { $0.duplicates }
    counter(.probeReorderedTotal, probed, into: &out) { $0.reordered }
    counter(.probeBadTimestampsTotal, probed, into: &out) { $0.badTimestamps }
    out.family(.probeRTTSeconds)
    for (peer, probe) in probed {
      out.histogram(.probeRTTSeconds, [("peer", peer)], probe.histograms.roundTrip)
    }
    out.family(.probeDelaySeconds)
    for (peer, probe) in probed where probe.clocksSynchronized {
      out.histogram(
        .probeDelaySeconds, [("peer", peer), ("direction", "forward")],
        probe.histograms.forwardDelay)
      out.histogram(
        .probeDelaySeconds, [("peer", peer), ("direction", "backward")],
        probe.histograms.backwardDelay)
    }
    out.family(.probeIPDVSeconds)
    for (peer, probe) in probed {
      out.histogram(
        .probeIPDVSeconds, [("peer", peer), ("direction", "forward")],
        probe.histograms.forwardDelayVariation)
      out.histogram(
        .probeIPDVSeconds, [("peer", peer), ("direction", "backward")],
        probe.histograms.backwardDelayVariation)
    }
    out.family(.probeJitterSeconds)
    for (peer, probe) in probed {
      for (direction, jitter) in [
        ("forward", probe.forwardJitterMilliseconds),
        ("backward", probe.backwardJitterMilliseconds),
      ] {
        if let jitter {
          out.sample(
            .probeJitterSeconds, [("peer", peer), ("direction", direction)],
            jitter / 1000)
        }
      }
    }
  }

  /// A per-peer counter of the probes' totals.
  private func counter(
    _ family: MetricFamily, _ probed: [(String, ProbeSnapshot)], into out: inout MetricsWriter,
    _ value: (ProbeCounts) -> Int64
  ) {
    out.family(family)
    for (peer, probe) in probed {
      out.sample(family, [("peer", peer)], Double(value(probe.total)))
    }
  }
}

// MARK: The families

extension MetricFamily {
  public static let probeInfo = gauge(
    "netquality_probe_info", labels: ["peer", "targets", "timestamps", "clocks"],
    "Probed peers; timestamps=kernel when answers are timed by the kernel (SO_TIMESTAMPNS), "
      + "user otherwise; clocks=synchronized when both ends set the STAMP S bit.")
  public static let probeSentTotal = counter(
    "netquality_probe_sent_total", labels: ["peer"],
    "Probes sent and settled (answered or past the deadline).")
  public static let probeReceivedTotal = counter(
    "netquality_probe_received_total", labels: ["peer"], "First answers to probes.")
  public static let probeLostTotal = counter(
    "netquality_probe_lost_total", labels: ["peer", "direction"],
    "Probes lost, by direction: forward (never reached the reflector) or backward (its answer "
      + "never came), told apart by the reflector's sequence numbers (RFC 8762 4.3.2).")
  public static let probeLostPending = gauge(
    "netquality_probe_lost_pending", labels: ["peer"],
    "Probes lost since the latest answer, direction not known until the next one.")
  public static let probeLateAnswersTotal = counter(
    "netquality_probe_late_answers_total", labels: ["peer", "cause"],
    "Answers that came after their probe's deadline, by cause: reflector_stall (the reflector "
      + "held it longer than the path took: lost neither way), path_delay (lost in the "
      + "direction that delayed it).")
  public static let probeDuplicatesTotal = counter(
    "netquality_probe_duplicates_total", labels: ["peer"], "Second answers to the same probe.")
  public static let probeReorderedTotal = counter(
    "netquality_probe_reordered_total", labels: ["peer"],
    "Answers that came after a later probe's.")
  public static let probeBadTimestampsTotal = counter(
    "netquality_probe_bad_timestamps_total", labels: ["peer"],
    "Answers whose timestamps cannot be right (reflector turnaround longer than the round "
      + "trip).")
  public static let probeRTTSeconds = histogram(
    "netquality_probe_rtt_seconds", labels: ["peer"],
    "Round trip without the reflector's turnaround: (T4 - T1) - (T3 - T2), RFC 8762 section 4.")
  public static let probeDelaySeconds = histogram(
    "netquality_probe_delay_seconds", labels: ["peer", "direction"],
    "One-way delay per direction, only while both clocks say they are synchronised.")
  public static let probeIPDVSeconds = histogram(
    "netquality_probe_ipdv_seconds", labels: ["peer", "direction"],
    "Absolute delay variation between consecutive probes per direction (RFC 3393 IPDV).")
  public static let probeJitterSeconds = gauge(
    "netquality_probe_jitter_seconds", labels: ["peer", "direction"],
    "RFC 3550 jitter per direction on probe times, the largest of the last window.")
}
