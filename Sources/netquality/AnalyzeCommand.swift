import ArgumentParser
import Foundation
import NetQualityCapture
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
    case table, json
  }

  @Argument(help: "The capture file (pcap or pcapng).")
  var file: String

  @Option(help: "Output format: table or json.")
  var format: Format = .table

  @Option(
    name: .customLong("local"),
    help: ArgumentHelp(
      "A local network (CIDR); streams are then labelled tx or rx.", valueName: "CIDR"))
  var localNetworks: [String] = []

  func run() throws {
    var prefixes: [NetworkPrefix] = []
    for text in localNetworks {
      guard let prefix = NetworkPrefix(text) else {
        throw fail(
          "--local \(text): not an address or CIDR prefix (e.g. 10.0.0.0/8, 2001:db8::/32)", code: 2
        )
      }
      prefixes.append(prefix)
    }
    let reader: PcapFileReader
    do {
      reader = try PcapFileReader(path: file)
    } catch {
      throw fail(error.description)
    }
    var analyzer = StreamAnalyzer(configuration: .init(localNetworks: prefixes))
    let completion = reader.feed(&analyzer)
    var readError: String?
    if case .stoppedEarly(let reason) = completion {
      readError = reason
      warn("\(file): reading stopped early, results cover the packets before it: \(reason)")
    }
    let report = analyzer.report()
    switch format {
    case .table:
      print(AnalysisTable.render(report, file: file, readError: readError), terminator: "")
    case .json:
      print(try AnalysisJSON.render(report, file: file, readError: readError))
    }
  }
}
