import XCTest

@testable import NetQualityCore

final class VideoPayloadInspectorTests: XCTestCase {
  private func inspect(_ bytes: [UInt8], _ format: VideoPayloadFormat) -> VideoPayloadFacts {
    bytes.withUnsafeBytes { VideoPayloadInspector.inspect($0, format: format) }
  }

  func testVP8KeyFrameAndItsSize() {
    // X=1 S=1 PID=0; I=1 with a 15-bit picture ID; payload header P=0 (key frame); the start
    // code and 640 × 480 (14 bits each, little-endian).
    let key: [UInt8] = [
      0x90, 0x80, 0x81, 0x23, 0x50, 0x04, 0x00, 0x9D, 0x01, 0x2A, 0x80, 0x02, 0xE0, 0x01,
    ]
    XCTAssertEqual(inspect(key, .vp8), VideoPayloadFacts(isKeyFrame: true, width: 640, height: 480))
    // The same with P=1: an inter frame.
    var inter = key
    inter[4] = 0x51
    XCTAssertEqual(inspect(inter, .vp8), VideoPayloadFacts())
    // A continuation packet (S=0) says nothing.
    var continuation = key
    continuation[0] = 0x80
    XCTAssertEqual(inspect(continuation, .vp8), VideoPayloadFacts())
  }

  func testH264IDRInFUAAndSizeFromTheSequenceParameterSet() {
    // FU-A (28) start of an IDR slice (5).
    XCTAssertTrue(inspect([0x7C, 0x85, 0x88], .h264).isKeyFrame)
    XCTAssertFalse(inspect([0x7C, 0x81, 0x9A], .h264).isKeyFrame)
    // STAP-A with a baseline SPS of 640 × 480 (40 × 30 macroblocks) and an IDR.
    let sps: [UInt8] = [0x67, 0x42, 0xC0, 0x1E, 0xF4, 0x05, 0x01, 0xEC, 0x80]
    let stap: [UInt8] = [0x78, 0x00, UInt8(sps.count)] + sps + [0x00, 0x02, 0x65, 0x88]
    XCTAssertEqual(
      inspect(stap, .h264), VideoPayloadFacts(isKeyFrame: true, width: 640, height: 480))
  }

  func testVP9KeyFrameWithScalabilityStructure() {
    // I=1 (7-bit picture ID), P=0, B=1, V=1; SS: one spatial layer, Y=1, 1280 × 720.
    let key: [UInt8] = [0x8A, 0x05, 0x18, 0x05, 0x00, 0x02, 0xD0]
    XCTAssertEqual(
      inspect(key, .vp9), VideoPayloadFacts(isKeyFrame: true, width: 1280, height: 720))
    XCTAssertFalse(inspect([0xC8, 0x05], .vp9).isKeyFrame)
  }

  func testUnknownFormatIsNeverGuessed() {
    XCTAssertEqual(inspect([0x90, 0x80, 0x81, 0x23, 0x50], .unknown), VideoPayloadFacts())
  }
}
