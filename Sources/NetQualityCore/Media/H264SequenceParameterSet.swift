/// The picture size in an H.264 sequence parameter set (ITU-T H.264 section 7.3.2.1.1), read
/// with Exp-Golomb codes (section 9.1) past emulation prevention bytes (section 7.4.1: 0x03
/// after two zero bytes is not data). Nil for what this reader does not follow (scaling
/// matrices) or a unit cut short.
enum H264SequenceParameterSet {
  static func resolution(_ unit: UnsafeRawBufferPointer) -> (width: Int32, height: Int32)? {
    var reader = BitReader(unit, offset: 1)
    guard let profile = reader.bits(8), reader.bits(16) != nil, reader.unsigned() != nil else {
      return nil
    }
    var chromaFormat: UInt32 = 1
    if hasChromaFormat(profile) {
      guard let format = reader.unsigned() else { return nil }
      chromaFormat = format
      if format == 3 { _ = reader.bits(1) }  // separate_colour_plane_flag
      guard reader.unsigned() != nil, reader.unsigned() != nil, reader.bits(1) != nil,
        let scaling = reader.bits(1), scaling == 0
      else { return nil }
    }
    guard reader.unsigned() != nil, let orderType = reader.unsigned() else { return nil }
    if orderType == 0 {
      guard reader.unsigned() != nil else { return nil }
    } else if orderType == 1 {
      guard reader.bits(1) != nil, reader.unsigned() != nil, reader.unsigned() != nil,
        let cycle = reader.unsigned(), cycle < 256
      else { return nil }
      for _ in 0..<cycle { guard reader.unsigned() != nil else { return nil } }
    }
    guard reader.unsigned() != nil, reader.bits(1) != nil,
      let widthInMacroblocks = reader.unsigned(), let heightInMapUnits = reader.unsigned(),
      let frameOnly = reader.bits(1)
    else { return nil }
    if frameOnly == 0 { _ = reader.bits(1) }
    guard reader.bits(1) != nil, let cropping = reader.bits(1) else { return nil }
    var crop: (left: UInt32, right: UInt32, top: UInt32, bottom: UInt32) = (0, 0, 0, 0)
    if cropping == 1 {
      guard let left = reader.unsigned(), let right = reader.unsigned(),
        let top = reader.unsigned(), let bottom = reader.unsigned()
      else { return nil }
      crop = (left, right, top, bottom)
    }
    // Section 7.4.2.1.1: crop units of 4:2:0 (2 by 2 times the field factor), 4:2:2, 4:4:4.
    let unitX: UInt32 = chromaFormat == 1 || chromaFormat == 2 ? 2 : 1
    let unitY: UInt32 = (chromaFormat == 1 ? 2 : 1) * (2 - frameOnly)
    let width = Int64(widthInMacroblocks + 1) * 16 - Int64(unitX) * Int64(crop.left + crop.right)
    let height =
      Int64(heightInMapUnits + 1) * 16 * Int64(2 - frameOnly)
      - Int64(unitY) * Int64(crop.top + crop.bottom)
    guard width > 0, height > 0, width <= 16384, height <= 16384 else { return nil }
    return (Int32(width), Int32(height))
  }

  /// The profiles whose SPS carries chroma_format_idc and what follows it (section 7.3.2.1.1).
  private static func hasChromaFormat(_ profile: UInt32) -> Bool {
    switch profile {
    case 100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135: true
    default: false
    }
  }

  /// Bits of a NAL unit's payload, most significant first, without emulation prevention bytes.
  struct BitReader {
    let bytes: UnsafeRawBufferPointer
    var offset: Int
    var bit = 0
    var zeros = 0
    var current: UInt8 = 0
    var loaded = false

    init(_ bytes: UnsafeRawBufferPointer, offset: Int) {
      self.bytes = bytes
      self.offset = offset
    }

    private mutating func nextBit() -> UInt32? {
      if !loaded || bit == 8 {
        guard offset < bytes.count else { return nil }
        var byte = bytes.byte(at: offset)
        if zeros >= 2 && byte == 3 {
          offset += 1
          zeros = 0
          guard offset < bytes.count else { return nil }
          byte = bytes.byte(at: offset)
        }
        zeros = byte == 0 ? zeros + 1 : 0
        current = byte
        offset += 1
        bit = 0
        loaded = true
      }
      defer { bit += 1 }
      return UInt32(current >> (7 - bit) & 1)
    }

    mutating func bits(_ count: Int) -> UInt32? {
      var value: UInt32 = 0
      for _ in 0..<count {
        guard let next = nextBit() else { return nil }
        value = value << 1 | next
      }
      return value
    }

    /// ue(v), section 9.1.
    mutating func unsigned() -> UInt32? {
      var leadingZeros = 0
      while true {
        guard let next = nextBit() else { return nil }
        if next == 1 { break }
        leadingZeros += 1
        if leadingZeros > 31 { return nil }
      }
      guard let rest = bits(leadingZeros) else { return nil }
      return (UInt32(1) << leadingZeros) - 1 + rest
    }
  }
}
