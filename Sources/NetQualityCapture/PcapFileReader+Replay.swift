import CPcap
import NetQualityCore

extension PcapFileReader {
  /// Replays the file through `engine`, ticking on `schedule` by packet time, and once more
  /// after the last packet to close the final window. `onTick` sees every tick in order.
  public func replay(
    into engine: inout Engine, schedule: inout TickSchedule, onTick: (Engine.TickResult) -> Void
  ) -> Completion {
    withoutActuallyEscaping(onTick) { onTick in
      withUnsafeMutablePointer(to: &engine) { enginePointer in
        withUnsafeMutablePointer(to: &schedule) { schedulePointer in
          var context = ReplayContext(
            engine: enginePointer, schedule: schedulePointer, linkType: linkType, onTick: onTick)
          let status = withUnsafeMutablePointer(to: &context) { contextPointer in
            contextPointer.withMemoryRebound(to: UInt8.self, capacity: 1) { user in
              pcap_dispatch(handle, -1, replayCallback, user)
            }
          }
          if let last = schedulePointer.pointee.final() {
            onTick(enginePointer.pointee.tick(at: last))
          }
          if status >= 0 { return .endOfFile }
          return .stoppedEarly(reason: String(cString: pcap_geterr(handle)))
        }
      }
    }
  }
}

private struct ReplayContext {
  let engine: UnsafeMutablePointer<Engine>
  let schedule: UnsafeMutablePointer<TickSchedule>
  let linkType: LinkType
  let onTick: (Engine.TickResult) -> Void
}

private func replayCallback(
  user: UnsafeMutablePointer<UInt8>?, header: UnsafePointer<pcap_pkthdr>?,
  data: UnsafePointer<UInt8>?
) {
  guard let user, let header, let data else { return }
  let context = UnsafeRawPointer(user).assumingMemoryBound(to: ReplayContext.self)
  let time = CaptureTime(
    seconds: Int64(header.pointee.ts.tv_sec), nanoseconds: Int64(header.pointee.ts.tv_usec))
  while let due = context.pointee.schedule.pointee.due(atOrBefore: time) {
    context.pointee.onTick(context.pointee.engine.pointee.tick(at: due))
  }
  context.pointee.engine.pointee.ingest(
    frame: UnsafeRawBufferPointer(start: data, count: Int(header.pointee.caplen)),
    originalLength: Int(header.pointee.len), linkType: context.pointee.linkType, at: time)
}
