/// A video payload format whose payload header the engine can read, named by SDP (`a=rtpmap`).
/// Without SDP (WebRTC signals out of band) the format is unknown and nothing is read: key
/// frames and resolution are reported, never guessed.
public enum VideoPayloadFormat: UInt8, Sendable {
  case unknown
  case vp8
  case vp9
  case h264

  public init(encodingName: String) {
    switch encodingName.lowercased() {
    case "vp8": self = .vp8
    case "vp9": self = .vp9
    case "h264": self = .h264
    default: self = .unknown
    }
  }
}

/// What one packet's payload says about its frame.
struct VideoPayloadFacts: Equatable {
  var isKeyFrame = false
  var width: Int32 = 0
  var height: Int32 = 0
}

/// Reads key frames and resolution from the start of a video payload, in place (no copy, no
/// allocation). Encrypted payloads (SRTP) read as garbage would be guessed facts: the engine
/// inspects only formats SDP named, which plain RTP with SIP carries.
enum VideoPayloadInspector {
  static func inspect(_ payload: UnsafeRawBufferPointer, format: VideoPayloadFormat)
    -> VideoPayloadFacts
  {
    switch format {
    case .unknown: VideoPayloadFacts()
    case .vp8: vp8(payload)
    case .vp9: vp9(payload)
    case .h264: h264(payload)
    }
  }

  /// RFC 7741 section 4.2 (payload descriptor) and 4.3 (payload header); RFC 6386 section 9.1
  /// (the key frame's start code 9d 01 2a, then 14-bit width and height).
  static func vp8(_ bytes: UnsafeRawBufferPointer) -> VideoPayloadFacts {
    guard bytes.count >= 1 else { return VideoPayloadFacts() }
    let first = bytes.byte(at: 0)
    let start = first & 0x10 != 0
    let partition = first & 0x07
    var offset = 1
    if first & 0x80 != 0 {
      guard bytes.count > offset else { return VideoPayloadFacts() }
      let extensions = bytes.byte(at: offset)
      offset += 1
      if extensions & 0x80 != 0 {  // I: PictureID, 7 or 15 bits (M).
        guard bytes.count > offset else { return VideoPayloadFacts() }
        offset += bytes.byte(at: offset) & 0x80 != 0 ? 2 : 1
      }
      if extensions & 0x40 != 0 { offset += 1 }  // L: TL0PICIDX
      if extensions & 0x30 != 0 { offset += 1 }  // T or K: TID/Y/KEYIDX
    }
    // The payload header only in the first packet of the first partition.
    guard start, partition == 0, bytes.count >= offset + 3 else { return VideoPayloadFacts() }
    // RFC 7741 section 4.3: P (inverse key frame flag) is bit 0 of the first octet.
    guard bytes.byte(at: offset) & 0x01 == 0 else { return VideoPayloadFacts() }
    var facts = VideoPayloadFacts(isKeyFrame: true)
    if bytes.count >= offset + 10, bytes.byte(at: offset + 3) == 0x9D,
      bytes.byte(at: offset + 4) == 0x01, bytes.byte(at: offset + 5) == 0x2A
    {
      facts.width = Int32(littleEndian16(bytes, at: offset + 6) & 0x3FFF)
      facts.height = Int32(littleEndian16(bytes, at: offset + 8) & 0x3FFF)
    }
    return facts
  }

  /// RFC 9628 section 4.2: the VP9 payload descriptor (I P L F B E V Z), and its scalability
  /// structure (section 4.2.1), whose Y bit carries each spatial layer's width and height.
  static func vp9(_ bytes: UnsafeRawBufferPointer) -> VideoPayloadFacts {
    guard bytes.count >= 1 else { return VideoPayloadFacts() }
    let first = bytes.byte(at: 0)
    let interPicture = first & 0x40 != 0
    let layers = first & 0x20 != 0
    let flexible = first & 0x10 != 0
    let beginning = first & 0x08 != 0
    let structure = first & 0x02 != 0
    var facts = VideoPayloadFacts()
    var offset = 1
    var spatialLayer: UInt8 = 0
    if first & 0x80 != 0 {  // I: picture ID
      guard bytes.count > offset else { return facts }
      offset += bytes.byte(at: offset) & 0x80 != 0 ? 2 : 1
    }
    if layers {
      guard bytes.count > offset else { return facts }
      spatialLayer = bytes.byte(at: offset) >> 1 & 0x07
      offset += flexible ? 1 : 2
    }
    if flexible && interPicture {
      // Up to 3 reference indices, each with N (another follows).
      for _ in 0..<3 {
        guard bytes.count > offset else { return facts }
        let more = bytes.byte(at: offset) & 0x01 != 0
        offset += 1
        if !more { break }
      }
    }
    facts.isKeyFrame = beginning && !interPicture && spatialLayer == 0
    if structure, bytes.count > offset {
      let header = bytes.byte(at: offset)
      let spatialLayers = Int(header >> 5) + 1
      offset += 1
      if header & 0x10 != 0, bytes.count >= offset + 4 * spatialLayers {
        // The highest spatial layer's resolution: what a receiver of every layer shows.
        let last = offset + 4 * (spatialLayers - 1)
        facts.width = Int32(bytes.uint16BigEndian(at: last))
        facts.height = Int32(bytes.uint16BigEndian(at: last + 2))
      }
    }
    return facts
  }

  /// RFC 6184 section 5.2-5.8: a single NAL unit, STAP-A (24) or FU-A (28). An IDR slice
  /// (NAL type 5, ITU-T H.264 table 7-1) is a key frame; a sequence parameter set (7) gives
  /// the resolution (`H264SequenceParameterSet`).
  static func h264(_ bytes: UnsafeRawBufferPointer) -> VideoPayloadFacts {
    guard bytes.count >= 1 else { return VideoPayloadFacts() }
    var facts = VideoPayloadFacts()
    let type = bytes.byte(at: 0) & 0x1F
    switch type {
    case 24:  // STAP-A: 16-bit size, NAL unit, ...
      var offset = 1
      while offset + 2 < bytes.count {
        let size = Int(bytes.uint16BigEndian(at: offset))
        offset += 2
        guard size > 0, offset + size <= bytes.count else { break }
        nal(bytes.window(from: offset, count: size), into: &facts)
        offset += size
      }
    case 28:  // FU-A: the FU header's S bit and type.
      guard bytes.count >= 2, bytes.byte(at: 1) & 0x80 != 0 else { break }
      if bytes.byte(at: 1) & 0x1F == 5 { facts.isKeyFrame = true }
    default:
      nal(bytes, into: &facts)
    }
    return facts
  }

  private static func nal(_ unit: UnsafeRawBufferPointer, into facts: inout VideoPayloadFacts) {
    guard unit.count >= 1 else { return }
    switch unit.byte(at: 0) & 0x1F {
    case 5: facts.isKeyFrame = true
    case 7:
      if let size = H264SequenceParameterSet.resolution(unit) {
        facts.width = size.width
        facts.height = size.height
      }
    default: break
    }
  }

  private static func littleEndian16(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> UInt16 {
    UInt16(bytes.byte(at: offset)) | UInt16(bytes.byte(at: offset + 1)) << 8
  }
}
