import ArgumentParser
import Foundation
import NetQualityAgent
import NetQualityCapture
import NetQualityConfig
import NetQualityCore
import NetQualityExport
import NetQualityStore

struct AnalyzeCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "analyze",
    abstract: "Analyse the RTP/RTCP streams in a pcap or pcapng file.",
    discussion: """
      Streams are found without signalling (RFC 7983 demultiplexing, RFC 3550 probation); SDP in \
      SIP, where the capture has it, supplies clock rates. --calls lists the calls instead: SIP \
      dialogs, WebRTC sessions and media sessions, each with its streams (docs/calls.md). \
      Output is deterministic.
      """
  )

  enum Format: String, ExpressibleByArgument, CaseIterable {
    case table, json, jsonl
  }

  @Argument(help: "The capture file (pcap or pcapng); - reads standard input.")
  var file: String

  @Option(help: "Output format: table or json (streams); table or jsonl (--timeline).")
  var format: Format = .table

  @Flag(help: "Replay the capture through the 2 s scorer: tx/rx levels, states, events, alerts.")
  var timeline = false

  @Flag(
    help: ArgumentHelp(
      "List the calls (SIP dialogs by Call-ID, WebRTC sessions, media sessions) with their "
        + "answer, final status, end and streams' figures: table or json."))
  var calls = false

  @Option(
    help: "Tick interval of --timeline, seconds (0.1 to 3600, as tick_interval in the agent).")
  var interval = 2.0

  @Option(
    help: ArgumentHelp(
      "Write the timeline into this SQLite history (the agent's schema; created if missing), "
        + "for `history`, `alerts` and `report --db FILE`.", valueName: "FILE"))
  var db: String?

  @Option(
    name: .customLong("local"),
    help: ArgumentHelp(
      "A local network (CIDR); streams are then labelled tx or rx.", valueName: "CIDR"))
  var localNetworks: [String] = []

  func run() throws {
    let prefixes = try parseLocalNetworks(localNetworks)
    if calls {
      guard !timeline, db == nil else {
        throw fail("--calls lists calls; use it without --timeline and --db", code: 2)
      }
      guard format != .jsonl else { throw fail("--calls writes table or json, not jsonl", code: 2) }
      try runCalls(localNetworks: prefixes)
      return
    }
    if timeline || db != nil {
      guard format != .json else {
        throw fail("--timeline writes table or jsonl, not json", code: 2)
      }
      guard AgentConfiguration.tickIntervalRangeSeconds.contains(interval) else {
        let range = AgentConfiguration.tickIntervalRangeSeconds
        throw fail(
          "--interval \(interval): must be from \(range.lowerBound) to \(range.upperBound) seconds",
          code: 2)
      }
      try runTimeline(localNetworks: prefixes)
      return
    }
    guard format != .jsonl else {
      throw fail("jsonl is the --timeline format; use table or json", code: 2)
    }
    let reader = try open()
    var analyzer = StreamAnalyzer(configuration: .init(localNetworks: prefixes))
    let completion = reader.feed(&analyzer)
    let readError = warnIfStoppedEarly(completion)
    let report = analyzer.report()
    if format == .json {
      print(try AnalysisJSON.render(report, file: file, readError: readError))
    } else {
      print(AnalysisTable.render(report, file: file, readError: readError), terminator: "")
    }
  }

  private func open() throws -> PcapFileReader {
    do {
      return try PcapFileReader(path: file)
    } catch {
      throw fail(error.description)
    }
  }

  private func warnIfStoppedEarly(_ completion: PcapFileReader.Completion) -> String? {
    guard case .stoppedEarly(let reason) = completion else { return nil }
    warn("\(file): reading stopped early, results cover the packets before it: \(reason)")
    return reason
  }

  /// Two passes when no --local is given: one to find the local side, one to score.
  private func runTimeline(localNetworks: [NetworkPrefix]) throws {
    let configuration = try engineConfiguration(localNetworks: localNetworks, flag: "--timeline")
    var engine = Engine(configuration: configuration)
    var schedule = TickSchedule(intervalSeconds: interval)
    let history = try db.map(openHistory)
    var historyError: (any Error)?
    if timeline && format == .table { print(TimelineTable.header) }
    let completion = try open().replay(
      into: &engine, schedule: &schedule,
      onTick: { result in
        if let history, historyError == nil {
          do { try history.write(HistoryTick(result, renderCall: CallsJSON.recordText)) } catch {
            historyError = error
          }
        }
        guard timeline else { return }
        let lines = format == .jsonl ? TimelineJSON.lines(result) : TimelineTable.lines(result)
        for line in lines { print(line) }
      },
      onSkip: { skipped in
        guard timeline else { return }
        print(
          format == .jsonl ? TimelineJSON.skipped(skipped).text : TimelineTable.skipped(skipped))
      })
    _ = warnIfStoppedEarly(completion)
    if let history, let db { try finishHistory(history, path: db, error: historyError) }
  }

  /// The engine's settings for a replay: the tick interval, and the local side given, or else
  /// found by a first pass over the file. Without RTP streams to find it from, `--timeline`
  /// fails; `--calls` goes on with no local side (its calls' streams have no direction).
  private func engineConfiguration(localNetworks: [NetworkPrefix], flag: String) throws
    -> EngineConfiguration
  {
    var configuration = EngineConfiguration()
    configuration.tickIntervalSeconds = interval
    configuration.localNetworks = localNetworks
    // A capture read offline keeps every record: the budget of calls that nothing answered
    // protects a live agent's history, not a report of one file.
    configuration.calls.silentRecordsPerSourcePerMinute = .max
    configuration.calls.silentRecordsPerMinute = .max
    guard localNetworks.isEmpty else { return configuration }
    guard file != "-" else {
      throw fail(
        "\(flag) on standard input needs --local: the local side is otherwise found by a "
          + "first pass over the file", code: 2)
    }
    var analyzer = StreamAnalyzer()
    _ = try open().feed(&analyzer)
    guard let guess = LocalInference.guess(analyzer.report()) else {
      guard flag == "--calls" else { throw fail("\(file): no RTP streams, so no timeline") }
      return configuration
    }
    configuration.localNetworks = [NetworkPrefix(guess.address.description)].compactMap { $0 }
    warn(
      "no --local given: taking \(guess.address) as local (in \(guess.streams) of "
        + "\(guess.of) streams); streams from it are tx, to it rx")
    return configuration
  }

  /// `--calls`: the capture replayed through the engine; every call that ended, the open ones
  /// ending with the capture.
  private func runCalls(localNetworks: [NetworkPrefix]) throws {
    let configuration = try engineConfiguration(localNetworks: localNetworks, flag: "--calls")
    var engine = Engine(configuration: configuration)
    var schedule = TickSchedule(intervalSeconds: interval)
    var records: [CallRecord] = []
    var signalling = SignallingCounters()
    let completion = try open().replay(
      into: &engine, schedule: &schedule,
      onTick: { result in
        records += result.snapshot.calls.ended
        signalling = result.snapshot.calls.signalling
      })
    _ = warnIfStoppedEarly(completion)
    if format == .json {
      print(CallsJSON.document(records, signalling: signalling, file: file))
    } else {
      // The table of `netquality calls` (one renderer for both), then the counts.
      print(
        HistoryOutput.render(
          records.map(HistoryOutput.record), format: .table, columns: HistoryOutput.callColumns),
        terminator: "")
      print(CallsSummary.line(records, signalling: signalling))
    }
  }

  /// The history file `--db` names, opened for writing with a run for this capture.
  private func openHistory(_ path: String) throws -> HistoryWriter {
    do {
      let database = try HistoryDatabase.openForWriting(path: path)
      return try HistoryWriter(
        database: database, kind: "capture", name: file, version: BuildInfo.version,
        startedAt: Date().timeIntervalSince1970)
    } catch {
      throw fail("\(path): \(HistoryFault(error).message)")
    }
  }

  /// Aggregates the capture's minutes (nothing is deleted: a capture's timeline is kept
  /// whole, however long it spans) and says what was written.
  private func finishHistory(_ history: HistoryWriter, path: String, error: (any Error)?) throws {
    if let error { throw fail("\(path): \(HistoryFault(error).message)") }
    do {
      try HistoryMaintenance(
        rawRetentionSeconds: .infinity, aggregateRetentionSeconds: .infinity, maxBytes: 0
      ).runToCompletion(history.database)
    } catch {
      throw fail("\(path): \(HistoryFault(error).message)")
    }
    let rows = history.rowsWritten
    FileHandle.standardError.write(
      Data(
        ("netquality: \(path): run \(history.runID): \(rows["ticks"] ?? 0) ticks, "
          + "\(rows["peer_ticks"] ?? 0) peer rows, \(rows["events"] ?? 0) events written\n").utf8))
  }
}
