import Foundation
import NetQualityProbe

/// The reflector thread: answers other senders' probes when the reflector is enabled.
extension ProbeService {
  func reflectorLoop(_ reflector: Reflector) {
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
