import Foundation
import HTTPTypes
import Hummingbird
import NetQualityExport
import NetQualityStore

extension HTTPServer {
  /// Rows one answer of `/api/v1/history` holds at most: `limit` asks for fewer; the newest
  /// are kept.
  static let historyRowLimit = 10_000

  /// `/api/v1/history?peer=P&since=1h` (or `from=`/`to=`, `limit=`): the history's per-tick
  /// rows, with the timeline's field names. Read on a task of its own, off the event loop,
  /// from a read-only connection (the writer is never waited for: WAL).
  static func history(_ state: AgentState, query: Parameters) async -> Response {
    do {
      try QueryParameters.check(
        query, path: "/api/v1/history", takes: ["peer", "since", "from", "to", "limit"])
    } catch {
      return jsonError(error.description, .badRequest)
    }
    guard let recorder = state.history else {
      return jsonError(
        "the history is off on this agent (storage.enabled, storage_path)", .serviceUnavailable)
    }
    let now = Date().timeIntervalSince1970
    let range: (from: Double, to: Double)
    do {
      range = try HistoryTimeRange.resolve(
        since: query["since"].map(String.init), from: query["from"].map(String.init),
        to: query["to"].map(String.init), defaultSinceSeconds: 3600, now: now)
    } catch {
      return jsonError(error.description, .badRequest)
    }
    var limit = historyRowLimit
    if let text = query["limit"] {
      guard let value = Int(text), value > 0 else {
        return jsonError("limit \(text): a positive whole number", .badRequest)
      }
      limit = min(value, historyRowLimit)
    }
    let request = HistoryQuery(
      from: range.from, to: range.to, peer: query["peer"].map(String.init), limit: limit)
    let path = recorder.settings.path
    let result = await Task.detached { () -> Result<[HistoryQuery.TickRow], HistoryError> in
      do {
        let database = try HistoryDatabase.openForReading(path: path)
        return .success(try database.read { db in try request.rows(db) })
      } catch let error as HistoryError {
        return .failure(error)
      } catch {
        return .failure(HistoryError("\(path): \(HistoryFault(error).message)"))
      }
    }.value
    switch result {
    case .success(let rows):
      return json(
        .object([
          ("from", .number(range.from)),
          ("to", .number(range.to)),
          ("truncated", .bool(rows.count == limit)),
          ("rows", .array(rows.map { .object(HistoryOutput.record($0)) })),
        ]))
    case .failure(let error):
      return jsonError(error.description, .serviceUnavailable)
    }
  }

  static func jsonError(_ message: String, _ status: HTTPResponse.Status) -> Response {
    Response(
      status: status, headers: [.contentType: "application/json"],
      body: .init(
        byteBuffer: ByteBuffer(string: JSONValue.object([("error", .string(message))]).text + "\n"))
    )
  }
}
