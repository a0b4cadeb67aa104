import Yams

extension Walker {
  /// The `alertmanager:` section. `url` (one) and `urls` (a cluster) name the same thing: one
  /// of them, not both.
  mutating func applyAlertmanager(_ node: Node, to settings: inout AlertmanagerSettings) {
    let known = [
      "url", "urls", "timeout_seconds", "resend_interval_seconds", "queue_capacity", "labels",
      "basic_auth", "authorization", "tls_config",
    ]
    let fields = entries(node, "alertmanager", known: known)
    if fields["url"] != nil && fields["urls"] != nil {
      issues.append(
        .init(
          line: keyLines["alertmanager.urls"], key: "alertmanager.urls",
          message: "give url or urls, not both"))
    }
    if let node = fields["url"], let url = alertmanagerURL(node, "alertmanager.url") {
      settings.urls = [url]
    }
    if let node = fields["urls"] {
      var urls: [AlertmanagerURL] = []
      for (index, item) in list(node, "alertmanager.urls").enumerated() {
        let key = "alertmanager.urls[\(index)]"
        guard let url = alertmanagerURL(item, key) else { continue }
        guard !urls.contains(url) else {
          issue(item, key, "\(url) is listed twice")
          continue
        }
        urls.append(url)
      }
      settings.urls = urls
    }
    if let node = fields["timeout_seconds"],
      let value = number(
        node, "alertmanager.timeout_seconds", in: AlertmanagerSettings.timeoutRangeSeconds)
    {
      settings.timeoutSeconds = value
    }
    if let node = fields["resend_interval_seconds"],
      let value = number(
        node, "alertmanager.resend_interval_seconds",
        in: AlertmanagerSettings.resendIntervalRangeSeconds)
    {
      settings.resendIntervalSeconds = value
    }
    if let node = fields["queue_capacity"],
      let value = integer(
        node, "alertmanager.queue_capacity", in: AlertmanagerSettings.queueCapacityRange)
    {
      settings.queueCapacity = value
    }
    if let node = fields["labels"] { settings.labels = alertLabels(node, "alertmanager.labels") }
    if let node = fields["basic_auth"] { settings.http.basicAuth = alertmanagerBasicAuth(node) }
    if let node = fields["authorization"] {
      settings.http.authorization = alertmanagerAuthorization(node)
    }
    // Prometheus: "at most one of basic_auth, oauth2 & authorization must be configured".
    if fields["basic_auth"] != nil && fields["authorization"] != nil {
      issues.append(
        .init(
          line: keyLines["alertmanager.authorization"], key: "alertmanager.authorization",
          message: "give basic_auth or authorization, not both"))
    }
    if let node = fields["tls_config"] { settings.http.tls = alertmanagerTLS(node) }
  }

  private mutating func alertmanagerURL(_ node: Node, _ key: String) -> AlertmanagerURL? {
    guard let text = string(node, key) else { return nil }
    guard let url = AlertmanagerURL(text) else {
      issue(node, key, "'\(text)': \(AlertmanagerURL.expected)")
      return nil
    }
    return url
  }

  /// A mapping of label names to string values, each name valid for Alertmanager.
  private mutating func alertLabels(_ node: Node, _ path: String) -> [String: String] {
    guard let mapping = node.mapping else {
      issue(node, path, "expected a mapping of label names to values")
      return [:]
    }
    var labels: [String: String] = [:]
    for (keyNode, valueNode) in mapping {
      guard let name = keyNode.string else {
        issue(keyNode, path, "label names must be strings")
        continue
      }
      let key = "\(path).\(name)"
      keyLines[key] = keyNode.mark?.line
      guard AlertmanagerSettings.isValidLabelName(name) else {
        issue(
          keyNode, key, "not a label name: letters, digits and _, not starting with a digit or __")
        continue
      }
      guard !AlertmanagerSettings.alertLabelNames.contains(name) else {
        issue(keyNode, key, "set by each alert itself; choose another name")
        continue
      }
      guard let value = string(valueNode, key) else { continue }
      guard !value.isEmpty else {
        issue(valueNode, key, "an empty value means no label: remove the key instead")
        continue
      }
      labels[name] = value
    }
    return labels
  }
}
