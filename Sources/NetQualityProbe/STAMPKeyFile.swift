/// Why a key file was refused: one line naming the file and the line, never a key's bytes.
public struct STAMPKeyFileError: Error, Hashable, Sendable, CustomStringConvertible {
  public var description: String

  public init(description: String) {
    self.description = description
  }
}

/// The keys of authenticated STAMP (RFC 8762 section 4.4 leaves key management to the
/// operator), read from a text file:
///
/// ```
/// # comments and blank lines are ignored
/// lab-2025   00112233445566778899aabbccddeeff
/// 0f1e2d3c4b5a69788796a5b4c3d2e1f0
/// ```
///
/// Each key line is `NAME HEX` or just `HEX` (then it is named `line N`). The hex digits (either
/// case, an even number of them) are the key's bytes; at least 16 bytes (128 bits) are needed,
/// and at most `maximumKeys` keys. The name is what logs and errors say;
/// the key itself is never printed.
public enum STAMPKeyFile {
  /// The largest key file read: a key file is a few lines, anything this large is the wrong
  /// file. The agent and the command line read the file with `NetQualityConfig`'s
  /// `BoundedFileReader`, like every file taken as configuration (`STAMPKeyFile.load(path:)`
  /// in `NetQualityAgent`); this module only parses.
  public static let maximumFileBytes = 65_536
  /// The most keys a file may hold: a reflector tries each one on a packet whose HMAC matches
  /// none, so the count bounds the work a bad packet costs.
  public static let maximumKeys = 16

  /// The keys in the bytes of the file `path` (for messages), which must be UTF-8 text.
  public static func parse(bytes: [UInt8], path: String) throws(STAMPKeyFileError) -> [STAMPKey] {
    guard let text = String(validating: bytes, as: UTF8.self) else {
      throw STAMPKeyFileError(description: "cannot read key file \(path): not UTF-8 text")
    }
    return try parse(text, path: path)
  }

  /// The keys in `text`, read from the file `path` (for messages).
  public static func parse(_ text: String, path: String) throws(STAMPKeyFileError) -> [STAMPKey] {
    var keys: [STAMPKey] = []
    for (offset, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false)
      .enumerated()
    {
      let lineNumber = offset + 1
      let fields = rawLine.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
      guard let first = fields.first, !first.hasPrefix("#") else { continue }
      func failure(_ message: String) -> STAMPKeyFileError {
        STAMPKeyFileError(description: "key file \(path) line \(lineNumber): \(message)")
      }
      guard fields.count <= 2 else {
        throw failure("expected NAME HEXKEY or HEXKEY, found \(fields.count) fields")
      }
      let name = fields.count == 2 ? String(first) : "line \(lineNumber)"
      guard let bytes = hexBytes(fields[fields.count - 1]) else {
        throw failure("key \(name) is not an even number of hexadecimal digits")
      }
      guard let key = STAMPKey(name: name, bytes: bytes) else {
        throw failure(
          "key \(name) has \(bytes.count) bytes; at least \(STAMPKey.minimumLengthBytes) "
            + "(128 bits) are needed")
      }
      guard !keys.contains(where: { $0.name == name }) else {
        throw failure("key name \(name) is used twice")
      }
      keys.append(key)
    }
    guard !keys.isEmpty else {
      throw STAMPKeyFileError(description: "key file \(path) holds no keys")
    }
    guard keys.count <= STAMPKeyFile.maximumKeys else {
      throw STAMPKeyFileError(
        description: "key file \(path) holds \(keys.count) keys; at most "
          + "\(STAMPKeyFile.maximumKeys) (each is tried on every packet)")
    }
    return keys
  }

  private static func hexBytes(_ text: Substring) -> [UInt8]? {
    let digits = Array(text.utf8)
    guard !digits.isEmpty, digits.count % 2 == 0 else { return nil }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(digits.count / 2)
    var index = 0
    while index < digits.count {
      guard let high = nibble(digits[index]), let low = nibble(digits[index + 1]) else {
        return nil
      }
      bytes.append(high << 4 | low)
      index += 2
    }
    return bytes
  }

  private static func nibble(_ digit: UInt8) -> UInt8? {
    switch digit {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
    default: nil
    }
  }
}
