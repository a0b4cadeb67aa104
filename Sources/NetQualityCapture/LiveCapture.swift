import CPcap
import Glibc
import NetQualityCore

/// A live capture on one interface through libpcap: a kernel buffer of the configured size
/// in blocks handed over every `blockTimeoutMilliseconds` at the latest, non-blocking reads
/// driven by `poll` on the selectable descriptor.
public final class LiveCapture {
  public let interface: String
  public let linkType: LinkType
  let handle: OpaquePointer
  private let descriptor: Int32

  public struct Options: Sendable {
    public var snapLength: Int32
    public var bufferBytes: Int32
    public var filter: String

    public init(snapLength: Int32, bufferBytes: Int32, filter: String) {
      self.snapLength = snapLength
      self.bufferBytes = bufferBytes
      self.filter = filter
    }
  }

  /// Kernel statistics (pcap_stats): what reached the capture and what it dropped, kept apart
  /// from network loss.
  public struct Statistics: Sendable, Equatable {
    public var received: UInt64
    public var dropped: UInt64
    public var interfaceDropped: UInt64
  }

  /// The longest a packet waits in a partly filled ring block before the capture gets it.
  public static let blockTimeoutMilliseconds: Int32 = 100

  public init(interface: String, options: Options) throws(CaptureError) {
    var errorBuffer = [CChar](repeating: 0, count: Int(PCAP_ERRBUF_SIZE))
    guard let created = pcap_create(interface, &errorBuffer) else {
      throw .cannotCapture(interface: interface, reason: Self.text(errorBuffer))
    }
    pcap_set_snaplen(created, options.snapLength)
    pcap_set_promisc(created, 0)
    // Not immediate mode: libpcap then uses TPACKET_V3 on Linux, whose ring packs packets
    // by their captured length in blocks handed over when full or after the timeout, where
    // immediate mode's TPACKET_V2 gives every packet a slot of the snap length. With the
    // default 2,048-byte snap length and a 16 MiB buffer that is about 64,000 RTP packets
    // (640 ms at 100,000 packets/s) instead of 7,500 (75 ms): a capture thread descheduled
    // for a moment on a busy host loses nothing (measured: 23,290 of 6,000,000 packets
    // dropped with V2 at 100,000 packets/s, 0 with V3; scripts/bench-agent.sh). Packets
    // reach the engine at most `blockTimeoutMilliseconds` late, a twentieth of a tick.
    pcap_set_timeout(created, Self.blockTimeoutMilliseconds)
    pcap_set_buffer_size(created, options.bufferBytes)
    // Nanosecond timestamps where the platform has them; microseconds are scaled otherwise.
    let nanoseconds = pcap_set_tstamp_precision(created, Int32(PCAP_TSTAMP_PRECISION_NANO)) == 0
    let status = pcap_activate(created)
    if status < 0 {
      let reason = String(cString: pcap_geterr(created))
      pcap_close(created)
      throw Self.activationError(status, interface: interface, reason: reason)
    }
    let dataLinkType = pcap_datalink(created)
    guard let linkType = LinkType(dataLinkType: dataLinkType) else {
      pcap_close(created)
      let name = pcap_datalink_val_to_name(dataLinkType).map { String(cString: $0) } ?? "unknown"
      throw .unsupportedLinkType(path: interface, dataLinkType: dataLinkType, name: name)
    }
    var program = bpf_program()
    if pcap_compile(created, &program, options.filter, 1, PCAP_NETMASK_UNKNOWN) != 0
      || pcap_setfilter(created, &program) != 0
    {
      let reason = String(cString: pcap_geterr(created))
      pcap_freecode(&program)
      pcap_close(created)
      throw .badFilter(filter: options.filter, reason: reason)
    }
    pcap_freecode(&program)
    guard pcap_setnonblock(created, 1, &errorBuffer) == 0 else {
      pcap_close(created)
      throw .cannotCapture(interface: interface, reason: Self.text(errorBuffer))
    }
    self.interface = interface
    self.linkType = linkType
    self.handle = created
    self.descriptor = pcap_get_selectable_fd(created)
    self.nanosecondTimestamps = nanoseconds
  }

  /// Whether libpcap delivers nanoseconds (else microseconds in `tv_usec`).
  let nanosecondTimestamps: Bool

  deinit {
    pcap_close(handle)
  }

  /// Waits up to `timeoutMilliseconds` for packets to read; throws when the descriptor reports
  /// an error (the interface went away).
  public func waitForPackets(timeoutMilliseconds: Int32) throws(CaptureError) -> Bool {
    var request = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
    let ready = Glibc.poll(&request, 1, timeoutMilliseconds)
    guard ready > 0 else { return false }
    if request.revents & Int16(POLLIN) == 0
      && request.revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0
    {
      throw .interfaceGone(interface: interface, reason: "the capture descriptor reported an error")
    }
    return true
  }

  /// Reads every packet ready now into `analyzer`, as captured on interface number `index`.
  public func dispatch(into analyzer: inout StreamAnalyzer, interfaceIndex index: UInt8 = 0)
    throws(CaptureError) -> Int
  {
    let count = withUnsafeMutablePointer(to: &analyzer) { pointer in
      var context = LiveContext(
        analyzer: pointer, linkType: linkType,
        recordTime: .live(nanoseconds: nanosecondTimestamps), interface: index)
      return withUnsafeMutablePointer(to: &context) { contextPointer in
        contextPointer.withMemoryRebound(to: UInt8.self, capacity: 1) { user in
          pcap_dispatch(handle, -1, liveCallback, user)
        }
      }
    }
    if count < 0 {
      throw .interfaceGone(interface: interface, reason: String(cString: pcap_geterr(handle)))
    }
    return Int(count)
  }

  public func statistics() -> Statistics? {
    var stats = pcap_stat()
    guard pcap_stats(handle, &stats) == 0 else { return nil }
    return Statistics(
      received: UInt64(stats.ps_recv), dropped: UInt64(stats.ps_drop),
      interfaceDropped: UInt64(stats.ps_ifdrop))
  }

  static func activationError(_ status: Int32, interface: String, reason: String) -> CaptureError {
    switch status {
    case PCAP_ERROR_NO_SUCH_DEVICE:
      let names = (try? NetworkInterface.all().map(\.name)) ?? []
      return .noSuchInterface(interface: interface, available: names)
    case PCAP_ERROR_PERM_DENIED:
      return .permissionDenied(interface: interface)
    default:
      return .cannotCapture(
        interface: interface, reason: reason.isEmpty ? "error \(status)" : reason)
    }
  }

  static func text(_ buffer: [CChar]) -> String {
    let message = buffer.withUnsafeBufferPointer { pointer in
      pointer.baseAddress.map { String(cString: $0) } ?? ""
    }
    return message.isEmpty ? "libpcap gave no reason" : message
  }
}

private struct LiveContext {
  let analyzer: UnsafeMutablePointer<StreamAnalyzer>
  let linkType: LinkType
  let recordTime: RecordTime
  let interface: UInt8
}

private func liveCallback(
  user: UnsafeMutablePointer<UInt8>?, header: UnsafePointer<pcap_pkthdr>?,
  data: UnsafePointer<UInt8>?
) {
  guard let user, let header, let data else { return }
  let context = UnsafeRawPointer(user).assumingMemoryBound(to: LiveContext.self)
  var (time, bad) = context.pointee.recordTime.captureTime(header.pointee.ts)
  if bad { time = context.pointee.analyzer.pointee.timeOfRecordWithBadTimestamp(carried: time) }
  context.pointee.analyzer.pointee.ingest(
    frame: UnsafeRawBufferPointer(start: data, count: Int(header.pointee.caplen)),
    originalLength: Int(header.pointee.len), linkType: context.pointee.linkType, at: time,
    interface: context.pointee.interface)
}
