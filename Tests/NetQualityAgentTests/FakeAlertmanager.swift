import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import NIOPosix
import Synchronization
import XCTest

/// Alertmanager's `POST /api/v2/alerts` on loopback (a Hummingbird server on a port of its
/// own): keeps every body it is sent and answers as told, request by request (200 once the
/// scripted answers are used up).
final class FakeAlertmanager: Sendable {
  enum Answer: Sendable {
    case status(Int, String)
    /// Answers 200 after this long (for timeouts).
    case delay(seconds: Double)
  }

  private struct State {
    var answers: [Answer]
    var bodies: [String] = []
    var waiters: [(count: Int, id: Int, continuation: CheckedContinuation<Bool, Never>)] = []
    var nextWaiter = 0
    /// Waiters whose time ran out before they were registered.
    var expired: Set<Int> = []
  }

  private let state: Mutex<State>

  init(answers: [Answer] = []) {
    state = Mutex(State(answers: answers))
  }

  /// The bodies received, parsed: one array of alerts per request.
  var requests: [[[String: Any]]] {
    state.withLock { $0.bodies }.map { body in
      (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [[String: Any]] ?? []
    }
  }

  var requestCount: Int { state.withLock { $0.bodies.count } }

  /// Runs `body` with the server listening on 127.0.0.1, given its port.
  func serve(_ body: @escaping @Sendable (Int) async throws -> Void) async throws {
    let router = Router()
    router.post("/api/v2/alerts") { request, context -> Response in
      let buffer = try await request.body.collect(upTo: 1 << 20)
      let answer = self.received(String(buffer: buffer))
      switch answer {
      case .status(let code, let text):
        return Response(
          status: .init(code: code), body: .init(byteBuffer: ByteBuffer(string: text)))
      case .delay(let seconds):
        try await Task.sleep(for: .seconds(seconds))
        return Response(status: .ok)
      }
    }
    let app = Application(
      router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
    try await app.test(.live) { client in
      try await body(try XCTUnwrap(client.port))
    }
  }

  private func received(_ body: String) -> Answer {
    let (answer, ready) = state.withLock { state in
      state.bodies.append(body)
      let answer = state.answers.isEmpty ? .status(200, "") : state.answers.removeFirst()
      let count = state.bodies.count
      let ready = state.waiters.filter { $0.count <= count }
      state.waiters.removeAll { $0.count <= count }
      return (answer, ready)
    }
    for waiter in ready { waiter.continuation.resume(returning: true) }
    return answer
  }

  /// Waits until `count` requests have arrived in all; false after `seconds`.
  func waitForRequests(_ count: Int, within seconds: Double) async -> Bool {
    let id = state.withLock { state in
      state.nextWaiter += 1
      return state.nextWaiter
    }
    let timeout = Task {
      try await Task.sleep(for: .seconds(seconds))
      self.expire(id)
    }
    defer { timeout.cancel() }
    return await withCheckedContinuation { continuation in
      let now = state.withLock { state -> Bool? in
        if state.bodies.count >= count { return true }
        if state.expired.contains(id) { return false }
        state.waiters.append((count, id, continuation))
        return nil
      }
      if let now { continuation.resume(returning: now) }
    }
  }

  private func expire(_ id: Int) {
    let waiter = state.withLock { state -> CheckedContinuation<Bool, Never>? in
      guard let index = state.waiters.firstIndex(where: { $0.id == id }) else {
        state.expired.insert(id)
        return nil
      }
      return state.waiters.remove(at: index).continuation
    }
    waiter?.resume(returning: false)
  }

  /// A loopback port nothing listens on: bound, then closed.
  static func closedPort() async throws -> Int {
    let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
      .bind(host: "127.0.0.1", port: 0).get()
    let port = try XCTUnwrap(channel.localAddress?.port)
    try await channel.close()
    return port
  }
}
