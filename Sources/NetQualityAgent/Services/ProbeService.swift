import Logging
import NetQualityConfig
import NetQualityCore
import NetQualityProbe
import ServiceLifecycle

/// The agent's STAMP side: one thread sends to every probe target and reads the answers,
/// handing the settled probes to the engine; another answers other senders' probes when the
/// reflector is enabled. Plain non-blocking sockets and poll(2), on threads of their own like
/// the captures.
///
/// The targets are the configuration's `probes`, applied at start and on every reload
/// (`apply`, through `LiveConfiguration`): added targets start, removed ones stop, changed ones
/// start a new session; the engine learns of each change in the same step (`ProbeTargets`).
public final class ProbeService: Service, Sendable {
  /// What the service opens at start: the reflector's socket, so that a port in use or a key
  /// file that cannot be read fails the start with its one-line error.
  public struct Plan: Sendable {
    var reflector: Opened<Reflector>?

    public var isEmpty: Bool { reflector == nil }
  }

  /// A configuration's probe targets with their key files read: made before anything changes,
  /// so that a key file that cannot be read fails the start, or refuses the reload whole.
  public struct Prepared: Sendable {
    var targets: [(settings: ProbeTargetSettings, options: STAMPSender.Options)] = []
  }

  /// A socket shell opened on the starting thread and used by one other thread after.
  final class Opened<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
  }

  let plan: Plan
  let state: AgentState
  let logger: Logger
  let targets = ProbeTargets()
  let threads = ServiceThreads()
  /// Wakes the probe thread when a reload changed the targets, or at the stop.
  let wake = WakePipe()

  /// How long a wait lasts at most before the stop flag is looked at again.
  static let pollMilliseconds: Int64 = 100
  /// How often the senders' counters are published for /metrics (a scrape is seconds apart;
  /// publishing every pass of a thousand targets would cost more than the probing).
  static let publishIntervalNanoseconds: Int64 = 250_000_000
  /// A pass of the loop looks at every target: at least this long per target between passes,
  /// so that answers arriving one by one cannot make a thousand targets' loop spin (their
  /// receive times are the kernel's, so a short wait changes no measurement).
  static let passSpacingNanosecondsPerTarget: Int64 = 1_000
  /// Settled probes the loop keeps while the tick holds the scorer (`recordPending`) before it
  /// waits for it after all: over three seconds of 1,000 targets at 20/s.
  static let pendingSamplesLimit = 65_536

  public init(plan: Plan, state: AgentState, logger: Logger) {
    self.plan = plan
    self.state = state
    self.logger = logger
    threads.whenStopping { [wake] in wake.signal() }
  }

  /// The plan of a configuration: the reflector's socket bound (the probe targets are
  /// `prepare`d and applied by `LiveConfiguration`, at start and on reload alike).
  public static func plan(_ configuration: AgentConfiguration) throws(AgentError) -> Plan {
    var plan = Plan()
    _ = try prepare(configuration.probes)
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

  /// The senders' options of `probes`, each target's key read from its file.
  public static func prepare(_ probes: [ProbeTargetSettings]) throws(AgentError) -> Prepared {
    var prepared = Prepared()
    for settings in probes {
      var options = STAMPSender.Options(target: settings.target)
      options.ratePerSecond = settings.ratePerSecond
      options.sizeBytes = settings.sizeBytes
      options.dscp = UInt8(clamping: settings.dscp)
      options.timeoutSeconds = settings.timeoutSeconds
      if !settings.authKeyFile.isEmpty {
        do {
          options.key = try STAMPKeyFile.load(path: settings.authKeyFile).first
        } catch {
          throw AgentError.probes("probe \(settings.target): \(error.description)")
        }
      }
      prepared.targets.append((settings, options))
    }
    return prepared
  }

  public func run() async throws {
    var bodies: [(name: String, body: @Sendable () -> Void)] = [
      ("probes", { self.probeLoop() })
    ]
    if let reflector = plan.reflector {
      bodies.append(("reflector", { self.reflectorLoop(reflector.value) }))
    }
    await threads.run(bodies)
  }
}
