/// The live agent's windows cut at capture timestamps, as a replay cuts them (issue 38: live
/// equals offline). A tick at grid time T closes the window of the packets stamped before T.
/// The ticker wakes at T by the wall clock, but by then the captures may have fed packets
/// stamped after T (read in the same batch), and some stamped before T may still wait in the
/// kernel's ring. So the window is cut by the packets themselves: the ticker arms a cut at the
/// next boundary, and the first packet stamped at or after it harvests the counters just before
/// it is fed. The ticker takes that harvest; when no packet has come since the boundary (a quiet
/// network, once the captures have read everything stamped before it), it harvests itself: the
/// same cut.
extension StreamAnalyzer {
  /// A cut waiting for its boundary: where, and the forgetting cutoff of that tick's harvest.
  public struct WindowCut: Sendable, Equatable {
    public var boundary: CaptureTime
    public var forgetSilentSince: CaptureTime

    public init(boundary: CaptureTime, forgetSilentSince: CaptureTime) {
      self.boundary = boundary
      self.forgetSilentSince = forgetSilentSince
    }
  }

  /// A cut made: its boundary and the harvest of everything stamped before it.
  public struct MadeCut: Sendable {
    public var boundary: CaptureTime
    public var harvest: StreamHarvest
  }

  /// Arms the cut of the next window (replacing any armed before).
  public mutating func armCut(_ cut: WindowCut) {
    armedCut = cut
  }

  /// The armed cut's boundary (corrected clock); nil when none is armed.
  public var armedCutBoundary: CaptureTime? { armedCut?.boundary }

  /// The armed cut's boundary on the wall clock (the packets' own clock, before correction),
  /// for the captures to end a poll just after it; nil when none is armed.
  public var armedCutWallClockNanoseconds: Int64? {
    armedCut.map { $0.boundary.nanosecondsSinceEpoch &- clock.offsetNanoseconds }
  }

  /// Whether the packets have cut the armed window already.
  public var hasMadeCut: Bool { madeCut != nil }

  /// Cuts made in all: a tick that woke late waits for one made after it woke, not one left
  /// from before the agent was held up.
  public var cutsMade: Int { cutCount }

  /// The cut the packets made, taken (nil when none came at or after the armed boundary).
  public mutating func takeMadeCut() -> MadeCut? {
    defer { madeCut = nil }
    return madeCut
  }

  /// The first packet at or after the armed boundary: the window before it is harvested now,
  /// before the packet is fed. Out of line: once a tick.
  @inline(never)
  mutating func makeCut(_ cut: WindowCut) {
    armedCut = nil
    cutCount &+= 1
    var harvest = takeSpareHarvest()
    self.harvest(into: &harvest, forgetSilentSince: cut.forgetSilentSince)
    madeCut = MadeCut(boundary: cut.boundary, harvest: harvest)
  }

  /// A harvest scored and done with, handed back to be filled again (`spareHarvest`); `harvest`
  /// is left empty.
  public mutating func recycle(_ harvest: inout StreamHarvest) {
    var spare = StreamHarvest()
    swap(&spare, &harvest)
    // Its streams' chunks go now (the scorer drained them: none, normally). Its copy of the
    // analyser's feedback table goes too: still shared, the table's next change on the packet
    // path would copy all of it.
    spare.streams.removeAll()
    spare.feedbackByPair = [:]
    spareHarvest = spare
  }

  /// The harvest handed back, to be filled (every field of it is set again by
  /// `harvest(into:forgetSilentSince:)`), or a new one.
  public mutating func takeSpareHarvest() -> StreamHarvest {
    defer { spareHarvest = nil }
    return spareHarvest ?? StreamHarvest()
  }
}
