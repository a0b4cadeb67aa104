import ArgumentParser
import Foundation
import NetQualityCapture
import NetQualityConfig
import NetQualityCore
import NetQualityExport

struct AnalyzeCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "analyze",
    abstract: "Analyse the RTP/RTCP streams in a pcap or pcapng file.",
    discussion: """
      Streams are found without signalling (RFC 7983 demultiplexing, RFC 3550 probation); SDP in
      SIP over UDP, where the capture has it, supplies clock rates. Output is deterministic.
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

  @Option(
    help: "Tick interval of --timeline, seconds (0.1 to 3600, as tick_interval in the agent).")
  var interval = 2.0

  @Option(
    name: .customLong("local"),
    help: ArgumentHelp(
      "A local network (CIDR); streams are then labelled tx or rx.", valueName: "CIDR"))
  var localNetworks: [String] = []

  func run() throws {
    let prefixes = try parseLocalNetworks(localNetworks)
    if timeline {
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
    var configuration = EngineConfiguration()
    configuration.tickIntervalSeconds = interval
    configuration.localNetworks = localNetworks
    if localNetworks.isEmpty {
      guard file != "-" else {
        throw fail(
          "--timeline on standard input needs --local: the local side is otherwise found by a "
            + "first pass over the file", code: 2)
      }
      var analyzer = StreamAnalyzer()
      _ = try open().feed(&analyzer)
      guard let guess = LocalInference.guess(analyzer.report()) else {
        throw fail("\(file): no RTP streams, so no timeline")
      }
      configuration.localNetworks = [NetworkPrefix(guess.address.description)].compactMap { $0 }
      warn(
        "no --local given: taking \(guess.address) as local (in \(guess.streams) of "
          + "\(guess.of) streams); streams from it are tx, to it rx")
    }
    var engine = Engine(configuration: configuration)
    var schedule = TickSchedule(intervalSeconds: interval)
    if format == .table { print(TimelineTable.header) }
    let completion = try open().replay(
      into: &engine, schedule: &schedule,
      onTick: { result in
        let lines = format == .jsonl ? TimelineJSON.lines(result) : TimelineTable.lines(result)
        for line in lines { print(line) }
      },
      onSkip: { skipped in
        print(
          format == .jsonl ? TimelineJSON.skipped(skipped).text : TimelineTable.skipped(skipped))
      })
    _ = warnIfStoppedEarly(completion)
  }
}
