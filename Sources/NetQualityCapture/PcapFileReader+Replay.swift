import CPcap
import NetQualityCore

extension PcapFileReader {
  /// Replays the file through `engine`, ticking on `schedule` by (corrected) packet time, and
  /// once more after the last packet to close the final window. `onTick` sees every tick in
  /// order. Where the engine has nothing left (every stream forgotten after its silence) and
  /// the next packet is later still, the empty ticks up to it are skipped and `onSkip` says
  /// which: a capture whose clock jumps by years gives a few lines, not millions.
  public func replay(
    into engine: inout Engine, schedule: inout TickSchedule,
    onTick: (Engine.TickResult) -> Void, onSkip: (SkippedTicks) -> Void = { _ in }
  ) -> Completion {
    withoutActuallyEscaping(onTick) { onTick in
      withoutActuallyEscaping(onSkip) { onSkip in
        withUnsafeMutablePointer(to: &engine) { enginePointer in
          withUnsafeMutablePointer(to: &schedule) { schedulePointer in
            var context = ReplayContext(
              engine: enginePointer, schedule: schedulePointer, linkType: linkType,
              recordTime: recordTime, onTick: onTick, onSkip: onSkip)
            let status = withUnsafeMutablePointer(to: &context) { contextPointer in
              contextPointer.withMemoryRebound(to: UInt8.self, capacity: 1) { user in
                pcap_dispatch(handle, -1, replayCallback, user)
              }
            }
            enginePointer.pointee.finishReplay(
              schedule: &schedulePointer.pointee, onTick: onTick)
            if status >= 0 { return .endOfFile }
            return .stoppedEarly(reason: String(cString: pcap_geterr(handle)))
          }
        }
      }
    }
  }
}

private struct ReplayContext {
  let engine: UnsafeMutablePointer<Engine>
  let schedule: UnsafeMutablePointer<TickSchedule>
  let linkType: LinkType
  let recordTime: RecordTime
  let onTick: (Engine.TickResult) -> Void
  let onSkip: (SkippedTicks) -> Void
}

private func replayCallback(
  user: UnsafeMutablePointer<UInt8>?, header: UnsafePointer<pcap_pkthdr>?,
  data: UnsafePointer<UInt8>?
) {
  guard let user, let header, let data else { return }
  let context = UnsafeRawPointer(user).assumingMemoryBound(to: ReplayContext.self)
  var (time, bad) = context.pointee.recordTime.captureTime(header.pointee.ts)
  if bad { time = context.pointee.engine.pointee.timeOfRecordWithBadTimestamp(carried: time) }
  context.pointee.engine.pointee.replay(
    frame: UnsafeRawBufferPointer(start: data, count: Int(header.pointee.caplen)),
    originalLength: Int(header.pointee.len), linkType: context.pointee.linkType, at: time,
    schedule: &context.pointee.schedule.pointee, onTick: context.pointee.onTick,
    onSkip: context.pointee.onSkip)
}
