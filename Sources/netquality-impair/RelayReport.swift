/// The whole stats file: where the relay listens and forwards, its clients, both directions.
struct RelayReport: Encodable {
  var listen: String
  var target: String
  var seed: UInt64
  /// False while running (rewritten every second), true in the last write at exit.
  var isFinal: Bool
  var elapsedNanoseconds: Int64
  var clients: Int
  /// Datagrams from a new client address after the client table was full (not in `received`).
  var clientLimitDropped: Int64
  /// Datagrams on an upstream socket from anyone but the target (not in `received`).
  var strayDropped: Int64
  var forward: DirectionReport
  var backward: DirectionReport

  enum CodingKeys: String, CodingKey {
    case listen, target, seed, clients, forward, backward
    case isFinal = "final"
    case elapsed = "elapsed_s"
    case clientLimitDropped = "client_limit_dropped"
    case strayDropped = "stray_dropped"
  }

  func encode(to encoder: Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(listen, forKey: .listen)
    try container.encode(target, forKey: .target)
    try container.encode(seed, forKey: .seed)
    try container.encode(isFinal, forKey: .isFinal)
    try container.encode(Double(elapsedNanoseconds) / 1e9, forKey: .elapsed)
    try container.encode(clients, forKey: .clients)
    try container.encode(clientLimitDropped, forKey: .clientLimitDropped)
    try container.encode(strayDropped, forKey: .strayDropped)
    try container.encode(forward, forKey: .forward)
    try container.encode(backward, forKey: .backward)
  }
}
