import Foundation
import Synchronization

/// Slow, blocking work that requests ask for (a history query, a bcrypt check), done on threads
/// of its own at a lower CPU priority, a few at a time, behind a short queue — never on the
/// concurrency pool that the ticker's publication and `/metrics` answer from.
///
/// Issue 31: run on the pool, twenty slow history queries stopped the ticks for 65 s and
/// `/metrics` for 45 s, and 200 password guessers held a scrape 15 s behind their bcrypt
/// checks. Here a request beyond the queue is refused at once (`WorkFailure.busy`: the caller
/// answers 503 or 429 with `Retry-After`), work whose requester is cancelled (its client went
/// away) leaves the queue or is interrupted, and work past `timeoutSeconds` is interrupted.
///
/// The queue is shared fairly between clients (issue 39: after a restart 200 password guessers
/// kept the queue full and the scraper's first check was refused 429 five times; five slow
/// history queries held every other history read): a free thread takes the oldest item of the
/// client with the fewest items running that was served longest ago, so a client waits for at
/// most one item of each other client, however many it queued; and a client with nothing
/// waiting is always admitted — when the queue is full, the newest waiting item of the client
/// holding the most places is refused `.busy` to make room.
final class BoundedWorkQueue: Sendable {
  let name: String
  let threads: Int
  let queueLimit: Int
  let timeoutSeconds: Double

  /// Nice value added to the working threads (`setpriority`, per thread on Linux): under CPU
  /// contention a scrape, a tick and the captures come first.
  static let defaultNiceIncrement: Int32 = 10
  let niceIncrement: Int32

  private struct State {
    var waiting: [WorkItem] = []
    var running = 0
    /// Items running per client; a client with none running and none waiting has no entry.
    var runningByClient: [String: Int] = [:]
    /// When each client with an item waiting or running was last served (`turn` then).
    var servedTurn: [String: UInt64] = [:]
    var turn: UInt64 = 0
    var stopped = false
    /// The threads start with the first item.
    var started = false
  }

  private let state = Mutex(State())
  private let available = DispatchSemaphore(value: 0)
  let counters = Counters()

  /// Since the start, for `/metrics`.
  final class Counters: Sendable {
    let completed = Atomic<Int>(0)
    let refusedBusy = Atomic<Int>(0)
    let cancelled = Atomic<Int>(0)
    let timedOut = Atomic<Int>(0)
  }

  init(
    name: String, threads: Int, queueLimit: Int, timeoutSeconds: Double,
    niceIncrement: Int32 = defaultNiceIncrement
  ) {
    self.name = name
    self.niceIncrement = niceIncrement
    self.threads = max(1, threads)
    self.queueLimit = max(0, queueLimit)
    self.timeoutSeconds = timeoutSeconds
  }

  /// Stops the threads once the queue is empty (tests; the agent's queues live as long as it).
  func stop() {
    let started = state.withLock { state in
      state.stopped = true
      return state.started
    }
    if started { for _ in 0..<threads { available.signal() } }
  }

  /// What is waiting and running now.
  var load: (waiting: Int, running: Int) {
    state.withLock { ($0.waiting.count, $0.running) }
  }

  /// Runs `body` on a working thread and returns its value; throws `.busy` at once when every
  /// thread is busy and the queue is full. `body` gets the item's `WorkInterruption`, to stop
  /// its blocking call when the calling task is cancelled or the time limit passes. `client`
  /// (the requester's address; nil: one anonymous client) is what the queue is shared fairly
  /// between.
  func run<T: Sendable>(
    client: String? = nil, _ body: @escaping @Sendable (WorkInterruption) throws -> T
  ) async throws(WorkFailure) -> T {
    guard let value = try await run(client: client, alone: false, body) else {
      throw .failed("\(name): no answer")
    }
    return value
  }

  /// `run`, unless `client` already has an item waiting or running here: then nil at once,
  /// nothing queued. One place per client (`WebSecurity.bcryptFirst`: a client that sends a
  /// second new password before the first was answered is guessing).
  func runAlone<T: Sendable>(
    client: String, _ body: @escaping @Sendable (WorkInterruption) throws -> T
  ) async throws(WorkFailure) -> T? {
    try await run(client: client, alone: true, body)
  }

  private func run<T: Sendable>(
    client: String?, alone: Bool, _ body: @escaping @Sendable (WorkInterruption) throws -> T
  ) async throws(WorkFailure) -> T? {
    let item = WorkItem(client: client ?? "", timeoutSeconds: timeoutSeconds) { interruption in
      try body(interruption)
    }
    var held = false
    let (admitted, start, displaced) = state.withLock { state -> (Bool, Bool, WorkItem?) in
      guard !state.stopped else { return (false, false, nil) }
      if alone,
        state.runningByClient[item.client] != nil
          || state.waiting.contains(where: { $0.client == item.client })
      {
        held = true
        return (false, false, nil)
      }
      var displaced: WorkItem?
      // Room for every thread's item plus the queue: an idle thread may not have taken its
      // item off the list yet.
      if state.waiting.count + state.running >= threads + queueLimit {
        guard let index = Self.displaceable(for: item.client, in: state) else {
          return (false, false, nil)
        }
        displaced = state.waiting.remove(at: index)
      }
      state.waiting.append(item)
      defer { state.started = true }
      return (true, !state.started, displaced)
    }
    if let displaced {
      counters.refusedBusy.add(1, ordering: .relaxed)
      displaced.interruption.interrupt(because: .busy)
    }
    if held { return nil }
    guard admitted else {
      counters.refusedBusy.add(1, ordering: .relaxed)
      throw .busy
    }
    if start { startThreads() }
    available.signal()
    let outcome = await withTaskCancellationHandler {
      await item.outcome()
    } onCancel: {
      // Out of the queue at once, so that requests whose clients left never hold its places.
      self.state.withLock { state in state.waiting.removeAll { $0 === item } }
      item.interruption.interrupt(because: .cancelled)
    }
    switch outcome {
    case .success(let value as T):
      counters.completed.add(1, ordering: .relaxed)
      return value
    case .success:
      throw .failed("\(name): an answer of an unexpected type")
    case .failure(let failure):
      switch failure {
      case .cancelled: counters.cancelled.add(1, ordering: .relaxed)
      case .timedOut: counters.timedOut.add(1, ordering: .relaxed)
      case .busy, .failed: break
      }
      throw failure
    }
  }

  /// The waiting item to refuse so that `client` gets a place in a full queue: the newest
  /// waiting item of the client holding the most places, when that is more than `client`
  /// holds plus one (so two clients never take places from each other in turn); nil when
  /// `client` already has its share.
  private static func displaceable(for client: String, in state: State) -> Int? {
    var places: [String: Int] = state.runningByClient
    for item in state.waiting { places[item.client, default: 0] += 1 }
    guard let (greediest, held) = places.max(by: { $0.value < $1.value }),
      held > places[client, default: 0] + 1
    else { return nil }
    return state.waiting.lastIndex { $0.client == greediest }
  }

  /// The next waiting item to run: the oldest of the client with the fewest items running and,
  /// among those, the one served longest ago (a client new to the queue first).
  private static func next(in state: State) -> Int? {
    var best: (index: Int, running: Int, served: UInt64)?
    var seen: Set<String> = []
    for (index, item) in state.waiting.enumerated() where seen.insert(item.client).inserted {
      let running = state.runningByClient[item.client, default: 0]
      let served = state.servedTurn[item.client, default: 0]
      if let current = best, (current.running, current.served) <= (running, served) { continue }
      best = (index, running, served)
    }
    return best?.index
  }

  private func startThreads() {
    for index in 0..<threads {
      let thread = Thread { [self] in self.serve() }
      thread.name = threads == 1 ? name : "\(name) \(index + 1)"
      thread.start()
    }
  }

  private func serve() {
    // `who` 0 is the calling thread: Linux keeps the nice value per thread (setpriority(2),
    // BUGS), so only this thread yields.
    if niceIncrement != 0 {
      setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, niceIncrement)
    }
    while true {
      available.wait()
      let item = state.withLock { state -> WorkItem? in
        guard let index = Self.next(in: state) else { return nil }
        let item = state.waiting.remove(at: index)
        state.running += 1
        state.runningByClient[item.client, default: 0] += 1
        state.turn += 1
        state.servedTurn[item.client] = state.turn
        return item
      }
      guard let item else {
        if state.withLock({ $0.stopped && $0.waiting.isEmpty }) { return }
        continue
      }
      item.run()
      state.withLock { state in
        state.running -= 1
        state.runningByClient[item.client, default: 1] -= 1
        if state.runningByClient[item.client] == 0 {
          state.runningByClient[item.client] = nil
          // Forgotten once it holds no place: the table is bounded by the places.
          if !state.waiting.contains(where: { $0.client == item.client }) {
            state.servedTurn[item.client] = nil
          }
        }
        // Clients whose waiting items were cancelled or refused never reach the line above.
        if state.servedTurn.count > 2 * (threads + queueLimit) {
          let holding = Set(state.waiting.map(\.client)).union(state.runningByClient.keys)
          state.servedTurn = state.servedTurn.filter { holding.contains($0.key) }
        }
      }
    }
  }
}

/// Why work gave no answer.
enum WorkFailure: Error, Equatable {
  /// Every thread is busy and the queue is full: try again shortly.
  case busy
  /// The requester went away (its task was cancelled: the client closed).
  case cancelled
  /// The work ran past the queue's time limit.
  case timedOut
  /// The work failed, with a one-line reason.
  case failed(String)
}

/// Handed to a work item's body: how to stop its blocking call (`sqlite3_interrupt` for a
/// query) when the requester goes away or the time limit passes.
final class WorkInterruption: Sendable {
  private struct State {
    var reason: WorkFailure?
    var handlers: [@Sendable () -> Void] = []
  }

  private let state = Mutex(State())

  /// Why the work was interrupted, once it was.
  var reason: WorkFailure? { state.withLock { $0.reason } }

  /// `handler` runs when the work is interrupted — at once if it already was.
  func onInterrupt(_ handler: @escaping @Sendable () -> Void) {
    let now = state.withLock { state -> Bool in
      if state.reason != nil { return true }
      state.handlers.append(handler)
      return false
    }
    if now { handler() }
  }

  func interrupt(because reason: WorkFailure) {
    let handlers = state.withLock { state -> [@Sendable () -> Void] in
      guard state.reason == nil else { return [] }
      state.reason = reason
      defer { state.handlers = [] }
      return state.handlers
    }
    for handler in handlers { handler() }
  }
}

/// One item: waiting, running on a thread, or done, its outcome handed to the one task
/// awaiting it.
private final class WorkItem: Sendable {
  private struct State {
    var running = false
    var result: Result<any Sendable, WorkFailure>?
    var continuation: CheckedContinuation<Result<any Sendable, WorkFailure>, Never>?
  }

  let interruption = WorkInterruption()
  /// Who asked for it (`BoundedWorkQueue.run(client:)`).
  let client: String
  private let timeoutSeconds: Double
  private let body: @Sendable (WorkInterruption) throws -> any Sendable
  private let state = Mutex(State())

  init(
    client: String, timeoutSeconds: Double,
    body: @escaping @Sendable (WorkInterruption) throws -> any Sendable
  ) {
    self.client = client
    self.timeoutSeconds = timeoutSeconds
    self.body = body
    // A waiting item that is interrupted ends at once; a running one when its body returns.
    interruption.onInterrupt { [weak self] in self?.finishIfWaiting() }
  }

  func outcome() async -> Result<any Sendable, WorkFailure> {
    await withCheckedContinuation { continuation in
      let ready = state.withLock { state -> Result<any Sendable, WorkFailure>? in
        if let result = state.result { return result }
        state.continuation = continuation
        return nil
      }
      if let ready { continuation.resume(returning: ready) }
    }
  }

  private func finishIfWaiting() {
    guard state.withLock({ !$0.running }), let reason = interruption.reason else { return }
    finish(.failure(reason))
  }

  /// On a working thread.
  func run() {
    let start = state.withLock { state -> Bool in
      guard state.result == nil else { return false }
      state.running = true
      return true
    }
    guard start else { return }
    let timer = DispatchWorkItem { [interruption] in interruption.interrupt(because: .timedOut) }
    DispatchQueue.global().asyncAfter(deadline: .now() + timeoutSeconds, execute: timer)
    defer { timer.cancel() }
    let result: Result<any Sendable, WorkFailure>
    do {
      if let reason = interruption.reason { throw reason }
      result = .success(try body(interruption))
    } catch {
      // An interrupted call fails with its own error; the interruption says why.
      result = .failure(
        interruption.reason ?? (error as? WorkFailure) ?? .failed("\(error)"))
    }
    finish(result)
  }

  private func finish(_ result: Result<any Sendable, WorkFailure>) {
    let waiter = state.withLock {
      state -> CheckedContinuation<Result<any Sendable, WorkFailure>, Never>? in
      guard state.result == nil else { return nil }
      state.result = result
      defer { state.continuation = nil }
      return state.continuation
    }
    waiter?.resume(returning: result)
  }
}
