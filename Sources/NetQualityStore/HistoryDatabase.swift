import Foundation
import GRDB

/// Opening the history file: for writing (created if missing, migrated to the current schema,
/// WAL) or for reading while an agent writes it (WAL readers see the last committed tick).
public enum HistoryDatabase {
  /// How long a statement waits for another process's lock before it fails with "locked":
  /// long enough for a reader's checkpoint, short enough that the writer's queue does not
  /// fill behind it (a tick every 2 s).
  static let busyTimeoutSeconds = 1.0

  /// Opens `path` for writing: the directory is created, the schema migrated, WAL mode set
  /// with `synchronous = NORMAL` (a commit is durable across a crash of the process, which is
  /// what SIGKILL is; only a power loss may take the last transactions, never consistency:
  /// https://www.sqlite.org/wal.html, "synchronous").
  public static func openForWriting(path: String) throws -> DatabaseQueue {
    let directory = (path as NSString).deletingLastPathComponent
    if !directory.isEmpty {
      try FileManager.default.createDirectory(
        atPath: directory, withIntermediateDirectories: true)
    }
    var configuration = Configuration()
    configuration.journalMode = .wal
    configuration.busyMode = .timeout(busyTimeoutSeconds)
    configuration.label = "netquality-history"
    configuration.prepareDatabase { db in
      try db.execute(sql: "PRAGMA synchronous = NORMAL")
    }
    let queue = try DatabaseQueue(path: path, configuration: configuration)
    try HistorySchema.migrator.migrate(queue)
    return queue
  }

  /// Why the agent refuses to write the history at `path`, or nil: the database file, or its
  /// WAL, shared-memory index or rollback journal, is a symbolic link. The agent runs as root,
  /// and SQLite follows a link in a database name (only `SQLITE_OPEN_NOFOLLOW` refuses one,
  /// https://www.sqlite.org/c3ref/c_open_autoproxy.html, and GRDB passes no open flags), so a
  /// link there would have it create and write a file wherever the link points. A link among
  /// the directories above is followed only when no one but root (or the agent's own user)
  /// could have placed it: the link and the directory holding it owned by one of them, and
  /// that directory writable by its owner alone (`directoryLinkProblem`): `/var/lib/netquality`
  /// linked to another disk by root is common; a link in a directory another user can write
  /// would let that user send root's writes anywhere (issue 39). Looked at before each open
  /// (the directories are then root's own; whoever can swap a link in between the look and the
  /// open can write there anyway).
  public static func symbolicLinkProblem(path: String) -> String? {
    if let problem = directoryLinkProblem(path: path) { return problem }
    for suffix in ["", HistoryFiles.walSuffix, HistoryFiles.indexSuffix, "-journal"] {
      let name = path + suffix
      var info = stat()
      guard lstat(name, &info) == 0, info.st_mode & S_IFMT == S_IFLNK else { continue }
      let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: name)) ?? "?"
      return suffix.isEmpty
        ? "\(name) is a symbolic link (to \(target)): the history is never written through a "
          + "link; give the file's own path in storage_path"
        : "\(name) is a symbolic link (to \(target)): the history is never written through a "
          + "link; remove it"
    }
    return nil
  }

  /// Why a directory above `path` may not be gone through, or nil: a symbolic link that
  /// someone other than root or this process's user could have placed — the link or the
  /// directory holding it owned by another user, or that directory writable by its group or
  /// others (the rule of systemd's "unsafe path transition" and OpenSSH's `StrictModes`).
  static func directoryLinkProblem(path: String) -> String? {
    let absolute =
      path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
    let components = absolute.split(separator: "/").map(String.init)
    var prefix = ""
    // Every directory above the file (the file itself is `symbolicLinkProblem`'s).
    for component in components.dropLast() {
      let parent = prefix.isEmpty ? "/" : prefix
      prefix += "/" + component
      var link = stat()
      guard lstat(prefix, &link) == 0, link.st_mode & S_IFMT == S_IFLNK else { continue }
      var holder = stat()
      guard stat(parent, &holder) == 0 else { continue }
      let trusted: Set<uid_t> = [0, geteuid()]
      let others = holder.st_mode & (S_IWGRP | S_IWOTH) != 0
      guard !trusted.contains(link.st_uid) || !trusted.contains(holder.st_uid) || others else {
        continue
      }
      let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: prefix)) ?? "?"
      let who =
        others
        ? "\(parent) is writable by its group or others"
        : "it or \(parent) is owned by another user (uid \(trusted.contains(link.st_uid) ? holder.st_uid : link.st_uid))"
      return "\(prefix) is a symbolic link (to \(target)) and \(who): the history is never "
        + "written through a link someone else could have placed; give the real directory in "
        + "storage_path"
    }
    return nil
  }

  /// Opens `path` read-only; fails with a one-line reason when it is missing or not a history.
  public static func openForReading(path: String) throws(HistoryError) -> DatabaseQueue {
    guard FileManager.default.fileExists(atPath: path) else {
      throw HistoryError("\(path): no such history database")
    }
    var configuration = Configuration()
    configuration.readonly = true
    configuration.busyMode = .timeout(busyTimeoutSeconds)
    let queue: DatabaseQueue
    do {
      queue = try DatabaseQueue(path: path, configuration: configuration)
      let applied = try queue.read { db in try HistorySchema.migrator.appliedIdentifiers(db) }
      guard applied.contains(HistorySchema.currentVersion) else {
        throw HistoryError(
          "\(path): not a netquality history of this version (open it once with the agent "
            + "or `analyze --db` to upgrade it)")
      }
    } catch let error as HistoryError {
      throw error
    } catch {
      throw HistoryError("\(path): \(HistoryFault(error).message)")
    }
    return queue
  }
}

/// A one-line failure of the history for people (command line, API).
public struct HistoryError: Error, CustomStringConvertible, Sendable {
  public let description: String

  public init(_ description: String) {
    self.description = description
  }
}
