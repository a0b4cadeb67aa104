import Foundation
import GRDB

/// What went wrong with the history file, sorted into the faults ops can act on, each with
/// one line that says what to do.
public struct HistoryFault: Sendable, Equatable {
  public enum Kind: String, Sendable, CaseIterable {
    case diskFull = "disk_full"
    case readOnly = "read_only"
    case locked
    case corrupt
    case io
    case other
  }

  public var kind: Kind
  public var message: String

  public init(kind: Kind, message: String) {
    self.kind = kind
    self.message = message
  }

  /// Sorts an error thrown by SQLite (through GRDB) or by the file system.
  public init(_ error: any Error) {
    if let database = error as? DatabaseError {
      let detail = database.message ?? "\(database.resultCode)"
      switch database.resultCode {
      case .SQLITE_FULL:
        self.init(kind: .diskFull, message: "disk full: \(detail)")
      case .SQLITE_READONLY, .SQLITE_CANTOPEN, .SQLITE_PERM, .SQLITE_AUTH:
        self.init(kind: .readOnly, message: "cannot write the file: \(detail)")
      case .SQLITE_BUSY, .SQLITE_LOCKED:
        self.init(kind: .locked, message: "locked by another process: \(detail)")
      case .SQLITE_CORRUPT, .SQLITE_NOTADB:
        self.init(kind: .corrupt, message: "not a valid SQLite database: \(detail)")
      case .SQLITE_IOERR:
        self.init(kind: .io, message: "I/O error: \(detail)")
      default:
        self.init(kind: .other, message: detail)
      }
    } else if let changed = error as? HistoryFilesChanged {
      self.init(kind: .io, message: changed.description)
    } else if let cocoa = error as? CocoaError {
      let kind: Kind = cocoa.code == .fileWriteOutOfSpace ? .diskFull : .readOnly
      self.init(kind: kind, message: cocoa.localizedDescription)
    } else {
      self.init(kind: .other, message: "\(error)")
    }
  }
}
