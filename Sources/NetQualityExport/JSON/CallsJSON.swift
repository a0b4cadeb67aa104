import NetQualityCore

/// Call records in JSON (`analyze --calls --format json`): keys in snake case and in a fixed
/// order, times in Unix seconds, durations in seconds (`_s`), as docs/calls.md lists them.
public enum CallsJSON {
  /// `{"file": ..., "calls": [...], "signalling": {...}}`, one document.
  public static func document(
    _ calls: [CallRecord], signalling: SignallingCounters, file: String?
  ) -> String {
    JSONValue.object([
      ("file", .optional(file)),
      ("calls", .array(calls.map(record))),
      ("signalling", counters(signalling)),
    ]).text
  }

  /// One call's record as a JSON text (the history's `calls.record` column).
  public static func recordText(_ call: CallRecord) -> String {
    record(call).text
  }

  /// One call.
  public static func record(_ call: CallRecord) -> JSONValue {
    .object([
      ("id", .string(call.id)),
      ("kind", .string(call.kind.rawValue)),
      ("state", .string(call.isOpen ? "active" : "ended")),
      ("call_id", .optional(call.callID)),
      ("from_user", .optional(call.fromUser)),
      ("to_user", .optional(call.toUser)),
      ("peers", .array(call.peers.map(JSONValue.string))),
      ("start", .number(call.start.secondsSinceEpoch)),
      ("start_seen", .bool(call.startSeen)),
      ("no_response", .bool(call.noResponse)),
      ("answer", .optional(call.answer?.secondsSinceEpoch)),
      ("end", call.isOpen ? .null : .number(call.end.secondsSinceEpoch)),
      ("duration_s", .number(call.durationSeconds)),
      ("setup_s", .optional(call.answer.map { $0.seconds(since: call.start) })),
      ("post_dial_delay_s", .optional(call.postDialDelaySeconds)),
      ("final_status", call.finalStatus.map { .integer(Int64($0)) } ?? .null),
      ("end_reason", call.isOpen ? .null : .string(call.endReason.rawValue)),
      ("failed", .bool(call.isFailed)),
      ("codecs", .array(call.codecs.map(JSONValue.string))),
      ("holds", .integer(Int64(call.holds))),
      ("held_s", .number(call.heldSeconds)),
      ("outages", .integer(Int64(call.outages))),
      ("outage_s", .number(call.outageSeconds)),
      ("sip_retransmissions", .integer(Int64(call.sipRetransmissions))),
      ("forked_answers", .integer(Int64(call.forkedAnswers))),
      ("rx", direction(call.rx)),
      ("tx", direction(call.tx)),
      ("stream_count", .integer(Int64(call.streamCount))),
      ("streams", .array(call.streams.map(stream))),
      ("hops", .array(call.hops.map(hop))),
      ("first_tick", .optional(call.firstTick?.secondsSinceEpoch)),
      ("last_tick", .optional(call.lastTick?.secondsSinceEpoch)),
    ])
  }

  static func direction(_ figures: CallRecord.Direction) -> JSONValue {
    .object([
      ("packets", .integer(figures.packets)),
      ("lost", figures.lost.map(JSONValue.integer) ?? .null),
      ("max_jitter_ms", .optional(figures.maxJitterMilliseconds)),
      ("mean_jitter_ms", .optional(figures.meanJitterMilliseconds)),
      ("mean_rtt_ms", .optional(figures.meanRoundTripMilliseconds)),
      ("max_rtt_ms", .optional(figures.maxRoundTripMilliseconds)),
      ("min_mos", .optional(figures.minMeanOpinionScore)),
      ("mean_mos", .optional(figures.meanMeanOpinionScore)),
      ("worst_level", .string(figures.worstLevel.name)),
      (
        "level_s",
        .object(
          QualityLevel.allCases.map { level in
            (
              level.name,
              .number(
                figures.levelSeconds.indices.contains(level.rawValue)
                  ? figures.levelSeconds[level.rawValue] : 0)
            )
          })
      ),
    ])
  }

  static func stream(_ stream: CallRecord.Stream) -> JSONValue {
    .object([
      ("src", .string(stream.key.sourceAddress.description)),
      ("src_port", .integer(Int64(stream.key.source.port))),
      ("dst", .string(stream.key.destinationAddress.description)),
      ("dst_port", .integer(Int64(stream.key.destination.port))),
      ("ssrc", .integer(Int64(stream.key.ssrc))),
      ("direction", .string(stream.direction.rawValue)),
      ("packets", .integer(stream.packets)),
      ("lost", stream.lost.map(JSONValue.integer) ?? .null),
      ("far_end_lost", stream.farEndLost.map(JSONValue.integer) ?? .null),
      ("downstream_lost", stream.downstreamLost.map(JSONValue.integer) ?? .null),
      ("max_jitter_ms", .optional(stream.maxJitterMilliseconds)),
      ("rtt_ms", .optional(stream.roundTripMilliseconds)),
      ("outages", .integer(Int64(stream.outages))),
      ("outage_s", .number(stream.outageSeconds)),
    ])
  }

  static func hop(_ hop: CallRecord.Hop) -> JSONValue {
    .object([
      ("ssrc", .integer(Int64(hop.ssrc))),
      ("from", .string(hop.ingress.sourceAddress.description)),
      ("via", .string(hop.ingress.destinationAddress.description)),
      ("to", .string(hop.egress.destinationAddress.description)),
      ("upstream_lost", .integer(hop.upstreamLost)),
      ("relay_lost", .integer(hop.relayLost)),
      ("downstream_lost", hop.downstreamLost.map(JSONValue.integer) ?? .null),
      ("added_jitter_ms", .optional(hop.addedJitterMilliseconds)),
      ("upstream_rtt_ms", .optional(hop.upstreamRoundTripMilliseconds)),
      ("downstream_rtt_ms", .optional(hop.downstreamRoundTripMilliseconds)),
      ("end_to_end_rtt_ms", .optional(hop.endToEndRoundTripMilliseconds)),
    ])
  }

  static func counters(_ signalling: SignallingCounters) -> JSONValue {
    .object([
      ("sip_requests", .integer(signalling.sipRequests)),
      ("sip_responses", .integer(signalling.sipResponses)),
      (
        "sip_malformed",
        .object(
          SIPMalformedReason.allCases.map {
            ($0.rawValue, .integer(signalling.sipMalformed[$0.rawValue] ?? 0))
          })
      ),
      ("sip_tcp_segments", .integer(signalling.sipTCPSegments)),
      ("sip_tls_segments", .integer(signalling.sipTLSSegments)),
      ("ice_checks", .integer(signalling.iceChecks)),
      ("journal_dropped", .integer(signalling.journalDropped)),
    ])
  }
}
