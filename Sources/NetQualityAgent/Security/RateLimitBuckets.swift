import NetQualityConfig
import NetQualityCore
import NetQualityProbe

/// The web configuration's `rate_limit` (exporter-toolkit's `interval` and `burst`): a token
/// bucket per client address for every request while no basic-auth user is configured. With
/// users, each user whose credentials were accepted has a bucket of its own and every other
/// request — without credentials, with wrong ones, or with new ones yet to be checked — takes
/// from its client address's bucket: failures and guesses drain only the guesser's own, never
/// the scraper's (issue 31: unauthenticated requests drained the single server-wide bucket
/// and 18 of 20 authenticated scrapes got 429; issue 39: after a restart or a reload the
/// scraper's first request, its credentials not yet checked, was refused with the guessers).
///
/// The buckets by address are `SourceRateLimiter`'s fixed table, which never forgets a debt:
/// an attacker with many addresses cannot have a drained bucket made anew. An IPv6 client
/// counts by its /64 (RFC 4291 section 2.5.4: one host's interface identifiers are free to
/// choose within it), an IPv4 client by its address.
struct RateLimitBuckets: Sendable {
  let limit: WebConfiguration.RateLimit?
  private var byAddress: SourceRateLimiter?
  /// By user; at most one per configured user (only accepted users get one).
  private var byUser: [String: TokenBucket] = [:]

  init(_ limit: WebConfiguration.RateLimit?, now: CaptureTime) {
    self.limit = limit
    byAddress = limit.map {
      SourceRateLimiter(ratePerSecond: 1 / $0.intervalSeconds, burst: Double($0.burst))
    }
  }

  /// Takes a token at `now` from `user`'s bucket, or (nil) from the bucket of `client`'s
  /// address (nil: one bucket for requests of no known address); true without a limit.
  mutating func take(user: String?, client: IPAddress? = nil, at now: CaptureTime) -> Bool {
    guard let limit else { return true }
    guard let user else {
      return byAddress?.take(Self.key(client ?? IPAddress(high: 0, low: 0)), now: now) ?? true
    }
    var bucket = byUser[user] ?? Self.bucket(limit, now: now)
    defer { byUser[user] = bucket }
    return bucket.take(at: now)
  }

  /// The address a client's requests count under: its /64 for IPv6.
  static func key(_ address: IPAddress) -> IPAddress {
    address.isIPv4 ? address : IPAddress(high: address.high, low: 0)
  }

  private static func bucket(_ limit: WebConfiguration.RateLimit, now: CaptureTime) -> TokenBucket {
    TokenBucket(ratePerSecond: 1 / limit.intervalSeconds, burst: Double(limit.burst), now: now)
  }
}
