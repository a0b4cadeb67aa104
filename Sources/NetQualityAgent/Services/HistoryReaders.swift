import Foundation
import GRDB
import NetQualityStore

/// The HTTP server's reads of the history (`/api/v1/history`, the status page's charts), on a
/// `BoundedWorkQueue`: each on a read-only connection of its own (WAL: the writer is never
/// waited for), interrupted (`sqlite3_interrupt`) when its client goes away or it runs too
/// long.
struct HistoryReaders: Sendable {
  let path: String
  let queue: BoundedWorkQueue

  /// One reader on a host of up to three cores, else one per two cores, at most four: the rest
  /// of the host belongs to capture, the ticker and the scrapes.
  static var defaultThreads: Int {
    min(4, max(1, ProcessInfo.processInfo.activeProcessorCount / 2))
  }
  /// Requests waiting for a reader, per reader: a reload or two of the status page and a
  /// dashboard's history panels fit; a flood does not.
  static let queuedPerThread = 4
  /// A query that runs longer is interrupted: a full-range query over 48 h of 100,000 peers'
  /// rows takes seconds; a client seldom waits longer (Grafana's data source timeout is 30 s).
  static let timeoutSeconds = 30.0

  init(path: String, threads: Int = defaultThreads, queueLimit: Int? = nil) {
    self.init(
      path: path,
      queue: BoundedWorkQueue(
        name: "history reader", threads: threads,
        queueLimit: queueLimit ?? Self.queuedPerThread * max(1, threads),
        timeoutSeconds: Self.timeoutSeconds))
  }

  init(path: String, queue: BoundedWorkQueue) {
    self.path = path
    self.queue = queue
  }

  /// `body`'s value over a read-only connection to the history, read on a reader thread; the
  /// readers are shared fairly between `client`s (`BoundedWorkQueue`).
  func read<T: Sendable>(
    client: String? = nil, _ body: @escaping @Sendable (Database) throws -> T
  ) async throws(WorkFailure) -> T {
    let path = path
    return try await queue.run(client: client) { interruption in
      let database: DatabaseQueue
      do {
        database = try HistoryDatabase.openForReading(path: path)
      } catch let error as HistoryError {
        throw WorkFailure.failed(error.description)
      }
      interruption.onInterrupt { database.interrupt() }
      do {
        return try database.read { db in try body(db) }
      } catch {
        throw WorkFailure.failed("\(path): \(HistoryFault(error).message)")
      }
    }
  }
}
