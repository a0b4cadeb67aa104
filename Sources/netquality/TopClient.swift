import ArgumentParser
import Foundation
import Glibc
import NetQualityAgent
import NetQualityCore
import NetQualityExport

/// A plain HTTP/1.0 GET to the agent: all `top` needs, without an HTTP client library.
struct HTTPEndpoint: CustomStringConvertible {
  var host: String
  var port: UInt16

  init?(_ url: String) {
    guard url.hasPrefix("http://") else { return nil }
    let rest =
      url.dropFirst("http://".count).split(separator: "/", maxSplits: 1).first.map(String.init)
      ?? ""
    guard let colon = rest.lastIndex(of: ":"), let port = UInt16(rest[rest.index(after: colon)...])
    else {
      return nil
    }
    host = String(rest[..<colon]).trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
    self.port = port
  }

  var description: String { "http://\(host):\(port)" }

  struct Failure: Error, CustomStringConvertible {
    var description: String
  }

  func get(_ path: String) throws -> String {
    var hints = addrinfo()
    hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
    var info: UnsafeMutablePointer<addrinfo>?
    guard getaddrinfo(host, String(port), &hints, &info) == 0, let first = info else {
      throw Failure(description: "cannot resolve \(host)")
    }
    defer { freeaddrinfo(info) }
    let descriptor = socket(first.pointee.ai_family, first.pointee.ai_socktype, 0)
    guard descriptor >= 0 else { throw Failure(description: String(cString: strerror(errno))) }
    defer { close(descriptor) }
    var timeout = timeval(tv_sec: 2, tv_usec: 0)
    setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    guard connect(descriptor, first.pointee.ai_addr, first.pointee.ai_addrlen) == 0 else {
      throw Failure(description: "cannot connect: \(String(cString: strerror(errno)))")
    }
    let request = Array("GET \(path) HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n\r\n".utf8)
    _ = request.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, 0) }
    var reader = ResponseReader(maxBytes: Self.maxResponseBytes)
    var buffer = [UInt8](repeating: 0, count: 65_536)
    let giveUp = ContinuousClock.now.advanced(by: Self.deadline)
    // Read until the body announced by Content-Length is complete (or the server closes):
    // waiting for the close alone would stall on a server that keeps the connection.
    while !reader.isComplete {
      let count = recv(descriptor, &buffer, buffer.count, 0)
      if count <= 0 { break }
      guard reader.append(buffer[0..<count]) else {
        throw Failure(
          description: "the answer is larger than \(Self.maxResponseBytes >> 20) MiB: "
            + "not a netquality agent's page of peers")
      }
      guard ContinuousClock.now < giveUp else {
        throw Failure(description: "no whole answer within \(Self.deadline)")
      }
    }
    let text = String(decoding: reader.bytes, as: UTF8.self)
    guard text.hasPrefix("HTTP/1.1 200") || text.hasPrefix("HTTP/1.0 200"),
      let bodyStart = text.range(of: "\r\n\r\n")
    else {
      throw Failure(
        description: "unexpected answer: \(text.split(separator: "\r\n").first ?? "nothing")")
    }
    return String(text[bodyStart.upperBound...])
  }

  /// The most of an answer `get` reads. The agent's largest page (1,000 peers, `requestPath`)
  /// is a few hundred kilobytes of JSON; anything past this is not the agent, and reading it
  /// whole would take as much memory as whatever answers cares to send.
  static let maxResponseBytes = 16 << 20
  /// The longest `get` waits for a whole answer: one that trickles in would otherwise hold
  /// the screen and the keys for as long as it lasts (each read alone times out after 2 s).
  static let deadline = Duration.seconds(10)

  /// An HTTP/1.1 response as it comes in: complete once the header and the Content-Length
  /// bytes after it are in (RFC 9112 section 6.3), refused past `maxBytes`. The header's end
  /// is looked for only in what arrived since the last look, and the header parsed once.
  struct ResponseReader {
    let maxBytes: Int
    private(set) var bytes: [UInt8] = []
    /// Header and body, once the header announced the body's length.
    private var expectedBytes: Int?
    private var headerEnd: Int?
    private var searchedUpTo = 0

    init(maxBytes: Int) { self.maxBytes = maxBytes }

    var isComplete: Bool { expectedBytes.map { bytes.count >= $0 } ?? false }

    /// Takes in `chunk`; false when the response is (or announces itself) larger than
    /// `maxBytes`.
    mutating func append(_ chunk: ArraySlice<UInt8>) -> Bool {
      guard bytes.count + chunk.count <= maxBytes else { return false }
      bytes += chunk
      guard headerEnd == nil, let end = findHeaderEnd() else { return true }
      headerEnd = end
      guard let length = Self.contentLength(bytes[..<end]) else { return true }
      let (total, overflow) = end.addingReportingOverflow(length)
      guard !overflow, total <= maxBytes else { return false }
      expectedBytes = total
      return true
    }

    /// The offset just past the header's empty line, if it arrived.
    private mutating func findHeaderEnd() -> Int? {
      let terminator: [UInt8] = [13, 10, 13, 10]
      var index = max(0, searchedUpTo - 3)
      while index + 4 <= bytes.count {
        if bytes[index..<index + 4].elementsEqual(terminator) { return index + 4 }
        index += 1
      }
      searchedUpTo = bytes.count
      return nil
    }

    private static func contentLength(_ header: ArraySlice<UInt8>) -> Int? {
      let text = String(decoding: header, as: UTF8.self).lowercased()
      guard
        let line = text.split(separator: "\r\n").first(where: { $0.hasPrefix("content-length:") }),
        let length = Int(
          line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)),
        length >= 0
      else { return nil }
      return length
    }
  }
}
