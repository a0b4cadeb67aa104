import NetQualityCore

/// The line under `analyze --calls`' table (the table is `netquality calls`' own,
/// `HistoryOutput.render`): calls by kind, SIP calls answered and failed, and what was not
/// readable.
public enum CallsSummary {
  public static func line(_ calls: [CallRecord], signalling: SignallingCounters) -> String {
    let sip = calls.filter { $0.kind == .sip }
    let failed = sip.filter(\.isFailed).count
    var text =
      "\(calls.count) call(s): \(sip.count) sip (\(sip.count - failed) answered, \(failed) failed), "
      + "\(calls.filter { $0.kind == .webrtc }.count) webrtc, "
      + "\(calls.filter { $0.kind == .media }.count) media; "
      + "\(signalling.sipMessages) SIP message(s)"
    if signalling.sipMalformedTotal > 0 {
      text += ", \(signalling.sipMalformedTotal) malformed"
    }
    if signalling.sipTLSSegments > 0 {
      text += ", \(signalling.sipTLSSegments) SIP over TLS segment(s) not readable"
    }
    return text
  }
}
