import NetQualityCore

/// One tick as the history receives it: the engine's snapshot and events as they are (values
/// shared with the other sinks, not copied), the capture's health at that moment, and how a
/// call record becomes the JSON the `calls` table keeps.
public struct HistoryTick: Sendable {
  public var snapshot: Snapshot
  public var events: [EngineEvent]
  public var capture: CaptureHealth?
  /// A call record as JSON, handed over by whoever sends the tick (Export's
  /// `CallsJSON.recordText`), because the history does not render (docs/architecture.md's
  /// module graph: Store and Export are independent). Called by the writer, on its own thread,
  /// for each call of `snapshot.calls.ended`.
  public var renderCall: @Sendable (CallRecord) -> String

  public init(
    snapshot: Snapshot, events: [EngineEvent], capture: CaptureHealth? = nil,
    renderCall: @escaping @Sendable (CallRecord) -> String
  ) {
    self.snapshot = snapshot
    self.events = events
    self.capture = capture
    self.renderCall = renderCall
  }

  public init(
    _ result: Engine.TickResult, capture: CaptureHealth? = nil,
    renderCall: @escaping @Sendable (CallRecord) -> String
  ) {
    self.init(
      snapshot: result.snapshot, events: result.events, capture: capture, renderCall: renderCall)
  }

  /// The rows the tick writes (its peers, its events, the calls that ended, and its streams
  /// when they are written): what the recorder's queue is bounded by.
  public func rows(withStreams: Bool) -> Int {
    1 + snapshot.peers.count + events.count + snapshot.calls.ended.count
      + (withStreams ? snapshot.streams.count : 0)
  }

  /// The capture side's cumulative counters at a tick.
  public struct CaptureHealth: Sendable, Equatable {
    public var frames: Int64
    /// Packets the kernel dropped before the capture read them (pcap_stats), all interfaces.
    public var dropped: Int64
    public var decodeErrors: Int64

    public init(frames: Int64, dropped: Int64, decodeErrors: Int64) {
      self.frames = frames
      self.dropped = dropped
      self.decodeErrors = decodeErrors
    }
  }
}
