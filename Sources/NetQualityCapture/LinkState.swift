import Foundation

/// Whether an interface has its link, from Linux's sysfs (`operstate` and `carrier`): cheap
/// enough to read every capture poll, so a link going down is known within a fraction of a
/// second instead of after 12 s of silence.
public enum LinkState {
  /// true: up. false: down, or the interface is gone (its sysfs directory does not exist).
  /// nil: not known — not a Linux sysfs interface (e.g. "any"), or the files could not be
  /// read (no descriptor left, no permission): failing to look is never "down", which would
  /// mark every peer reached through the interface down while its traffic flows.
  public static func isUp(_ interface: String, root: String = "/sys/class/net") -> Bool? {
    guard interface != "any" else { return nil }
    let directory = "\(root)/\(interface)"
    switch read("\(directory)/operstate") {
    case .text(let operstate):
      // "up", or "unknown" (loopback, some virtual devices) with carrier; carrier cannot even
      // be read while the interface is administratively down.
      switch operstate {
      case "up": return true
      case "unknown":
        if case .text(let carrier) = read("\(directory)/carrier") { return carrier == "1" }
        return nil
      default: return false
      }
    case .missing:
      // No operstate: the interface is gone if its directory is, else sysfs is not there.
      if case .missing = read(directory, directory: true) {
        return FileManager.default.fileExists(atPath: root) ? false : nil
      }
      return nil
    case .unreadable:
      return nil
    }
  }

  enum Reading {
    case text(String)
    case missing
    /// Exists (or may), but reading failed for another reason: EMFILE, EACCES, EISDIR...
    case unreadable
  }

  /// The trimmed content of a small file, or why there is none; with `directory`, only whether
  /// the path exists.
  static func read(_ path: String, directory: Bool = false) -> Reading {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC | (directory ? O_DIRECTORY : 0))
    guard descriptor >= 0 else {
      return errno == ENOENT || errno == ENOTDIR ? .missing : .unreadable
    }
    defer { close(descriptor) }
    if directory { return .text("") }
    var buffer = [UInt8](repeating: 0, count: 64)
    let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
    guard count >= 0 else { return .unreadable }
    return .text(
      String(decoding: buffer[0..<count], as: UTF8.self).trimmingCharacters(
        in: .whitespacesAndNewlines))
  }
}
