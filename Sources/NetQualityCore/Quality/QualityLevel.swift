/// The network quality scale RTC SDKs report in `onNetworkQuality`; the numbers are part of
/// the interface (metrics, JSON, database).
public enum QualityLevel: Int, Sendable, Comparable, CaseIterable, Codable {
  /// Not enough data in the window to judge.
  case unknown = 0
  case excellent = 1
  case good = 2
  /// Usable, noticeably impaired.
  case poor = 3
  case bad = 4
  /// Barely usable ("suggest turning video off").
  case veryBad = 5
  /// No traffic for the disconnect interval, or the link is down.
  case down = 6

  public var name: String {
    switch self {
    case .unknown: "unknown"
    case .excellent: "excellent"
    case .good: "good"
    case .poor: "poor"
    case .bad: "bad"
    case .veryBad: "very_bad"
    case .down: "down"
    }
  }

  /// The level `name` spells (`poor`, `very_bad`), or nil.
  public init?(name: String) {
    guard let level = Self.allCases.first(where: { $0.name == name }) else { return nil }
    self = level
  }

  public static func < (lhs: QualityLevel, rhs: QualityLevel) -> Bool {
    lhs.rawValue < rhs.rawValue
  }

  /// The worse of two levels, where unknown counts as no information.
  public func worse(_ other: QualityLevel) -> QualityLevel {
    if self == .unknown { return other }
    if other == .unknown { return self }
    return max(self, other)
  }
}
