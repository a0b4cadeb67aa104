/// A bcrypt hash as `basic_auth_users` holds them: `$2a$`, `$2b$` or `$2y$`, a two-digit cost
/// from 04 to 31, then 22 characters of salt and 31 of hash in bcrypt's base64 alphabet
/// (`./A-Za-z0-9`): 60 characters (OpenBSD bcrypt.c, the code HummingbirdBcrypt compiles).
public enum BcryptHash {
  /// Costs bcrypt accepts (`BCRYPT_MINLOGROUNDS` 4 to 31).
  public static let costRange = 4...31

  /// Why `text` is not a bcrypt hash, or nil.
  public static func problem(_ text: String) -> String? {
    let bytes = Array(text.utf8)
    guard bytes.count == 60, bytes[0] == UInt8(ascii: "$"), bytes[1] == UInt8(ascii: "2"),
      bytes[3] == UInt8(ascii: "$"), bytes[6] == UInt8(ascii: "$")
    else {
      return "not a bcrypt hash (60 characters starting $2a$, $2b$ or $2y$; make one with "
        + "`htpasswd -nBC 10 \"\" | tr -d ':\\n'`)"
    }
    guard [UInt8(ascii: "a"), UInt8(ascii: "b"), UInt8(ascii: "y")].contains(bytes[2]) else {
      return "bcrypt version $2\(Character(UnicodeScalar(bytes[2])))$ is not supported "
        + "(use $2a$, $2b$ or $2y$)"
    }
    let digits = bytes[4...5]
    guard digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
      let cost = Int(String(decoding: digits, as: UTF8.self)), costRange.contains(cost)
    else {
      return "bcrypt cost must be 04 to 31"
    }
    guard bytes[7...].allSatisfy(isBase64)
    else { return "not a bcrypt hash: salt and hash must be in bcrypt's alphabet ./A-Za-z0-9" }
    return nil
  }

  /// The hash as OpenBSD's bcrypt checks it: `$2y$` (PHP's and htpasswd's name, what
  /// exporter-toolkit's documentation makes) is the same algorithm as `$2b$`, which it knows.
  public static func normalized(_ text: String) -> String {
    text.hasPrefix("$2y$") ? "$2b$" + text.dropFirst(4) : text
  }

  private static func isBase64(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "."), UInt8(ascii: "/"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
      UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
      true
    default: false
    }
  }
}
