/// Every problem found in a configuration file, each with its key and line, so one run of
/// `netquality check-config` shows them all.
public struct ConfigurationError: Error, Equatable, CustomStringConvertible {
  public struct Issue: Equatable, Sendable, CustomStringConvertible {
    public var line: Int?
    /// Dotted path of the key, e.g. `quality.min_packets` or `alerts.rules[2].metric`.
    public var key: String
    public var message: String

    public init(line: Int?, key: String, message: String) {
      self.line = line
      self.key = key
      self.message = message
    }

    public var description: String {
      let place = line.map { "line \($0): " } ?? ""
      return key.isEmpty ? "\(place)\(message)" : "\(place)\(key): \(message)"
    }
  }

  public var file: String
  public var issues: [Issue]

  public init(file: String, issues: [Issue]) {
    self.file = file
    self.issues = issues
  }

  public var description: String {
    issues.map { "\(file): \($0)" }.joined(separator: "\n")
  }
}
