/// glibc's `malloc_trim(3)` (in <malloc.h>, which Swift's Glibc module does not import): gives
/// the free pages of the heap back to the system. glibc keeps freed memory for reuse, so
/// without it an agent's resident size would stay at the peak of a churn wave.
@_silgen_name("malloc_trim")
private func glibcMallocTrim(_ pad: Int) -> Int32

enum MemoryTrim {
  /// Returns memory freed by the process to the system; whether any was returned.
  @discardableResult
  static func releaseFreePages() -> Bool { glibcMallocTrim(0) == 1 }
}
