import ArgumentParser
import Foundation

@main
struct ImpairCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "netquality-impair",
    abstract:
      "A UDP relay for the tests: seeded delay, jitter, loss, duplication and reordering per direction.",
    discussion: """
      Clients send to --listen; the relay sends their datagrams on to --target (forward) and the \
      target's replies back to them (backward). It learns each client from its first datagram \
      and opens an upstream socket per client (up to 64; datagrams from more are counted in \
      client_limit_dropped and dropped).

      Per packet and direction: dropped with probability --DIR-loss; otherwise held \
      --DIR-delay-ms plus a uniform draw in [-jitter, +jitter] (never below 0), plus \
      --DIR-reorder-ms with probability --DIR-reorder, and sent twice (the copy right behind \
      it) with probability --DIR-duplicate. All draws come from --seed, a separate stream per \
      direction: the n-th packet of a direction always gets the same fate.

      It prints "listening on ADDR:PORT" once bound. --stats FILE is rewritten atomically every \
      second and at exit (SIGINT or SIGTERM; exit status 0) with what was really applied per \
      direction: received, dropped, overflow, oversize, forwarded, duplicated, send_errors, \
      queued, reorder_held, reordered (sent while an earlier-arrived packet was still queued), \
      overtaken (sent after a later-arrived one: what a receiver counts as late), and the \
      delay measured from receipt to send of the forwarded originals (delay_count, \
      delay_sum_ms, delay_min_ms, delay_max_ms, delay_mean_ms; copies excluded) with \
      overdue_mean_ms and overdue_max_ms (how much later than drawn). --log FILE gets a CSV \
      line per packet: direction,arrival_index,arrival_ns,fate,applied_delay_ns.

      Timing: run it with real-time priority, `chrt -f 10 netquality-impair ...`: on a loaded \
      machine an ordinary process wakes milliseconds late. The stats measure what was applied \
      either way.

      Exit status: 0 after SIGINT or SIGTERM, 2 for bad arguments, 1 when the relay cannot \
      start (address in use or not local, a file it cannot write).
      """
  )

  @Option(
    help: ArgumentHelp(
      "Where clients send to: A.B.C.D:PORT or [IPV6]:PORT (port 0: any free port).",
      valueName: "address:port"))
  var listen: String

  @Option(
    help: ArgumentHelp(
      "Where their datagrams go: A.B.C.D:PORT or [IPV6]:PORT.", valueName: "address:port"))
  var target: String

  @Option(help: ArgumentHelp("The seed of every draw.", valueName: "n"))
  var seed: UInt64 = 1

  @Option(help: ArgumentHelp("Stats JSON, rewritten every second and at exit.", valueName: "file"))
  var stats: String?

  @Option(help: ArgumentHelp("A CSV line per packet.", valueName: "file"))
  var log: String?

  @Option(
    name: .customLong("forward-delay-ms"),
    help: ArgumentHelp("Client to target: one-way delay.", valueName: "ms"))
  var forwardDelayMilliseconds: Double = 0
  @Option(
    name: .customLong("forward-jitter-ms"),
    help: ArgumentHelp("… uniform jitter, ± this much.", valueName: "ms"))
  var forwardJitterMilliseconds: Double = 0
  @Option(
    name: .customLong("forward-loss"),
    help: ArgumentHelp("… loss probability (0 to 1).", valueName: "p"))
  var forwardLossProbability: Double = 0
  @Option(
    name: .customLong("forward-duplicate"),
    help: ArgumentHelp("… duplication probability.", valueName: "p"))
  var forwardDuplicateProbability: Double = 0
  @Option(
    name: .customLong("forward-reorder"),
    help: ArgumentHelp("… probability of an extra hold.", valueName: "p"))
  var forwardReorderProbability: Double = 0
  @Option(
    name: .customLong("forward-reorder-ms"),
    help: ArgumentHelp("… the extra hold.", valueName: "ms"))
  var forwardReorderHoldMilliseconds: Double = 25

  @Option(
    name: .customLong("backward-delay-ms"),
    help: ArgumentHelp("Target to client: one-way delay.", valueName: "ms"))
  var backwardDelayMilliseconds: Double = 0
  @Option(
    name: .customLong("backward-jitter-ms"),
    help: ArgumentHelp("… uniform jitter, ± this much.", valueName: "ms"))
  var backwardJitterMilliseconds: Double = 0
  @Option(
    name: .customLong("backward-loss"),
    help: ArgumentHelp("… loss probability (0 to 1).", valueName: "p"))
  var backwardLossProbability: Double = 0
  @Option(
    name: .customLong("backward-duplicate"),
    help: ArgumentHelp("… duplication probability.", valueName: "p"))
  var backwardDuplicateProbability: Double = 0
  @Option(
    name: .customLong("backward-reorder"),
    help: ArgumentHelp("… probability of an extra hold.", valueName: "p"))
  var backwardReorderProbability: Double = 0
  @Option(
    name: .customLong("backward-reorder-ms"),
    help: ArgumentHelp("… the extra hold.", valueName: "ms"))
  var backwardReorderHoldMilliseconds: Double = 25

  var forward: ImpairmentParameters {
    ImpairmentParameters(
      delayMilliseconds: forwardDelayMilliseconds, jitterMilliseconds: forwardJitterMilliseconds,
      lossProbability: forwardLossProbability,
      duplicateProbability: forwardDuplicateProbability,
      reorderProbability: forwardReorderProbability,
      reorderHoldMilliseconds: forwardReorderHoldMilliseconds)
  }

  var backward: ImpairmentParameters {
    ImpairmentParameters(
      delayMilliseconds: backwardDelayMilliseconds,
      jitterMilliseconds: backwardJitterMilliseconds, lossProbability: backwardLossProbability,
      duplicateProbability: backwardDuplicateProbability,
      reorderProbability: backwardReorderProbability,
      reorderHoldMilliseconds: backwardReorderHoldMilliseconds)
  }

  /// The checked settings, or the first problem as a usage error.
  func relayConfiguration() throws(ValidationError) -> RelayConfiguration {
    let example = "(e.g. 10.0.0.1:5000, [2001:db8::1]:5000)"
    guard let listenAddress = SocketAddress(parsing: listen) else {
      throw ValidationError(
        "--listen \(listen): not a numeric IPv4 or IPv6 address and port \(example)")
    }
    guard let targetAddress = SocketAddress(parsing: target), targetAddress.port != 0 else {
      throw ValidationError(
        "--target \(target): not a numeric IPv4 or IPv6 address and port (not 0) \(example)")
    }
    for direction in Direction.allCases {
      let parameters = direction == .forward ? forward : backward
      if let problem = parameters.problem(direction: direction) { throw ValidationError(problem) }
    }
    return RelayConfiguration(
      listen: listenAddress, target: targetAddress, seed: seed, forward: forward,
      backward: backward, statsPath: stats, logPath: log)
  }

  func validate() throws {
    _ = try relayConfiguration()
  }

  /// ArgumentParser's own `main` exits with 64 on a usage error and prints the whole usage; the
  /// tests want one line and the exit status 2 (as a shell's builtins do).
  static func main() {
    let command: ImpairCommand
    do {
      command = try parse()
    } catch {
      if exitCode(for: error) == .success {
        // --help or --version: not an error.
        print(fullMessage(for: error))
        Foundation.exit(0)
      }
      warn(message(for: error) + " (see --help)", prefix: "error")
      Foundation.exit(2)
    }
    do {
      try command.run()
    } catch {
      warn("\(error)", prefix: "error")
      Foundation.exit(1)
    }
  }

  func run() throws {
    let configuration = try relayConfiguration()
    let relay = try Relay(configuration: configuration)
    let signals = StopSignals.install()
    // Unbuffered: a test waits on this line instead of sleeping.
    FileHandle.standardOutput.write(Data("listening on \(relay.boundAddress)\n".utf8))
    try relay.run(signals: signals)
  }
}

/// One line on stderr, `netquality-impair: PREFIX: MESSAGE`.
func warn(_ message: String, prefix: String = "warning") {
  FileHandle.standardError.write(Data("netquality-impair: \(prefix): \(message)\n".utf8))
}
