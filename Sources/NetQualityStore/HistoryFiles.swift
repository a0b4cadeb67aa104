import Foundation

/// The history's files as the writer opened them — the database, its WAL and the WAL's
/// shared-memory index — told apart by device and inode, so that one deleted or replaced under
/// the running agent is noticed before the next tick goes into it.
///
/// SQLite keeps descriptors of all three open and never looks at their names again. Deleted
/// (`rm history.db-wal history.db-shm`), the WAL and the index live on unlinked: the writer
/// goes on committing into a WAL no one else can see — another process reads the database
/// without it ("no such table" on a new file), this process's readers share the writer's
/// unlinked index but open a new, empty WAL by name and fail with "disk I/O error" — and at
/// exit the unlinked WAL, every tick since the last checkpoint, is gone
/// (https://www.sqlite.org/howtocorrupt.html, "Deleting a hot journal" and "Unlinking or
/// renaming a database file while in use"). Measured with SQLite 3.40.1 before this check: the
/// agent's storage stayed healthy and a fresh file held nothing of the run at exit.
///
/// A descriptor held open keeps its inode alive, so no new file at the path can have the
/// inode of the one the writer holds: comparing the path's inode with the one recorded at open
/// is exact, three `stat` calls a tick.
///
/// A file overwritten in place (`cp backup.db history.db` keeps the inode) is told by its
/// modification time and size (`stat`'s `st_mtim`, `st_size`; not the status-change time,
/// which a `chmod` or `chown` moves too), recorded after each of the writer's own checkpoints
/// (`restamp`): in WAL mode only checkpoints write the database file, the writer runs its own
/// between transactions (`HistoryCheckpoints`), and read-only connections never do
/// (https://www.sqlite.org/wal.html, "Checkpointing"). Issue 39: a backup copied over the running agent's file had its rows
/// overwritten by the writer's WAL.
struct HistoryFiles: Equatable {
  struct Identity: Equatable {
    var device: UInt64
    var inode: UInt64
  }

  /// What changes when anything writes the database file.
  struct Stamp: Equatable {
    var modifiedSeconds: Int
    var modifiedNanoseconds: Int
    var size: Int64
  }

  /// The database file's companions while it is open in WAL mode
  /// (https://www.sqlite.org/walformat.html, "Files On Disk").
  static let walSuffix = "-wal"
  static let indexSuffix = "-shm"

  let path: String
  let database: Identity
  let wal: Identity
  let index: Identity
  /// The database file as the writer last left it.
  private(set) var databaseStamp: Stamp?

  /// The files now at `path` and its companions, right after the writer opened them (a
  /// migrated database in WAL mode has all three); throws when one is missing already.
  init(path: String) throws(HistoryFilesChanged) {
    var missing: [String] = []
    func identity(_ suffix: String) -> Identity {
      guard let found = Self.identity(of: path + suffix) else {
        missing.append(suffix)
        return Identity(device: 0, inode: 0)
      }
      return found
    }
    self.path = path
    database = identity("")
    wal = identity(Self.walSuffix)
    index = identity(Self.indexSuffix)
    guard missing.isEmpty else {
      throw HistoryFilesChanged(
        path: path, changes: missing.map { ($0, .deleted) }, databaseKept: !missing.contains(""))
    }
    databaseStamp = Self.stamp(of: path)
  }

  /// Records the database file as the writer's checkpoint just left it.
  mutating func restamp() {
    databaseStamp = Self.stamp(of: path)
  }

  /// What no longer stands at the paths as it was opened, or nil when all three are the same.
  func changes() -> HistoryFilesChanged? {
    var changes: [(suffix: String, change: HistoryFilesChanged.Change)] = []
    for (suffix, opened) in [("", database), (Self.walSuffix, wal), (Self.indexSuffix, index)] {
      guard let now = Self.identity(of: path + suffix) else {
        changes.append((suffix, .deleted))
        continue
      }
      if now != opened {
        changes.append((suffix, .replaced))
      } else if suffix.isEmpty, let databaseStamp, Self.stamp(of: path) != databaseStamp {
        changes.append((suffix, .overwritten))
      }
    }
    guard !changes.isEmpty else { return nil }
    return HistoryFilesChanged(
      path: path, changes: changes, databaseKept: !changes.contains { $0.suffix.isEmpty })
  }

  /// Whether the file at `path` + `suffix` is still the one the writer opened.
  func stillOpened(_ suffix: String) -> Bool {
    let opened = suffix == Self.walSuffix ? wal : suffix == Self.indexSuffix ? index : database
    return Self.identity(of: path + suffix) == opened
  }

  /// Whether the WAL now at the path holds nothing: missing, or empty as a reader leaves the
  /// one it makes (only a writer writes a WAL's header and frames).
  func walAtPathIsEmpty() -> Bool {
    var info = stat()
    guard stat(path + Self.walSuffix, &info) == 0 else { return true }
    return info.st_size == 0
  }

  /// The history's files this process still has open although they were deleted or replaced
  /// (Linux's `/proc/self/fd` names such a file "PATH (deleted)"), by suffix. SQLite shares
  /// one shared-memory index between all the connections of a process to one database file:
  /// while a reader of this process holds the unlinked one, a new writer connection joins it
  /// instead of the file at the path, and must be let go again until the reader has closed.
  /// Empty where `/proc` cannot be read.
  static func deletedButOpen(path: String) -> [String] {
    let name = (path as NSString).lastPathComponent
    var directory = (path as NSString).deletingLastPathComponent
    if directory.isEmpty { directory = "." }
    // The kernel names an open file by its resolved path; SQLite opens the resolved path too.
    guard let resolved = realpath(directory, nil) else { return [] }
    let base = String(cString: resolved) + "/" + name
    free(resolved)
    guard let descriptors = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")
    else { return [] }
    var found: [String] = []
    for descriptor in descriptors {
      guard
        let target = try? FileManager.default.destinationOfSymbolicLink(
          atPath: "/proc/self/fd/" + descriptor)
      else { continue }
      for suffix in ["", walSuffix, indexSuffix]
      where target == base + suffix + " (deleted)" && !found.contains(suffix) {
        found.append(suffix)
      }
    }
    return found
  }

  private static func stamp(of path: String) -> Stamp? {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    return Stamp(
      modifiedSeconds: info.st_mtim.tv_sec, modifiedNanoseconds: info.st_mtim.tv_nsec,
      size: Int64(info.st_size))
  }

  private static func identity(of path: String) -> Identity? {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    return Identity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
  }
}

/// The history's files were deleted or replaced while the writer had them open: a storage
/// fault of kind `io`, after which the writer lets the connection go and opens the path anew.
struct HistoryFilesChanged: Error, CustomStringConvertible {
  enum Change: String {
    case deleted
    case replaced
    /// Written by someone else in place (the same inode, another modification time or size).
    case overwritten = "overwritten in place"
    /// Deleted or replaced, and still open in this process after the writer let it go.
    case stillOpen = "still open"
  }

  var path: String
  /// By suffix: "" for the database file, "-wal", "-shm".
  var changes: [(suffix: String, change: Change)]
  /// The database file at the path is still the one open (only its companions changed).
  var databaseKept: Bool

  var description: String {
    let name = (path as NSString).lastPathComponent
    let names = changes.map { name + $0.suffix }
    guard let last = names.last, let kind = changes.first?.change.rawValue else {
      return "\(name) changed while the agent had it open"
    }
    let listed = names.count == 1 ? last : names.dropLast().joined(separator: ", ") + " and " + last
    let what =
      changes.allSatisfy { $0.change.rawValue == kind } ? kind : "deleted or replaced"
    let them = names.count == 1 ? "it" : "them"
    if changes.contains(where: { $0.change == .stillOpen }) {
      return "\(listed) deleted, and a reader of the history in this process still holds \(them)"
    }
    return "\(listed) \(what) while the agent had \(them) open"
  }
}
