import ArgumentParser
import Foundation
import NetQualityCapture
import NetQualityConfig
import NetQualityProbe

struct CheckConfigCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "check-config",
    abstract: "Check an agent configuration file: every error with its key and line.",
    discussion: """
      Beyond the file itself, the capture filter is compiled with libpcap (an error), and the
      interfaces and the dashboard and history directories are looked up on this host (a
      warning: the agent may run on another one). Exits 1 on an error, 0 otherwise.
      """
  )

  @Argument(help: "The YAML configuration file.")
  var file: String

  func run() throws {
    let configuration = try loadConfiguration(file)
    let findings = HostChecks.run(configuration)
    for finding in findings {
      let place = finding.line.map { "line \($0): " } ?? ""
      let text = "\(file): \(place)\(finding.key): \(finding.message)"
      if finding.isError {
        FileHandle.standardError.write(Data("netquality: error: \(text)\n".utf8))
      } else {
        warn(text)
      }
    }
    if findings.contains(where: \.isError) { throw ExitCode(1) }
    let interfaces =
      configuration.interfaces.isEmpty
      ? "all up interfaces" : configuration.interfaces.joined(separator: ", ")
    print(
      "\(file): ok (listen \(configuration.listenHost):\(configuration.listenPort), "
        + "\(interfaces), \(configuration.engine.alertRules.count) alert rules"
        + (findings.isEmpty ? ")" : ", \(findings.count) warning(s))"))
  }
}

/// Reads and validates a configuration file; prints each issue as its own line and exits 1.
func loadConfiguration(_ file: String) throws -> AgentConfiguration {
  do {
    return try ConfigurationLoader.load(path: file)
  } catch {
    for issue in error.issues {
      FileHandle.standardError.write(Data("netquality: error: \(file): \(issue)\n".utf8))
    }
    throw ExitCode(1)
  }
}

/// What a configuration means on the host: the filter compiles (anywhere, so an error), the
/// interfaces exist and the output directories are there and writable (on this host, so a
/// warning: the agent may run elsewhere).
enum HostChecks {
  struct Finding {
    var line: Int?
    var key: String
    var message: String
    var isError: Bool
  }

  static func run(_ configuration: AgentConfiguration) -> [Finding] {
    var findings: [Finding] = []
    func finding(_ key: String, _ message: String, error: Bool) {
      findings.append(
        Finding(line: configuration.keyLines[key], key: key, message: message, isError: error))
    }
    if let problem = CaptureFilter.problem(
      configuration.bpfFilter, snapLength: configuration.snapLength)
    {
      finding(
        "bpf_filter", "'\(configuration.bpfFilter)' does not compile: \(problem)", error: true)
    }
    if let present = try? NetworkInterface.all().map(\.name) {
      let missing = configuration.interfaces.filter { $0 != "any" && !present.contains($0) }
      if !missing.isEmpty {
        finding(
          "interfaces",
          "not on this host: \(missing.joined(separator: ", ")) (interfaces here: "
            + "\(present.joined(separator: ", ")))", error: false)
      }
    }
    if !configuration.dashboardFile.isEmpty && configuration.dashboardFile != "-",
      let problem = directoryProblem(for: configuration.dashboardFile)
    {
      finding("dashboard_file", problem, error: false)
    }
    // The agent makes the history's directory (/var/lib/netquality by default) when it can.
    if let path = configuration.historyPath, let problem = creatableDirectoryProblem(for: path) {
      finding("storage_path", problem, error: false)
    }
    // Key files are read at start: one that cannot be read here would stop the agent here.
    var keyFiles = configuration.probes.enumerated().map {
      ("probes[\($0.offset)].auth_key_file", $0.element.authKeyFile)
    }
    keyFiles.append(("reflector.auth_key_file", configuration.reflector.authKeyFile))
    for (key, path) in keyFiles where !path.isEmpty {
      do {
        _ = try STAMPKeyFile.load(path: path)
      } catch {
        finding(key, error.description, error: false)
      }
    }
    return findings
  }

  /// Why the directory of `path` could neither be found nor made by this user, or nil.
  static func creatableDirectoryProblem(for path: String) -> String? {
    var folder = (path as NSString).deletingLastPathComponent
    if folder.isEmpty { folder = "." }
    var isDirectory: ObjCBool = false
    while !FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory) {
      folder = (folder as NSString).deletingLastPathComponent
      if folder.isEmpty { folder = "." }
    }
    guard isDirectory.boolValue else { return "\(folder) is not a directory" }
    guard access(folder, W_OK) == 0 else {
      return "directory \(folder) is not writable by this user: the history cannot be written "
        + "(run as root or with the service's state directory, or set storage_path)"
    }
    return nil
  }

  /// Why a file could not be created at `path` on this host, or nil.
  static func directoryProblem(for path: String) -> String? {
    let directory = (path as NSString).deletingLastPathComponent
    let folder = directory.isEmpty ? "." : directory
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory) else {
      return "directory \(folder) does not exist on this host"
    }
    guard isDirectory.boolValue else { return "\(folder) is not a directory" }
    guard access(folder, W_OK) == 0 else {
      return "directory \(folder) is not writable by this user"
    }
    return nil
  }
}
