import Crypto
import Foundation
import Synchronization

/// Basic-auth answers already worked out: bcrypt costs 50 to 300 ms a check (cost 10 to 12),
/// and Prometheus sends the same credentials every scrape, so each (user, hash, password) is
/// checked with bcrypt once and its answer kept, right or wrong, as exporter-toolkit's
/// `web/cache.go` does (100 entries, a tenth evicted at random when full).
///
/// Unlike exporter-toolkit it holds no password: an entry is the SHA-256 of the three, and a
/// lookup compares the request's digest with every entry in constant time (no early exit, no
/// hash table), so neither a password nor how much of it matched shows in the time taken.
final class CredentialCache: Sendable {
  /// exporter-toolkit's `cacheSize`.
  static let capacity = 100

  private struct Entry {
    var digest: SHA256Digest
    var accepted: Bool
  }

  private let entries = Mutex<[Entry]>([])

  /// The key of a user, the hash configured for it and a password.
  static func digest(user: String, hash: String, password: String) -> SHA256Digest {
    var hasher = SHA256()
    for part in [user, hash, password] {
      // Lengths first, so ("ab", "c") and ("a", "bc") differ.
      withUnsafeBytes(of: UInt64(part.utf8.count).bigEndian) { hasher.update(bufferPointer: $0) }
      hasher.update(data: Array(part.utf8))
    }
    return hasher.finalize()
  }

  /// The kept answer for `digest`, or nil when bcrypt must decide.
  func answer(_ digest: SHA256Digest) -> Bool? {
    entries.withLock { entries in
      var found: Bool?
      for entry in entries where Self.equal(entry.digest, digest) {
        found = entry.accepted
      }
      return found
    }
  }

  func keep(_ digest: SHA256Digest, accepted: Bool) {
    entries.withLock { entries in
      if entries.count >= Self.capacity {
        for _ in 0..<max(1, entries.count / 10) {
          entries.remove(at: Int.random(in: entries.indices))
        }
      }
      entries.append(Entry(digest: digest, accepted: accepted))
    }
  }

  /// Drops every answer (a reload changed the users).
  func removeAll() {
    entries.withLock { $0.removeAll() }
  }

  var count: Int { entries.withLock { $0.count } }

  /// Equal digests, in time that does not depend on where they differ.
  static func equal(_ a: SHA256Digest, _ b: SHA256Digest) -> Bool {
    var difference: UInt8 = 0
    a.withUnsafeBytes { a in
      b.withUnsafeBytes { b in
        for index in 0..<min(a.count, b.count) { difference |= a[index] ^ b[index] }
      }
    }
    return difference == 0
  }
}
