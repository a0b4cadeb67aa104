import XCTest

@testable import NetQualityCore

/// The capture's filter of the agent's own STAMP packets: the same answers one by one (a few
/// targets) and hashed (a thousand).
final class ProbeTrafficFilterTests: XCTestCase {
  func datagram(from source: Endpoint, to destination: Endpoint) -> UDPDatagram {
    var datagram = UDPDatagram()
    datagram.sourceAddress = source.address
    datagram.sourcePort = source.port
    datagram.destinationAddress = destination.address
    datagram.destinationPort = destination.port
    return datagram
  }

  /// The index-th of many targets: 127.0.x.y, four reflector ports.
  func target(_ index: Int) -> Endpoint {
    let third = UInt8(1 + index / 250)
    let fourth = UInt8(1 + index % 250)
    let port = UInt16(18620 + index % 4)
    return Endpoint(address: IPAddress(ipv4: 127, 0, third, fourth), port: port)
  }

  func testFewAndManyTargetsMatchTheSame() {
    let agent = Endpoint(address: IPAddress(ipv4: 127, 0, 0, 1), port: 40000)
    let reflector = Endpoint(address: IPAddress(ipv4: 0, 0, 0, 0), port: 862)
    for count in [3, 1000] {
      let targets = (0..<count).map(target)
      let filter = ProbeTrafficFilter(endpoints: targets + [reflector])
      for target in [targets[0], targets[count - 1]] {
        XCTAssertTrue(filter.matches(datagram(from: agent, to: target)), "\(count): to a target")
        XCTAssertTrue(filter.matches(datagram(from: target, to: agent)), "\(count): its answer")
      }
      // Another address on a target's port, another port on a target's address: not ours.
      let stranger = Endpoint(address: IPAddress(ipv4: 127, 9, 9, 9), port: 18620)
      XCTAssertFalse(filter.matches(datagram(from: agent, to: stranger)), "\(count)")
      let otherPort = Endpoint(address: targets[0].address, port: 5004)
      XCTAssertFalse(filter.matches(datagram(from: agent, to: otherPort)), "\(count)")
      // The reflector on all addresses: any address on its port.
      let probed = Endpoint(address: IPAddress(ipv4: 10, 1, 2, 3), port: 862)
      XCTAssertTrue(filter.matches(datagram(from: agent, to: probed)), "\(count): reflector")
    }
  }
}
