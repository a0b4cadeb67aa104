import NetQualityConfig
import NetQualityCore
import NetQualityProbe

/// The web configuration's `rate_limit` (exporter-toolkit's `interval` and `burst`): one token
/// bucket for every request while no basic-auth user is configured. With users, each user whose
/// credentials were accepted has a bucket of its own and every other request — without
/// credentials, with wrong ones, or with new ones yet to be checked — shares one: failures
/// and guesses drain only that one, never the scraper's (issue 31: unauthenticated requests
/// drained the single server-wide bucket and 18 of 20 authenticated scrapes got 429).
struct RateLimitBuckets: Sendable {
  private let limit: WebConfiguration.RateLimit?
  private var shared: TokenBucket?
  /// By user; at most one per configured user (only accepted users get one).
  private var byUser: [String: TokenBucket] = [:]

  init(_ limit: WebConfiguration.RateLimit?, now: CaptureTime) {
    self.limit = limit
    shared = limit.map { Self.bucket($0, now: now) }
  }

  /// Takes a token at `now` from `user`'s bucket (nil: the shared one); true without a limit.
  mutating func take(user: String?, at now: CaptureTime) -> Bool {
    guard let limit else { return true }
    guard let user else { return shared?.take(at: now) ?? true }
    var bucket = byUser[user] ?? Self.bucket(limit, now: now)
    defer { byUser[user] = bucket }
    return bucket.take(at: now)
  }

  private static func bucket(_ limit: WebConfiguration.RateLimit, now: CaptureTime) -> TokenBucket {
    TokenBucket(ratePerSecond: 1 / limit.intervalSeconds, burst: Double(limit.burst), now: now)
  }
}
