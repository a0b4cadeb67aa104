import CPcap
import NetQualityCore

#if canImport(Glibc)
  import Glibc
#endif

/// Reads pcap and pcapng files through libpcap, with nanosecond timestamps where the file has
/// them (microsecond files are scaled by libpcap).
public final class PcapFileReader {
  public let path: String
  public let linkType: LinkType
  let handle: OpaquePointer
  /// How this file's record times read (classic pcap or pcapng: see `RecordTime`).
  let recordTime: RecordTime
  /// Records `forEachFrame` left out because their timestamp is not a time (`feed` and
  /// `replay` count them in the analyser's `CaptureCounters.badTimestampRecords`).
  public private(set) var badTimestampRecords = 0
  /// The allocation holding the stdio buffer libpcap reads the file through; freed after
  /// `pcap_close` has closed the file.
  private let readAllocation: UnsafeMutableRawPointer

  /// Size of that buffer. `pcap_open_offline` leaves the file with stdio's default of one
  /// 4 KiB block, so a 460 MB capture takes 112,000 `read` calls; with 256 KiB it takes 1,800,
  /// and in a process with more than one thread each call also takes the file-position lock.
  static let readBufferBytes = 256 * 1024

  /// Where the buffer starts in its allocation: half a page in. libpcap's own record buffer
  /// and any large malloc block begin 16 bytes into a page, and when the stdio buffer begins
  /// at the same page offset, every copy from one to the other stalls on 4 KiB aliasing
  /// (loads that look like they depend on stores a page away): the C loop of scripts/bench
  /// reads the benchmark capture in 0.33–0.39 s with that layout, 0.14–0.18 s with this one,
  /// and 0.23–0.31 s with stdio's 4 KiB default.
  static let readBufferOffset = 2048

  /// How reading ended.
  public enum Completion: Equatable, Sendable {
    case endOfFile
    /// libpcap stopped early: a truncated file or a record with an impossible length. The
    /// frames before it were delivered.
    case stoppedEarly(reason: String)
  }

  public init(path: String) throws(CaptureError) {
    self.path = path
    // "-" is standard input, as in tcpdump -r - (through a duplicate, which pcap_close closes).
    guard let file = path == "-" ? fdopen(dup(STDIN_FILENO), "rb") : fopen(path, "rb") else {
      throw .cannotOpen(path: path, reason: String(cString: strerror(errno)))
    }
    let allocation = UnsafeMutableRawPointer.allocate(
      byteCount: Self.readBufferOffset + Self.readBufferBytes, alignment: 4096)
    setvbuf(
      file, (allocation + Self.readBufferOffset).assumingMemoryBound(to: CChar.self), _IOFBF,
      Self.readBufferBytes)
    var errorBuffer = [CChar](repeating: 0, count: Int(PCAP_ERRBUF_SIZE))
    guard
      let opened = pcap_fopen_offline_with_tstamp_precision(
        file, UInt32(PCAP_TSTAMP_PRECISION_NANO), &errorBuffer)
    else {
      // On failure libpcap leaves the file open (pcap_open_offline closes it the same way).
      fclose(file)
      allocation.deallocate()
      throw .cannotOpen(path: path, reason: Self.describe(errorBuffer))
    }
    let dataLinkType = pcap_datalink(opened)
    guard let linkType = LinkType(dataLinkType: dataLinkType) else {
      let name = pcap_datalink_val_to_name(dataLinkType).map { String(cString: $0) } ?? "unknown"
      pcap_close(opened)
      allocation.deallocate()
      throw .unsupportedLinkType(path: path, dataLinkType: dataLinkType, name: name)
    }
    self.handle = opened
    self.linkType = linkType
    self.recordTime = RecordTime.savefile(majorVersion: pcap_major_version(opened))
    self.readAllocation = allocation
  }

  deinit {
    pcap_close(handle)  // closes the file, so its buffer is no longer in use
    readAllocation.deallocate()
  }

  /// Calls `body` with each frame's captured bytes, original length and capture time, in file
  /// order. The bytes are libpcap's buffer: valid only during the call, never copied.
  ///
  /// Uses `pcap_dispatch`, which walks a savefile without `pcap_next_ex`'s per-packet
  /// bookkeeping (about 8 % less time for the same loop in C on these machines).
  public func forEachFrame(
    _ body: (_ frame: UnsafeRawBufferPointer, _ originalLength: Int, _ time: CaptureTime) -> Void
  ) -> Completion {
    withoutActuallyEscaping(body) { escapable in
      var context = FrameCallbackContext(body: escapable, recordTime: recordTime)
      let status = withUnsafeMutablePointer(to: &context) { pointer in
        pointer.withMemoryRebound(to: UInt8.self, capacity: 1) { user in
          pcap_dispatch(handle, -1, frameCallback, user)
        }
      }
      badTimestampRecords += context.badTimestampRecords
      if status >= 0 { return .endOfFile }
      return .stoppedEarly(reason: String(cString: pcap_geterr(handle)))
    }
  }

  /// Feeds every frame to `analyzer`: the `analyze` command's loop. The C callback reaches the
  /// analyser through a plain pointer, so no closure context is retained and released per
  /// packet (about a tenth of the per-packet instructions otherwise).
  public func feed(_ analyzer: inout StreamAnalyzer) -> Completion {
    withUnsafeMutablePointer(to: &analyzer) { pointer in
      var context = AnalyzerCallbackContext(
        analyzer: pointer, linkType: linkType, recordTime: recordTime)
      let status = withUnsafeMutablePointer(to: &context) { contextPointer in
        contextPointer.withMemoryRebound(to: UInt8.self, capacity: 1) { user in
          pcap_dispatch(handle, -1, analyzerCallback, user)
        }
      }
      if status >= 0 { return .endOfFile }
      return .stoppedEarly(reason: String(cString: pcap_geterr(handle)))
    }
  }

  private static func describe(_ buffer: [CChar]) -> String {
    let message = buffer.withUnsafeBufferPointer { pointer in
      pointer.baseAddress.map { String(cString: $0) } ?? ""
    }
    return message.isEmpty ? "libpcap gave no reason" : message
  }
}

/// What `pcap_dispatch`'s C callback needs to reach the Swift closure.
private struct FrameCallbackContext {
  let body: (UnsafeRawBufferPointer, Int, CaptureTime) -> Void
  let recordTime: RecordTime
  var badTimestampRecords = 0
  /// The latest record time so far.
  var latest: CaptureTime?
}

private func frameCallback(
  user: UnsafeMutablePointer<UInt8>?, header: UnsafePointer<pcap_pkthdr>?,
  data: UnsafePointer<UInt8>?
) {
  guard let user, let header, let data else { return }
  let context = UnsafeMutableRawPointer(user).assumingMemoryBound(to: FrameCallbackContext.self)
  var (time, bad) = context.pointee.recordTime.captureTime(header.pointee.ts)
  if bad {
    // The latest record's time, as the analyser gives it (`timeOfRecordWithBadTimestamp`).
    context.pointee.badTimestampRecords += 1
    time = context.pointee.latest ?? time
  }
  context.pointee.latest = max(context.pointee.latest ?? time, time)
  let frame = UnsafeRawBufferPointer(start: data, count: Int(header.pointee.caplen))
  context.pointee.body(frame, Int(header.pointee.len), time)
}

private struct AnalyzerCallbackContext {
  let analyzer: UnsafeMutablePointer<StreamAnalyzer>
  let linkType: LinkType
  let recordTime: RecordTime
}

private func analyzerCallback(
  user: UnsafeMutablePointer<UInt8>?, header: UnsafePointer<pcap_pkthdr>?,
  data: UnsafePointer<UInt8>?
) {
  guard let user, let header, let data else { return }
  let context = UnsafeRawPointer(user).assumingMemoryBound(to: AnalyzerCallbackContext.self)
  var (time, bad) = context.pointee.recordTime.captureTime(header.pointee.ts)
  if bad { time = context.pointee.analyzer.pointee.timeOfRecordWithBadTimestamp(carried: time) }
  context.pointee.analyzer.pointee.ingest(
    frame: UnsafeRawBufferPointer(start: data, count: Int(header.pointee.caplen)),
    originalLength: Int(header.pointee.len), linkType: context.pointee.linkType, at: time)
}
