import Crypto
import Foundation
import Synchronization

/// Basic-auth answers already worked out: bcrypt costs 50 to 300 ms a check (cost 10 to 12),
/// and Prometheus sends the same credentials every scrape, so each (user, hash, password) is
/// checked with bcrypt once and its answer kept, as exporter-toolkit's `web/cache.go` does.
///
/// Unlike exporter-toolkit, accepted and refused answers are kept apart, each up to `capacity`:
/// a flood of wrong passwords fills and churns only the refused ones, so it can never push the
/// scraper's accepted credentials out and put its next scrape behind the guessers' bcrypt
/// checks (issue 31: 200 guessers evicted them within 20 s in one shared table of 100). The
/// accepted ones are only ever pushed out by other accepted ones, least recently used first.
///
/// A reload keeps both (issue 39): a user removed or given a new hash no longer matches the
/// digests kept for it, so nothing kept outlives what it was worked out from.
///
/// No password is held: an entry is the SHA-256 of the three, and a lookup compares the
/// request's digest with every entry of both in constant time (no early exit, no hash table),
/// so neither a password nor how much of it matched shows in the time taken.
final class CredentialCache: Sendable {
  /// exporter-toolkit's `cacheSize`, for each of the two.
  static let capacity = 100

  private struct Entries {
    /// Accepted, least recently used first.
    var accepted: [SHA256Digest] = []
    var refused: [SHA256Digest] = []
  }

  private let entries = Mutex(Entries())

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
      var acceptedAt: Int?
      var refused = false
      for (index, entry) in entries.accepted.enumerated() where Self.equal(entry, digest) {
        acceptedAt = index
      }
      for entry in entries.refused where Self.equal(entry, digest) { refused = true }
      if let index = acceptedAt {
        // Most recently used last.
        entries.accepted.append(entries.accepted.remove(at: index))
        return true
      }
      return refused ? false : nil
    }
  }

  func keep(_ digest: SHA256Digest, accepted: Bool) {
    entries.withLock { entries in
      if accepted {
        if entries.accepted.count >= Self.capacity { entries.accepted.removeFirst() }
        entries.accepted.append(digest)
      } else {
        if entries.refused.count >= Self.capacity {
          for _ in 0..<max(1, entries.refused.count / 10) {
            entries.refused.remove(at: Int.random(in: entries.refused.indices))
          }
        }
        entries.refused.append(digest)
      }
    }
  }

  var count: Int { entries.withLock { $0.accepted.count + $0.refused.count } }
  var acceptedCount: Int { entries.withLock { $0.accepted.count } }

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
