import Foundation
import Logging
import NetQualityConfig
import NetQualityCore
import XCTest

@testable import NetQualityAgent

/// A reload reads `credentials_file` again and the notifier sends the new token from the next
/// request, without a restart; a token file gone makes the reload fail at its line and keeps
/// the running token.
final class AlertmanagerSecretReloadTests: XCTestCase {
  typealias Schedule = AlertmanagerScheduleTests

  private var directory = ""

  override func setUpWithError() throws {
    directory = NSTemporaryDirectory() + "netquality-am-reload-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
  }

  override func tearDownWithError() throws {
    try? FileManager.default.removeItem(atPath: directory)
  }

  func testAReloadAppliesAFreshTokenAndRefusesAMissingFile() throws {
    let authority = try TestCertificateAuthority(directory: directory, name: "test-ca")
    let certificate = try authority.issue("server", names: ["localhost"])
    let alertmanager = try TLSTestServer(
      certificate: certificate.certificate, key: certificate.key)
    defer { try? alertmanager.close() }
    let token = "\(directory)/token"
    try "first-token\n".write(toFile: token, atomically: false, encoding: .utf8)
    let file = "\(directory)/netquality.yaml"
    try """
    listen: "127.0.0.1:9470"
    alertmanager:
      url: "https://localhost:\(alertmanager.port)"
      authorization:
        credentials_file: "\(token)"
      tls_config:
        ca_file: "\(authority.certificateFile)"
    """.write(toFile: file, atomically: false, encoding: .utf8)
    let started = try ConfigurationLoader.load(path: file)
    let logger = Logger(label: "test")
    let notifier = try XCTUnwrap(try AlertmanagerService.notifier(started, logger: logger))
    let networks = [try XCTUnwrap(NetworkPrefix("127.0.0.1/32"))]
    let state = AgentState(
      engine: Engine(configuration: started.engineConfiguration(interfaceNetworks: networks)),
      alertmanager: notifier)
    let live = try LiveConfiguration(
      configuration: started, path: file, overrides: ConfigurationOverrides(),
      interfaceNetworks: networks, state: state,
      probes: ProbeService(plan: .init(), state: state, logger: logger), logger: logger)

    try "second-token\n".write(toFile: token, atomically: false, encoding: .utf8)
    XCTAssertEqual(live.reloadWithOutcome(), .init(succeeded: true, lines: []))
    XCTAssertEqual(state.read(\.status.restartPending), [], "a new secret needs no restart")

    try FileManager.default.removeItem(atPath: token)
    let refused = live.reloadWithOutcome()
    XCTAssertFalse(refused.succeeded)
    XCTAssertEqual(
      refused.lines,
      [
        "reload kept the old configuration: \(file): line 5: "
          + "alertmanager.authorization.credentials_file: cannot read \(token): "
          + "No such file or directory"
      ])

    notifier.start()
    notifier.publish(firing: [Schedule.alert("10.202.0.1")], events: [], at: Schedule.at(0))
    XCTAssertTrue(notifier.stop(deadline: Date().addingTimeInterval(10)))
    XCTAssertEqual(alertmanager.authorizations, ["Bearer second-token"])
  }
}
