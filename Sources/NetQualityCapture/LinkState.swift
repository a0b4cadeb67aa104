import Foundation

/// Whether an interface has its link, from Linux's sysfs (`operstate` and `carrier`): cheap
/// enough to read every capture poll, so a link going down is known within a fraction of a
/// second instead of after 12 s of silence.
public enum LinkState {
  /// true: up; false: down or gone; nil: not a Linux sysfs interface (e.g. "any").
  public static func isUp(_ interface: String, root: String = "/sys/class/net") -> Bool? {
    let directory = "\(root)/\(interface)"
    guard let operstate = read("\(directory)/operstate") else {
      return FileManager.default.fileExists(atPath: root) && interface != "any" ? false : nil
    }
    // "up", or "unknown" (loopback, some virtual devices) with carrier; carrier cannot even be
    // read while the interface is administratively down.
    switch operstate {
    case "up": return true
    case "unknown": return read("\(directory)/carrier") == "1"
    default: return false
    }
  }

  private static func read(_ path: String) -> String? {
    guard let data = FileManager.default.contents(atPath: path) else { return nil }
    return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
  }
}
