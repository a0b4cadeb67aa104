import Foundation

/// Writes the stats JSON so a reader never sees half a file: the whole document goes to
/// `PATH.tmp`, which is then renamed over `PATH` (rename is atomic within one file system).
struct StatsWriter {
  let path: String
  private let encoder: JSONEncoder

  init(path: String) {
    self.path = path
    encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
  }

  func write(_ report: RelayReport) throws(RelayError) {
    let temporaryPath = path + ".tmp"
    let document: Data
    do {
      document = try encoder.encode(report) + Data("\n".utf8)
    } catch {
      throw RelayError("cannot encode the stats: \(error)")
    }
    guard FileManager.default.createFile(atPath: temporaryPath, contents: document) else {
      throw RelayError("cannot write the stats to \(temporaryPath)")
    }
    guard rename(temporaryPath, path) == 0 else {
      throw .system("cannot rename \(temporaryPath) to \(path)")
    }
  }
}
