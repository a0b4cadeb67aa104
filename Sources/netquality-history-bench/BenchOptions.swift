import Foundation

/// The benchmark's command line: `--peers N --days D --dir DIRECTORY`.
struct BenchOptions {
  var peers = 1000
  var days = 7.0
  var directory = "bench-out"
  /// The agent's default retention: raw ticks 48 h, minute aggregates 30 days.
  var rawRetentionSeconds = 48 * 3600.0
  var aggregateRetentionSeconds = 30 * 86_400.0
  /// Times only the queries, on the file a previous run left.
  var queriesOnly = false

  static let usage =
    "usage: netquality-history-bench [--peers N] [--days D] [--dir DIRECTORY] [--queries-only]"

  init(arguments: [String]) throws(BenchError) {
    var remaining = arguments[...]
    while let option = remaining.popFirst() {
      if option == "--queries-only" {
        queriesOnly = true
        continue
      }
      guard let value = remaining.popFirst() else {
        throw BenchError("\(option) needs a value\n\(Self.usage)")
      }
      switch option {
      case "--peers":
        guard let peers = Int(value), peers > 0 else {
          throw BenchError("--peers: a positive whole number, not \(value)")
        }
        self.peers = peers
      case "--days":
        guard let days = Double(value), days > 0, days.isFinite else {
          throw BenchError("--days: a positive number, not \(value)")
        }
        self.days = days
      case "--dir":
        directory = value
      default:
        throw BenchError("unknown option \(option)\n\(Self.usage)")
      }
    }
  }
}

/// A failure the benchmark reports in one line and exits with.
struct BenchError: Error, CustomStringConvertible {
  let description: String

  init(_ description: String) {
    self.description = description
  }
}
