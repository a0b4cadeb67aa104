import NetQualityCore

/// Calls (docs/calls.md): how many are open, started, ended by reason and failed by SIP status
/// class since the start, the MOS of the calls that ended, the failure ratios of the window the
/// call alerts look at, and what the capture side made of SIP. Every label value comes from a
/// fixed set (kinds, reasons, status classes, malformed reasons): the series stay the same
/// whatever the number of calls, users or Call-IDs.
public struct CallsCollector: MetricsCollector {
  public static let families: [MetricFamily] = [
    .callsActive, .callsStartedTotal, .callsEndedTotal, .callsFailedTotal, .callsNotTrackedTotal,
    .callsSilentNotTrackedTotal, .callsSilentUnrecordedTotal, .callMOS, .callHopLostTotal,
    .callsFailureRatio,
    .sipMessagesTotal, .sipMalformedMessagesTotal,
    .sipTLSSegmentsTotal, .signallingDroppedTotal,
  ]

  /// The end reasons each kind of call can have (the live agent never sees a capture end).
  static let reasons: [(CallRecord.Kind, [CallRecord.EndReason])] = [
    (.sip, [.byeCaller, .byeCallee, .cancelled, .rejected, .noAnswer, .timeout]),
    (.webrtc, [.dtlsAlert, .turnReleased, .consentExpired, .rtcpBye, .timeout]),
    (.media, [.rtcpBye, .dtlsAlert, .turnReleased, .timeout]),
  ]

  public var calls: CallsSnapshot

  public init(_ calls: CallsSnapshot) {
    self.calls = calls
  }

  public func collect(into out: inout MetricsWriter) {
    let counters = calls.counters
    out.family(.callsActive)
    for kind in CallRecord.Kind.allCases {
      out.sample(.callsActive, [("kind", kind.rawValue)], Double(calls.active[kind] ?? 0))
    }
    out.family(.callsStartedTotal)
    for kind in CallRecord.Kind.allCases {
      out.sample(
        .callsStartedTotal, [("kind", kind.rawValue)], Double(counters.started[kind] ?? 0))
    }
    out.family(.callsEndedTotal)
    for (kind, reasons) in Self.reasons {
      for reason in reasons {
        out.sample(
          .callsEndedTotal, [("kind", kind.rawValue), ("reason", reason.rawValue)],
          Double(counters.ended[kind]?[reason] ?? 0))
      }
    }
    out.family(.callsFailedTotal)
    for statusClass in CallRecord.statusClasses where statusClass != "2xx" {
      out.sample(
        .callsFailedTotal, [("status_class", statusClass)],
        Double(counters.failedByStatusClass[statusClass] ?? 0))
    }
    out.family(.callsNotTrackedTotal)
    out.sample(.callsNotTrackedTotal, [], Double(counters.notTracked))
    out.family(.callsSilentNotTrackedTotal)
    out.sample(.callsSilentNotTrackedTotal, [], Double(counters.notTrackedSilentSource))
    out.family(.callsSilentUnrecordedTotal)
    out.sample(.callsSilentUnrecordedTotal, [], Double(counters.unrecordedSilent))
    out.family(.callMOS)
    for direction in PeerLevelCounters.Direction.allCases {
      out.cumulativeBuckets(
        .callMOS, [("direction", direction.label)], CallCounters.mosBounds,
        counters.mosBuckets[direction] ?? [], sum: counters.mosSum[direction] ?? 0,
        count: counters.mosCount[direction] ?? 0)
    }
    out.family(.callHopLostTotal)
    for segment in HopLoss.Segment.allCases {
      out.sample(
        .callHopLostTotal, [("segment", segment.rawValue)], Double(counters.hopLost[segment]))
    }
    out.family(.callsFailureRatio)
    if let ratio = calls.failureRatio {
      out.sample(.callsFailureRatio, [("status_class", "any")], ratio)
    }
    if let ratio = calls.serverFailureRatio {
      out.sample(.callsFailureRatio, [("status_class", "5xx")], ratio)
    }
    let signalling = calls.signalling
    out.family(.sipMessagesTotal)
    out.sample(.sipMessagesTotal, [("kind", "request")], Double(signalling.sipRequests))
    out.sample(.sipMessagesTotal, [("kind", "response")], Double(signalling.sipResponses))
    out.family(.sipMalformedMessagesTotal)
    for reason in SIPMalformedReason.allCases {
      out.sample(
        .sipMalformedMessagesTotal, [("reason", reason.rawValue)],
        Double(signalling.sipMalformed[reason.rawValue] ?? 0))
    }
    out.family(.sipTLSSegmentsTotal)
    out.sample(.sipTLSSegmentsTotal, [], Double(signalling.sipTLSSegments))
    out.family(.signallingDroppedTotal)
    out.sample(.signallingDroppedTotal, [], Double(signalling.journalDropped))
  }
}

// MARK: The families

extension MetricFamily {
  public static let callsActive = gauge(
    "netquality_calls_active", labels: ["kind"],
    "Calls open now: SIP dialogs (ringing, answered, held), WebRTC sessions, media sessions.")
  public static let callsStartedTotal = counter(
    "netquality_calls_started_total", labels: ["kind"], "Calls found, by kind.")
  public static let callsEndedTotal = counter(
    "netquality_calls_ended_total", labels: ["kind", "reason"],
    "Calls ended, by kind and end reason (bye_caller, bye_callee, cancelled, rejected, "
      + "no_answer, dtls_alert, turn_released, consent_expired, rtcp_bye, timeout).")
  public static let callsFailedTotal = counter(
    "netquality_calls_failed_total", labels: ["status_class"],
    "SIP calls never answered, by the final response's class (none: no final response).")
  public static let callsNotTrackedTotal = counter(
    "netquality_calls_not_tracked_total",
    "Calls not tracked because calls.max_tracked were open (their streams have no call).")
  public static let callsSilentNotTrackedTotal = counter(
    "netquality_calls_silent_not_tracked_total",
    "INVITEs not tracked because their source had calls.max_silent_per_source calls that "
      + "nothing had answered yet (a flood into silence).")
  public static let callsSilentUnrecordedTotal = counter(
    "netquality_calls_silent_unrecorded_total",
    "SIP calls ended with no response at all that were counted but not recorded one by one: "
      + "their source was over calls.silent_records_per_source_per_minute.")
  public static let callMOS = histogram(
    "netquality_call_mos", labels: ["direction"],
    "Mean MOS of each call that ended, per direction (one observation per call).")
  public static let callHopLostTotal = counter(
    "netquality_call_hop_lost_packets_total", labels: ["segment"],
    "Packets of the ended calls' streams through this host lost on each segment of their path: "
      + "upstream (before this host), relay (inside it), downstream (after it, from the far "
      + "end's receiver reports) (docs/calls.md, \"Where the loss happened\").")
  public static let callsFailureRatio = gauge(
    "netquality_calls_failure_ratio", labels: ["status_class"],
    "Share of the SIP calls ended over calls.failure_window that failed (any), and that failed "
      + "with a 5xx; absent below calls.failure_min_calls calls.")
  public static let sipMessagesTotal = counter(
    "netquality_sip_messages_total", labels: ["kind"],
    "SIP messages read (UDP and TCP), requests and responses.")
  public static let sipMalformedMessagesTotal = counter(
    "netquality_sip_malformed_messages_total", labels: ["reason"],
    "SIP messages not used, by what was wrong with them.")
  public static let sipTLSSegmentsTotal = counter(
    "netquality_sip_tls_segments_total",
    "TCP segments to or from port 5061: SIP over TLS, whose calls cannot be seen.")
  public static let signallingDroppedTotal = counter(
    "netquality_signalling_dropped_total",
    "SIP messages and ICE checks dropped between two ticks beyond the journal's capacity.")
}
