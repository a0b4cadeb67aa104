import NetQualityConfig
import NetQualityCore
import XCTest

/// The `probes:` and `reflector:` sections: values, defaults, and every mistake with its line.
final class ProbeConfigurationTests: XCTestCase, ConfigurationFixtures {
  func testProbeTargetsAndTheReflectorAreApplied() throws {
    let configuration = try load(
      """
      probes:
        - target: "192.0.2.9:862"
          name: sfu-eu
          rate: 20
          size: 200
          dscp: 0
          timeout: 2.5
          auth_key_file: /etc/netquality/stamp.key
        - target: "[2001:db8::9]:4000"
      reflector:
        enabled: true
        listen: "[::]:8620"
        allow: [10.0.0.0/8]
        rate_limit: 50
        burst: 60
        clock_synchronized: true
      """)
    XCTAssertEqual(configuration.probes.count, 2)
    let first = configuration.probes[0]
    XCTAssertEqual(first.target.description, "192.0.2.9:862")
    XCTAssertEqual(first.name, "sfu-eu")
    XCTAssertEqual(first.ratePerSecond, 20)
    XCTAssertEqual(first.sizeBytes, 200)
    XCTAssertEqual(first.dscp, 0)
    XCTAssertEqual(first.timeoutSeconds, 2.5)
    XCTAssertEqual(first.authKeyFile, "/etc/netquality/stamp.key")
    let second = configuration.probes[1]
    XCTAssertEqual(second.target.description, "[2001:db8::9]:4000")
    XCTAssertNil(second.name)
    XCTAssertEqual(second.ratePerSecond, 50, "a voice stream's rate by default")
    XCTAssertEqual(second.dscp, 46)
    let reflector = configuration.reflector
    XCTAssertTrue(reflector.enabled)
    XCTAssertEqual(reflector.listen.description, "[::]:8620")
    XCTAssertEqual(reflector.allow.map(\.description), ["10.0.0.0/8"])
    XCTAssertEqual(reflector.rateLimitPerSecond, 50)
    XCTAssertEqual(reflector.burst, 60)
    XCTAssertTrue(reflector.clockSynchronized)
    // The probe's name names its address for the engine, even inside a peer group.
    let engine = configuration.engineConfiguration(interfaceNetworks: [])
    XCTAssertEqual(engine.peerName(first.target.address), "sfu-eu")
    XCTAssertEqual(engine.peerName(second.target.address), "2001:db8::9")
    XCTAssertEqual(
      engine.analyzer.probeTraffic.endpoints.map(\.description),
      ["192.0.2.9:862", "[2001:db8::9]:4000", "[::]:8620"])
  }

  func testMistakesAreReportedWithTheirLines() {
    XCTAssertEqual(
      issues(
        """
        probes:
          - name: nowhere
          - target: "0.0.0.0:862"
          - target: "reflector.example:862"
          - target: "192.0.2.9:862"
            rate: 0
            size: 20
          - target: "192.0.2.9:862"
          - target: "192.0.2.10:862"
            auth_key_file: k
            size: 100
        reflector:
          listen: "nowhere"
          burst: 0
          colour: blue
        """),
      [
        "2 probes[0].target: every probe needs a target (ADDRESS:PORT of a reflector)",
        "3 probes[1].target: '0.0.0.0:862': a probe target needs a reflector's address, not "
          + "0.0.0.0 or ::",
        "4 probes[2].target: 'reflector.example:862': cannot resolve 'reflector.example': "
          + "Name or service not known",
        "6 probes[3].rate: 0.0 is out of range 0.1...1000.0",
        "7 probes[3].size: 20 is out of range 44...1472",
        "8 probes[4].target: 192.0.2.9:862: 192.0.2.9 is already probed by probes[3] (line 5); "
          + "an address is one peer, so one probe target per address",
        "11 probes[5].size: authenticated probes are at least 112 bytes",
        "13 reflector.listen: 'nowhere': \(ListenAddress.expected)",
        "14 reflector.burst: 0 is out of range 1...1000000",
        "15 reflector.colour: unknown key; known keys here: enabled, listen, auth_key_file, "
          + "allow, rate_limit, burst, clock_synchronized",
      ])
  }

  /// Issue 39: two targets of one address (a peer is an address) were merged into one peer
  /// under the first name, and with one authenticated and one not, the authenticated one's
  /// answers were never counted. Refused, saying both lines.
  func testTwoProbesOfOneAddressAreRefusedWithBothLines() {
    XCTAssertEqual(
      issues(
        """
        probes:
          - target: "192.0.2.9:862"
            name: plain
          - target: "192.0.2.10:862"
          - target: "192.0.2.9:4000"
            auth_key_file: k
          - target: "[2001:db8::9]:862"
          - target: "[2001:db8::9]:862"
        """),
      [
        "5 probes[2].target: 192.0.2.9:4000: 192.0.2.9 is already probed by probes[0] "
          + "(line 2); an address is one peer, so one probe target per address",
        "8 probes[4].target: [2001:db8::9]:862: 2001:db8::9 is already probed by probes[3] "
          + "(line 7); an address is one peer, so one probe target per address",
      ])
  }

  /// `probe_rtt_buckets` (smokeping_prober's `--buckets`): by default 50 µs doubling to
  /// 1.6384 s; any ascending list of positive bounds in seconds otherwise.
  func testProbeRoundTripBucketsDefaultAndConfigured() throws {
    let defaults = try load("probes: []")
    XCTAssertEqual(defaults.engine.probeRoundTripBoundsSeconds.count, 16)
    XCTAssertEqual(defaults.engine.probeRoundTripBoundsSeconds.first, 0.000_05)
    XCTAssertEqual(defaults.engine.probeRoundTripBoundsSeconds[1], 0.000_1)
    XCTAssertEqual(defaults.engine.probeRoundTripBoundsSeconds.last, 1.6384)
    let configured = try load("probe_rtt_buckets: [0.0001, 0.00025, 0.001, 0.01]")
    XCTAssertEqual(configured.engine.probeRoundTripBoundsSeconds, [0.0001, 0.00025, 0.001, 0.01])
    XCTAssertEqual(
      configured.engineConfiguration(interfaceNetworks: []).probeRoundTripBoundsSeconds,
      [0.0001, 0.00025, 0.001, 0.01])
    XCTAssertEqual(
      issues("probe_rtt_buckets: [0.001, 0.001]"),
      ["1 probe_rtt_buckets: bucket bounds must be above 0 and increase strictly"])
    XCTAssertEqual(
      issues("probe_rtt_buckets: [0, 0.001]"),
      ["1 probe_rtt_buckets: bucket bounds must be above 0 and increase strictly"])
    XCTAssertEqual(
      issues("probe_rtt_buckets: []"),
      [
        "1 probe_rtt_buckets: expected 1 to 64 bucket bounds in seconds, e.g. "
          + "[0.00005, 0.0001, 0.0002]"
      ])
    XCTAssertEqual(issues("probe_rtt_buckets: [fast]").count, 1)
  }
}
