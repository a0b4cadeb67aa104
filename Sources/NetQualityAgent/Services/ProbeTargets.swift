import Foundation
import NetQualityConfig
import NetQualityCore
import NetQualityProbe

/// The probe targets the probe thread runs, and the one place they change: at start and on
/// every reload (`ProbeService.apply`), and when a removed target's last probes have settled.
///
/// The engine names the targets (a target's `name`) and keeps their STAMP packets out of the
/// passive view (`ProbeTrafficFilter`); the probe thread sends to them and hands their settled
/// probes to the engine. The two must know the same targets at every moment: an earlier design
/// changed the engine on a reload and the threads only on a restart, and an old target's
/// probes then made an unnamed new peer while its packets left the filter. So every change of
/// the set is made under this object's lock, which the probe thread also holds for each pass
/// of its loop, together with the engine's reconfiguration for the set as it now stands
/// (`reconfigureEngine`): outside the lock, the engine's targets are exactly `running`.
///
/// A target a reload removes stops sending at once and stays `retiring` until its probes in
/// flight are answered or past their deadline (at most its timeout): their answers are still
/// ours, named and filtered, and settle into its peer; then the engine forgets its session and
/// the peer goes at the next tick with its alerts resolved (a target taken out is no outage).
final class ProbeTargets: @unchecked Sendable {
  /// One target the thread runs.
  struct Running {
    /// As configured: the engine's name for the target comes from here.
    var settings: ProbeTargetSettings
    let sender: STAMPSender
    /// Wall-clock time by which a removed target is let go (sending stopped); nil while it is
    /// configured.
    var retiringUntil: CaptureTime?
  }

  /// Everything behind the lock.
  struct State {
    var running: [Running] = []
    /// Changes whenever `running` does, so the thread knows to rebuild its poll set.
    var generation = 0
    /// Applies the engine's configuration for the targets running (the reload's closure: the
    /// configuration in effect with `probes` replaced by the running targets' settings).
    var reconfigureEngine: (@Sendable ([ProbeTargetSettings]) -> Void)?
    /// Settled probes the engine has not had yet (`ProbeService.recordPending`): the thread
    /// hands them over when the scorer's lock is free, never waiting behind a tick's scoring;
    /// a change of the set hands them over first, so that no probe of a session reaches the
    /// engine after that session was restarted or forgotten.
    var pendingSamples: [ProbeSample] = []

    /// What the engine is told: every running target, retiring ones included.
    var engineTargets: [ProbeTargetSettings] { running.map(\.settings) }
  }

  private let lock = NSLock()
  private var state = State()

  func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
    lock.lock()
    defer { lock.unlock() }
    return try body(&state)
  }

  /// The targets the thread sends to (configured, not retiring) and those it still settles.
  var snapshot: (active: [ProbeTargetSettings], retiring: [ProbeTargetSettings]) {
    withLock { state in
      (
        state.running.filter { $0.retiringUntil == nil }.map(\.settings),
        state.running.filter { $0.retiringUntil != nil }.map(\.settings)
      )
    }
  }
}
