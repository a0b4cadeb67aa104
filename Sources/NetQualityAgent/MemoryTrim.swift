/// glibc's `malloc_trim(3)` and `mallopt(3)` (in <malloc.h>, which Swift's Glibc module does not
/// import).
@_silgen_name("malloc_trim")
private func glibcMallocTrim(_ pad: Int) -> Int32
@_silgen_name("mallopt")
private func glibcMallopt(_ parameter: Int32, _ value: Int32) -> Int32

/// How the agent keeps glibc's heap from holding on to memory it no longer uses.
///
/// A tick builds arrays proportional to the fleet (the harvest, the windows, the snapshot) and
/// frees the previous tick's. With glibc's defaults, memory freed that way mostly stays in the
/// process: the mmap threshold adapts upwards to every large block freed (up to 32 MiB, so
/// later blocks come from the heap and are kept for reuse), and each thread that allocates
/// gets an arena of its own, up to 8 per core. Measured with 100,000 streams from as many
/// peers (`scripts/bench-agent.sh 100000:50000:60`): 786 MiB resident at the end with the
/// defaults, 504 MiB with the two settings below.
enum MemoryTrim {
  /// `M_MMAP_THRESHOLD` and `M_ARENA_MAX` from glibc's malloc.h.
  private static let mmapThresholdParameter: Int32 = -3
  private static let arenaMaxParameter: Int32 = -8
  /// Blocks of 256 KiB and more are mapped on their own and unmapped when freed; setting the
  /// threshold turns its upward adaptation off (mallopt(3), M_MMAP_THRESHOLD).
  static let mmapThresholdBytes: Int32 = 256 * 1024
  /// Two arenas: the capture thread and the tick's task allocate rarely and never in a hot
  /// loop (the per-packet path allocates nothing), so more arenas buy no speed here.
  static let arenaCount: Int32 = 2

  /// Applies the settings above; call once, as the agent starts (arenas already made stay).
  static func tuneAllocator() {
    _ = glibcMallopt(mmapThresholdParameter, mmapThresholdBytes)
    _ = glibcMallopt(arenaMaxParameter, arenaCount)
  }

  /// Returns memory freed by the process to the system; whether any was returned.
  @discardableResult
  static func releaseFreePages() -> Bool { glibcMallocTrim(0) == 1 }
}
