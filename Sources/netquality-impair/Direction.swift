/// Which way a datagram travels through the relay. Forward: client → relay → target;
/// backward: target → relay → client (the reply path).
enum Direction: Int, CaseIterable, Sendable {
  case forward = 0
  case backward = 1

  /// The name used in the stats JSON, the packet log and the flags (`--forward-…`).
  var name: String {
    switch self {
    case .forward: "forward"
    case .backward: "backward"
    }
  }
}
