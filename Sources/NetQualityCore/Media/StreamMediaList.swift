/// A tick's media streams (`MediaTickSnapshot.streams`), in chunks of 4,096 (`ChunkedArray`):
/// at 200,000 streams one array of them is 65 MB, above the largest block glibc's malloc
/// serves from its heap (32 MB, `M_MMAP_THRESHOLD`'s bound), so each tick mapped it anew and
/// faulted in and zeroed every page, 8 % of a tick under churn (perf, issue 37). Chunks of
/// 1.3 MB come back from the heap tick after tick.
public struct StreamMediaList: RandomAccessCollection, Sendable, Equatable,
  ExpressibleByArrayLiteral
{
  private var elements = ChunkedArray<StreamMediaSnapshot>()

  public init() {}

  public init(_ streams: some Sequence<StreamMediaSnapshot>) {
    for stream in streams { elements.append(stream) }
  }

  public init(arrayLiteral streams: StreamMediaSnapshot...) {
    self.init(streams)
  }

  public var startIndex: Int { 0 }
  public var endIndex: Int { elements.count }

  public subscript(position: Int) -> StreamMediaSnapshot { elements[position] }

  mutating func append(_ stream: StreamMediaSnapshot) { elements.append(stream) }

  public static func == (lhs: StreamMediaList, rhs: StreamMediaList) -> Bool {
    lhs.elementsEqual(rhs)
  }
}
