import CPcap
import NetQualityCore

/// Reads pcap and pcapng files through libpcap, with nanosecond timestamps where the file has
/// them (microsecond files are scaled by libpcap).
public final class PcapFileReader {
  public let path: String
  public let linkType: LinkType
  private let handle: OpaquePointer

  /// How reading ended.
  public enum Completion: Equatable, Sendable {
    case endOfFile
    /// libpcap stopped early: a truncated file or a record with an impossible length. The
    /// frames before it were delivered.
    case stoppedEarly(reason: String)
  }

  public init(path: String) throws(CaptureError) {
    self.path = path
    var errorBuffer = [CChar](repeating: 0, count: Int(PCAP_ERRBUF_SIZE))
    guard
      let opened = pcap_open_offline_with_tstamp_precision(
        path, UInt32(PCAP_TSTAMP_PRECISION_NANO), &errorBuffer)
    else {
      throw .cannotOpen(path: path, reason: Self.describe(errorBuffer))
    }
    let dataLinkType = pcap_datalink(opened)
    guard let linkType = LinkType(dataLinkType: dataLinkType) else {
      let name = pcap_datalink_val_to_name(dataLinkType).map { String(cString: $0) } ?? "unknown"
      pcap_close(opened)
      throw .unsupportedLinkType(path: path, dataLinkType: dataLinkType, name: name)
    }
    self.handle = opened
    self.linkType = linkType
  }

  deinit {
    pcap_close(handle)
  }

  /// Calls `body` with each frame's captured bytes, original length and capture time, in file
  /// order. The bytes are libpcap's buffer: valid only during the call, never copied.
  @inline(__always)
  public func forEachFrame(
    _ body: (_ frame: UnsafeRawBufferPointer, _ originalLength: Int, _ time: CaptureTime) -> Void
  ) -> Completion {
    var header: UnsafeMutablePointer<pcap_pkthdr>?
    var data: UnsafePointer<UInt8>?
    while true {
      let status = pcap_next_ex(handle, &header, &data)
      guard status == 1, let header, let data else {
        if status == PCAP_ERROR_BREAK { return .endOfFile }
        return .stoppedEarly(reason: String(cString: pcap_geterr(handle)))
      }
      let frame = UnsafeRawBufferPointer(start: data, count: Int(header.pointee.caplen))
      // With PCAP_TSTAMP_PRECISION_NANO, tv_usec holds nanoseconds.
      let time = CaptureTime(
        seconds: Int64(header.pointee.ts.tv_sec), nanoseconds: Int64(header.pointee.ts.tv_usec))
      body(frame, Int(header.pointee.len), time)
    }
  }

  private static func describe(_ buffer: [CChar]) -> String {
    let message = buffer.withUnsafeBufferPointer { pointer in
      pointer.baseAddress.map { String(cString: $0) } ?? ""
    }
    return message.isEmpty ? "libpcap gave no reason" : message
  }
}
