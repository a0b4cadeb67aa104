import NetQualityCore

/// The agent's part of the `calls:` section beyond the engine's (`EngineConfiguration.calls`):
/// how users are masked, as the file names it.
public struct CallsSettings: Sendable, Equatable {
  /// `off`, `hash` or `last_digits` (`UserMasking`). `hash` by default: From and To users are
  /// telephone numbers, personal data, and the API and the history are often read without
  /// authentication (issue 39).
  public var userMasking = "hash"
  /// The key of `hash` (HMAC-SHA-256): without one the hash of a telephone number is
  /// reversible by trying every number.
  public var userHashKey = ""
  /// The characters `last_digits` keeps.
  public var userLastDigits = 4

  public init() {}

  /// The masking the engine applies.
  public var masking: UserMasking {
    switch userMasking {
    case "hash": .hash(key: Array(userHashKey.utf8))
    case "last_digits": .lastDigits(count: userLastDigits)
    default: .off
    }
  }
}
