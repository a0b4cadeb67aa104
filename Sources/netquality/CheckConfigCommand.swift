import ArgumentParser
import Foundation
import NetQualityConfig

struct CheckConfigCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "check-config",
    abstract: "Check an agent configuration file: every error with its key and line."
  )

  @Argument(help: "The YAML configuration file.")
  var file: String

  func run() throws {
    let configuration = try loadConfiguration(file)
    print(
      "\(file): ok (listen \(configuration.listenHost):\(configuration.listenPort), "
        + "\(configuration.interfaces.isEmpty ? "all up interfaces" : configuration.interfaces.joined(separator: ", ")), "
        + "\(configuration.engine.alertRules.count) alert rules)")
  }
}

/// Reads and validates a configuration file; prints each issue as its own line and exits 1.
func loadConfiguration(_ file: String) throws -> AgentConfiguration {
  guard let handle = fopen(file, "r") else {
    throw fail("cannot read \(file): \(String(cString: strerror(errno)))")
  }
  fclose(handle)
  guard let data = FileManager.default.contents(atPath: file),
    let text = String(data: data, encoding: .utf8)
  else {
    throw fail("cannot read \(file): not a UTF-8 text file")
  }
  do {
    return try ConfigurationLoader.load(yaml: text, file: file)
  } catch {
    for issue in error.issues {
      FileHandle.standardError.write(Data("netquality: error: \(file): \(issue)\n".utf8))
    }
    throw ExitCode(1)
  }
}
