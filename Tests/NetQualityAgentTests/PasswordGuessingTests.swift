import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdBcrypt
import HummingbirdTesting
import XCTest

@testable import NetQualityAgent

/// Issue 31: password guessers must never take the scrape down — the scraper's accepted
/// credentials cannot be pushed out of the cache by failures, guesses beyond a short bcrypt
/// queue are refused 429 at once, and with a rate limit the unauthenticated drain only their
/// own bucket.
final class PasswordGuessingTests: XCTestCase {
  func testAFloodOfRefusedCredentialsNeverEvictsAcceptedOnes() {
    let cache = CredentialCache()
    let scraper = CredentialCache.digest(user: "prometheus", hash: "h", password: "secret")
    cache.keep(scraper, accepted: true)
    for guess in 0..<5_000 {
      cache.keep(
        CredentialCache.digest(user: "prometheus", hash: "h", password: "guess \(guess)"),
        accepted: false)
    }
    XCTAssertEqual(cache.answer(scraper), true)
    XCTAssertEqual(cache.acceptedCount, 1)
    XCTAssertLessThanOrEqual(cache.count, 2 * CredentialCache.capacity)
    // Accepted ones give way only to accepted ones, least recently used first.
    for user in 0..<CredentialCache.capacity - 1 {
      cache.keep(CredentialCache.digest(user: "u\(user)", hash: "h", password: "p"), accepted: true)
    }
    XCTAssertEqual(cache.answer(scraper), true, "used just now: the most recent")
    cache.keep(CredentialCache.digest(user: "new", hash: "h", password: "p"), accepted: true)
    XCTAssertEqual(cache.answer(scraper), true)
    XCTAssertNil(cache.answer(CredentialCache.digest(user: "u0", hash: "h", password: "p")))
  }

  func testGuessesBeyondTheBcryptQueueAreRefusedAtOnceWhileTheScraperGetsIn() async throws {
    // Cost 12: about a quarter of a second a check here, so the queue stays full while the
    // guesses arrive.
    let made = Bcrypt.hash("secret", cost: 12)
    let security = try WebSecurityTests.security("basic_auth_users: {prometheus: '\(made)'}\n")
    let users = security.current.users
    let scraper = WebSecurityTests.basic("prometheus", "secret")[.authorization]
    let first = await security.verify(authorization: scraper, users: users)
    XCTAssertEqual(first, .accepted)
    let guesses = 40
    let verdicts = await withTaskGroup(of: WebSecurity.Verdict.self) { group in
      for guess in 0..<guesses {
        group.addTask {
          await security.verify(
            authorization: WebSecurityTests.basic("prometheus", "guess \(guess)")[.authorization],
            users: users)
        }
      }
      // The scraper, meanwhile, from the cache and without waiting for bcrypt.
      let clock = ContinuousClock()
      let started = clock.now
      let scrape = await security.verify(authorization: scraper, users: users)
      XCTAssertEqual(scrape, .accepted)
      // Not behind the nine checks in flight (about 2 s at cost 12).
      XCTAssertLessThan(clock.now - started, .milliseconds(500))
      var verdicts: [WebSecurity.Verdict] = []
      for await verdict in group { verdicts.append(verdict) }
      return verdicts
    }
    let shed = verdicts.filter { $0 == .busy }.count
    let checked = verdicts.filter { $0 == .invalid }.count
    XCTAssertEqual(shed + checked, guesses)
    // The running check and the queue's places took the first guesses; the rest, arriving
    // while they waited, were refused without a check.
    XCTAssertGreaterThan(shed, 0)
    // (The scraper's own check may still count as running for a moment when they arrive.)
    XCTAssertGreaterThanOrEqual(checked, WebSecurity.bcryptQueueLimit)
    XCTAssertEqual(
      security.counters.bcryptChecks.load(ordering: .relaxed), checked + 1, "and the scraper's")
    XCTAssertEqual(security.counters.bcryptShed.load(ordering: .relaxed), shed)
    XCTAssertEqual(security.cache.acceptedCount, 1)
  }

  func testUnauthenticatedRequestsDrainOnlyTheirOwnBucket() async throws {
    // One request a minute, a burst of 2: the anonymous use theirs up; the scraper keeps its.
    let security = try WebSecurityTests.security(
      "basic_auth_users: {prometheus: '\(WebSecurityTests.hash)'}\n"
        + "rate_limit: {interval: 1m, burst: 2}\n")
    let users = security.current.users
    let scraper = WebSecurityTests.basic("prometheus", "secret")[.authorization]
    var anonymous: [WebSecurity.Verdict] = []
    for _ in 0..<5 {
      anonymous.append(await security.verify(authorization: nil, users: users))
    }
    XCTAssertEqual(anonymous, [.missing, .missing, .rateLimited, .rateLimited, .rateLimited])
    // The scraper, accepted before the flood; then guessers and anonymous requests by the
    // dozen; then its scrapes.
    let fresh = try WebSecurityTests.security(
      "basic_auth_users: {prometheus: '\(WebSecurityTests.hash)'}\n"
        + "rate_limit: {interval: 1m, burst: 2}\n")
    let accepted = await fresh.verify(authorization: scraper, users: users)
    XCTAssertEqual(accepted, .accepted)
    for guess in 0..<20 {
      _ = await fresh.verify(
        authorization: WebSecurityTests.basic("prometheus", "g\(guess)")[.authorization],
        users: users)
      _ = await fresh.verify(authorization: nil, users: users)
    }
    var scrapes: [WebSecurity.Verdict] = []
    for _ in 0..<3 { scrapes.append(await fresh.verify(authorization: scraper, users: users)) }
    // The user's own bucket: a burst of 2, then the limit — the guessers took none of it.
    XCTAssertEqual(scrapes, [.accepted, .accepted, .rateLimited])
  }
}
