import ArgumentParser
import Foundation
import NetQualityAgent
import NetQualityCore
import NetQualityExport
import NetQualityProbe

struct ProbeCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "probe",
    abstract:
      "Probe a STAMP (RFC 8762) reflector: round trip, loss, delay variation per direction.",
    discussion: """
      Sends test packets at a voice stream's rate (50/s) to a reflector such as `netquality \
      reflect`, prints a line per answer and, every 2 s, the levels the agent would give the \
      path each way (tx: us to the reflector, rx: back). A stateful reflector tells loss on \
      the way out from loss on the way back. Ends after --count probes, or on SIGINT or \
      SIGTERM, with a summary (--json: one JSON object).
      """
  )

  @Argument(help: ArgumentHelp("The reflector.", valueName: "ADDR:PORT"))
  var target: String

  @Option(help: "Probes to send (0: until SIGINT or SIGTERM).")
  var count = 0

  @Option(help: ArgumentHelp("Time between probes: 20ms, 0.5s, 1s.", valueName: "DURATION"))
  var interval = "20ms"

  @Option(help: "UDP payload bytes (0: the smallest packet, 44 or 112 with a key).")
  var size = 0

  @Option(help: "DiffServ code point; 46 (EF) is voice's.")
  var dscp = 46

  @Option(help: ArgumentHelp("How long an answer may take.", valueName: "DURATION"))
  var timeout = "1s"

  @Option(
    name: .customLong("auth-keys"),
    help: ArgumentHelp(
      "Authenticated mode (HMAC-SHA-256) with the first key of this file (`NAME HEXKEY` lines).",
      valueName: "FILE"))
  var authKeys: String?

  @Flag(
    name: .customLong("clock-synchronized"),
    help: "This host's clock is synchronised: with a reflector saying so too, one-way delays.")
  var clockSynchronized = false

  @Flag(help: "No line per answer.")
  var quiet = false

  @Flag(help: "The summary as one JSON object on stdout (no lines per answer or tick).")
  var json = false

  func run() throws {
    let endpoint: Endpoint
    switch EndpointArgument.parse(target) {
    case .success(let parsed): endpoint = parsed
    case .failure(let failure): throw fail("\(target): \(failure.message)", code: 2)
    }
    guard endpoint.address != IPAddress(ipv4: 0, 0, 0, 0),
      endpoint.address != IPAddress(high: 0, low: 0)
    else {
      throw fail("\(target): \(Endpoint.expectedForm)", code: 2)
    }
    guard let intervalSeconds = Self.seconds(interval), (0.001...60).contains(intervalSeconds)
    else {
      throw fail("--interval \(interval): a duration from 1ms to 60s (20ms, 0.5s, 1s)", code: 2)
    }
    guard let timeoutSeconds = Self.seconds(timeout), (0.01...60).contains(timeoutSeconds) else {
      throw fail("--timeout \(timeout): a duration from 10ms to 60s", code: 2)
    }
    guard count >= 0 else { throw fail("--count \(count): must be 0 or more", code: 2) }
    guard (0...63).contains(dscp) else { throw fail("--dscp \(dscp): must be 0...63", code: 2) }
    var options = STAMPSender.Options(target: endpoint)
    options.ratePerSecond = 1 / intervalSeconds
    options.timeoutSeconds = timeoutSeconds
    options.dscp = UInt8(dscp)
    options.clockSynchronized = clockSynchronized
    if let authKeys {
      do {
        options.key = try STAMPKeyFile.load(path: authKeys).first
      } catch {
        throw fail(error.description)
      }
    }
    let base = STAMPSenderPacket.baseLength(options.key == nil ? .unauthenticated : .authenticated)
    guard size == 0 || (base...1472).contains(size) else {
      throw fail("--size \(size): from \(base) to 1472 bytes (0: \(base))", code: 2)
    }
    options.sizeBytes = size

    let sender: STAMPSender
    do {
      sender = try STAMPSender(options: options)
    } catch {
      throw fail(error.description)
    }
    StopSignals.install()
    var run = ProbeRun(sender: sender, count: count, printLines: !json && !quiet, json: json)
    do {
      try run.loop()
    } catch {
      throw fail(error.description)
    }
    print(json ? run.summaryJSON() : run.summaryText())
    fflush(nil)
    if run.answered == 0 { throw ExitCode(1) }
  }

  /// `20ms`, `0.5s`, `1s`, `250us`, or a bare number of seconds.
  static func seconds(_ text: String) -> Double? {
    for (suffix, scale) in [("ms", 1e-3), ("us", 1e-6), ("s", 1.0)] where text.hasSuffix(suffix) {
      return Double(text.dropLast(suffix.count)).map { $0 * scale }
    }
    return Double(text)
  }
}
