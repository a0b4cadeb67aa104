/// Errors the agent reports at start, one line each.
public enum AgentError: Error, CustomStringConvertible {
  case cannotWrite(path: String, reason: String)
  case cannotListen(address: String, reason: String)
  case noInterfaces
  /// A probe target's or the reflector's key file, or the reflector's socket.
  case probes(String)
  /// The history's path, refused before anything is written (a symbolic link).
  case storage(String)

  public var description: String {
    switch self {
    case .cannotWrite(let path, let reason): "cannot write \(path): \(reason)"
    case .cannotListen(let address, let reason): "cannot listen on \(address): \(reason)"
    case .probes(let reason): reason
    case .storage(let reason): "storage_path: \(reason)"
    case .noInterfaces:
      "no interface to capture on: none is up with an address; name one in 'interfaces:' or with --interface"
    }
  }
}
