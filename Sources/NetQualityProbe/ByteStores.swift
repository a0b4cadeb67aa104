/// Big-endian field stores into a packet buffer, the writing side of NetQualityCore's loads.
///
/// Every caller checks the length first; these helpers only spell the network byte order once.
extension UnsafeMutableRawBufferPointer {
  @inline(__always)
  func storeBigEndian(_ value: UInt16, at offset: Int) {
    storeBytes(of: value.bigEndian, toByteOffset: offset, as: UInt16.self)
  }

  @inline(__always)
  func storeBigEndian(_ value: UInt32, at offset: Int) {
    storeBytes(of: value.bigEndian, toByteOffset: offset, as: UInt32.self)
  }

  @inline(__always)
  func storeBigEndian(_ value: UInt64, at offset: Int) {
    storeBytes(of: value.bigEndian, toByteOffset: offset, as: UInt64.self)
  }

  /// Zeroes `count` bytes from `offset`.
  @inline(__always)
  func zero(from offset: Int, count: Int) {
    guard count > 0, let base = baseAddress else { return }
    (base + offset).initializeMemory(as: UInt8.self, repeating: 0, count: count)
  }
}
