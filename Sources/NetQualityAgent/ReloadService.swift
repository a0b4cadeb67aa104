import Logging
import ServiceLifecycle
import UnixSignals

/// Reloads the configuration on SIGHUP (see `LiveConfiguration.reload`).
final class ReloadService: Service, Sendable {
  let configuration: LiveConfiguration

  init(configuration: LiveConfiguration) {
    self.configuration = configuration
  }

  func run() async throws {
    let signals = await UnixSignalsSequence(trapping: .sighup)
    for await _ in signals.cancelOnGracefulShutdown() { configuration.reload() }
  }
}
