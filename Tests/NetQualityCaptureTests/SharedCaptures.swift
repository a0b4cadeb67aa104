import Foundation

/// The third-party captures in `../shared/pcaps` (next to the checkout) and their tshark 4.0.17
/// references. `NETQUALITY_PCAPS` overrides the folder.
enum SharedCaptures {
  static var folder: URL {
    if let override = ProcessInfo.processInfo.environment["NETQUALITY_PCAPS"] {
      return URL(fileURLWithPath: override)
    }
    // Tests/NetQualityCaptureTests/SharedCaptures.swift -> repository root -> ../shared/pcaps
    return URL(fileURLWithPath: #filePath)
      .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("shared/pcaps")
  }

  /// Capture files that have a tshark reference, sorted.
  static func referenced() throws -> [URL] {
    try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
      .filter { $0.lastPathComponent.hasSuffix(".tshark.txt") }
      .map { URL(fileURLWithPath: String($0.path.dropLast(".tshark.txt".count))) }
      .sorted { $0.lastPathComponent < $1.lastPathComponent }
  }
}

/// One row of `tshark -q -z rtp,streams`.
struct TsharkStream: Hashable {
  var source: String
  var sourcePort: Int
  var destination: String
  var destinationPort: Int
  var ssrc: String
  var packets: Int64
  /// Expected minus received: negative when duplicates outnumber gaps.
  var lost: Int64
  var minJitterMilliseconds: Double
  var maxJitterMilliseconds: Double

  /// tshark prints Min Jitter -1 when it did not know the clock rate.
  var hasJitter: Bool { minJitterMilliseconds >= 0 }

  var key: String { "\(source):\(sourcePort) -> \(destination):\(destinationPort) \(ssrc)" }

  /// Parses the table: seven fixed columns, a payload column that may contain spaces, then
  /// packets, lost, "(percent)", three delta and three jitter columns, and an optional "X".
  static func parse(_ text: String) -> [TsharkStream] {
    var streams: [TsharkStream] = []
    for line in text.split(separator: "\n") {
      var fields = line.split(whereSeparator: \.isWhitespace).map(String.init)
      guard fields.count >= 17, Double(fields[0]) != nil, fields[6].hasPrefix("0x") else {
        continue
      }
      if fields.last == "X" { fields.removeLast() }
      let count = fields.count
      guard let sourcePort = Int(fields[3]), let destinationPort = Int(fields[5]),
        let packets = Int64(fields[count - 9]), let lost = Int64(fields[count - 8]),
        let minJitter = Double(fields[count - 3]), let maxJitter = Double(fields[count - 1])
      else { continue }
      streams.append(
        TsharkStream(
          source: fields[2], sourcePort: sourcePort, destination: fields[4],
          destinationPort: destinationPort, ssrc: fields[6], packets: packets, lost: lost,
          minJitterMilliseconds: minJitter, maxJitterMilliseconds: maxJitter))
    }
    return streams
  }
}
