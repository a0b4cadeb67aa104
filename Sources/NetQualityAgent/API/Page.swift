/// One page of a list the JSON API serves: which rows, where they start among the rows that
/// match the request's filters, and how many match.
struct Page: Equatable {
  /// Indices of the rows, in the list's order.
  var rows: [Int]
  var matched: Int
  /// Matching rows before the first on this page.
  var offset: Int

  var hasMore: Bool { offset + rows.count < matched }

  /// Pages through `order` (indices of rows, in the order served): matching rows at positions
  /// before `start` (where a cursor resumes) are only counted, then `skip` matching rows are
  /// passed over, then up to `limit` are taken. `matches` (nil: every row) is asked once per
  /// row, so it may count what it accepts.
  init(
    order: some Collection<Int>, start: Int, skip: Int, limit: Int,
    matches: ((Int) -> Bool)?
  ) {
    guard let matches else {
      let first = min(order.count, start + skip)
      rows = Array(order.dropFirst(first).prefix(limit))
      matched = order.count
      offset = first
      return
    }
    rows = []
    matched = 0
    offset = 0
    var skipped = 0
    for (position, row) in order.enumerated() where matches(row) {
      matched += 1
      if position < start || skipped < skip {
        if position >= start { skipped += 1 }
        offset += 1
      } else if rows.count < limit {
        rows.append(row)
      }
    }
  }
}
