/// The engine's per-stream and per-peer records, kept in chunks of a fixed number of elements
/// instead of one contiguous buffer.
///
/// A `ContiguousArray` grows by doubling: at 100,000 streams its buffer has room for 131,072
/// (a third of it unused: 12 MB of stream records), and each growth copies every record while
/// the old and the new buffer are both alive (75 MB at once when 65,536 stream records move to
/// a buffer of 131,072) — under the capture's lock, so the capture waits for the copy. Chunks
/// never move: growing adds one chunk, the room left unused is less than one chunk, and a
/// chunk of 4,096 records (1.5 MB of stream records) is above glibc's mmap threshold
/// (`MemoryTrim`), so the chunks freed after churn go straight back to the system.
///
/// Value semantics, like the arrays it replaces: a copy shares the chunks until one side
/// changes a chunk, which then copies that chunk only.
struct ChunkedArray<Element> {
  /// 4,096 elements a chunk: the largest records (384-byte streams) make 1.5 MB chunks, the
  /// smallest (32-byte trackers) 128 KB.
  static var chunkShift: Int { 12 }
  static var chunkSize: Int { 1 << chunkShift }
  static var chunkMask: Int { chunkSize - 1 }

  private var chunks = ContiguousArray<ContiguousArray<Element>>()
  private(set) var count = 0

  init() {}

  init(repeating element: Element, count: Int) {
    var remaining = count
    while remaining > 0 {
      let size = Swift.min(remaining, Self.chunkSize)
      chunks.append(ContiguousArray(repeating: element, count: size))
      remaining -= size
    }
    self.count = count
  }

  subscript(index: Int) -> Element {
    @inline(__always) get { chunks[index &>> Self.chunkShift][index & Self.chunkMask] }
    @inline(__always) _modify { yield &chunks[index &>> Self.chunkShift][index & Self.chunkMask] }
  }

  /// Reads through the chunks without counting references to each one: a lookup that probes
  /// several elements (`StreamAnalyzer.findStream`: 13 instructions a packet fewer than the
  /// subscript, counted with callgrind). Writes go through the subscript, whose nested
  /// in-place access costs no more than one contiguous array's.
  @inline(__always)
  func withElements<Result>(_ body: (Reader) -> Result) -> Result {
    chunks.withUnsafeBufferPointer { body(Reader(chunks: $0)) }
  }

  struct Reader {
    let chunks: UnsafeBufferPointer<ContiguousArray<Element>>

    subscript(index: Int) -> Element {
      @inline(__always) get {
        chunks[index &>> ChunkedArray.chunkShift][index & ChunkedArray.chunkMask]
      }
    }
  }

  mutating func append(_ element: Element) {
    if count & Self.chunkMask == 0 {
      var chunk = ContiguousArray<Element>()
      // The first chunk grows as elements come (a small agent or capture keeps a small one);
      // the next ones are taken whole, in one allocation each.
      if count > 0 { chunk.reserveCapacity(Self.chunkSize) }
      chunks.append(chunk)
    }
    chunks[chunks.count - 1].append(element)
    count += 1
  }

  /// Removes every element and lets go of every chunk.
  mutating func removeAll() {
    chunks = []
    count = 0
  }

  /// Hands every element to `body` in order and removes them, letting go of each chunk as soon
  /// as its elements are handed over: what is made from the elements grows while they shrink,
  /// instead of both being whole at once (a tick's harvest, 16 MB at 100,000 streams, turned
  /// into windows).
  mutating func drain(_ body: (Element) -> Void) {
    var taken = ContiguousArray<ContiguousArray<Element>>()
    swap(&taken, &chunks)
    count = 0
    for position in taken.indices {
      var chunk = ContiguousArray<Element>()
      swap(&chunk, &taken[position])
      for element in chunk { body(element) }
    }
  }

  /// Chunks held (each room for `chunkSize` elements, the first one perhaps less).
  var chunkCount: Int { chunks.count }
}

extension ChunkedArray: RandomAccessCollection, MutableCollection {
  typealias Index = Int
  typealias Indices = Range<Int>

  var startIndex: Int { 0 }
  var endIndex: Int { count }
  var indices: Range<Int> { 0..<count }
  var isEmpty: Bool { count == 0 }

  func index(after index: Int) -> Int { index + 1 }
  func index(before index: Int) -> Int { index - 1 }
}

extension ChunkedArray: Sendable where Element: Sendable {}
