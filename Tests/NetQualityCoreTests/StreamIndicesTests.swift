import XCTest

@testable import NetQualityCore

final class StreamIndicesTests: XCTestCase {
  func testIndicesUnderAKeyComeAndGoInOrder() {
    var bySSRC: [UInt32: StreamIndices] = [:]
    bySSRC.add(7, under: 0xAA)
    bySSRC.add(9, under: 0xAA)
    bySSRC.add(3, under: 0xAA)
    bySSRC.add(4, under: 0xBB)
    XCTAssertEqual(bySSRC[0xAA].map(Array.init), [7, 9, 3])
    // Removing the inline first moves the next one up.
    bySSRC.remove(7, under: 0xAA)
    XCTAssertEqual(bySSRC[0xAA].map(Array.init), [9, 3])
    bySSRC.remove(3, under: 0xAA)
    bySSRC.remove(5, under: 0xAA)
    XCTAssertEqual(bySSRC[0xAA].map(Array.init), [9])
    bySSRC.remove(9, under: 0xAA)
    bySSRC.remove(4, under: 0xBB)
    bySSRC.remove(4, under: 0xCC)
    XCTAssertTrue(bySSRC.isEmpty, "a key goes with its last index")
  }
}
