import Foundation
import NetQualityCapture
import NetQualityCore
import NetQualitySynth
import XCTest

final class PcapFileReaderTests: XCTestCase {
  private var directory: URL!

  override func setUpWithError() throws {
    directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "nq-reader-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  }

  override func tearDownWithError() throws {
    try? FileManager.default.removeItem(at: directory)
  }

  private func write(_ bytes: [UInt8], _ name: String) throws -> String {
    let url = directory.appendingPathComponent(name)
    try Data(bytes).write(to: url)
    return url.path
  }

  private func rtpFrames(_ count: Int, ssrc: UInt32 = 0xF00D) -> [[UInt8]] {
    (0..<count).map { index in
      PacketBuilder.frame(
        source: Endpoint(address: IPAddress(ipv4: 10, 0, 0, 1), port: 4000),
        destination: Endpoint(address: IPAddress(ipv4: 10, 0, 0, 2), port: 5000),
        payload: PacketBuilder.rtp(
          payloadType: 0, sequenceNumber: UInt16(index), timestamp: UInt32(index * 160), ssrc: ssrc)
      )
    }
  }

  private func capture(_ frames: [[UInt8]], nanoseconds: Bool = false) -> PcapWriter {
    var writer = PcapWriter(nanosecondResolution: nanoseconds)
    for (index, frame) in frames.enumerated() {
      writer.append(
        frame, at: CaptureTime(seconds: 1_700_000_000, nanoseconds: Int64(index) * 20_000_000))
    }
    return writer
  }

  private func analyse(_ path: String) throws -> (PcapFileReader.Completion, AnalysisReport) {
    let reader = try PcapFileReader(path: path)
    var analyzer = StreamAnalyzer()
    let completion = reader.feed(&analyzer)
    return (completion, analyzer.report())
  }

  func testMissingFileIsAOneLineError() {
    XCTAssertThrowsError(
      try PcapFileReader(path: directory.appendingPathComponent("nope.pcap").path)
    ) { error in
      let text = String(describing: error)
      XCTAssertTrue(text.hasPrefix("cannot read "), text)
      XCTAssertTrue(text.contains("No such file"), text)
      XCTAssertFalse(text.contains("\n"))
    }
  }

  func testEmptyAndTextFilesAreOneLineErrors() throws {
    for (name, bytes) in [
      ("empty.pcap", [UInt8]()), ("notes.txt", Array("just some text, not a capture\n".utf8)),
    ] {
      let path = try write(bytes, name)
      XCTAssertThrowsError(try PcapFileReader(path: path), name) { error in
        guard case CaptureError.cannotOpen(_, let reason) = error else {
          return XCTFail("\(error)")
        }
        XCTAssertFalse(reason.isEmpty)
        XCTAssertFalse(String(describing: error).contains("\n"))
      }
    }
  }

  func testUnsupportedLinkTypeNamesWhatIsSupported() throws {
    var header = PcapWriter(linkType: .ethernet).bytes
    header[20] = 105  // DLT_IEEE802_11
    let path = try write(header, "wifi.pcap")
    XCTAssertThrowsError(try PcapFileReader(path: path)) { error in
      XCTAssertEqual(
        error as? CaptureError,
        .unsupportedLinkType(path: path, dataLinkType: 105, name: "IEEE802_11"))
      XCTAssertTrue(String(describing: error).contains("supported are Ethernet"))
    }
  }

  func testTruncatedFileKeepsThePacketsBeforeTheCut() throws {
    let whole = capture(rtpFrames(50)).bytes
    let path = try write(Array(whole[0..<(whole.count - 100)]), "cut.pcap")
    let (completion, report) = try analyse(path)
    guard case .stoppedEarly(let reason) = completion else {
      return XCTFail("expected an early stop")
    }
    XCTAssertTrue(reason.contains("truncated"), reason)
    XCTAssertEqual(report.capture.frames, 49)
    XCTAssertEqual(report.streams.first?.packets, 49)
  }

  func testRecordWithALyingLengthStopsCleanly() throws {
    var writer = capture(rtpFrames(10))
    // A record header claiming 3 GB of captured data.
    writer.appendLittleEndian(UInt32(1_700_000_001))
    writer.appendLittleEndian(UInt32(0))
    writer.appendLittleEndian(UInt32(3_000_000_000))
    writer.appendLittleEndian(UInt32(3_000_000_000))
    writer.appendRaw(Array(repeating: 0, count: 64))
    let (completion, report) = try analyse(try write(writer.bytes, "liar.pcap"))
    guard case .stoppedEarly = completion else { return XCTFail("expected an early stop") }
    XCTAssertEqual(report.capture.frames, 10)
  }

  func testNanosecondTimestampsAreKept() throws {
    var writer = PcapWriter(nanosecondResolution: true)
    for (index, frame) in rtpFrames(3).enumerated() {
      writer.append(
        frame,
        at: CaptureTime(
          seconds: 1_700_000_000, nanoseconds: 123_456_789 + Int64(index) * 20_000_000))
    }
    let (_, report) = try analyse(try write(writer.bytes, "nano.pcap"))
    let stream = try XCTUnwrap(report.streams.first)
    XCTAssertEqual(stream.firstTime, CaptureTime(seconds: 1_700_000_000, nanoseconds: 123_456_789))
    XCTAssertEqual(stream.lastTime, CaptureTime(seconds: 1_700_000_000, nanoseconds: 163_456_789))
  }

  func testMicrosecondTimestampsAreScaled() throws {
    var writer = PcapWriter()
    writer.append(
      rtpFrames(1)[0], at: CaptureTime(seconds: 1_700_000_000, nanoseconds: 250_000_000))
    let reader = try PcapFileReader(path: try write(writer.bytes, "micro.pcap"))
    var times: [CaptureTime] = []
    _ = reader.forEachFrame { _, _, time in times.append(time) }
    XCTAssertEqual(times, [CaptureTime(seconds: 1_700_000_000, nanoseconds: 250_000_000)])
  }

  func testPcapNGWithAnUnknownBlockIsRead() throws {
    var builder = PcapNGWriter()
    let frames = rtpFrames(20)
    for (index, frame) in frames.enumerated() {
      if index == 10 {
        builder.appendBlock(type: 0x0BAD_0001, body: Array(repeating: 0xEE, count: 16))
      }
      builder.appendPacket(frame, units: 1_700_000_000_000_000 + UInt64(index) * 20_000)
    }
    let (completion, report) = try analyse(try write(builder.bytes, "unknown-block.pcapng"))
    XCTAssertEqual(completion, .endOfFile)
    XCTAssertEqual(report.capture.frames, 20)
    XCTAssertEqual(report.streams.first?.packets, 20)
    XCTAssertEqual(report.streams.first?.lost, 0)
  }

  func testForEachFrameDeliversCapturedAndOriginalLengths() throws {
    var writer = PcapWriter()
    let frame = rtpFrames(1)[0]
    writer.append(frame, at: CaptureTime(seconds: 1, nanoseconds: 0), capturedLength: 54)
    let reader = try PcapFileReader(path: try write(writer.bytes, "snap.pcap"))
    var lengths: [(Int, Int)] = []
    XCTAssertEqual(
      reader.forEachFrame { bytes, original, _ in lengths.append((bytes.count, original)) },
      .endOfFile)
    XCTAssertEqual(lengths.map(\.0), [54])
    XCTAssertEqual(lengths.map(\.1), [frame.count])
  }
  // MARK: - Record times

  /// 2039-01-01 and 2105-01-01: classic pcap's unsigned 32-bit seconds past 2^31, which
  /// libpcap hands over as a negative `tv_sec`.
  static let seconds2039: UInt32 = 2_177_452_800
  static let seconds2105: UInt32 = 4_260_211_200

  func testClassicPcapSecondsPast2038AreReadAsTheFileHoldsThem() throws {
    for nanoseconds in [false, true] {
      var writer = PcapWriter(nanosecondResolution: nanoseconds)
      let frames = rtpFrames(3)
      writer.append(frames[0], seconds: Self.seconds2039, fraction: nanoseconds ? 5 : 0)
      writer.append(
        frames[1], seconds: Self.seconds2105, fraction: nanoseconds ? 999_999_999 : 999_999)
      writer.append(frames[2], seconds: .max, fraction: 0)
      let reader = try PcapFileReader(path: try write(writer.bytes, "late-\(nanoseconds).pcap"))
      var times: [Int64] = []
      XCTAssertEqual(
        reader.forEachFrame { _, _, time in times.append(time.nanosecondsSinceEpoch) }, .endOfFile)
      XCTAssertEqual(
        times,
        [
          2_177_452_800_000_000_000 + (nanoseconds ? 5 : 0),
          4_260_211_200_999_999_999 - (nanoseconds ? 0 : 999),
          4_294_967_295_000_000_000,
        ])
      XCTAssertEqual(reader.badTimestampRecords, 0)
    }
  }

  /// pcapng stamps are 64-bit: 2039 arrives as it is (libpcap's own arithmetic).
  func testPcapNGSecondsPast2038AreReadAsTheyAre() throws {
    var writer = PcapNGWriter(resolution: .nanoseconds)
    writer.appendPacket(rtpFrames(1)[0], units: UInt64(Self.seconds2039) * 1_000_000_000 + 7)
    let reader = try PcapFileReader(path: try write(writer.bytes, "late.pcapng"))
    var times: [Int64] = []
    _ = reader.forEachFrame { _, _, time in times.append(time.nanosecondsSinceEpoch) }
    XCTAssertEqual(times, [2_177_452_800_000_000_007])
  }

  /// A sub-second field of a second or more is no time (microseconds of 10^6 and more, and of
  /// 2^32 - 1, which libpcap passes on as a negative number; nanoseconds of 10^9 and more).
  /// Issue 39: such records were left out, so a perfect stream with a tenth of them showed
  /// 10 % loss. They are counted and analysed at the latest record's time: no loss, no jump,
  /// by every way of reading.
  func testRecordsWithAnImpossibleSubSecondFieldAreCountedAndAnalysedWithoutLoss() throws {
    for (nanoseconds, bad) in [
      (false, { (real: UInt32) in real + 1_000_000 }), (false, { _ in UInt32.max }),
      (true, { real in real + 1_000_000_000 }),
    ] {
      var writer = PcapWriter(nanosecondResolution: nanoseconds)
      let frames = rtpFrames(100)
      for (index, frame) in frames.enumerated() {
        let nanosecond = Int64(index) * 20_000_000
        let seconds = UInt32(1_700_000_000 + nanosecond / 1_000_000_000)
        let fraction = UInt32(nanosecond % 1_000_000_000 / (nanoseconds ? 1 : 1000))
        writer.append(frame, seconds: seconds, fraction: index % 10 == 5 ? bad(fraction) : fraction)
      }
      let path = try write(writer.bytes, "bad-fraction-\(nanoseconds)-\(bad(0)).pcap")
      let reader = try PcapFileReader(path: path)
      var times: [Int64] = []
      XCTAssertEqual(
        reader.forEachFrame { _, _, time in times.append(time.nanosecondsSinceEpoch) }, .endOfFile)
      XCTAssertEqual(times.count, 100)
      XCTAssertEqual(reader.badTimestampRecords, 10)
      XCTAssertEqual(times[5], times[4], "the latest record's time")
      let (completion, report) = try analyse(path)
      XCTAssertEqual(completion, .endOfFile)
      XCTAssertEqual(report.capture.badTimestampRecords, 10, "\(bad(0))")
      XCTAssertEqual(report.capture.frames, 100)
      XCTAssertEqual(report.capture.clockSteps, 0)
      let stream = try XCTUnwrap(report.streams.first)
      XCTAssertEqual(stream.packets, 100)
      XCTAssertEqual(stream.lost, 0)
      // A packet 20 ms early moves RFC 3550's jitter by about 20/16 ms, and the next one as
      // much again; one in ten settles near 5 ms. A time made up from the field (+1 s) would
      // be 60 ms or more.
      XCTAssertLessThan(try XCTUnwrap(stream.maxJitterSeconds), 0.006)
    }
  }
}
