import NetQualityCore

/// JSON lines of the timeline: one `{"type":"tick",...}` per tick, one `{"type":"event",...}`
/// per event and one `{"type":"skipped",...}` per silence whose empty ticks were left out;
/// times in Unix seconds.
public enum TimelineJSON {
  public static func lines(_ result: Engine.TickResult) -> [String] {
    result.events.map { event($0).text } + [tick(result.snapshot).text]
  }

  /// Ticks a replay left out over a silence with nothing left to report.
  public static func skipped(_ skipped: SkippedTicks) -> JSONValue {
    .object([
      ("type", .string("skipped")),
      ("from", .number(skipped.first.secondsSinceEpoch)),
      ("to", .number(skipped.last.secondsSinceEpoch)),
      ("ticks", .integer(skipped.count)),
      ("reason", .string("no traffic and nothing left to report")),
    ])
  }

  public static func tick(_ snapshot: Snapshot) -> JSONValue {
    .object([
      ("type", .string("tick")),
      ("time", .number(snapshot.time.secondsSinceEpoch)),
      ("interval_s", .number(snapshot.intervalSeconds)),
      (
        "host",
        .object([
          ("tx_quality", .integer(Int64(snapshot.hostTx.rawValue))),
          ("rx_quality", .integer(Int64(snapshot.hostRx.rawValue))),
        ])
      ),
      ("peers", .array(snapshot.peers.map(peer))),
    ])
  }

  public static func peer(_ peer: PeerSnapshot) -> JSONValue {
    .object([
      ("peer", .string(peer.peer)),
      ("state", .string(peer.state.rawValue)),
      ("state_since", .number(peer.stateSince.secondsSinceEpoch)),
      ("tx_quality", .integer(Int64(peer.tx.level.rawValue))),
      ("rx_quality", .integer(Int64(peer.rx.level.rawValue))),
      ("tx_quality_name", .string(peer.tx.level.name)),
      ("rx_quality_name", .string(peer.rx.level.name)),
      ("rx_loss_ratio", .optional(peer.rx.inputs?.lossRatio)),
      ("rx_jitter_ms", .optional(peer.rx.inputs?.jitterMilliseconds)),
      ("tx_loss_ratio", .optional(peer.tx.inputs?.lossRatio)),
      ("tx_jitter_ms", .optional(peer.tx.inputs?.jitterMilliseconds)),
      ("rtt_ms", .optional(peer.roundTripMilliseconds)),
      ("rtt_source", peer.roundTripSource.map { .string($0.rawValue) } ?? .null),
      ("mos", .optional(peer.meanOpinionScore)),
      ("rx_packets", .integer(peer.rxPackets)),
      ("rx_lost", .integer(peer.rxLost)),
      ("rx_bitrate_bps", .number(peer.rxBitsPerSecond)),
      ("tx_packets", .integer(peer.txPackets)),
      ("rx_packets_total", .integer(peer.rxPacketsTotal)),
      ("rx_lost_total", .integer(peer.rxLostTotal)),
      ("tx_packets_total", .integer(peer.txPacketsTotal)),
      // Repairs, outside the media figures above (RFC 4588 retransmissions, FEC).
      ("rx_retransmitted_packets", .integer(peer.rxRetransmittedPackets)),
      ("tx_retransmitted_packets", .integer(peer.txRetransmittedPackets)),
      ("rx_fec_packets", .integer(peer.rxFECPackets)),
      ("rx_retransmitted_total", .integer(peer.rxRetransmittedTotal)),
      ("tx_retransmitted_total", .integer(peer.txRetransmittedTotal)),
      ("rx_fec_total", .integer(peer.rxFECTotal)),
      ("streams", .integer(Int64(peer.streams))),
      // What measured the peer: its RTP, our probes, or both (each direction says which set
      // its level).
      ("sources", .array(peer.sources.map { .string($0.rawValue) })),
      ("rx", direction(peer.rx)),
      ("tx", direction(peer.tx)),
      ("probe", peer.probe.map(probe) ?? .null),
      // Media experience beside the levels (docs/media.md).
      ("media", MediaJSON.peer(peer.media)),
    ])
  }

  /// What our probes to the peer measured: the window and the totals since probing began.
  static func probe(_ probe: ProbeSnapshot) -> JSONValue {
    func milliseconds(_ seconds: Double?) -> JSONValue { .optional(seconds.map { $0 * 1000 }) }
    func counts(_ counts: ProbeCounts) -> JSONValue {
      .object([
        ("sent", .integer(counts.sent)),
        ("received", .integer(counts.received)),
        ("forward_lost", .integer(counts.forwardLost)),
        ("backward_lost", .integer(counts.backwardLost)),
        ("outage_forward_lost", .integer(counts.outageForwardLost)),
        ("outage_backward_lost", .integer(counts.outageBackwardLost)),
        ("forward_loss_ratio", .number(counts.forwardLossRatio)),
        ("backward_loss_ratio", .number(counts.backwardLossRatio)),
        ("late_stalled", .integer(counts.lateStalled)),
        ("late_delayed", .integer(counts.lateDelayed)),
        ("duplicates", .integer(counts.duplicates)),
        ("reordered", .integer(counts.reordered)),
        ("unexpected_answers", .integer(counts.unexpectedAnswers)),
        ("bad_timestamps", .integer(counts.badTimestamps)),
        ("rtt_min_ms", milliseconds(counts.roundTrip.minSeconds)),
        ("rtt_mean_ms", milliseconds(counts.roundTrip.meanSeconds)),
        ("rtt_max_ms", milliseconds(counts.roundTrip.maxSeconds)),
        ("forward_delay_mean_ms", milliseconds(counts.forwardDelay.meanSeconds)),
        ("backward_delay_mean_ms", milliseconds(counts.backwardDelay.meanSeconds)),
        ("forward_ipdv_mean_ms", milliseconds(counts.forwardDelayVariation.meanSeconds)),
        ("backward_ipdv_mean_ms", milliseconds(counts.backwardDelayVariation.meanSeconds)),
      ])
    }
    return .object([
      ("targets", .array(probe.targets.map { .string($0.description) })),
      ("window", counts(probe.window)),
      ("total", counts(probe.total)),
      ("forward_jitter_ms", .optional(probe.forwardJitterMilliseconds)),
      ("backward_jitter_ms", .optional(probe.backwardJitterMilliseconds)),
      ("lost_pending", .integer(probe.pendingLost)),
      ("timestamps", .optional(probe.kernelTimestamps.map { $0 ? "kernel" : "user" })),
      ("clocks_synchronized", .bool(probe.clocksSynchronized)),
      ("last_reply", .optional(probe.lastReplyAt?.secondsSinceEpoch)),
      ("possibly_spoofed", .bool(probe.possiblySpoofed)),
      ("last_unexpected_answer", .optional(probe.lastUnexpectedAnswerAt?.secondsSinceEpoch)),
    ])
  }

  /// What produced a level: the inputs, R, MOS, the delay used and what limited it.
  static func direction(_ direction: DirectionSnapshot) -> JSONValue {
    .object([
      ("level", .integer(Int64(direction.level.rawValue))),
      ("raw_level", .integer(Int64(direction.rawLevel.rawValue))),
      ("packets", direction.inputs.map { .integer($0.packets) } ?? .null),
      ("loss_ratio", .optional(direction.inputs?.lossRatio)),
      ("jitter_ms", .optional(direction.inputs?.jitterMilliseconds)),
      ("rtt_ms", .optional(direction.inputs?.roundTripMilliseconds)),
      ("video", direction.inputs.map { .bool($0.isVideo) } ?? .null),
      ("one_way_delay_ms", .optional(direction.oneWayDelayMilliseconds)),
      ("r_factor", .optional(direction.rating)),
      ("mos", .optional(direction.meanOpinionScore)),
      ("limited_by", .optional(direction.limitedBy?.rawValue)),
      ("source", .optional(direction.source?.rawValue)),
    ])
  }

  public static func event(_ event: EngineEvent) -> JSONValue {
    var members: [(String, JSONValue)] = [
      ("type", .string("event")),
      ("time", .number(event.time.secondsSinceEpoch)),
      ("kind", .string(event.kind.rawValue)),
      ("peer", .string(event.peer)),
    ]
    if let previous = event.previousState { members.append(("from", .string(previous.rawValue))) }
    if let reason = event.endReason { members.append(("reason", .string(reason.rawValue))) }
    if let alert = event.alert { members.append(("alert", Self.alert(alert))) }
    return .object(members)
  }

  public static func alert(_ alert: Alert) -> JSONValue {
    .object([
      ("id", .string(alert.id)),
      ("rule", .string(alert.rule)),
      ("severity", .string(alert.severity.rawValue)),
      (
        "labels",
        .object(alert.labels.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) })
      ),
      ("state", .string(alert.state.rawValue)),
      ("start", .number(alert.start.secondsSinceEpoch)),
      ("end", .optional(alert.end?.secondsSinceEpoch)),
      ("summary", .string(alert.summary)),
    ])
  }
}

extension TimelineJSON {
  /// One stream's window, for the JSON API.
  /// A stream's window, with its media experience when it has one (docs/media.md).
  public static func stream(_ stream: StreamWindow, media: StreamMediaSnapshot? = nil) -> JSONValue
  {
    .object([
      ("src", .string(stream.key.source.address.description)),
      ("src_port", .integer(Int64(stream.key.source.port))),
      ("dst", .string(stream.key.destination.address.description)),
      ("dst_port", .integer(Int64(stream.key.destination.port))),
      ("ssrc", .string(SSRCFormat.text(stream.key.ssrc))),
      ("direction", .string(stream.direction.rawValue)),
      ("role", .string(stream.role.rawValue)),
      ("state", .string(stream.state.rawValue)),
      ("packets", .integer(stream.packets)),
      ("expected", .integer(stream.expected)),
      ("lost", .integer(stream.lost)),
      ("loss_ratio", .number(stream.lossRatio)),
      ("duplicates", .integer(stream.duplicates)),
      ("late", .integer(stream.late)),
      ("bitrate_bps", .number(stream.bitsPerSecond)),
      ("jitter_ms", .optional(stream.jitterMilliseconds)),
      ("rtt_ms", .optional(stream.roundTripMilliseconds)),
      ("packets_total", .integer(stream.packetsTotal)),
      ("lost_total", .integer(stream.lostTotal)),
      ("media", media.map(MediaJSON.stream) ?? .null),
    ])
  }
}
