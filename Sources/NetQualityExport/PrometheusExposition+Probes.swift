import NetQualityCore

extension PrometheusExposition {
  /// The `netquality_probe_*` families: what our STAMP probes measured per peer, forward (us to
  /// the reflector) and backward (the reflector to us), since the agent started probing.
  func probes(_ peers: [PeerSnapshot], into out: inout Writer) {
    let probed = peers.compactMap { peer in peer.probe.map { (peer.peer, $0) } }
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
    _ family: MetricFamily, _ probed: [(String, ProbeSnapshot)], into out: inout Writer,
    _ value: (ProbeCounts) -> Int64
  ) {
    out.family(family)
    for (peer, probe) in probed {
      out.sample(family, [("peer", peer)], Double(value(probe.total)))
    }
  }
}
