import Foundation

/// A plain HTTP/1.0 GET to the agent on loopback with a deadline on every socket operation:
/// enough for tests to read the JSON API without a client library.
enum HTTPGet {
  struct Response {
    var status: Int
    var body: String
  }

  static func get(port: UInt16, path: String, timeoutSeconds: Int = 5) -> Response? {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
    for option in [SO_RCVTIMEO, SO_SNDTIMEO] {
      setsockopt(
        descriptor, SOL_SOCKET, option, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard connected == 0 else { return nil }
    let request = Array(
      "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8)
    guard send(descriptor, request, request.count, 0) == request.count else { return nil }
    var received: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65_536)
    // Until the body's Content-Length is in, or the server closes.
    while !isComplete(received) {
      let count = recv(descriptor, &buffer, buffer.count, 0)
      if count <= 0 { break }
      received += buffer[0..<count]
    }
    let text = String(decoding: received, as: UTF8.self)
    guard let headerEnd = text.range(of: "\r\n\r\n"),
      let status = Int(text.split(separator: " ").dropFirst().first ?? "")
    else { return nil }
    return Response(status: status, body: String(text[headerEnd.upperBound...]))
  }

  private static func isComplete(_ received: [UInt8]) -> Bool {
    let text = String(decoding: received, as: UTF8.self)
    guard let headerEnd = text.range(of: "\r\n\r\n") else { return false }
    let header = text[..<headerEnd.lowerBound].lowercased()
    guard let field = header.range(of: "content-length:") else { return false }
    let value = header[field.upperBound...].prefix { $0 != "\r" }
    guard let length = Int(value.trimmingCharacters(in: .whitespaces)) else { return false }
    return text[headerEnd.upperBound...].utf8.count >= length
  }

  /// The JSON document at `path`, or nil while the agent does not answer.
  static func json(port: UInt16, path: String) -> [String: Any]? {
    guard let response = get(port: port, path: path), response.status == 200 else { return nil }
    return try? JSONSerialization.jsonObject(with: Data(response.body.utf8)) as? [String: Any]
  }

  /// Polls `path` until `condition` holds for its JSON, for up to `seconds`.
  static func waitFor(
    port: UInt16, path: String, seconds: Double, _ condition: ([String: Any]) -> Bool
  ) -> [String: Any]? {
    let deadline = Date().addingTimeInterval(seconds)
    var last: [String: Any]?
    repeat {
      if let document = json(port: port, path: path) {
        last = document
        if condition(document) { return document }
      }
      Thread.sleep(forTimeInterval: 0.2)
    } while Date() < deadline
    return last.flatMap { condition($0) ? $0 : nil }
  }
}
