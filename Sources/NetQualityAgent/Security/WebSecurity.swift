import Foundation
import HTTPTypes
import HummingbirdBcrypt
import NetQualityConfig
import NetQualityCore
import NetQualityExport
import NetQualityProbe
import Synchronization

/// What the web configuration file asks of every request (see `WebSecurityMiddleware`): basic
/// authentication against bcrypt hashes, extra headers, a rate limit; and the listener's TLS
/// (`WebTLS`). A reload replaces the users, headers, rate limit and TLS identity at once.
public final class WebSecurity: Sendable {
  /// A web configuration file as loaded and checked: its keys, and the TLS files parsed.
  public struct Loaded: Sendable {
    public var configuration: WebConfiguration
    var tlsMaterial: WebTLS.Material?

    /// No file: plain HTTP, no authentication.
    public static let none = Loaded(configuration: WebConfiguration(), tlsMaterial: nil)
  }

  /// The per-request part, swapped whole by a reload.
  struct Policy: Sendable {
    /// User to bcrypt hash (`$2y$` spelled `$2b$`, see `BcryptHash.normalized`).
    var users: [String: String] = [:]
    var headers: [(HTTPField.Name, String)] = []
    var rateLimit: WebConfiguration.RateLimit?
  }

  /// Since the agent started, for `/metrics`.
  final class Counters: Sendable {
    /// Requests refused 401 without credentials (or with a header that is not basic auth).
    let missing = Atomic<Int>(0)
    /// Requests refused 401 with a wrong user or password.
    let invalid = Atomic<Int>(0)
    /// Credentials checked with bcrypt (not answered by the cache).
    let bcryptChecks = Atomic<Int>(0)
    let rateLimited = Atomic<Int>(0)
    /// Requests refused 429 because the bcrypt queue was full (a flood of new passwords).
    let bcryptShed = Atomic<Int>(0)
    /// Connections whose TLS handshake failed (plain HTTP, no or a bad client certificate).
    let tlsHandshakeFailures = Atomic<Int>(0)
  }

  private let policy: Mutex<Policy>
  private let buckets: Mutex<RateLimitBuckets>
  let cache = CredentialCache()
  let counters = Counters()
  /// nil: the listener is plain HTTP (decided at start).
  let tls: WebTLS?
  /// bcrypt checks of credentials not in the cache, from clients refused lately (`refused`):
  /// one at a time on a thread of its own (exporter-toolkit's `bcryptMtx`) at a lower CPU
  /// priority, so a flood of new passwords costs one core at most and yields to the ticks,
  /// behind a short queue beyond which a guess is refused 429 at once instead of waiting —
  /// scrapes with known credentials never queue here.
  let bcrypt = BoundedWorkQueue(
    name: "bcrypt", threads: 1, queueLimit: bcryptQueueLimit, timeoutSeconds: 10)
  /// The same for clients never refused (a scraper's first check after a restart, an
  /// operator's browser), one check per client at a time: a thread of its own at the normal
  /// priority, so such a check waits neither for the guesses in the other lane nor behind a
  /// busy core at nice 10, and at most for one guess per address before its first refusal.
  let bcryptFirst = BoundedWorkQueue(
    name: "bcrypt first", threads: 1, queueLimit: bcryptQueueLimit, timeoutSeconds: 10,
    niceIncrement: 0)
  /// Who was refused lately: which of the two lanes a client's check takes.
  private let refused = Mutex(RefusedClients(now: WebSecurity.nowSeconds()))
  /// Checks waiting for the bcrypt thread at most: eight checks of cost 10 are about half a
  /// second; a guesser beyond them is told to come back (`Retry-After`).
  static let bcryptQueueLimit = 8

  /// exporter-toolkit's stand-in hash for unknown users (bcrypt of "fakepassword", cost 10),
  /// checked so that an unknown user takes as long as a wrong password: user names cannot be
  /// found by timing.
  static let unknownUserHash = "$2b$10$QOauhQNbBCuQDKes6eFzPeMqBSjb7Mr5DUmpZ/VcEd00UAV/LDeSi"

  public init(_ loaded: Loaded) {
    policy = Mutex(Self.policy(loaded.configuration))
    buckets = Mutex(RateLimitBuckets(loaded.configuration.rateLimit, now: Self.now()))
    if let settings = loaded.configuration.tls, let material = loaded.tlsMaterial {
      tls = WebTLS(settings: settings, material: material)
    } else {
      tls = nil
    }
  }

  /// Reads and checks the web configuration file at `path` ("" for none): its keys
  /// (`WebConfigurationLoader`), then the certificate, key and client CA parsed and matched.
  /// The one check the agent's start, its reload and `check-config` make.
  public static func load(path: String) throws(ConfigurationError) -> Loaded {
    guard !path.isEmpty else { return .none }
    let configuration = try WebConfigurationLoader.load(path: path)
    guard let settings = configuration.tls else {
      return Loaded(configuration: configuration, tlsMaterial: nil)
    }
    let material = try WebTLS.material(settings, file: path, keyLines: configuration.keyLines)
    return Loaded(configuration: configuration, tlsMaterial: material)
  }

  /// Applies a reloaded file: users, headers and the rate limit from the next request, the
  /// certificate and key from the next handshake. Returns whether the file also changed what
  /// the listener was started with (TLS on or off, client certificates, versions, suites),
  /// which waits for a restart.
  public func apply(_ loaded: Loaded, startedWith started: WebConfiguration) -> Bool {
    let new = Self.policy(loaded.configuration)
    // The credential cache is kept (issue 39: emptied by a reload, the scraper's next check
    // queued behind the guessers'): an entry is the digest of user, hash and password, so a
    // user removed or given a new hash no longer matches what was accepted for it.
    policy.withLock { $0 = new }
    // The buckets are kept too, unless the limit changed: a reload does not refill what the
    // guessers drained.
    buckets.withLock { buckets in
      guard buckets.limit != loaded.configuration.rateLimit else { return }
      buckets = RateLimitBuckets(loaded.configuration.rateLimit, now: Self.now())
    }
    if let tls, let material = loaded.tlsMaterial { tls.replaceIdentity(material) }
    return started.listenerSettingsDiffer(from: loaded.configuration)
  }

  var current: Policy { policy.withLock { $0 } }

  /// Whether the rate limit lets a request through now: the request of a user whose
  /// credentials were accepted takes from that user's bucket, any other from the bucket shared
  /// by everything unauthenticated (see `RateLimitBuckets`).
  func admit(user: String? = nil, client: String? = nil) -> Bool {
    let now = Self.now()
    let address = client.flatMap { IPAddress($0) }
    return buckets.withLock { $0.take(user: user, client: address, at: now) }
  }

  /// The outcome of a request's `Authorization` header.
  enum Verdict: Equatable {
    case accepted
    case missing
    case invalid
    /// Refused by the rate limit (429).
    case rateLimited
    /// New credentials while the bcrypt queue is full (429 with `Retry-After`).
    case busy
  }

  /// Checks basic-auth credentials against `users` (every request needs them while a user is
  /// configured) and applies the rate limit: to the user's own bucket once the credentials are
  /// accepted, else to the bucket of the unauthenticated, which a guess pays into before its
  /// bcrypt check. Credentials seen before are answered from the cache; new ones are checked
  /// with bcrypt on its own thread, one at a time, behind a bounded queue shared fairly between
  /// client addresses (`client`, the peer's IP address; see `BoundedWorkQueue`): after a
  /// restart, a scraper's first check waits for one guess at most, not for every guesser's.
  /// A client refused lately is checked in the guessers' lane (`bcrypt`), any other in its
  /// own (`bcryptFirst`).
  func verify(authorization: String?, users: [String: String], client: String? = nil) async
    -> Verdict
  {
    guard !users.isEmpty else { return admit(client: client) ? .accepted : .rateLimited }
    // Each refusal counted once, as what it was answered: a request over the rate limit is
    // a 429, not a missing or wrong credential (issue 39 found 24,052 "missing" against 484
    // real 401s).
    guard let (user, password) = authorization.flatMap(Self.basicCredentials) else {
      guard admit(client: client) else { return .rateLimited }
      counters.missing.add(1, ordering: .relaxed)
      return .missing
    }
    let hash = users[user]
    let checked = hash ?? Self.unknownUserHash
    let digest = CredentialCache.digest(user: user, hash: checked, password: password)
    switch cache.answer(digest) {
    case true?:
      return admit(user: user) ? .accepted : .rateLimited
    case false?:
      guard admit(client: client) else { return .rateLimited }
      counters.invalid.add(1, ordering: .relaxed)
      noteRefused(client)
      return .invalid
    case nil:
      guard admit(client: client) else { return .rateLimited }
      let result: Bool
      do {
        result = try await check(password, hash: checked, client: client)
      } catch .busy {
        counters.bcryptShed.add(1, ordering: .relaxed)
        return .busy
      } catch {
        // Cancelled (the client left) or past the time limit: no answer to keep.
        return .invalid
      }
      counters.bcryptChecks.add(1, ordering: .relaxed)
      // An unknown user is refused whatever bcrypt says of the stand-in hash.
      let accepted = result && hash != nil
      cache.keep(digest, accepted: accepted)
      guard accepted else {
        counters.invalid.add(1, ordering: .relaxed)
        noteRefused(client)
        return .invalid
      }
      return .accepted
    }
  }

  /// bcrypt's verdict on `password`: in the lane of the never refused when `client` was not
  /// refused lately and has no other check there, else in the guessers' lane — and there too
  /// when the first lane is full (guessers from many addresses, each before its first
  /// refusal): the guessers' lane shares its places fairly between clients, so the client
  /// gets one of them.
  private func check(_ password: String, hash: String, client: String?) async throws(WorkFailure)
    -> Bool
  {
    let address = Self.address(client)
    let now = Self.nowSeconds()
    if !refused.withLock({ $0.contains(address, now: now) }) {
      do {
        if let verdict = try await bcryptFirst.runAlone(
          client: client ?? "", { _ in Bcrypt.verify(password, hash: hash) })
        {
          return verdict
        }
      } catch .busy {
        // Full: the guessers' lane below.
      }
    }
    return try await bcrypt.run(client: client) { _ in Bcrypt.verify(password, hash: hash) }
  }

  /// `client`'s next checks go to the guessers' lane.
  private func noteRefused(_ client: String?) {
    let address = Self.address(client)
    let now = Self.nowSeconds()
    refused.withLock { $0.insert(address, now: now) }
  }

  /// A client's address; requests of no known address count as one client, `::`.
  private static func address(_ client: String?) -> IPAddress {
    client.flatMap { IPAddress($0) } ?? IPAddress(high: 0, low: 0)
  }

  /// User and password of an `Authorization: Basic <base64(user:password)>` header (RFC 7617
  /// section 2: the user ends at the first colon), or nil for anything else. A NUL would end
  /// the password early for bcrypt's C code, so credentials holding one are refused.
  static func basicCredentials(_ header: String) -> (user: String, password: String)? {
    let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
    guard parts.count == 2, parts[0].lowercased() == "basic",
      let data = Data(base64Encoded: String(parts[1]).trimmingCharacters(in: .whitespaces)),
      let text = String(data: data, encoding: .utf8), let colon = text.firstIndex(of: ":"),
      !text.contains("\0")
    else { return nil }
    return (String(text[..<colon]), String(text[text.index(after: colon)...]))
  }

  private static func policy(_ configuration: WebConfiguration) -> Policy {
    Policy(
      users: configuration.basicAuthUsers.mapValues(BcryptHash.normalized),
      headers: configuration.headers.sorted { $0.key < $1.key }.compactMap { name, value in
        HTTPField.Name(name).map { ($0, value) }
      },
      rateLimit: configuration.rateLimit)
  }

  /// `now()` in whole seconds, for `RefusedClients`.
  static func nowSeconds() -> Int64 { now().nanosecondsSinceEpoch / 1_000_000_000 }

  /// A monotonic time for the rate limit's buckets.
  static func now() -> CaptureTime {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return CaptureTime(seconds: Int64(time.tv_sec), nanoseconds: Int64(time.tv_nsec))
  }
}

extension WebSecurity {
  /// The web configuration's part of `/metrics`.
  var metricsCollector: WebSecurityCollector {
    return .init(
      tls: tls != nil,
      clientAuth: tls?.settings.clientAuth.rawValue ?? "NoClientCert",
      basicAuth: !current.users.isEmpty,
      missingCredentials: Int64(counters.missing.load(ordering: .relaxed)),
      invalidCredentials: Int64(counters.invalid.load(ordering: .relaxed)),
      bcryptChecks: Int64(counters.bcryptChecks.load(ordering: .relaxed)),
      rateLimited: Int64(counters.rateLimited.load(ordering: .relaxed)),
      bcryptShed: Int64(counters.bcryptShed.load(ordering: .relaxed)),
      tlsHandshakeFailures: Int64(counters.tlsHandshakeFailures.load(ordering: .relaxed)))
  }
}
