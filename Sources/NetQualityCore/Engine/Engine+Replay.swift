extension Engine {
  /// One packet of a replay (a capture file, the fuzz harness): the ticks due before its
  /// corrected time, then the packet. Where a tick leaves the engine idle (every stream
  /// forgotten after its silence) and the packet is later still, the empty ticks up to it are
  /// skipped and `onSkip` says which, so a clock that jumps by years costs a few ticks, not
  /// millions.
  @inline(__always)
  public mutating func replay(
    frame: UnsafeRawBufferPointer, originalLength: Int, linkType: LinkType, at stamp: CaptureTime,
    schedule: inout TickSchedule, onTick: (TickResult) -> Void, onSkip: (SkippedTicks) -> Void
  ) {
    let time = correctTime(stamp)
    while let due = schedule.due(atOrBefore: time) {
      onTick(tick(at: due))
      if isIdle, let skipped = schedule.skip(to: time) {
        skipTicks(through: skipped.last)
        onSkip(skipped)
      }
    }
    ingest(frame: frame, originalLength: originalLength, linkType: linkType, atCorrected: time)
  }

  /// The tick that closes the last, partial window of a replay. Nothing can follow the end of
  /// the input, so a call whose end was signalled in the clear (a DTLS alert, a TURN release)
  /// with nothing after it has ended, without waiting for the grace the live agent waits.
  public mutating func finishReplay(schedule: inout TickSchedule, onTick: (TickResult) -> Void) {
    markInputEnded()
    if let last = schedule.final() { onTick(tick(at: last)) }
  }
}
