import ArgumentParser
import Foundation
import NetQualityAgent
import NetQualityCore
import NetQualityStore

/// `netquality calls`: the calls of the history (the agent's, or `analyze --db`'s), found as
/// after a complaint: by user, Call-ID or peer, the failed ones, the worst ones.
struct CallsCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "calls",
    abstract: "Calls from the agent's history: SIP status, end reason, loss, MOS, worst level.",
    discussion: """
      Calls that ended in the range (default: the last 24 hours), oldest first; each call's \
      ticks are those of its peers from first_tick to last_tick (`netquality history`). JSON \
      gives each whole record, as /api/v1/calls and `analyze --calls` do (docs/calls.md).
      """)

  @OptionGroup var options: HistoryOptions

  @Option(help: "Only calls whose From or To user is this (as masked by calls.user_masking).")
  var user: String?

  @Option(name: .customLong("call-id"), help: "Only the call with this SIP Call-ID.")
  var callID: String?

  @Option(help: "Only calls of this kind: sip, webrtc or media.")
  var kind: String?

  @Option(help: "Only calls with this final SIP status: a code (486) or a class (4xx, 5xx, none).")
  var status: String?

  @Flag(help: "Only SIP calls never answered (rejected, cancelled, unanswered).")
  var failed = false

  @Option(
    help: ArgumentHelp(
      "Only calls that were at least this bad in either direction: excellent, good, poor, bad, very_bad, down.",
      valueName: "LEVEL"))
  var quality: String?

  @Option(
    name: .customLong("lost-in"),
    help: ArgumentHelp(
      "Only calls through this host (a relay, SBC or SFU) that lost packets in this segment: upstream (before it), relay (inside it), downstream (after it).",
      valueName: "SEGMENT"))
  var lostIn: String?

  @Flag(help: "Worst first (worst level, then lowest MOS); with --limit, the worst calls.")
  var worst = false

  @Option(help: "At most this many calls: the newest (or, with --worst, the worst).")
  var limit: Int?

  @Flag(
    help: """
      The SIP and WebRTC calls open now at a running agent (--url), with their figures at its \
      last tick, instead of the history's ended calls (the filters apply; --format json prints \
      the agent's /api/v1/calls?state=active answer).
      """)
  var active = false

  @OptionGroup var agent: AgentEndpointOptions

  func run() throws {
    let format = try options.outputFormat()
    if active {
      try runActive(format: format)
      return
    }
    let (from, to) = try options.range(defaultSinceSeconds: 86_400)
    var query = HistoryCallsQuery(from: from, to: to)
    query.peer = options.peer
    query.user = user
    query.callID = callID
    query.failedOnly = failed
    query.worstFirst = worst
    query.limit = limit
    if let kind {
      guard let value = CallRecord.Kind(rawValue: kind) else {
        throw fail("--kind \(kind): use sip, webrtc or media", code: 2)
      }
      query.kind = value
    }
    if let status {
      guard HistoryCallsQuery.validStatus(status) else {
        throw fail(
          "--status \(status): a code from 100 to 699 or a class ("
            + CallRecord.statusClasses.joined(separator: ", ") + ")", code: 2)
      }
      query.status = status
    }
    if let quality {
      guard let level = QualityLevel(name: quality), level != .unknown else {
        let names = QualityLevel.allCases.dropFirst().map(\.name)
        throw fail("--quality \(quality): use " + names.joined(separator: ", "), code: 2)
      }
      query.atLeast = level
    }
    if let lostIn {
      guard let segment = HopLoss.Segment(rawValue: lostIn) else {
        throw fail(
          "--lost-in \(lostIn): use "
            + HopLoss.Segment.allCases.map(\.rawValue).joined(separator: ", "), code: 2)
      }
      query.lostIn = segment
    }
    let calls = try options.read(checkingPeer: false) { db in try query.rows(db) }
    if format == .json {
      print(HistoryOutput.callsJSON(calls), terminator: "")
    } else {
      print(
        HistoryOutput.render(
          calls.map(HistoryOutput.record), format: format, columns: HistoryOutput.callColumns),
        terminator: "")
    }
  }

  /// `--active`: asks the agent (`ActiveCalls`).
  private func runActive(format: HistoryFormat) throws {
    guard !worst else {
      throw fail("--worst: the history's calls only, not with --active", code: 2)
    }
    let endpoint = try agent.endpoint()
    let path = ActiveCalls.path(
      filters: [
        ("user", user), ("call_id", callID), ("kind", kind), ("status", status),
        ("quality", quality), ("peer", options.peer), ("failed", failed ? "true" : nil),
        ("lost_in", lostIn),
      ],
      limit: limit)
    let body: String
    do {
      body = try endpoint.get(path)
    } catch {
      throw fail("\(endpoint): \(error)")
    }
    if format == .json {
      print(body, terminator: body.hasSuffix("\n") ? "" : "\n")
      return
    }
    let records: [HistoryOutput.Record]
    do {
      records = try ActiveCalls.records(fromDocument: body)
    } catch {
      throw fail("\(endpoint): \(error)")
    }
    print(
      HistoryOutput.render(records, format: format, columns: HistoryOutput.callColumns),
      terminator: "")
  }
}
