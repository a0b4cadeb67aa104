/// How the users of From and To (telephone numbers, names: personal data) are kept in call
/// records. Applied in the engine where a user part is first read, so no unmasked user leaves
/// it: not to the history, the API, the logs or a capture's analysis.
public enum UserMasking: Sendable, Equatable {
  /// As signalled.
  case off
  /// `h:` and the first 16 hex digits of HMAC-SHA-256 over the user with `key`: the same user
  /// always gives the same token (calls can be grouped and found by it), and without the key
  /// the token cannot be checked against guesses. An empty key leaves only the hash, which a
  /// list of all numbers of a country reverses in minutes: set a key.
  case hash(key: [UInt8])
  /// Every character but the last `count` replaced by `*` (`*******3456`).
  case lastDigits(count: Int)

  /// The configuration's names for the modes.
  public static let names = ["off", "hash", "last_digits"]

  /// The user as records keep it.
  public func mask(_ user: String) -> String {
    switch self {
    case .off:
      return user
    case .hash(let key):
      let digest = SHA256.hmac(key: key, message: Array(user.utf8))
      let hex = digest.prefix(8).map { byte in
        let digits = Array("0123456789abcdef")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
      }
      return "h:" + hex.joined()
    case .lastDigits(let count):
      let characters = Array(user)
      let kept = max(0, min(count, characters.count))
      return String(repeating: "*", count: characters.count - kept)
        + String(characters.suffix(kept))
    }
  }
}
