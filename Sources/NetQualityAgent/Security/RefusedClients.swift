import NetQualityCore

/// Client addresses whose credentials were refused lately: their next bcrypt checks wait in
/// the guessers' lane, at a lower CPU priority, and a client never refused is checked in a
/// lane of its own (`WebSecurity.bcryptFirst`).
///
/// Issue 37's CI found the scraper's first scrape after a restart taking 2.2 s with 200
/// guessers on a busy 2-core machine (the bound is 1 s, issue 39): the one bcrypt thread ran
/// at nice 10, and behind the busy core the scraper's check and the guess before it got a
/// tenth of a core each. fail2ban and sshd's `PerSourcePenalties` judge a source by its own
/// failures in the same way.
///
/// Two generations of at most `capacity` addresses each, the older dropped when the newer is
/// full or `generationSeconds` old: a refusal is remembered for one to two generations, and
/// memory stays bounded however many addresses an attacker uses. An IPv6 client counts by its
/// /64 (`RateLimitBuckets.key`).
struct RefusedClients: Sendable {
  /// Addresses per generation: a fleet's scrapers and operators are a few dozen, an attacker
  /// with more addresses than this only gets more first checks in the clean lane, which is
  /// one thread and a short queue too.
  static let capacity = 4_096
  /// How long a generation collects: remembered 10 to 20 minutes.
  static let generationSeconds: Int64 = 600

  private var current: Set<IPAddress> = []
  private var previous: Set<IPAddress> = []
  private var currentSince: Int64

  init(now seconds: Int64) {
    currentSince = seconds
  }

  /// Whether `client` was refused within the last one or two generations.
  mutating func contains(_ client: IPAddress, now seconds: Int64) -> Bool {
    rotateIfDue(now: seconds)
    let key = RateLimitBuckets.key(client)
    return current.contains(key) || previous.contains(key)
  }

  mutating func insert(_ client: IPAddress, now seconds: Int64) {
    rotateIfDue(now: seconds)
    if current.count >= Self.capacity { rotate(now: seconds) }
    current.insert(RateLimitBuckets.key(client))
  }

  /// Addresses remembered now (both generations).
  var count: Int { current.count + previous.count }

  private mutating func rotateIfDue(now seconds: Int64) {
    let elapsed = seconds - currentSince
    guard elapsed >= Self.generationSeconds else { return }
    rotate(now: seconds)
    // Two generations gone by with no look at all: what was current is stale too.
    if elapsed >= 2 * Self.generationSeconds { previous = [] }
  }

  private mutating func rotate(now seconds: Int64) {
    previous = current
    current = []
    currentSince = seconds
  }
}
