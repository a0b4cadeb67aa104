/// Big-endian field loads over a raw packet buffer.
///
/// Every caller checks the length first; these helpers only spell the network byte order once.
/// They never copy the payload: the engine reads fields in place from the capture buffer.
extension UnsafeRawBufferPointer {
  @inline(__always)
  public func byte(at offset: Int) -> UInt8 {
    loadUnaligned(fromByteOffset: offset, as: UInt8.self)
  }

  @inline(__always)
  public func uint16BigEndian(at offset: Int) -> UInt16 {
    UInt16(bigEndian: loadUnaligned(fromByteOffset: offset, as: UInt16.self))
  }

  @inline(__always)
  public func uint32BigEndian(at offset: Int) -> UInt32 {
    UInt32(bigEndian: loadUnaligned(fromByteOffset: offset, as: UInt32.self))
  }

  @inline(__always)
  public func uint64BigEndian(at offset: Int) -> UInt64 {
    UInt64(bigEndian: loadUnaligned(fromByteOffset: offset, as: UInt64.self))
  }

  /// `count` bytes starting at `offset` as a sub-buffer (no copy).
  @inline(__always)
  func window(from offset: Int, count: Int) -> UnsafeRawBufferPointer {
    UnsafeRawBufferPointer(rebasing: self[offset..<(offset + count)])
  }
}
