import XCTest

@testable import NetQualityCore

final class ChunkedArrayTests: XCTestCase {
  private let chunk = ChunkedArray<Int>.chunkSize

  func testElementsAcrossChunksKeepTheirPlaces() {
    var array = ChunkedArray<Int>()
    for value in 0..<(2 * chunk + 5) { array.append(value * 3) }
    XCTAssertEqual(array.count, 2 * chunk + 5)
    XCTAssertEqual(Array(array), (0..<(2 * chunk + 5)).map { $0 * 3 })
    // Each side of a chunk's boundary, changed in place.
    array[chunk - 1] += 1
    array[chunk] -= 1
    XCTAssertEqual(array[chunk - 1], (chunk - 1) * 3 + 1)
    XCTAssertEqual(array[chunk], chunk * 3 - 1)
    XCTAssertEqual(array.withElements { $0[2 * chunk + 4] }, (2 * chunk + 4) * 3)
  }

  func testCopiesAreIndependentValues() {
    var original = ChunkedArray(repeating: 1, count: chunk + 1)
    let copy = original
    original[chunk] = 9
    original[0] = 8
    XCTAssertEqual(copy[chunk], 1, "a copy keeps its values when the original changes")
    XCTAssertEqual(copy[0], 1)
    XCTAssertEqual(original[chunk], 9)
    XCTAssertEqual(original[0], 8)
  }

  func testRepeatingFillsWholeAndPartialChunks() {
    let array = ChunkedArray(repeating: 7, count: 2 * chunk + 1)
    XCTAssertEqual(array.count, 2 * chunk + 1)
    XCTAssertTrue(array.allSatisfy { $0 == 7 })
    XCTAssertTrue(ChunkedArray(repeating: 7, count: 0).isEmpty)
  }

  func testRemoveAllEmptiesAndAppendingStartsAgain() {
    var array = ChunkedArray(repeating: 2, count: chunk + 3)
    array.removeAll()
    XCTAssertTrue(array.isEmpty)
    array.append(5)
    XCTAssertEqual(Array(array), [5])
  }

  func testDrainHandsOverInOrderAndLetsGoOfEachChunkOnceHandedOver() {
    final class Token {}
    let size = ChunkedArray<Token>.chunkSize
    var array = ChunkedArray<Token>()
    for _ in 0..<(2 * size + 10) { array.append(Token()) }
    weak var first = array[0]
    weak var lastOfFirstChunk = array[size - 1]
    weak var firstOfSecondChunk = array[size]
    var handed = 0
    var firstChunkGoneWhenSecondBegan = false
    var secondChunkAliveThen = false
    array.drain { token in
      if handed == size {
        firstChunkGoneWhenSecondBegan = first == nil && lastOfFirstChunk == nil
        secondChunkAliveThen = firstOfSecondChunk === token
      }
      handed += 1
    }
    XCTAssertEqual(handed, 2 * size + 10)
    XCTAssertTrue(firstChunkGoneWhenSecondBegan)
    XCTAssertTrue(secondChunkAliveThen)
    XCTAssertNil(firstOfSecondChunk)
    XCTAssertEqual(array.count, 0)
    XCTAssertEqual(array.chunkCount, 0)
    // Usable again.
    array.append(Token())
    XCTAssertEqual(array.count, 1)
  }

  func testDrainKeepsTheOrder() {
    var array = ChunkedArray<Int>()
    for value in 0..<10_000 { array.append(value) }
    var seen: [Int] = []
    array.drain { seen.append($0) }
    XCTAssertEqual(seen, Array(0..<10_000))
  }
}
