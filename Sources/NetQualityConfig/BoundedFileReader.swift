import Glibc

/// Reads a file the agent takes as configuration — its YAML file, the web configuration file,
/// the TLS certificate, key and client CA files, STAMP key files — so that a path naming
/// something other than a file can neither hang the agent nor fill its memory.
///
/// Read naively, `/dev/zero` in place of the configuration made a reload read forever (10 GB
/// of memory in 30 s, and SIGTERM no longer stopped the agent: shutdown waited for the
/// reload), and a FIFO made it block in `open` for good, every later SIGHUP lost. Here:
///
/// 1. the path is looked up first (`stat`, links followed: a configuration managed as a link
///    is common) and anything but a regular file is refused without being opened — opening a
///    device can do things (a watchdog starts counting);
/// 2. it is opened with `O_NONBLOCK`, so a FIFO swapped in after the look cannot block the
///    open (POSIX `open`: a FIFO opened for reading with `O_NONBLOCK` returns at once), and
///    the descriptor is checked again (`fstat`): what was opened must be a regular file too;
/// 3. at most `maximumBytes` + 1 bytes are read, whatever the file's size says (it may grow
///    while read): one byte over the bound refuses the file.
public enum BoundedFileReader {
  /// The most a configuration file may hold: 16 MiB. The example configuration is 11 KB; a
  /// valid file of 50 MB (1.1 million peer groups) took `check-config` 42 s and 1.3 GB of
  /// memory, so a bound is needed, and 16 MiB leaves room for any real fleet's groups (a
  /// group of one network is about 50 bytes: 100,000 of them are 5 MB) while keeping a load to
  /// seconds (13.6 MB of 100,000 groups of four networks: 5.8 s in a debug build).
  public static let maximumConfigurationBytes = 16 * 1_048_576

  /// Why a file was refused: a phrase for after "cannot read PATH: ".
  public struct Failure: Error, Equatable, Sendable, CustomStringConvertible {
    public var description: String

    public init(_ description: String) {
      self.description = description
    }
  }

  /// The bytes of the regular file at `path`, at most `maximumBytes` of them.
  public static func read(path: String, maximumBytes: Int = maximumConfigurationBytes)
    throws(Failure) -> [UInt8]
  {
    var info = stat()
    guard stat(path, &info) == 0 else { throw Failure(String(cString: strerror(errno))) }
    try check(info, maximumBytes: maximumBytes)
    let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
    guard descriptor >= 0 else { throw Failure(String(cString: strerror(errno))) }
    defer { close(descriptor) }
    guard fstat(descriptor, &info) == 0 else { throw Failure(String(cString: strerror(errno))) }
    try check(info, maximumBytes: maximumBytes)

    // One byte past the bound tells a file over it (it may have grown since the look).
    let limit = maximumBytes + 1
    var bytes: [UInt8] = []
    bytes.reserveCapacity(min(limit, Int(info.st_size) + 1))
    var chunk = [UInt8](repeating: 0, count: 65_536)
    while bytes.count < limit {
      let wanted = min(chunk.count, limit - bytes.count)
      let got = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, wanted) }
      if got < 0 && errno == EINTR { continue }
      guard got >= 0 else { throw Failure(String(cString: strerror(errno))) }
      if got == 0 { break }
      bytes += chunk[0..<got]
    }
    guard bytes.count <= maximumBytes else { throw tooLarge(maximumBytes) }
    return bytes
  }

  /// Refuses what is not a regular file, or is larger than the bound.
  private static func check(_ info: stat, maximumBytes: Int) throws(Failure) {
    let type = info.st_mode & S_IFMT
    guard type == S_IFREG else {
      let kind =
        switch type {
        case S_IFDIR: "a directory"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFIFO: "a FIFO"
        case S_IFSOCK: "a socket"
        default: "not a file"
        }
      throw Failure("not a regular file (\(kind))")
    }
    guard info.st_size <= maximumBytes else { throw tooLarge(maximumBytes) }
  }

  private static func tooLarge(_ maximumBytes: Int) -> Failure {
    let size =
      maximumBytes % 1_048_576 == 0
      ? "\(maximumBytes / 1_048_576) MiB" : "\(maximumBytes) bytes"
    return Failure("larger than \(size), the most read from such a file")
  }
}
