import NetQualityCore

/// The small integers the history stores for states and sources, and the names they stand for.
public enum HistoryCodes {
  /// A connection state's code: its metric number (`ConnectionState.number`), stable because
  /// new states are added last.
  public static func code(_ state: ConnectionState) -> Int { state.number }

  public static func state(_ code: Int) -> ConnectionState? {
    ConnectionState.allCases.indices.contains(code) ? ConnectionState.allCases[code] : nil
  }

  public static func code(_ source: MeasurementSource?) -> Int? {
    switch source {
    case .rtp: 1
    case .probe: 2
    case nil: nil
    }
  }

  public static func source(_ code: Int?) -> MeasurementSource? {
    switch code {
    case 1: .rtp
    case 2: .probe
    default: nil
    }
  }

  public static func code(_ source: RoundTripSource?) -> Int? {
    switch source {
    case .rtcp: 1
    case .stun: 2
    case .probe: 3
    case nil: nil
    }
  }

  public static func roundTripSource(_ code: Int?) -> RoundTripSource? {
    switch code {
    case 1: .rtcp
    case 2: .stun
    case 3: .probe
    default: nil
    }
  }

  /// `CASE state WHEN 0 THEN 'connecting' ...` for the views.
  static var stateCaseSQL: String {
    ConnectionState.allCases.map { "WHEN \(code($0)) THEN '\($0.rawValue)'" }.joined(
      separator: " ")
  }

  /// The levels 0...6.
  public static let levels = QualityLevel.allCases.map(\.rawValue)

  /// `peer_minutes` columns of the seconds spent at each level, per direction.
  static let levelSecondsColumns =
    levels.map { "tx_level\($0)_s" } + levels.map { "rx_level\($0)_s" }
}
