import Foundation
import NetQualityCore
import Yams

/// Reads the agent's YAML configuration: defaults for every missing key, and for each wrong
/// key, type or value an issue with its line, all collected before failing.
///
/// Yams' `Decodable` path stops at the first error and loses line numbers for unknown keys, so
/// the node tree (which carries marks) is walked here instead.
public enum ConfigurationLoader {
  /// Reads and loads the file at `path`: the one way the agent (at start and on reload) and
  /// `check-config` read a configuration. A file that cannot be read, or is not UTF-8 text
  /// (the line of the first bad byte is given), is an issue like any other.
  public static func load(path: String) throws(ConfigurationError) -> AgentConfiguration {
    try load(yaml: text(path: path), file: path)
  }

  /// The text of the file at `path`: one that cannot be read, is not a regular file, is
  /// larger than `BoundedFileReader.maximumConfigurationBytes` or is not UTF-8 (the line of
  /// the first bad byte is given) is an issue. Shared by the agent's file and the web
  /// configuration file.
  static func text(path: String) throws(ConfigurationError) -> String {
    let bytes: [UInt8]
    do {
      bytes = try BoundedFileReader.read(path: path)
    } catch {
      throw ConfigurationError(
        file: path, issues: [.init(line: nil, key: "", message: "cannot read: \(error)")])
    }
    guard let text = String(validating: bytes, as: UTF8.self) else {
      // The first line that is not valid UTF-8 on its own.
      var line = 1
      for piece in bytes.split(separator: 0x0A, omittingEmptySubsequences: false) {
        if String(validating: piece, as: UTF8.self) == nil { break }
        line += 1
      }
      throw ConfigurationError(
        file: path, issues: [.init(line: line, key: "", message: "not UTF-8 text")])
    }
    return text
  }

  public static func load(yaml text: String, file: String) throws(ConfigurationError)
    -> AgentConfiguration
  {
    let (configuration, error) = loadPartially(yaml: text, file: file)
    if let error { throw error }
    return configuration
  }

  /// `check-config`'s reading of a file: the configuration as far as it could be read (a
  /// wrong key left at its default) beside every issue, so the checks on the host (the
  /// capture filter compiled) join the same report instead of waiting for a clean file.
  public static func loadPartially(path: String) -> (
    configuration: AgentConfiguration, error: ConfigurationError?
  ) {
    do {
      return loadPartially(yaml: try text(path: path), file: path)
    } catch {
      return (AgentConfiguration(), error)
    }
  }

  static func loadPartially(yaml text: String, file: String) -> (
    configuration: AgentConfiguration, error: ConfigurationError?
  ) {
    var configuration = AgentConfiguration()
    do {
      configuration.keyLines = try walk(yaml: text, file: file) { walker, root in
        walker.read(root, path: "", keys: ConfigurationSchema.keys, into: &configuration)
        for check in ConfigurationSchema.checks {
          if let problem = check.problem(configuration) {
            walker.issues.append(
              .init(line: walker.keyLines[check.key], key: check.key, message: problem))
          }
        }
        configuration.keyLines = walker.keyLines
      }
      return (configuration, nil)
    } catch {
      return (configuration, error)
    }
  }

  /// Composes `text` and hands its root (if any) to `apply` with a fresh walker; returns the
  /// line of every key seen, or throws every issue found, in file order.
  static func walk(
    yaml text: String, file: String, apply: (inout Walker, Node) -> Void
  ) throws(ConfigurationError) -> [String: Int] {
    var walker = Walker()
    var composed = text
    var root: Node?
    // A duplicated key is reported and its later entries set aside, so the rest of the file
    // is still checked (every issue in one pass); any other YAML error stops here.
    while true {
      do {
        root = try Yams.compose(yaml: composed)
        break
      } catch {
        if case YamlError.duplicatedKeysInMapping(let names, let context) = error,
          walker.issues.count < 1000,
          let removal = DuplicateKeys.removeLater(names, firstAt: context.mark, in: composed)
        {
          walker.issues += removal.issues
          composed = removal.text
          continue
        }
        walker.issues.append(Self.syntaxIssue(error, in: composed))
        root = nil
        break
      }
    }
    if let root {
      apply(&walker, root)
    }
    guard walker.issues.isEmpty else {
      // In file order, as an editor shows them.
      let ordered = walker.issues.enumerated().sorted {
        ($0.element.line ?? 0, $0.offset) < ($1.element.line ?? 0, $1.offset)
      }
      throw ConfigurationError(file: file, issues: ordered.map(\.element))
    }
    return walker.keyLines
  }

  /// A YAML error as `line N: key: message`: Yams' errors carry a mark (scanner, parser,
  /// composer), the first of a duplicated key (only its name), or a byte offset (reader).
  static func syntaxIssue(_ error: Error, in text: String) -> ConfigurationError.Issue {
    func issue(_ line: Int, _ message: String) -> ConfigurationError.Issue {
      .init(line: line, key: YAMLKeyPath.at(line: line, in: text), message: message)
    }
    guard let yaml = error as? YamlError else {
      let first = "\(error)".split(separator: "\n").first.map(String.init) ?? "\(error)"
      return .init(line: nil, key: "", message: "invalid YAML: \(first)")
    }
    switch yaml {
    case .scanner(_, let problem, let mark, _), .parser(_, let problem, let mark, _),
      .composer(_, let problem, let mark, _):
      return issue(mark.line, "invalid YAML: \(problem)")
    case .duplicatedKeysInMapping(let duplicates, let context):
      let names = duplicates.map { "'\($0)'" }.joined(separator: ", ")
      return issue(context.mark.line, "\(names) appears more than once in the same mapping")
    case .reader(let problem, let offset, let value, _):
      let line = offset.map { YAMLKeyPath.line(ofUTF8Offset: $0, in: text) } ?? 1
      let character = value >= 0 ? String(format: " (U+%04X)", value) : ""
      return issue(line, "invalid YAML: \(problem)\(character)")
    default:
      let first = "\(yaml)".split(separator: "\n").first.map(String.init) ?? "\(yaml)"
      return .init(line: nil, key: "", message: "invalid YAML: \(first)")
    }
  }
}
