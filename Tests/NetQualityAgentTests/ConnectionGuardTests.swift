import HTTPTypes
import NIOCore
import NIOEmbedded
import NIOHTTPTypes
import Synchronization
import XCTest

@testable import NetQualityAgent

/// The connection cap and the request deadline, on embedded channels whose clock the test
/// moves: who is evicted, who is refused, when a connection is closed.
final class ConnectionGuardTests: XCTestCase {
  let loop = EmbeddedEventLoop()

  /// A connected channel with the guard in its pipeline, as the HTTP server builds one.
  func connect(_ registry: ConnectionRegistry) throws -> EmbeddedChannel {
    let channel = EmbeddedChannel(loop: loop)
    try channel.pipeline.syncOperations.addHandler(ConnectionGuardHandler(registry: registry))
    try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 9464)).wait()
    return channel
  }

  func sendRequest(_ channel: EmbeddedChannel) throws {
    let head = HTTPRequest(method: .get, scheme: nil, authority: "localhost", path: "/metrics")
    try channel.writeInbound(HTTPRequestPart.head(head))
    try channel.writeInbound(HTTPRequestPart.end(nil))
  }

  func respond(_ channel: EmbeddedChannel, close: Bool) throws {
    var fields = HTTPFields()
    if close { fields[.connection] = "close" }
    try channel.writeOutbound(
      HTTPResponsePart.head(HTTPResponse(status: .ok, headerFields: fields)))
    try channel.writeOutbound(HTTPResponsePart.end(nil))
  }

  func registry(maxConnections: Int) -> ConnectionRegistry {
    ConnectionRegistry(
      limits: HTTPLimits(maxConnections: maxConnections, requestTimeoutSeconds: 60))
  }

  func testAtTheCapTheLongestWaitingConnectionMakesRoom() throws {
    let registry = registry(maxConnections: 2)
    let first = try connect(registry)
    let second = try connect(registry)
    // The first asks and is answered: it waits again, now after the second.
    try sendRequest(first)
    try respond(first, close: false)
    let third = try connect(registry)
    XCTAssertFalse(second.isActive, "the second waited longest")
    XCTAssertTrue(first.isActive)
    XCTAssertTrue(third.isActive)
    XCTAssertEqual(registry.counters, .init(open: 2, evicted: 1, refused: 0, timedOut: 0))
  }

  func testWhenEverySlotIsBusyANewConnectionIsRefused() throws {
    let registry = registry(maxConnections: 1)
    let busy = try connect(registry)
    let head = HTTPRequest(method: .get, scheme: nil, authority: "localhost", path: "/metrics")
    try busy.writeInbound(HTTPRequestPart.head(head))
    let refused = try connect(registry)
    XCTAssertFalse(refused.isActive)
    XCTAssertTrue(busy.isActive, "a request in progress is never evicted")
    XCTAssertEqual(registry.counters, .init(open: 1, evicted: 0, refused: 1, timedOut: 0))
  }

  func testARequestThatDoesNotArriveInTimeClosesTheConnection() throws {
    let registry = registry(maxConnections: 4)
    let silent = try connect(registry)
    loop.advanceTime(by: .seconds(59))
    XCTAssertTrue(silent.isActive, "59 s is within the deadline")
    loop.advanceTime(by: .seconds(2))
    XCTAssertFalse(silent.isActive)
    XCTAssertEqual(registry.counters, .init(open: 0, evicted: 0, refused: 0, timedOut: 1))
  }

  func testAnIdleKeepAliveConnectionHasItsOwnDeadlineFromTheLastResponse() throws {
    let registry = registry(maxConnections: 4)
    let client = try connect(registry)
    loop.advanceTime(by: .seconds(50))
    try sendRequest(client)
    // A slow handler is not the client's fault: no deadline while the answer is made.
    loop.advanceTime(by: .seconds(100))
    XCTAssertTrue(client.isActive)
    try respond(client, close: false)
    loop.advanceTime(by: .seconds(59))
    XCTAssertTrue(client.isActive)
    loop.advanceTime(by: .seconds(2))
    XCTAssertFalse(client.isActive)
    XCTAssertEqual(registry.counters.timedOut, 1)
  }

  func testAResponseThatSaysCloseClosesTheConnectionOnceWritten() throws {
    let registry = registry(maxConnections: 4)
    let client = try connect(registry)
    try sendRequest(client)
    try respond(client, close: true)
    XCTAssertFalse(client.isActive, "the server closes in full rather than wait for the client")
    XCTAssertEqual(registry.counters.open, 0)
    XCTAssertEqual(registry.counters.timedOut, 0)
  }

  func testDefaultsStayWithinHalfTheDescriptorLimit() {
    var limit = rlimit()
    XCTAssertEqual(getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit), 0)
    let defaults = HTTPLimits.defaults
    XCTAssertLessThanOrEqual(defaults.maxConnections, 512)
    XCTAssertLessThanOrEqual(defaults.maxConnections, max(16, Int(clamping: limit.rlim_cur) / 2))
    XCTAssertEqual(defaults.requestTimeoutSeconds, 60)
  }

  /// Issue 31: a client that pipelines hundreds of requests and never reads is closed at the
  /// first request beyond the bound; the rest of what it sent is dropped, not parsed and held.
  func testPipeliningBeyondTheBoundClosesTheConnection() throws {
    let registry = registry(maxConnections: 4)
    let client = try connect(registry)
    let bound = registry.limits.maxPipelinedRequests
    for _ in 0..<bound { try sendRequest(client) }
    XCTAssertTrue(client.isActive, "\(bound) requests ahead are allowed")
    var passed = 0
    while (try client.readInbound(as: HTTPRequestPart.self)) != nil { passed += 1 }
    XCTAssertEqual(passed, 2 * bound, "each request's head and end passed on")
    try sendRequest(client)
    XCTAssertFalse(client.isActive)
    XCTAssertNil(try client.readInbound(as: HTTPRequestPart.self), "nothing more passed on")
    XCTAssertEqual(registry.counters.pipelining, 1)
  }

  func testAnsweredRequestsMakeRoomForMorePipelinedOnes() throws {
    let registry = registry(maxConnections: 4)
    let client = try connect(registry)
    for _ in 0..<(3 * registry.limits.maxPipelinedRequests) {
      try sendRequest(client)
      try respond(client, close: false)
    }
    XCTAssertTrue(client.isActive)
    XCTAssertEqual(registry.counters.pipelining, 0)
  }

  /// A client that stops reading: the connection stays unwritable, and is closed after the
  /// request timeout; one that reads again in time is kept.
  func testAClientThatLeavesItsAnswersUnreadIsClosedAfterTheTimeout() throws {
    let registry = registry(maxConnections: 4)
    let reader = try connect(registry)
    let stalled = try connect(registry)
    for channel in [reader, stalled] {
      channel.isWritable = false
      channel.pipeline.fireChannelWritabilityChanged()
    }
    loop.advanceTime(by: .seconds(30))
    reader.isWritable = true
    reader.pipeline.fireChannelWritabilityChanged()
    try sendRequest(reader)
    loop.advanceTime(by: .seconds(31))
    XCTAssertFalse(stalled.isActive)
    XCTAssertTrue(reader.isActive, "it read again in time")
    XCTAssertEqual(registry.counters.notReading, 1)
  }

  func testWorkForAClientThatGoesAwayIsCancelled() throws {
    let registry = registry(maxConnections: 4)
    let client = try connect(registry)
    let cancelled = ManagedAtomicFlag()
    let token = registry.whenClientGone(client) { cancelled.set() }
    XCTAssertNotEqual(token, 0)
    XCTAssertFalse(cancelled.isSet)
    // The client shuts down its sending side (a FIN; half-closure is allowed).
    client.pipeline.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
    XCTAssertTrue(cancelled.isSet)
    // Registered after it left: at once.
    let late = ManagedAtomicFlag()
    _ = registry.whenClientGone(client) { late.set() }
    XCTAssertFalse(late.isSet, "the connection is still open, only its input closed")
    _ = try client.finish()
    XCTAssertTrue(late.isSet)
    let afterClose = ManagedAtomicFlag()
    _ = registry.whenClientGone(client) { afterClose.set() }
    XCTAssertTrue(afterClose.isSet, "not a connection of the registry any more: at once")
  }
}

/// A flag set from a `@Sendable` closure.
final class ManagedAtomicFlag: Sendable {
  private let value = Atomic<Bool>(false)
  func set() { value.store(true, ordering: .relaxed) }
  var isSet: Bool { value.load(ordering: .relaxed) }
}

final class ManagedAtomicCounter: Sendable {
  private let count = Atomic<Int>(0)
  func increment() { count.add(1, ordering: .relaxed) }
  var value: Int { count.load(ordering: .relaxed) }
}
