import Foundation
import XCTest

@testable import NetQualityCapture

/// `LinkState` on a sysfs tree the test lays out: what counts as up, down, gone and unknown.
final class LinkStateTests: XCTestCase {
  var root = ""

  override func setUpWithError() throws {
    root = NSTemporaryDirectory() + "netquality-sysfs-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
  }

  override func tearDownWithError() throws {
    try? FileManager.default.removeItem(atPath: root)
  }

  func interface(_ name: String, operstate: String?, carrier: String? = nil) throws {
    let directory = "\(root)/\(name)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    if let operstate {
      try "\(operstate)\n".write(
        toFile: "\(directory)/operstate", atomically: false, encoding: .utf8)
    }
    if let carrier {
      try "\(carrier)\n".write(toFile: "\(directory)/carrier", atomically: false, encoding: .utf8)
    }
  }

  func testUpAndDownFollowOperstate() throws {
    try interface("eth0", operstate: "up")
    try interface("eth1", operstate: "down")
    try interface("eth2", operstate: "lowerlayerdown")
    XCTAssertEqual(LinkState.isUp("eth0", root: root), true)
    XCTAssertEqual(LinkState.isUp("eth1", root: root), false)
    XCTAssertEqual(LinkState.isUp("eth2", root: root), false)
  }

  func testUnknownOperstateDefersToCarrier() throws {
    // Loopback and some virtual devices report "unknown" while they carry traffic.
    try interface("lo", operstate: "unknown", carrier: "1")
    try interface("dummy0", operstate: "unknown", carrier: "0")
    try interface("tun0", operstate: "unknown")
    XCTAssertEqual(LinkState.isUp("lo", root: root), true)
    XCTAssertEqual(LinkState.isUp("dummy0", root: root), false)
    XCTAssertNil(LinkState.isUp("tun0", root: root), "no carrier to read: not known, not down")
  }

  func testAGoneInterfaceIsDownButAMissingSysfsIsUnknown() throws {
    XCTAssertEqual(LinkState.isUp("eth9", root: root), false)
    XCTAssertNil(LinkState.isUp("eth9", root: root + "/not-mounted"))
    XCTAssertNil(LinkState.isUp("any", root: root))
  }

  func testAFileThatCannotBeReadIsUnknownNeverDown() throws {
    // A directory where operstate should be: open succeeds, read fails with EISDIR, as a read
    // failing for want of a descriptor or permission would.
    try interface("eth3", operstate: nil)
    try FileManager.default.createDirectory(
      atPath: "\(root)/eth3/operstate", withIntermediateDirectories: false)
    XCTAssertNil(LinkState.isUp("eth3", root: root))
  }

  func testNoDescriptorLeftIsUnknown() throws {
    try interface("eth0", operstate: "up")
    let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    var saved = rlimit()
    XCTAssertEqual(getrlimit(resource, &saved), 0)
    // Lower the soft limit to what is open now plus a few, use those up, then look.
    var opened: [Int32] = []
    let highest = open("/dev/null", O_RDONLY | O_CLOEXEC)
    opened.append(highest)
    var lowered = saved
    lowered.rlim_cur = rlim_t(highest + 8)
    XCTAssertEqual(setrlimit(resource, &lowered), 0)
    while opened.count < 64 {
      let descriptor = open("/dev/null", O_RDONLY | O_CLOEXEC)
      guard descriptor >= 0 else { break }
      opened.append(descriptor)
    }
    let exhausted = errno
    let state = LinkState.isUp("eth0", root: root)
    for descriptor in opened { close(descriptor) }
    XCTAssertEqual(setrlimit(resource, &saved), 0)
    XCTAssertEqual(exhausted, EMFILE)
    XCTAssertNil(state)
    XCTAssertEqual(LinkState.isUp("eth0", root: root), true)
  }
}
