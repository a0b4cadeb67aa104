import CZlib

/// gzip (RFC 1952) through the system's zlib, for scrapes that ask for it: Prometheus sends
/// `Accept-Encoding: gzip` and the exposition text compresses about tenfold.
public enum Gzip {
  /// Whether an `Accept-Encoding` header value accepts gzip (RFC 9110 section 12.5.3): the
  /// `gzip` coding (or `*`) listed without `q=0`.
  public static func isAccepted(by acceptEncoding: String?) -> Bool {
    guard let acceptEncoding else { return false }
    for item in acceptEncoding.split(separator: ",") {
      let parts = item.split(separator: ";").map {
        $0.trimmingCharacters(in: " \t").lowercased()
      }
      guard let coding = parts.first, coding == "gzip" || coding == "*" else { continue }
      let refused = parts.dropFirst().contains { parameter in
        parameter.hasPrefix("q=") && (Double(parameter.dropFirst(2)) ?? 1) == 0
      }
      if !refused { return true }
    }
    return false
  }

  /// `bytes` gzip-compressed, or nil if zlib fails (out of memory): the caller sends them
  /// uncompressed instead.
  public static func compress(_ bytes: UnsafeRawBufferPointer, level: Int32 = 6) -> [UInt8]? {
    var stream = z_stream()
    // windowBits 15 + 16: a gzip header and trailer instead of zlib's (zlib.h, deflateInit2).
    let status = deflateInit2_(
      &stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION,
      Int32(MemoryLayout<z_stream>.size))
    guard status == Z_OK else { return nil }
    defer { deflateEnd(&stream) }
    let bound = Int(deflateBound(&stream, uLong(bytes.count)))
    var output = [UInt8](repeating: 0, count: bound)
    let result: Int32 = output.withUnsafeMutableBufferPointer { out in
      stream.next_in = UnsafeMutablePointer(
        mutating: bytes.baseAddress?.assumingMemoryBound(to: Bytef.self))
      stream.avail_in = uInt(bytes.count)
      stream.next_out = out.baseAddress
      stream.avail_out = uInt(bound)
      return deflate(&stream, Z_FINISH)
    }
    guard result == Z_STREAM_END else { return nil }
    output.removeLast(bound - Int(stream.total_out))
    return output
  }
}

extension Gzip {
  /// `bytes` decompressed (one gzip member), or nil if they are not gzip: what a client of
  /// `compress` does, for the tests that read compressed scrapes back.
  public static func decompress(_ bytes: [UInt8]) -> [UInt8]? {
    var stream = z_stream()
    guard
      inflateInit2_(&stream, 15 + 16, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK
    else { return nil }
    defer { inflateEnd(&stream) }
    var input = bytes
    var output: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65_536)
    var status = Z_OK
    input.withUnsafeMutableBufferPointer { inputBuffer in
      stream.next_in = inputBuffer.baseAddress
      stream.avail_in = uInt(inputBuffer.count)
      while status == Z_OK {
        chunk.withUnsafeMutableBufferPointer { out in
          stream.next_out = out.baseAddress
          stream.avail_out = uInt(out.count)
          status = inflate(&stream, Z_NO_FLUSH)
          output += out.prefix(out.count - Int(stream.avail_out))
        }
      }
    }
    return status == Z_STREAM_END ? output : nil
  }
}

extension String {
  fileprivate func trimmingCharacters(in characters: String) -> String {
    var text = Substring(self)
    while let first = text.first, characters.contains(first) { text = text.dropFirst() }
    while let last = text.last, characters.contains(last) { text = text.dropLast() }
    return String(text)
  }
}

extension Substring {
  fileprivate func trimmingCharacters(in characters: String) -> String {
    String(self).trimmingCharacters(in: characters)
  }
}
