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

  /// Issue 39: a reload that changed the users emptied the cache, and the scraper's next check
  /// queued behind the guessers'.
  func testAReloadKeepsAcceptedCredentialsOfUsersItDidNotChange() async throws {
    let yaml = "basic_auth_users:\n  prometheus: '\(WebSecurityTests.hash)'\n"
    let security = try WebSecurityTests.security(yaml)
    let started = try WebSecurityTests.web(yaml)
    let scraper = WebSecurityTests.basic("prometheus", "secret")[.authorization]
    var verdict = await security.verify(authorization: scraper, users: security.current.users)
    XCTAssertEqual(verdict, .accepted)
    // Another user added: the scraper's answer still kept, no bcrypt check.
    let added = try WebSecurityTests.web(yaml + "  other: '\(WebSecurityTests.hash)'\n")
    _ = security.apply(.init(configuration: added, tlsMaterial: nil), startedWith: started)
    verdict = await security.verify(authorization: scraper, users: security.current.users)
    XCTAssertEqual(verdict, .accepted)
    XCTAssertEqual(security.counters.bcryptChecks.load(ordering: .relaxed), 1)
    // Its hash replaced (a new password): the old password is checked again and refused.
    let other = "$2b$" + Bcrypt.hash("changed", cost: 4).dropFirst(4)
    let changed = try WebSecurityTests.web("basic_auth_users: {prometheus: '\(other)'}\n")
    _ = security.apply(.init(configuration: changed, tlsMaterial: nil), startedWith: started)
    verdict = await security.verify(authorization: scraper, users: security.current.users)
    XCTAssertEqual(verdict, .invalid)
    XCTAssertEqual(security.counters.bcryptChecks.load(ordering: .relaxed), 2)
    // Removed: refused without a match in the cache.
    let removed = try WebSecurityTests.web("basic_auth_users: {other: '\(other)'}\n")
    _ = security.apply(.init(configuration: removed, tlsMaterial: nil), startedWith: started)
    verdict = await security.verify(authorization: scraper, users: security.current.users)
    XCTAssertEqual(verdict, .invalid)
  }

  /// Issue 39: after a restart (nothing cached) with guessers keeping the bcrypt queue full,
  /// the scraper's first check was refused 429 until 10 s later. From an address of its own
  /// it is admitted and checked next, after the one guess running. Here the guesses come
  /// before any was refused: the first takes the lane of the never refused, the others (one
  /// check per client there) the guessers' lane.
  func testAfterARestartTheScrapersFirstCheckWaitsForOneGuessAtMost() async throws {
    let made = Bcrypt.hash("secret", cost: 11)
    let security = try WebSecurityTests.security("basic_auth_users: {prometheus: '\(made)'}\n")
    let users = security.current.users
    let scraper = WebSecurityTests.basic("prometheus", "secret")[.authorization]
    let guesses = 40
    let verdicts = await withTaskGroup(of: WebSecurity.Verdict.self) { group in
      for guess in 0..<guesses {
        group.addTask {
          await security.verify(
            authorization: WebSecurityTests.basic("prometheus", "guess \(guess)")[.authorization],
            users: users, client: "10.0.0.9")
        }
      }
      // The queue full of guesses first.
      await Self.waitUntilFull(security.bcrypt)
      let load = security.bcrypt.load
      XCTAssertEqual(load.waiting + load.running, 1 + WebSecurity.bcryptQueueLimit)
      let first = security.bcryptFirst.load
      XCTAssertLessThanOrEqual(first.waiting + first.running, 1, "one guess at most")
      let scrape = await security.verify(
        authorization: scraper, users: users, client: "10.0.0.1")
      XCTAssertEqual(scrape, .accepted)
      // In its lane, the one guess that came before it and its own (the guessers' lane runs
      // beside it).
      XCTAssertLessThanOrEqual(security.bcryptFirst.counters.completed.load(ordering: .relaxed), 2)
      var verdicts: [WebSecurity.Verdict] = []
      for await verdict in group { verdicts.append(verdict) }
      return verdicts
    }
    XCTAssertEqual(verdicts.filter { $0 == .busy || $0 == .invalid }.count, guesses)
    XCTAssertEqual(security.cache.acceptedCount, 1)
  }

  /// Issue 37's CI: with the guessers' checks at nice 10 behind a busy core, the scraper's first
  /// check after a restart waited 2.2 s for the guess before it and for its own. A client once
  /// refused is checked in the guessers' lane from then on; a client never refused in a lane of
  /// its own, so the scraper's check is done while the guessers' lane is still full.
  func testAClientNeverRefusedIsCheckedOutsideTheGuessersLane() async throws {
    let made = Bcrypt.hash("secret", cost: 12)
    let security = try WebSecurityTests.security("basic_auth_users: {prometheus: '\(made)'}\n")
    let users = security.current.users
    let scraper = WebSecurityTests.basic("prometheus", "secret")[.authorization]
    func guess(_ index: Int) async -> WebSecurity.Verdict {
      await security.verify(
        authorization: WebSecurityTests.basic("prometheus", "guess \(index)")[.authorization],
        users: users, client: "10.0.0.9")
    }
    // The first guess is checked in the lane of the never refused, and refused.
    let first = await guess(0)
    XCTAssertEqual(first, .invalid)
    XCTAssertEqual(security.bcryptFirst.counters.completed.load(ordering: .relaxed), 1)
    XCTAssertEqual(security.bcrypt.counters.completed.load(ordering: .relaxed), 0)
    let verdicts = await withTaskGroup(of: WebSecurity.Verdict.self) { group in
      for index in 1...40 { group.addTask { await guess(index) } }
      await Self.waitUntilFull(security.bcrypt)
      XCTAssertEqual(security.bcryptFirst.load.waiting + security.bcryptFirst.load.running, 0)
      let scrape = await security.verify(
        authorization: scraper, users: users, client: "10.0.0.1")
      XCTAssertEqual(scrape, .accepted)
      // One check of its own, while the guessers' lane had nine to do one after the other.
      XCTAssertEqual(security.bcryptFirst.counters.completed.load(ordering: .relaxed), 2)
      XCTAssertGreaterThan(security.bcrypt.load.waiting, 0, "the guessers' lane is still full")
      var verdicts: [WebSecurity.Verdict] = []
      for await verdict in group { verdicts.append(verdict) }
      return verdicts
    }
    XCTAssertEqual(verdicts.filter { $0 == .busy || $0 == .invalid }.count, 40)
    XCTAssertGreaterThanOrEqual(
      security.bcrypt.counters.completed.load(ordering: .relaxed), WebSecurity.bcryptQueueLimit)
  }

  /// Guessers from many addresses, each before its first refusal, fill the lane of the never
  /// refused: a client new to both lanes gets a place in the guessers' lane (shared fairly
  /// between clients), not a 429.
  func testAFullFirstLaneSendsANewClientToTheGuessersLane() async throws {
    let made = Bcrypt.hash("secret", cost: 12)
    let security = try WebSecurityTests.security("basic_auth_users: {prometheus: '\(made)'}\n")
    let users = security.current.users
    let scraper = WebSecurityTests.basic("prometheus", "secret")[.authorization]
    let places = 1 + WebSecurity.bcryptQueueLimit
    await withTaskGroup(of: Void.self) { group in
      for address in 0..<places {
        group.addTask {
          _ = await security.verify(
            authorization: WebSecurityTests.basic("prometheus", "guess")[.authorization],
            users: users, client: "10.0.1.\(address)")
        }
      }
      await Self.waitUntilFull(security.bcryptFirst)
      let scrape = await security.verify(
        authorization: scraper, users: users, client: "10.0.0.1")
      XCTAssertEqual(scrape, .accepted, "checked in the guessers' lane, not refused 429")
      XCTAssertEqual(security.bcrypt.counters.completed.load(ordering: .relaxed), 1)
      XCTAssertEqual(security.counters.bcryptShed.load(ordering: .relaxed), 0)
      await group.waitForAll()
    }
  }

  /// Waits (10 s at most) until `queue` has every place taken.
  static func waitUntilFull(_ queue: BoundedWorkQueue) async {
    let deadline = ContinuousClock.now + .seconds(10)
    while queue.load.waiting < WebSecurity.bcryptQueueLimit, ContinuousClock.now < deadline {
      try? await Task.sleep(for: .milliseconds(5))
    }
  }
}
