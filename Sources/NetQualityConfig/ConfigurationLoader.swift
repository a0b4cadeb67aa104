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
    var configuration = AgentConfiguration()
    configuration.keyLines = try walk(yaml: text, file: file) { walker, root in
      walker.apply(root, to: &configuration)
    }
    return configuration
  }

  /// Composes `text` and hands its root (if any) to `apply` with a fresh walker; returns the
  /// line of every key seen, or throws every issue found, in file order.
  static func walk(
    yaml text: String, file: String, apply: (inout Walker, Node) -> Void
  ) throws(ConfigurationError) -> [String: Int] {
    var walker = Walker()
    let root: Node?
    do {
      root = try Yams.compose(yaml: text)
    } catch {
      throw ConfigurationError(file: file, issues: [Self.syntaxIssue(error, in: text)])
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

/// Walks the node tree, filling the configuration and collecting issues.
struct Walker {
  var issues: [ConfigurationError.Issue] = []
  /// The line of every key seen, by dotted path.
  var keyLines: [String: Int] = [:]

  mutating func issue(_ node: Node?, _ key: String, _ message: String) {
    issues.append(.init(line: node?.mark?.line, key: key, message: message))
  }

  /// The mapping's entries by key, reporting keys not in `known`.
  mutating func entries(_ node: Node, _ path: String, known: [String]) -> [String: Node] {
    guard let mapping = node.mapping else {
      issue(node, path, "expected a mapping of keys to values")
      return [:]
    }
    var result: [String: Node] = [:]
    for (keyNode, value) in mapping {
      guard let key = keyNode.string else {
        issue(keyNode, path, "keys must be strings")
        continue
      }
      let full = path.isEmpty ? key : "\(path).\(key)"
      keyLines[full] = keyNode.mark?.line
      guard known.contains(key) else {
        issue(keyNode, full, "unknown key; known keys here: \(known.joined(separator: ", "))")
        continue
      }
      result[key] = value
    }
    return result
  }

  mutating func string(_ node: Node, _ key: String) -> String? {
    guard case .scalar = node, let value = node.string else {
      issue(node, key, "expected a string")
      return nil
    }
    return value
  }

  mutating func integer(_ node: Node, _ key: String, in range: ClosedRange<Int>) -> Int? {
    guard case .scalar = node, let value = node.int else {
      issue(node, key, "expected a whole number")
      return nil
    }
    guard range.contains(value) else {
      issue(node, key, "\(value) is out of range \(range.lowerBound)...\(range.upperBound)")
      return nil
    }
    return value
  }

  mutating func number(_ node: Node, _ key: String, in range: ClosedRange<Double>) -> Double? {
    guard case .scalar = node, let value = node.float else {
      issue(node, key, "expected a number")
      return nil
    }
    guard range.contains(value) else {
      issue(node, key, "\(value) is out of range \(range.lowerBound)...\(range.upperBound)")
      return nil
    }
    return value
  }

  mutating func bool(_ node: Node, _ key: String) -> Bool? {
    guard case .scalar = node, let value = node.bool else {
      issue(node, key, "expected true or false")
      return nil
    }
    return value
  }

  mutating func list(_ node: Node, _ key: String) -> [Node] {
    guard let sequence = node.sequence else {
      issue(node, key, "expected a list")
      return []
    }
    return Array(sequence)
  }

  mutating func prefixes(_ node: Node, _ key: String) -> [NetworkPrefix] {
    list(node, key).enumerated().compactMap { index, item in
      guard let text = string(item, "\(key)[\(index)]") else { return nil }
      guard let prefix = NetworkPrefix(text) else {
        issue(item, "\(key)[\(index)]", "'\(text)' is not an address or CIDR prefix")
        return nil
      }
      return prefix
    }
  }

  mutating func numbers(_ node: Node, _ key: String, count: Int, descending: Bool) -> [Double]? {
    let values = list(node, key).enumerated().compactMap { index, item in
      number(item, "\(key)[\(index)]", in: 0...100_000)
    }
    guard values.count == count else {
      issue(node, key, "expected \(count) numbers")
      return nil
    }
    guard values == values.sorted(by: descending ? (>) : (<)) else {
      issue(
        node, key,
        descending ? "must decrease from level to level" : "must increase from level to level")
      return nil
    }
    return values
  }

  // MARK: - The sections

  mutating func apply(_ root: Node, to configuration: inout AgentConfiguration) {
    let known = [
      "interfaces", "bpf_filter", "snaplen", "buffer_size_mb", "local_networks", "peers",
      "tick_interval", "max_streams", "timers", "quality", "alerts", "listen",
      "web_config_file", "metrics", "dashboard_file", "dashboard", "status_page", "probes",
      "reflector", "storage_path", "storage", "alertmanager",
    ]
    let top = entries(root, "", known: known)
    if let node = top["interfaces"] {
      configuration.interfaces = list(node, "interfaces").enumerated().compactMap {
        string($1, "interfaces[\($0)]")
      }
    }
    if let node = top["bpf_filter"], let value = string(node, "bpf_filter") {
      configuration.bpfFilter = value
    }
    if let node = top["snaplen"], let value = integer(node, "snaplen", in: 64...262_144) {
      configuration.snapLength = value
    }
    if let node = top["buffer_size_mb"], let value = integer(node, "buffer_size_mb", in: 1...2048) {
      configuration.bufferMegabytes = value
    }
    if let node = top["local_networks"] {
      configuration.localNetworks = prefixes(node, "local_networks")
    }
    if let node = top["peers"] { configuration.peerGroups = peerGroups(node) }
    if let node = top["tick_interval"],
      let value = number(
        node, "tick_interval", in: AgentConfiguration.tickIntervalRangeSeconds)
    {
      configuration.engine.tickIntervalSeconds = value
    }
    if let node = top["max_streams"], let value = integer(node, "max_streams", in: 1...10_000_000) {
      configuration.engine.analyzer.maxStreams = value
    }
    if let node = top["timers"] { applyTimers(node, to: &configuration.engine.timers) }
    if let node = top["quality"] { applyQuality(node, to: &configuration.engine.quality) }
    if let node = top["alerts"] { applyAlerts(node, to: &configuration) }
    if let node = top["listen"], let value = string(node, "listen") {
      applyListen(value, node, to: &configuration)
    }
    if let node = top["web_config_file"], let value = string(node, "web_config_file") {
      configuration.webConfigFile = value
    }
    if let node = top["metrics"] { applyMetrics(node, to: &configuration) }
    if let node = top["dashboard_file"], let value = string(node, "dashboard_file") {
      configuration.dashboardFile = value
    }
    if let node = top["dashboard"] { applyDashboard(node, to: &configuration.dashboard) }
    if let node = top["status_page"] { applyStatusPage(node, to: &configuration.statusPage) }
    if let node = top["probes"] { configuration.probes = probes(node) }
    if let node = top["reflector"] { applyReflector(node, to: &configuration.reflector) }
    if let node = top["storage_path"], let value = string(node, "storage_path") {
      configuration.storagePath = value
    }
    if let node = top["storage"] { applyStorage(node, to: &configuration.storage) }
    if let node = top["alertmanager"] {
      applyAlertmanager(node, to: &configuration.alertmanager)
    }
  }

  mutating func applyStorage(_ node: Node, to storage: inout StorageSettings) {
    let fields = entries(
      node, "storage",
      known: [
        "enabled", "raw_retention_hours", "aggregate_retention_days", "max_size_mb",
        "stream_rows",
      ])
    if let node = fields["enabled"], let value = bool(node, "storage.enabled") {
      storage.enabled = value
    }
    if let node = fields["raw_retention_hours"],
      let value = number(
        node, "storage.raw_retention_hours", in: StorageSettings.rawRetentionRangeHours)
    {
      storage.rawRetentionHours = value
    }
    if let node = fields["aggregate_retention_days"],
      let value = number(
        node, "storage.aggregate_retention_days",
        in: StorageSettings.aggregateRetentionRangeDays)
    {
      storage.aggregateRetentionDays = value
    }
    if let node = fields["max_size_mb"],
      let value = integer(node, "storage.max_size_mb", in: StorageSettings.maxSizeRangeMegabytes)
    {
      storage.maxSizeMegabytes = value
    }
    if let node = fields["stream_rows"], let value = bool(node, "storage.stream_rows") {
      storage.streamRows = value
    }
  }

  mutating func applyDashboard(_ node: Node, to dashboard: inout DashboardSettings) {
    let fields = entries(node, "dashboard", known: ["max_peers", "max_size_mb", "keep"])
    if let node = fields["max_peers"],
      let value = integer(node, "dashboard.max_peers", in: DashboardSettings.maxPeersRange)
    {
      dashboard.maxPeers = value
    }
    if let node = fields["max_size_mb"],
      let value = integer(
        node, "dashboard.max_size_mb", in: DashboardSettings.maxSizeRangeMegabytes)
    {
      dashboard.maxSizeMegabytes = value
    }
    if let node = fields["keep"],
      let value = integer(node, "dashboard.keep", in: DashboardSettings.keepRange)
    {
      dashboard.keep = value
    }
  }

  mutating func applyStatusPage(_ node: Node, to page: inout StatusPageSettings) {
    let fields = entries(node, "status_page", known: ["max_peers", "chart_seconds"])
    if let node = fields["max_peers"],
      let value = integer(node, "status_page.max_peers", in: StatusPageSettings.maxPeersRange)
    {
      page.maxPeers = value
    }
    if let node = fields["chart_seconds"],
      let value = number(
        node, "status_page.chart_seconds", in: StatusPageSettings.chartSecondsRange)
    {
      page.chartSeconds = value
    }
  }

  mutating func peerGroups(_ node: Node) -> [AgentConfiguration.PeerGroup] {
    let items = list(node, "peers")
    guard items.count <= AgentConfiguration.maximumPeerGroups else {
      issue(
        node, "peers",
        "\(items.count) peer groups; at most \(AgentConfiguration.maximumPeerGroups) (a group "
          + "can hold many networks)")
      return []
    }
    return items.enumerated().compactMap { index, item in
      let path = "peers[\(index)]"
      let fields = entries(item, path, known: ["name", "addresses"])
      guard let nameNode = fields["name"], let name = string(nameNode, "\(path).name") else {
        issue(item, "\(path).name", "every peer group needs a name")
        return nil
      }
      guard let addresses = fields["addresses"] else {
        issue(item, "\(path).addresses", "every peer group needs addresses")
        return nil
      }
      return AgentConfiguration.PeerGroup(
        name: name, networks: prefixes(addresses, "\(path).addresses"))
    }
  }

  mutating func applyTimers(_ node: Node, to timers: inout ConnectionTimers) {
    let fields = entries(node, "timers", known: ["interrupted", "disconnected", "timeout"])
    if let node = fields["interrupted"],
      let value = number(node, "timers.interrupted", in: 0.5...3600)
    {
      timers.interruptedAfterSeconds = value
    }
    if let node = fields["disconnected"],
      let value = number(node, "timers.disconnected", in: 0.5...3600)
    {
      timers.disconnectedAfterSeconds = value
    }
    if let node = fields["timeout"], let value = number(node, "timers.timeout", in: 0.5...86_400) {
      timers.timeoutAfterSeconds = value
    }
    if !(timers.interruptedAfterSeconds < timers.disconnectedAfterSeconds
      && timers.disconnectedAfterSeconds < timers.timeoutAfterSeconds)
    {
      issue(node, "timers", "must grow: interrupted < disconnected < timeout")
    }
  }

  mutating func applyQuality(_ node: Node, to model: inout QualityModel) {
    let known = [
      "rating_floors", "jitter_ceilings_ms", "min_packets", "scoring_windows", "worsen_after_ticks",
      "worsen_one_level_after_ticks", "improve_after_ticks", "improve_one_level_after_ticks",
      "feedback_stale_seconds", "audio", "video",
    ]
    let fields = entries(node, "quality", known: known)
    if let node = fields["rating_floors"],
      let values = numbers(node, "quality.rating_floors", count: 4, descending: true)
    {
      model.ratingFloors = values
    }
    if let node = fields["jitter_ceilings_ms"],
      let values = numbers(node, "quality.jitter_ceilings_ms", count: 4, descending: false)
    {
      model.jitterCeilingsMilliseconds = values
    }
    if let node = fields["min_packets"],
      let value = integer(node, "quality.min_packets", in: 1...100_000)
    {
      model.minimumPackets = Int64(value)
    }
    if let node = fields["scoring_windows"],
      let value = integer(node, "quality.scoring_windows", in: 1...60)
    {
      model.scoringWindows = value
    }
    if let node = fields["worsen_after_ticks"],
      let value = integer(node, "quality.worsen_after_ticks", in: 1...60)
    {
      model.worsenAfterTicks = value
    }
    if let node = fields["improve_after_ticks"],
      let value = integer(node, "quality.improve_after_ticks", in: 1...60)
    {
      model.improveAfterTicks = value
    }
    if let node = fields["worsen_one_level_after_ticks"],
      let value = integer(node, "quality.worsen_one_level_after_ticks", in: 1...255)
    {
      model.worsenOneLevelAfterTicks = value
    }
    if let node = fields["improve_one_level_after_ticks"],
      let value = integer(node, "quality.improve_one_level_after_ticks", in: 1...255)
    {
      model.improveOneLevelAfterTicks = value
    }
    if let node = fields["feedback_stale_seconds"],
      let value = number(node, "quality.feedback_stale_seconds", in: 1...3600)
    {
      model.feedbackStaleSeconds = value
    }
    if let node = fields["audio"] { applyCodec(node, "quality.audio", to: &model.audio) }
    if let node = fields["video"] { applyCodec(node, "quality.video", to: &model.video) }
  }

  mutating func applyCodec(
    _ node: Node, _ path: String, to profile: inout QualityModel.CodecProfile
  ) {
    let fields = entries(node, path, known: ["ie", "bpl", "codec_delay_ms"])
    if let node = fields["ie"], let value = number(node, "\(path).ie", in: 0...95) {
      profile.equipmentImpairment = value
    }
    if let node = fields["bpl"], let value = number(node, "\(path).bpl", in: 0.1...100) {
      profile.lossRobustness = value
    }
    if let node = fields["codec_delay_ms"],
      let value = number(node, "\(path).codec_delay_ms", in: 0...1000)
    {
      profile.codecDelayMilliseconds = value
    }
  }

  /// The `alerts:` section: the rules and the runbook.
  mutating func applyAlerts(_ node: Node, to configuration: inout AgentConfiguration) {
    let fields = entries(node, "alerts", known: ["builtin", "rules", "runbook_url"])
    configuration.engine.alertRules = alertRules(fields)
    if let node = fields["runbook_url"], let url = runbookURL(node) {
      configuration.alertRunbookURL = url
    }
  }

  /// `alerts.runbook_url`: an absolute URL (the alerts' `runbook_url` is it and a section's
  /// `#anchor`, so it has no fragment of its own).
  mutating func runbookURL(_ node: Node) -> String? {
    guard let text = string(node, "alerts.runbook_url") else { return nil }
    guard AgentConfiguration.isAbsoluteURL(text), !text.contains("#") else {
      issue(
        node, "alerts.runbook_url",
        "'\(text)': expected an absolute URL without a #fragment, e.g. "
          + "https://git.example.net/netquality/blob/main/docs/runbook.md or "
          + AgentConfiguration.defaultRunbookURL)
      return nil
    }
    return text
  }

  mutating func alertRules(_ fields: [String: Node]) -> [AlertRule] {
    var rules: [AlertRule] = []
    if let node = fields["builtin"] {
      if bool(node, "alerts.builtin") ?? true { rules = AlertRule.builtIn }
    } else {
      rules = AlertRule.builtIn
    }
    guard let list = fields["rules"] else { return rules }
    for (index, item) in self.list(list, "alerts.rules").enumerated() {
      let path = "alerts.rules[\(index)]"
      let rule = entries(
        item, path,
        known: [
          "name", "metric", "op", "threshold", "for_ticks", "keep_firing_for_ticks",
          "clear_threshold", "severity",
        ])
      guard let name = rule["name"].flatMap({ string($0, "\(path).name") }),
        let metricText = rule["metric"].flatMap({ string($0, "\(path).metric") }),
        let thresholdNode = rule["threshold"]
      else {
        issue(item, path, "a rule needs name, metric and threshold")
        continue
      }
      guard let metric = AlertRule.Metric(rawValue: metricText) else {
        let names = AlertRule.Metric.allCases.map(\.rawValue).joined(separator: ", ")
        issue(
          rule["metric"], "\(path).metric", "unknown metric '\(metricText)'; metrics are \(names)")
        continue
      }
      let opText = rule["op"].flatMap { string($0, "\(path).op") } ?? ">"
      guard let comparison = AlertRule.Comparison(rawValue: opText) else {
        issue(rule["op"], "\(path).op", "unknown comparison '\(opText)'; use >, >=, <, <= or ==")
        continue
      }
      let severityText = rule["severity"].flatMap { string($0, "\(path).severity") } ?? "warning"
      guard let severity = AlertRule.Severity(rawValue: severityText) else {
        issue(
          rule["severity"], "\(path).severity",
          "unknown severity '\(severityText)'; use info, warning or critical")
        continue
      }
      guard let threshold = number(thresholdNode, "\(path).threshold", in: -1e12...1e12) else {
        continue
      }
      let forTicks =
        rule["for_ticks"].flatMap { integer($0, "\(path).for_ticks", in: 1...10_000) }
        ?? AlertRule.defaultForTicks
      let keepFiringForTicks = rule["keep_firing_for_ticks"].flatMap {
        integer($0, "\(path).keep_firing_for_ticks", in: 1...10_000)
      }
      var clearThreshold: Double?
      if let node = rule["clear_threshold"] {
        guard let value = number(node, "\(path).clear_threshold", in: -1e12...1e12) else {
          continue
        }
        // Well clear must be on the clear side of the threshold, or nothing would ever be.
        guard comparison != .equal, !comparison.holds(value, threshold) else {
          issue(
            node, "\(path).clear_threshold",
            comparison == .equal
              ? "not for op =="
              : "\(value) meets the rule itself (\(opText) \(threshold))"
                + "; it must be on the clear side")
          continue
        }
        clearThreshold = value
      }
      rules.append(
        AlertRule(
          name: name, metric: metric, comparison: comparison, threshold: threshold,
          forTicks: forTicks, keepFiringForTicks: keepFiringForTicks,
          clearThreshold: clearThreshold, severity: severity))
    }
    return rules
  }

  mutating func applyListen(
    _ text: String, _ node: Node, to configuration: inout AgentConfiguration
  ) {
    guard let address = ListenAddress(text) else {
      issue(node, "listen", "'\(text)': \(ListenAddress.expected)")
      return
    }
    configuration.listenHost = address.host
    configuration.listenPort = address.port
  }

  mutating func applyMetrics(_ node: Node, to configuration: inout AgentConfiguration) {
    let fields = entries(
      node, "metrics",
      known: ["per_stream", "max_stream_series", "max_peer_series", "peer_grace_seconds"])
    if let node = fields["per_stream"], let value = bool(node, "metrics.per_stream") {
      configuration.perStreamMetrics = value
    }
    if let node = fields["max_stream_series"],
      let value = integer(node, "metrics.max_stream_series", in: 1...1_000_000)
    {
      configuration.maxStreamSeries = value
    }
    if let node = fields["max_peer_series"],
      let value = integer(node, "metrics.max_peer_series", in: 0...1_000_000)
    {
      configuration.maxPeerSeries = value
    }
    if let node = fields["peer_grace_seconds"],
      let value = number(node, "metrics.peer_grace_seconds", in: 0...86_400)
    {
      configuration.peerGraceSeconds = value
    }
  }
}
