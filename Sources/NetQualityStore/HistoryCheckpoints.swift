import GRDB
import GRDBSQLite

/// The agent's history writer checkpoints its WAL itself, never inside a commit.
///
/// SQLite's automatic checkpoint runs within the commit that takes the WAL past 1,000 frames
/// (https://www.sqlite.org/pragma.html#pragma_wal_autocheckpoint) and writes the database file
/// there. The writer tells its own writes to the file from anyone else's by the file's
/// modification time and size, restamped after it wrote (`HistoryFiles`); with the checkpoint
/// inside any commit it had to restamp after every transaction, and a backup copied over the
/// file while a tick was being written was taken into that stamp as the writer's own, never
/// noticed (a clean-clone CI run, e2e/history/history-faults.sh, scenario 6).
///
/// Here a commit only learns the WAL's length (`sqlite3_wal_hook`, which takes the place of
/// the automatic checkpoint: https://www.sqlite.org/c3ref/wal_hook.html), the writer's commits
/// never touch the database file (https://www.sqlite.org/wal.html, "Checkpointing"), and the
/// writer runs the checkpoint once the WAL is as long as the automatic one would let it grow:
/// right after it checked the files, restamping when the checkpoint is done. Only a copy landing
/// during that checkpoint (every thousand frames or so) can still pass for the writer's own.
final class HistoryCheckpoints {
  /// The automatic checkpoint's length (SQLITE_DEFAULT_WAL_AUTOCHECKPOINT, the pragma's
  /// default).
  static let framesBeforeCheckpoint: Int32 = 1000

  private let database: DatabaseQueue
  /// The WAL's frames after the last commit, as SQLite told the hook (the writer's thread).
  private(set) var walFrames: Int32 = 0

  /// Takes over the checkpoints of `database`'s connection.
  init(of database: DatabaseQueue) throws {
    self.database = database
    // Unretained: the hook is removed in `deinit`, and this object holds the queue, so the
    // connection never outlives the pointer it was given.
    let context = Unmanaged.passUnretained(self).toOpaque()
    try database.writeWithoutTransaction { db in
      guard let connection = db.sqliteConnection else {
        throw DatabaseError(
          resultCode: .SQLITE_MISUSE, message: "the history's connection is closed")
      }
      _ = sqlite3_wal_hook(
        connection,
        { context, _, _, frames in
          guard let context else { return SQLITE_OK }
          Unmanaged<HistoryCheckpoints>.fromOpaque(context).takeUnretainedValue().walFrames =
            frames
          return SQLITE_OK
        }, context)
    }
  }

  deinit {
    // A closed queue has no connection any more, and the hook went with it.
    try? database.writeWithoutTransaction { db in
      guard let connection = db.sqliteConnection else { return }
      _ = sqlite3_wal_hook(connection, nil, nil)
    }
  }

  /// Whether the WAL is as long as the automatic checkpoint would have let it grow.
  var isDue: Bool { walFrames >= Self.framesBeforeCheckpoint }

  /// Copies the WAL's frames into the database file as far as no reader still needs them
  /// (PASSIVE, as the automatic checkpoint does); still due while frames are left.
  func run() throws {
    let (frames, checkpointed) = try database.writeWithoutTransaction { db in
      try db.checkpoint(.passive)
    }
    walFrames = checkpointed >= frames ? 0 : Int32(clamping: frames)
  }
}
