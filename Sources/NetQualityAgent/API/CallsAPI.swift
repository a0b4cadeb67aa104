import Hummingbird
import NetQualityCore
import NetQualityExport

extension HTTPServer {
  /// Ended calls `/api/v1/calls` answers from: the newest `AgentState.recentCallLimit` that
  /// something answered and `recentSilentCallLimit` that nothing did, kept in
  /// memory by the HTTP sink (docs/calls.md).
  static let callParameters = [
    "state", "kind", "status", "call_id", "user", "peer", "failed", "quality", "lost_in",
    "from", "to", "limit",
  ]

  /// `/api/v1/calls`: the calls open now (counts by kind) and the latest ended calls, newest
  /// first (`state=active`: the SIP and WebRTC calls open at the last tick with their figures
  /// so far, as `CallsSnapshot.open` lists them; `state=all`: those, then the ended), filtered
  /// by `kind`, `status` (a code such as 486, or a class such as 5xx),
  /// `call_id`, `user` (From or To, as masked), `peer`, `failed=true`, `quality` (at least
  /// this bad in either direction: poor, bad, ...), `lost_in` (through this host and lost
  /// packets upstream, in the relay or downstream), `from` and `to` (Unix seconds: ended in
  /// [from, to)); at most `limit` (100 unless it asks for up to 1,000). Older calls are in the
  /// history (`netquality calls`).
  static func calls(_ state: AgentState, query: Parameters) async -> Response {
    do {
      try QueryParameters.check(query, path: "/api/v1/calls", takes: callParameters)
    } catch {
      return jsonError(error.description, .badRequest)
    }
    let wanted = query["state"].map(String.init) ?? "ended"
    guard ["active", "ended", "all"].contains(wanted) else {
      return jsonError("state \(wanted): one of active, ended, all", .badRequest)
    }
    var limit = 100
    if let text = query["limit"] {
      guard let value = Int(text), (0...AgentState.recentCallLimit).contains(value) else {
        return jsonError(
          "limit \(text): a whole number from 0 to \(AgentState.recentCallLimit)", .badRequest)
      }
      limit = value
    }
    let kind = query["kind"].map(String.init)
    if let kind, CallRecord.Kind(rawValue: kind) == nil {
      return jsonError("kind \(kind): one of sip, webrtc, media", .badRequest)
    }
    let status = query["status"].map(String.init)
    if let status, Int(status) == nil, !CallRecord.statusClasses.contains(status) {
      return jsonError(
        "status \(status): a code (486) or a class ("
          + CallRecord.statusClasses.joined(
            separator: ", ") + ")", .badRequest)
    }
    var atLeast: QualityLevel?
    if let text = query["quality"] {
      guard let level = QualityLevel(name: String(text)), level != .unknown else {
        let names = QualityLevel.allCases.dropFirst().map(\.name)
        return jsonError(
          "quality \(text): one of \(names.joined(separator: ", "))", .badRequest)
      }
      atLeast = level
    }
    var lostIn: HopLoss.Segment?
    if let text = query["lost_in"] {
      guard let segment = HopLoss.Segment(rawValue: String(text)) else {
        let names = HopLoss.Segment.allCases.map(\.rawValue)
        return jsonError("lost_in \(text): one of \(names.joined(separator: ", "))", .badRequest)
      }
      lostIn = segment
    }
    var bounds: [String: Double] = [:]
    for name: Substring in ["from", "to"] {
      guard let text = query[name] else { continue }
      guard let value = Double(text), value.isFinite else {
        return jsonError("\(name) \(text): Unix seconds", .badRequest)
      }
      bounds[String(name)] = value
    }
    let from = bounds["from"] ?? -.infinity
    let to = bounds["to"] ?? .infinity
    let failedOnly = query["failed"].map { $0 == "true" || $0 == "1" } ?? false
    let callID = query["call_id"].map(String.init)
    let user = query["user"].map(String.init)
    let peer = query["peer"].map(String.init)
    let (tick, recent) = state.read { ($0.lastTick, $0.recentCalls) }
    let open = wanted == "ended" ? [] : tick?.snapshot.calls.open ?? []
    let ended = wanted == "active" ? [] : Array(recent.reversed())
    let matching = (open + ended).filter { call in
      (kind == nil || call.kind.rawValue == kind)
        && (status == nil || call.finalStatus.map(String.init) == status
          || call.statusClass == status)
        && (!failedOnly || call.isFailed) && (callID == nil || call.callID == callID)
        && (user == nil || call.fromUser == user || call.toUser == user)
        && (peer == nil || call.peers.contains(peer ?? ""))
        && (atLeast.map { call.worstLevel >= $0 } ?? true)
        && (lostIn.map { call.lost(in: $0) } ?? true)
        && call.end.secondsSinceEpoch >= from && call.end.secondsSinceEpoch < to
    }
    let active = tick?.snapshot.calls.active ?? [:]
    return json(
      .object([
        ("time", .optional(tick?.snapshot.time.secondsSinceEpoch)),
        (
          "active",
          .object(
            CallRecord.Kind.allCases.map { ($0.rawValue, .integer(Int64(active[$0] ?? 0))) })
        ),
        ("open_unlisted", .integer(Int64(tick?.snapshot.calls.openUnlisted ?? 0))),
        ("kept", .integer(Int64(recent.count))),
        ("matched", .integer(Int64(matching.count))),
        ("limit", .integer(Int64(limit))),
        ("calls", .array(matching.prefix(limit).map(CallsJSON.record))),
      ]))
  }

  /// `/api/v1/calls/{id}`: one call by its id, open (its figures at the last tick) or among
  /// the latest ended; 404 otherwise (older calls: `netquality calls`, the history).
  static func call(_ state: AgentState, id: String) -> Response {
    let (tick, recent) = state.read { ($0.lastTick, $0.recentCalls) }
    let found =
      tick?.snapshot.calls.open.first { $0.id == id } ?? recent.last { $0.id == id }
    guard let found else {
      return jsonError(
        "call \(id): neither open nor among the latest ended",
        .notFound)
    }
    return json(
      .object([
        ("time", .optional(tick?.snapshot.time.secondsSinceEpoch)),
        ("call", CallsJSON.record(found)),
      ]))
  }
}
