import ArgumentParser
import Foundation
import Glibc
import NetQualityAgent
import NetQualityCore
import NetQualityProbe
import Synchronization

struct ReflectCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "reflect",
    abstract: "Answer STAMP (RFC 8762) test packets: the far end of `netquality` probes.",
    discussion: """
      A stateful Session-Reflector: each sender (address and port) gets the reflector's own \
      sequence numbers from 0, so it can tell loss on the way out from loss on the way back. \
      Replies are exactly as long as requests. Receive times come from the kernel when it \
      gives them. SIGINT or SIGTERM prints a summary of the counters and exits.
      """
  )

  @Option(
    help: ArgumentHelp(
      "Address and port to listen on; [::]:862 serves IPv4 and IPv6.", valueName: "ADDR:PORT"))
  var listen = "0.0.0.0:862"

  @Option(
    name: .customLong("auth-keys"),
    help: ArgumentHelp(
      "Authenticated mode (HMAC-SHA-256): a file of keys, one `NAME HEXKEY` per line.",
      valueName: "FILE"))
  var authKeys: String?

  @Option(
    name: .customLong("allow"), parsing: .upToNextOption,
    help: ArgumentHelp("Answer only these source networks (default: all).", valueName: "CIDR"))
  var allow: [String] = []

  @Option(
    name: .customLong("rate-limit"),
    help: ArgumentHelp(
      "Replies per second to one source (address and port); 4 times this to all ports of one "
        + "address.", valueName: "PPS"))
  var rateLimit = ReflectorConfiguration().ratePerSourcePacketsPerSecond

  @Option(
    help: ArgumentHelp(
      "Replies one source may get back to back (the token bucket's size; 4 times this per "
        + "address).",
      valueName: "N"))
  var burst = ReflectorConfiguration().burstPerSourcePackets

  @Flag(
    name: .customLong("clock-synchronized"),
    help: "State that this host's clock is synchronised to UTC (sets S in the error estimate).")
  var clockSynchronized = false

  func run() throws {
    let endpoint: Endpoint
    switch EndpointArgument.parse(listen) {
    case .success(let parsed): endpoint = parsed
    case .failure(let failure): throw fail("--listen \(listen): \(failure.message)", code: 2)
    }
    guard rateLimit.isFinite, rateLimit > 0 else {
      throw fail("--rate-limit \(rateLimit): must be a positive number of packets/s", code: 2)
    }
    guard burst.isFinite, burst >= 1 else {
      throw fail("--burst \(burst): must be at least 1 packet", code: 2)
    }
    var configuration = ReflectorConfiguration()
    configuration.allowedNetworks = try allow.map { text in
      guard let prefix = NetworkPrefix(text) else {
        throw fail("--allow \(text): not an address or CIDR prefix (e.g. 10.0.0.0/8)", code: 2)
      }
      return prefix
    }
    configuration.ratePerSourcePacketsPerSecond = rateLimit
    configuration.burstPerSourcePackets = burst
    configuration.errorEstimate = STAMPErrorEstimate(
      seconds: ReflectorConfiguration.defaultErrorSeconds, isSynchronized: clockSynchronized)
    if let authKeys {
      do {
        configuration.keys = try STAMPKeyFile.load(path: authKeys)
      } catch {
        throw fail(error.description)
      }
    }

    let reflector: Reflector
    do {
      reflector = try Reflector(configuration: configuration, listen: endpoint)
    } catch {
      let hint =
        error.code == EACCES && endpoint.port < 1024
        ? " (ports below 1024 need root or CAP_NET_BIND_SERVICE)" : ""
      throw fail(error.description + hint)
    }
    StopSignals.install()
    let mode = configuration.mode == .authenticated ? "authenticated" : "unauthenticated"
    let stamps = reflector.socket.kernelTimestamps ? "kernel" : "user-space"
    print("reflecting on \(reflector.socket.localEndpoint) (\(mode), \(stamps) timestamps)")
    fflush(nil)  // every stream: stdout is a pipe when a test or a supervisor reads it
    do {
      try reflector.run { StopSignals.stopRequested.load(ordering: .relaxed) }
    } catch {
      print(reflector.counters.summary)
      throw fail(error.description)
    }
    print(reflector.counters.summary)
    fflush(nil)  // every stream: stdout is a pipe when a test or a supervisor reads it
  }
}
