#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// The listening sockets systemd passes a socket-activated service (`--web.systemd-socket`, as
/// node_exporter's flag of that name through exporter-toolkit): sd_listen_fds(3) semantics.
/// `LISTEN_FDS` sockets from fd 3 (`SD_LISTEN_FDS_START`), taken only when `LISTEN_PID` is this
/// process; the variables are unset after reading, so that a child never takes them for its
/// own, and the sockets get close-on-exec.
public enum SystemdSockets {
  /// sd-daemon.h's `SD_LISTEN_FDS_START`: the first passed descriptor.
  public static let firstDescriptor: Int32 = 3
  /// The variables sd_listen_fds(3) reads (and, with `unset_environment`, removes).
  static let variables = ["LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"]

  /// Why no socket could be taken, in one line.
  public struct Failure: Error, Equatable, CustomStringConvertible {
    public var reason: String
    public var description: String { "--web.systemd-socket: \(reason)" }
  }

  /// The descriptors `LISTEN_PID` and `LISTEN_FDS` pass to process `pid`, as sd_listen_fds(3)
  /// reads them; pure, for tests.
  public static func descriptors(listenPID: String?, listenFDs: String?, pid: Int32) -> Result<
    [Int32], Failure
  > {
    guard let listenPID, let listenFDs else {
      return .failure(
        Failure(
          reason: "no socket was passed (LISTEN_PID and LISTEN_FDS are not set: start the agent "
            + "from a systemd socket unit, e.g. netquality.socket)"))
    }
    guard let owner = Int32(listenPID), owner > 0 else {
      return .failure(Failure(reason: "LISTEN_PID '\(listenPID)' is not a process id"))
    }
    guard owner == pid else {
      return .failure(
        Failure(reason: "the sockets passed are for process \(owner), not this one (\(pid))"))
    }
    guard let count = Int32(listenFDs), count >= 0, count <= Int32.max - firstDescriptor else {
      return .failure(Failure(reason: "LISTEN_FDS '\(listenFDs)' is not a number of sockets"))
    }
    guard count > 0 else { return .failure(Failure(reason: "no socket was passed (LISTEN_FDS=0)")) }
    return .success(Array(firstDescriptor..<(firstDescriptor + count)))
  }

  /// The sockets passed to this process, each a listening stream socket; the variables unset.
  public static func take() -> Result<[Int32], Failure> {
    let environment = variables.map { name in getenv(name).map { String(cString: $0) } }
    for name in variables { unsetenv(name) }
    return descriptors(listenPID: environment[0], listenFDs: environment[1], pid: getpid())
      .flatMap { descriptors in
        for descriptor in descriptors {
          if let problem = problem(descriptor) { return .failure(Failure(reason: problem)) }
          // sd_listen_fds(3) sets FD_CLOEXEC on every descriptor it returns.
          _ = fcntl(descriptor, F_SETFD, fcntl(descriptor, F_GETFD) | FD_CLOEXEC)
        }
        return .success(descriptors)
      }
  }

  /// What keeps `descriptor` from being served: not open, not a socket, not a listening
  /// stream socket (sd_is_socket(3)'s checks).
  static func problem(_ descriptor: Int32) -> String? {
    var status = stat()
    guard fstat(descriptor, &status) == 0 else { return "fd \(descriptor) is not open" }
    guard status.st_mode & S_IFMT == S_IFSOCK else { return "fd \(descriptor) is not a socket" }
    var type: Int32 = 0
    var length = socklen_t(MemoryLayout<Int32>.size)
    guard getsockopt(descriptor, SOL_SOCKET, SO_TYPE, &type, &length) == 0,
      type == Int32(SOCK_STREAM.rawValue)
    else { return "fd \(descriptor) is not a stream socket (the HTTP server needs one)" }
    var listening: Int32 = 0
    length = socklen_t(MemoryLayout<Int32>.size)
    guard getsockopt(descriptor, SOL_SOCKET, SO_ACCEPTCONN, &listening, &length) == 0,
      listening != 0
    else { return "fd \(descriptor) is not listening (ListenStream= in the socket unit)" }
    return nil
  }
}
