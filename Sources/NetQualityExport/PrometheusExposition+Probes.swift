import NetQualityCore

extension PrometheusExposition {
  /// The `netquality_probe_*` families: what our STAMP probes measured per peer, forward (us to
  /// the reflector) and backward (the reflector to us), since the agent started probing.
  func probes(_ peers: [PeerSnapshot], into out: inout Writer) {
    let probed = peers.compactMap { peer in peer.probe.map { (peer.peer, $0) } }
    out.family(
      "netquality_probe_info", .gauge,
      "Probed peers; timestamps=kernel when answers are timed by the kernel (SO_TIMESTAMPNS), "
        + "user otherwise; clocks=synchronized when both ends set the STAMP S bit.")
    for (peer, probe) in probed {
      out.sample(
        "netquality_probe_info",
        [
          ("peer", peer), ("targets", probe.targets.map(\.description).joined(separator: ",")),
          ("timestamps", probe.kernelTimestamps.map { $0 ? "kernel" : "user" } ?? "none"),
          ("clocks", probe.clocksSynchronized ? "synchronized" : "unsynchronized"),
        ], 1)
    }
    counter(
      "netquality_probe_sent_total", "Probes sent and settled (answered or past the deadline).",
      probed, into: &out
    ) { $0.sent }
    counter("netquality_probe_received_total", "First answers to probes.", probed, into: &out) {
      $0.received
    }
    out.family(
      "netquality_probe_lost_total", .counter,
      "Probes lost, by direction: forward (never reached the reflector) or backward (its answer "
        + "never came), told apart by the reflector's sequence numbers (RFC 8762 4.3.2).")
    for (peer, probe) in probed {
      for (direction, lost) in [
        ("forward", probe.total.forwardLost), ("backward", probe.total.backwardLost),
      ] {
        out.sample(
          "netquality_probe_lost_total", [("peer", peer), ("direction", direction)], Double(lost))
      }
    }
    out.family(
      "netquality_probe_lost_pending", .gauge,
      "Probes lost since the latest answer, direction not known until the next one.")
    for (peer, probe) in probed {
      out.sample("netquality_probe_lost_pending", [("peer", peer)], Double(probe.pendingLost))
    }
    counter(
      "netquality_probe_duplicates_total", "Second answers to the same probe.", probed, into: &out
    ) {
      $0.duplicates
    }
    counter(
      "netquality_probe_reordered_total", "Answers that came after a later probe's.", probed,
      into: &out
    ) { $0.reordered }
    counter(
      "netquality_probe_bad_timestamps_total",
      "Answers whose timestamps cannot be right (reflector turnaround longer than the round trip).",
      probed, into: &out
    ) { $0.badTimestamps }
    out.family(
      "netquality_probe_rtt_seconds", .histogram,
      "Round trip without the reflector's turnaround: (T4 - T1) - (T3 - T2), RFC 8762 section 4.")
    for (peer, probe) in probed {
      out.histogram("netquality_probe_rtt_seconds", [("peer", peer)], probe.histograms.roundTrip)
    }
    out.family(
      "netquality_probe_delay_seconds", .histogram,
      "One-way delay per direction, only while both clocks say they are synchronised.")
    for (peer, probe) in probed where probe.clocksSynchronized {
      out.histogram(
        "netquality_probe_delay_seconds", [("peer", peer), ("direction", "forward")],
        probe.histograms.forwardDelay)
      out.histogram(
        "netquality_probe_delay_seconds", [("peer", peer), ("direction", "backward")],
        probe.histograms.backwardDelay)
    }
    out.family(
      "netquality_probe_ipdv_seconds", .histogram,
      "Absolute delay variation between consecutive probes per direction (RFC 3393 IPDV).")
    for (peer, probe) in probed {
      out.histogram(
        "netquality_probe_ipdv_seconds", [("peer", peer), ("direction", "forward")],
        probe.histograms.forwardDelayVariation)
      out.histogram(
        "netquality_probe_ipdv_seconds", [("peer", peer), ("direction", "backward")],
        probe.histograms.backwardDelayVariation)
    }
    out.family(
      "netquality_probe_jitter_seconds", .gauge,
      "RFC 3550 jitter per direction on probe times, the largest of the last window.")
    for (peer, probe) in probed {
      for (direction, jitter) in [
        ("forward", probe.forwardJitterMilliseconds),
        ("backward", probe.backwardJitterMilliseconds),
      ] {
        if let jitter {
          out.sample(
            "netquality_probe_jitter_seconds", [("peer", peer), ("direction", direction)],
            jitter / 1000)
        }
      }
    }
  }

  /// A per-peer counter of the probes' totals.
  private func counter(
    _ name: String, _ help: String, _ probed: [(String, ProbeSnapshot)], into out: inout Writer,
    _ value: (ProbeCounts) -> Int64
  ) {
    out.family(name, .counter, help)
    for (peer, probe) in probed {
      out.sample(name, [("peer", peer)], Double(value(probe.total)))
    }
  }
}
