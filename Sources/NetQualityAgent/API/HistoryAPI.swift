import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import NetQualityExport
import NetQualityStore

extension HTTPServer {
  /// Rows one answer of `/api/v1/history` holds at most: `limit` asks for fewer; the newest
  /// are kept.
  static let historyRowLimit = 10_000

  /// `/api/v1/history?peer=P&since=1h` (or `from=`/`to=`, `limit=`): the history's per-tick
  /// rows, with the timeline's field names. Read by the history's readers (`HistoryReaders`:
  /// threads of their own behind a short queue, never the concurrency pool), from a read-only
  /// connection (the writer is never waited for: WAL). The readers are shared fairly between
  /// `client` addresses: another client's read waits for one of the slow ones, not all.
  static func history(_ state: AgentState, query: Parameters, client: String? = nil) async
    -> Response
  {
    do {
      try QueryParameters.check(
        query, path: "/api/v1/history", takes: ["peer", "since", "from", "to", "limit"])
    } catch {
      return jsonError(error.description, .badRequest)
    }
    guard let readers = state.historyReaders else {
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
    // The answer is built on the reading thread too: 10,000 rows are 4 MB of JSON.
    let rowLimit = limit
    do {
      let body = try await readers.read(client: client) { db -> ByteBuffer in
        let rows = try request.rows(db)
        let answer = JSONValue.object([
          ("from", .number(range.from)),
          ("to", .number(range.to)),
          ("truncated", .bool(rows.count == rowLimit)),
          ("rows", .array(rows.map { .object(HistoryOutput.record($0)) })),
        ])
        return ByteBuffer(string: answer.text + "\n")
      }
      return Response(
        status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: body))
    } catch {
      return historyFailure(error)
    }
  }

  /// The answer to a history read that failed: 503 with `Retry-After` while the readers are
  /// busy (RFC 9110 section 10.2.3), 504 past the time limit, 503 for a history that cannot be
  /// read.
  static func historyFailure(_ failure: WorkFailure) -> Response {
    var response: Response
    switch failure {
    case .busy:
      response = jsonError(
        "the history's readers are busy; retry shortly",
        .serviceUnavailable)
      response.headers[.retryAfter] = "2"
    case .timedOut:
      response = jsonError(
        "the history query ran too long; ask for a shorter range", .gatewayTimeout)
    case .cancelled:
      // Nobody reads it: the client went away.
      response = jsonError("cancelled", .serviceUnavailable)
    case .failed(let reason):
      response = jsonError(reason, .serviceUnavailable)
    }
    return response
  }

  static func jsonError(_ message: String, _ status: HTTPResponse.Status) -> Response {
    Response(
      status: status, headers: [.contentType: "application/json"],
      body: .init(
        byteBuffer: ByteBuffer(string: JSONValue.object([("error", .string(message))]).text + "\n"))
    )
  }
}
