import Foundation

/// Wall time and this thread's CPU time since it was made: the difference is time waiting,
/// mostly for the disk.
struct Stopwatch {
  private let wall = DispatchTime.now().uptimeNanoseconds
  private let cpu = Stopwatch.threadCPUNanoseconds()

  var wallSeconds: Double { Double(DispatchTime.now().uptimeNanoseconds - wall) * 1e-9 }
  var cpuSeconds: Double { Double(Stopwatch.threadCPUNanoseconds() - cpu) * 1e-9 }

  static func threadCPUNanoseconds() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
  }
}
