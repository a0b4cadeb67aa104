import Foundation
import Glibc
import NetQualityExport

extension ProcessCollector {
  /// The agent process' figures now, read at a scrape as client_golang's process collector
  /// reads them (procfs): /proc/self/stat for CPU time, virtual and resident memory; the
  /// entries of /proc/self/fd; getrlimit for the limits (client_golang reads the same soft
  /// limits from /proc/self/limits); the start time once. A file that cannot be read leaves
  /// its figures out.
  static func current() -> ProcessCollector {
    var collector = ProcessCollector(
      maxFileDescriptors: softLimit(RLIMIT_NOFILE),
      virtualMemoryMaxBytes: softLimit(RLIMIT_AS), startTimeSeconds: Self.startTimeSeconds)
    if let stat = SelfStat.read() {
      collector.cpuSeconds = Double(stat.userTicks + stat.systemTicks) / SelfStat.ticksPerSecond
      collector.virtualMemoryBytes = Double(stat.virtualMemoryBytes)
      collector.residentMemoryBytes =
        Double(stat.residentPages) * Double(sysconf(Int32(_SC_PAGESIZE)))
    }
    collector.openFileDescriptors = openFileDescriptorCount()
    return collector
  }

  /// Boot time (/proc/stat `btime`) plus the process' start after boot (/proc/self/stat
  /// field 22, in clock ticks): fixed for the process' life, read once.
  private static let startTimeSeconds: Double? = {
    guard let stat = SelfStat.read(),
      let system = ProcFile.read("/proc/stat"),
      let line = system.split(separator: "\n").first(where: { $0.hasPrefix("btime ") }),
      let bootSeconds = Double(line.dropFirst("btime ".count))
    else { return nil }
    return bootSeconds + Double(stat.startTicks) / SelfStat.ticksPerSecond
  }()

  /// A soft limit; unlimited as 2^64 - 1 (client_golang's value for "unlimited").
  private static func softLimit(_ resource: __rlimit_resource) -> Double? {
    var limit = rlimit()
    guard getrlimit(__rlimit_resource_t(resource.rawValue), &limit) == 0 else { return nil }
    return Double(limit.rlim_cur)
  }

  /// The entries of /proc/self/fd (the listing's own descriptor included, as client_golang's).
  private static func openFileDescriptorCount() -> Int? {
    guard let directory = opendir("/proc/self/fd") else { return nil }
    defer { closedir(directory) }
    var count = 0
    while let entry = readdir(directory) {
      let isDot = withUnsafeBytes(of: entry.pointee.d_name) { name in
        name[0] == UInt8(ascii: ".")
      }
      if !isDot { count += 1 }
    }
    return count
  }
}

/// The fields of /proc/self/stat the process collector reads (proc(5): utime 14, stime 15,
/// starttime 22, vsize 23, rss 24; the command name, field 2, is in parentheses and may hold
/// spaces, so fields are counted from its closing parenthesis).
private struct SelfStat {
  var userTicks: UInt64
  var systemTicks: UInt64
  var startTicks: UInt64
  var virtualMemoryBytes: UInt64
  var residentPages: UInt64

  /// USER_HZ, the unit of the tick fields (sysconf(_SC_CLK_TCK); 100 on Linux).
  static let ticksPerSecond = Double(max(1, sysconf(Int32(_SC_CLK_TCK))))

  static func read() -> SelfStat? {
    guard let text = ProcFile.read("/proc/self/stat"),
      let close = text.lastIndex(of: ")")
    else { return nil }
    // Fields from 3 (state) on.
    let fields = text[text.index(after: close)...].split(separator: " ")
    func field(_ number: Int) -> UInt64? {
      let index = number - 3
      return fields.indices.contains(index) ? UInt64(fields[index]) : nil
    }
    guard let user = field(14), let system = field(15), let start = field(22),
      let virtualBytes = field(23), let resident = field(24)
    else { return nil }
    return SelfStat(
      userTicks: user, systemTicks: system, startTicks: start, virtualMemoryBytes: virtualBytes,
      residentPages: resident)
  }
}

/// A /proc file's text (their size reads as 0, so read to the end), at most 256 KiB.
private enum ProcFile {
  static func read(_ path: String) -> String? {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while bytes.count < 256 * 1024 {
      let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
      if count <= 0 { break }
      bytes += chunk[..<count]
    }
    return String(decoding: bytes, as: UTF8.self)
  }
}
