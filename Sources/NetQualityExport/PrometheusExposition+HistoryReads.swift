extension PrometheusExposition {
  /// Reads of the history for the HTTP server (`/api/v1/history`, the status page's charts),
  /// by outcome: answered, busy (refused 503 at once: the readers and their queue were full),
  /// cancelled (the client went away), timed_out.
  public struct HistoryReadFigures: Sendable, Equatable {
    public var answered: Int64
    public var busy: Int64
    public var cancelled: Int64
    public var timedOut: Int64

    public init(answered: Int64, busy: Int64, cancelled: Int64, timedOut: Int64) {
      self.answered = answered
      self.busy = busy
      self.cancelled = cancelled
      self.timedOut = timedOut
    }
  }

  func historyReadMetrics(into out: inout Writer) {
    guard let historyReads else { return }
    out.family(.storageReadsTotal)
    for (outcome, count) in [
      ("answered", historyReads.answered), ("busy", historyReads.busy),
      ("cancelled", historyReads.cancelled), ("timed_out", historyReads.timedOut),
    ] {
      out.sample(.storageReadsTotal, [("outcome", outcome)], Double(count))
    }
  }
}
