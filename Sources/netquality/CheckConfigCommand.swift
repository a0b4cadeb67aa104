import ArgumentParser
import Foundation
import NetQualityAgent
import NetQualityCapture
import NetQualityConfig
import NetQualityExport
import NetQualityProbe
import NetQualityStore

struct CheckConfigCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "check-config",
    abstract: "Check an agent configuration file: every error with its key and line.",
    discussion: """
      Beyond the file itself, the capture filter is compiled with libpcap (an error), the web \
      configuration file it names is checked with its certificate and key (an error), and the \
      interfaces and the dashboard and history directories are looked up on this host (a \
      warning: the agent may run on another one). Exits 1 on an error, 0 otherwise.

      With --prometheus-rules it checks the file alone and prints, instead of its verdict,
      the Prometheus alerting rules that forward the agent's alerts of this configuration
      under the agent's own alert names (the built-in rules, alerts.rules, storage_failing),
      with the labels the agent pushes to Alertmanager: the same alert either way
      (docs/alertmanager.md). config/rules/netquality-agent-alerts.yml is the output for the
      built-in rules.
      """
  )

  @Argument(help: "The YAML configuration file (optional with --web.config.file).")
  var file: String?

  @Option(
    name: .customLong("web.config.file"),
    help: ArgumentHelp(
      "A web configuration file to check (instead of the file's web_config_file).",
      valueName: "FILE"))
  var webConfigFile: String?

  @Flag(
    name: .customLong("prometheus-rules"),
    help: "Print the Prometheus rules forwarding this configuration's alerts (a rules file).")
  var prometheusRules = false

  func run() throws {
    if prometheusRules {
      guard let file else { throw fail("--prometheus-rules needs a configuration file", code: 2) }
      let configuration = try loadConfiguration(file)
      let webFile = webConfigFile ?? configuration.webConfigFile
      let tls = webFile.isEmpty ? false : try loadWebConfiguration(webFile).configuration.tls != nil
      print(
        AgentAlertRules.yaml(
          rules: configuration.engine.alertRules,
          tickIntervalSeconds: configuration.engine.tickIntervalSeconds,
          runbookURL: AgentAlertRules.rulesRunbookURL(
            configured: configuration.alertRunbookURL, scheme: tls ? "https" : "http")),
        terminator: "")
      return
    }
    guard let file else {
      guard let webConfigFile else {
        throw fail(
          "name a configuration file, or a web configuration file with --web.config.file", code: 2)
      }
      let web = try loadWebConfiguration(webConfigFile)
      print("\(webConfigFile): ok (\(Self.summary(web.configuration)))")
      return
    }
    // Every problem of the file in one pass, in line order: the YAML's and the keys' issues
    // and the host's findings (the capture filter compiled) on what could be read.
    let (configuration, error) = ConfigurationLoader.loadPartially(path: file)
    let findings = Self.ordered(
      (error?.issues ?? []).map {
        HostChecks.Finding(line: $0.line, key: $0.key, message: $0.message, isError: true)
      }
        // A file that could not be read whole is checked on the host for what it says only,
        // not for the defaults standing in for the rest.
        + HostChecks.run(configuration).filter {
          error == nil || configuration.keyLines[$0.key] != nil
        })
    for finding in findings {
      let place = finding.line.map { "line \($0): " } ?? ""
      let text =
        "\(file): \(place)\(finding.key)\(finding.key.isEmpty ? "" : ": ")"
        + finding.message
      if finding.isError {
        FileHandle.standardError.write(
          Data("netquality: error: \(TerminalText.sanitized(text))\n".utf8))
      } else {
        warn(text)
      }
    }
    if findings.contains(where: \.isError) { throw ExitCode(1) }
    let webFile = webConfigFile ?? configuration.webConfigFile
    let web = try loadWebConfiguration(webFile)
    let interfaces =
      configuration.interfaces.isEmpty
      ? "all up interfaces"
      : configuration.interfaces.map(TerminalText.sanitized).joined(separator: ", ")
    let scheme = web.configuration.tls == nil ? "" : "https "
    print(
      "\(file): ok (listen \(scheme)\(configuration.listenHost):\(configuration.listenPort), "
        + "\(interfaces), \(configuration.engine.alertRules.count) alert rules"
        + (webFile.isEmpty ? "" : ", \(webFile): \(Self.summary(web.configuration))")
        + (findings.isEmpty ? ")" : ", \(findings.count) warning(s))"))
  }

  /// By line (those without one first), each line's in the order found.
  static func ordered(_ findings: [HostChecks.Finding]) -> [HostChecks.Finding] {
    findings.enumerated().sorted {
      ($0.element.line ?? 0, $0.offset) < ($1.element.line ?? 0, $1.offset)
    }.map(\.element)
  }

  /// "TLS (RequireAndVerifyClientCert), 2 basic auth users, 1 header".
  static func summary(_ web: WebConfiguration) -> String {
    var parts: [String] = []
    if let tls = web.tls {
      parts.append(tls.clientAuth == .noClientCert ? "TLS" : "TLS (\(tls.clientAuth.rawValue))")
    } else {
      parts.append("plain HTTP")
    }
    let users = web.basicAuthUsers.count
    parts.append(users == 0 ? "no basic auth" : "\(users) basic auth user\(users == 1 ? "" : "s")")
    if !web.headers.isEmpty {
      parts.append("\(web.headers.count) header\(web.headers.count == 1 ? "" : "s")")
    }
    if let limit = web.rateLimit {
      parts.append("rate limit 1 per \(limit.intervalSeconds) s, burst \(limit.burst)")
    }
    return parts.joined(separator: ", ")
  }
}

/// Reads and validates a configuration file; prints each issue as its own line and exits 1.
func loadConfiguration(_ file: String) throws -> AgentConfiguration {
  do {
    return try ConfigurationLoader.load(path: file)
  } catch {
    throw report(error)
  }
}

/// Reads and checks a web configuration file ("" for none), its certificate and key
/// included; prints each issue as its own line and exits 1.
func loadWebConfiguration(_ file: String) throws -> WebSecurity.Loaded {
  do {
    return try WebSecurity.load(path: file)
  } catch {
    throw report(error)
  }
}

/// Each issue of `error` on a line of its own (`netquality: error: FILE: line N: key: ...`).
private func report(_ error: ConfigurationError) -> ExitCode {
  // An issue quotes the file's own text: shown escaped, one line each.
  for issue in error.issues {
    let line = TerminalText.sanitized("\(error.file): \(issue)")
    FileHandle.standardError.write(Data("netquality: error: \(line)\n".utf8))
  }
  return ExitCode(1)
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
    // A link at the history's path stops the agent's start: an error here too.
    if let path = configuration.historyPath,
      let problem = HistoryDatabase.symbolicLinkProblem(path: path)
    {
      finding("storage_path", problem, error: true)
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
