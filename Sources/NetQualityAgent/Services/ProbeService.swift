import Foundation
import Logging
import NetQualityConfig
import NetQualityCore
import NetQualityProbe
import ServiceLifecycle
import Synchronization

/// The agent's STAMP side: one thread sends to every probe target and reads the answers,
/// handing the settled probes to the engine; another answers other senders' probes when the
/// reflector is enabled. Plain non-blocking sockets and poll(2), on threads of their own like
/// the captures.
public final class ProbeService: Service, Sendable {
  /// Everything the service needs, read and opened at start so that a key file that cannot be
  /// read or a reflector port in use fails the start with its one-line error.
  public struct Plan: Sendable {
    var targets: [STAMPSender.Options] = []
    var reflector: Opened<Reflector>?

    public var isEmpty: Bool { targets.isEmpty && reflector == nil }
  }

  /// A socket shell opened on the starting thread and used by one other thread after.
  final class Opened<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
  }

  let plan: Plan
  let state: AgentState
  let logger: Logger
  private let threads = ServiceThreads()

  /// How long a wait lasts at most before the stop flag is looked at again.
  static let pollMilliseconds: Int64 = 100

  public init(plan: Plan, state: AgentState, logger: Logger) {
    self.plan = plan
    self.state = state
    self.logger = logger
  }

  /// The plan of a configuration: each target's key read from its file, the reflector's socket
  /// bound.
  public static func plan(_ configuration: AgentConfiguration) throws(AgentError) -> Plan {
    var plan = Plan()
    for settings in configuration.probes {
      var options = STAMPSender.Options(target: settings.target)
      options.ratePerSecond = settings.ratePerSecond
      options.sizeBytes = settings.sizeBytes
      options.dscp = UInt8(settings.dscp)
      options.timeoutSeconds = settings.timeoutSeconds
      if !settings.authKeyFile.isEmpty {
        do {
          options.key = try STAMPKeyFile.load(path: settings.authKeyFile).first
        } catch {
          throw AgentError.probes("probe \(settings.target): \(error.description)")
        }
      }
      plan.targets.append(options)
    }
    let settings = configuration.reflector
    if settings.enabled {
      var reflector = ReflectorConfiguration()
      reflector.allowedNetworks = settings.allow
      reflector.ratePerSourcePacketsPerSecond = settings.rateLimitPerSecond
      reflector.burstPerSourcePackets = Double(settings.burst)
      reflector.errorEstimate = STAMPErrorEstimate(
        seconds: ReflectorConfiguration.defaultErrorSeconds,
        isSynchronized: settings.clockSynchronized)
      if !settings.authKeyFile.isEmpty {
        do {
          reflector.keys = try STAMPKeyFile.load(path: settings.authKeyFile)
        } catch {
          throw AgentError.probes("reflector: \(error.description)")
        }
      }
      do {
        plan.reflector = Opened(try Reflector(configuration: reflector, listen: settings.listen))
      } catch {
        throw AgentError.probes("reflector on \(settings.listen): \(error.description)")
      }
    }
    return plan
  }

  public func run() async throws {
    var bodies: [(name: String, body: @Sendable () -> Void)] = []
    if !plan.targets.isEmpty {
      bodies.append(("probes", { self.probeLoop() }))
    }
    if let reflector = plan.reflector {
      bodies.append(("reflector", { self.reflectorLoop(reflector.value) }))
    }
    await threads.run(bodies)
  }

  private func probeLoop() {
    var senders: [STAMPSender] = []
    let start = WallClock.monotonicNow()
    for (index, options) in plan.targets.enumerated() {
      do {
        // Spread the targets over one interval, so their probes do not leave in bursts.
        let offset = Double(index) / Double(plan.targets.count) / options.ratePerSecond
        senders.append(try STAMPSender(options: options, start: start.advanced(bySeconds: offset)))
        logger.info(
          "probing", metadata: ["target": "\(options.target)", "rate": "\(options.ratePerSecond)"])
      } catch {
        logger.error("probe \(options.target): \(error.description)")
      }
    }
    guard !senders.isEmpty else { return }
    var samples: [ProbeSample] = []
    samples.reserveCapacity(256)
    var descriptors = senders.map {
      pollfd(fd: $0.socket.descriptor, events: Int16(POLLIN), revents: 0)
    }
    while !threads.isStopping {
      let monotonic = WallClock.monotonicNow()
      for sender in senders {
        do {
          sender.sendIfDue(monotonicNow: monotonic)
          try sender.receiveAnswers { samples.append($0) }
        } catch {
          logger.error("probe \(sender.options.target): \(error.description)")
        }
        sender.settle(now: WallClock.now()) { samples.append($0) }
      }
      if !samples.isEmpty {
        state.scorer.withLock { scorer in
          for sample in samples { scorer.record(probe: sample) }
        }
        samples.removeAll(keepingCapacity: true)
      }
      state.update { published in
        for sender in senders {
          published.probeSenders[sender.options.target.description] = sender.counters
        }
      }
      // Until the next send or deadline, whichever is first.
      let milliseconds = senders.reduce(Int32(Self.pollMilliseconds)) {
        min($0, $1.millisecondsUntilDue(sending: true, limit: $0))
      }
      _ = poll(&descriptors, nfds_t(descriptors.count), milliseconds)
    }
  }

  private func reflectorLoop(_ reflector: Reflector) {
    logger.info("reflecting", metadata: ["listen": "\(reflector.socket.localEndpoint)"])
    while !threads.isStopping {
      do {
        if try reflector.socket.waitUntilReadable(timeoutMilliseconds: 100) {
          try reflector.serveWaiting()
        }
      } catch {
        logger.error("reflector: \(error.description)")
        Thread.sleep(forTimeInterval: 1)
      }
      let counters = reflector.counters
      state.update { $0.reflector = counters }
    }
  }
}
