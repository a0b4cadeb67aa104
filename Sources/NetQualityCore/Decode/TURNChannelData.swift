/// TURN ChannelData framing (RFC 8656 section 12.4): channel number, length, application data.
public enum TURNChannelData {
  /// Channel numbers 0x4000 through 0x4FFF (RFC 8656 section 12).
  static let channelRange: ClosedRange<UInt16> = 0x4000...0x4FFF

  /// Offset and length of the application data inside `payload`, or nil when the framing is
  /// inconsistent. Over UDP the padding to 4 bytes is optional (RFC 8656 section 12.5).
  @inline(__always)
  public static func applicationData(
    in payload: UnsafeRawBufferPointer, wireLength: Int
  ) -> (offset: Int, length: Int)? {
    guard payload.count >= 4 else { return nil }
    let channel = payload.uint16BigEndian(at: 0)
    let length = Int(payload.uint16BigEndian(at: 2))
    guard channelRange.contains(channel), 4 + length <= wireLength else { return nil }
    return (4, length)
  }
}
