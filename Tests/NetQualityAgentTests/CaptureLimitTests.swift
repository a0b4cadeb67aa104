import NetQualityCapture
import NetQualityCore
import XCTest

@testable import NetQualityAgent

/// The agent captures on at most as many interfaces as a peer's record tells apart, and says so
/// in one line before opening any.
final class CaptureLimitTests: XCTestCase {
  func testMoreInterfacesThanThePeerRecordsTellApartFailTheStartInOneLine() {
    let limit = EngineConfiguration.maxCaptureInterfaces
    XCTAssertEqual(limit, 64)
    let names = (0...limit).map { "nq-missing\($0)" }
    let options = LiveCapture.Options(snapLength: 2048, bufferBytes: 1 << 20, filter: "udp")
    XCTAssertThrowsError(try CaptureService.openAll(names, options: options)) { error in
      XCTAssertEqual(error as? CaptureError, .tooManyInterfaces(count: 65, limit: 64))
      XCTAssertEqual(
        "\(error)",
        "cannot capture on 65 interfaces: at most 64 (each takes a thread and a capture ring); "
          + "list those that carry media in 'interfaces', or capture on 'any'")
    }
    // At the limit the check passes and the first name is tried (missing, or no permission
    // to look when not root).
    XCTAssertThrowsError(try CaptureService.openAll(Array(names.prefix(limit)), options: options)) {
      error in
      switch error as? CaptureError {
      case .noSuchInterface(let interface, _)?, .permissionDenied(let interface)?:
        XCTAssertEqual(interface, "nq-missing0")
      default:
        XCTFail("\(error)")
      }
    }
  }
}
