import Foundation
import NetQualityAgent
import NetQualityCore
import NetQualityExport

/// `netquality calls --active`: the SIP and WebRTC calls open now at a running agent, with
/// their figures at its last tick (`/api/v1/calls?state=active`), in the columns of the
/// history's calls (`HistoryOutput.callColumns`), for a complaint still in progress.
enum ActiveCalls {
  /// The API path for the filters (each value percent-encoded).
  static func path(filters: [(String, String?)], limit: Int?) -> String {
    var allowed = CharacterSet.urlQueryAllowed
    allowed.remove(charactersIn: "&=+#")
    var query = ["state=active"]
    for case (let name, let value?) in filters {
      query.append(name + "=" + (value.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""))
    }
    query.append("limit=\(limit ?? 1000)")
    return "/api/v1/calls?" + query.joined(separator: "&")
  }

  struct Unreadable: Error, CustomStringConvertible {
    var description: String
  }

  /// The calls of the API's answer as rows of `HistoryOutput.callColumns`.
  static func records(fromDocument text: String) throws -> [HistoryOutput.Record] {
    guard let document = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
      let calls = document["calls"] as? [[String: Any]]
    else { throw Unreadable(description: "the agent's answer has no list of calls") }
    return calls.map(record)
  }

  /// One call of the API as a history row: the same names, the directions' figures flattened
  /// (`rx_packets`, `min_mos` the lower of both), `end_reason` "active".
  static func record(_ call: [String: Any]) -> HistoryOutput.Record {
    func value(_ any: Any?) -> JSONValue {
      switch any {
      case let text as String: .string(text)
      case let number as NSNumber:
        number.doubleValue.rounded() == number.doubleValue && abs(number.doubleValue) < 1e15
          ? .integer(Int64(number.doubleValue)) : .number(number.doubleValue)
      default: .null
      }
    }
    let rx = call["rx"] as? [String: Any] ?? [:]
    let tx = call["tx"] as? [String: Any] ?? [:]
    let moses = [rx["min_mos"], tx["min_mos"]].compactMap { $0 as? Double }
    let levels = [rx["worst_level"], tx["worst_level"]].compactMap { $0 as? String }
      .compactMap { QualityLevel(name: $0) }
    return [
      ("id", value(call["id"])), ("kind", value(call["kind"])),
      ("call_id", value(call["call_id"])), ("from_user", value(call["from_user"])),
      ("to_user", value(call["to_user"])),
      ("peers", .string((call["peers"] as? [String] ?? []).joined(separator: " "))),
      ("start", value(call["start"])), ("answer", value(call["answer"])),
      ("duration_s", value(call["duration_s"])), ("setup_s", value(call["setup_s"])),
      ("post_dial_delay_s", value(call["post_dial_delay_s"])),
      ("final_status", value(call["final_status"])), ("end_reason", .string("active")),
      ("rx_packets", value(rx["packets"])), ("rx_lost", value(rx["lost"])),
      ("tx_packets", value(tx["packets"])), ("tx_lost", value(tx["lost"])),
      ("min_mos", moses.min().map(JSONValue.number) ?? .null),
      ("worst_level", .string(levels.max()?.name ?? "unknown")),
    ]
  }
}
