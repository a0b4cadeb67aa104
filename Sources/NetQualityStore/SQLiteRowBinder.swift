import GRDB
import GRDBSQLite

/// One row's values bound straight to a prepared SQLite statement, and the statement run.
///
/// GRDB's `StatementArguments` boxes every value as an existential in an array: for the 36
/// columns of a `peer_ticks` row that was two thirds of the history writer's time at 130,000
/// peers a tick (perf, issue 37), where SQLite's own work was a tenth. The statement is still
/// GRDB's (prepared once, cached and finalised with its connection) and runs within GRDB's
/// transaction; only the binding and the step are SQLite's C API
/// (https://www.sqlite.org/c3ref/bind_blob.html, https://www.sqlite.org/c3ref/step.html).
struct SQLiteRowBinder {
  /// GRDB's statement, for its SQL in an error (`Statement.sql` trims it at every call: read
  /// only when a step fails).
  private let prepared: Statement
  private let statement: SQLiteStatement
  private let connection: SQLiteConnection?
  /// The 1-based position of the next parameter.
  private var position: Int32 = 1

  /// Binds into `statement` (a statement of `db`), from its first parameter.
  init(_ statement: Statement, of db: Database) {
    prepared = statement
    self.statement = statement.sqliteStatement
    connection = db.sqliteConnection
    sqlite3_reset(self.statement)
  }

  mutating func bind(_ value: Double?) {
    if let value { sqlite3_bind_double(statement, position, value) } else { null() }
    position += 1
  }

  mutating func bind(_ value: Int64?) {
    if let value { sqlite3_bind_int64(statement, position, value) } else { null() }
    position += 1
  }

  mutating func bind(_ value: Int?) { bind(value.map(Int64.init)) }

  private func null() { sqlite3_bind_null(statement, position) }

  /// Runs the statement once with the values bound (every parameter must have been), and
  /// resets it; SQLite's error, as GRDB would have thrown it, when the step fails.
  func execute() throws {
    assert(position - 1 == sqlite3_bind_parameter_count(statement), "every parameter bound")
    let code = sqlite3_step(statement)
    guard code == SQLITE_DONE else {
      let message = connection.map { String(cString: sqlite3_errmsg($0)) }
      sqlite3_reset(statement)
      throw DatabaseError(
        resultCode: ResultCode(rawValue: code), message: message, sql: prepared.sql)
    }
    sqlite3_reset(statement)
  }
}
