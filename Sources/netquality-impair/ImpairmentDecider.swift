import NetQualitySynth

/// What happens to one received packet.
struct PacketDecision: Sendable, Equatable {
  var isDropped: Bool
  /// How long after its arrival the packet is due to leave (jitter and any reorder hold
  /// included); meaningless for a dropped packet.
  var delayNanoseconds: Int64
  /// Whether the reorder hold was added to `delayNanoseconds`.
  var isHeldForReorder: Bool
  /// Whether a second copy leaves right after the packet.
  var isDuplicated: Bool
}

/// The seeded decisions of one direction: pure, no clock and no I/O. Every packet takes the
/// same four draws whatever its fate, so the n-th packet's decision depends only on the seed,
/// the direction and n: a run replays exactly, and one packet more or less in the other
/// direction changes nothing here.
struct ImpairmentDecider: Sendable {
  let parameters: ImpairmentParameters
  private var random: SplitMix64

  init(parameters: ImpairmentParameters, seed: UInt64, direction: Direction) {
    self.parameters = parameters
    random = SplitMix64(seed: Self.streamSeed(seed: seed, direction: direction))
  }

  /// A separate stream per direction, derived from the one seed: the first and second outputs
  /// of SplitMix64 seeded with it (SplitMix64 is itself the usual way to spread one seed into
  /// several independent ones).
  static func streamSeed(seed: UInt64, direction: Direction) -> UInt64 {
    var spreader = SplitMix64(seed: seed)
    var stream = spreader.next()
    for _ in 0..<direction.rawValue { stream = spreader.next() }
    return stream
  }

  mutating func decide() -> PacketDecision {
    let lossDraw = random.nextUnitInterval()
    let duplicateDraw = random.nextUnitInterval()
    let reorderDraw = random.nextUnitInterval()
    let jitterDraw = random.nextUnitInterval()

    let jitterMilliseconds = parameters.jitterMilliseconds * (2 * jitterDraw - 1)
    var delayMilliseconds = max(0, parameters.delayMilliseconds + jitterMilliseconds)
    let isHeldForReorder = reorderDraw < parameters.reorderProbability
    if isHeldForReorder { delayMilliseconds += parameters.reorderHoldMilliseconds }
    return PacketDecision(
      isDropped: lossDraw < parameters.lossProbability,
      delayNanoseconds: Int64((delayMilliseconds * 1e6).rounded()),
      isHeldForReorder: isHeldForReorder,
      isDuplicated: duplicateDraw < parameters.duplicateProbability
    )
  }
}
