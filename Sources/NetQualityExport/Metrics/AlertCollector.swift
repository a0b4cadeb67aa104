import NetQualityCore

/// The agent's alerts firing now: counted by rule for every peer, and listed one by one for the
/// peers with series of their own (and alerts about no peer), within the same budget.
public struct AlertCollector: MetricsCollector {
  public static let families: [MetricFamily] = [.alertsByRule, .alertsFiring]

  public var alerts: [Alert]
  /// The peers with series of their own when some have none (`PeerCollector.seriesPeers`);
  /// nil when every peer has them.
  public var shownPeers: Set<String>?

  public init(alerts: [Alert], shownPeers: Set<String>? = nil) {
    self.alerts = alerts
    self.shownPeers = shownPeers
  }

  public func collect(into out: inout MetricsWriter) {
    out.family(.alertsByRule)
    var byRule: [String: (severity: String, count: Int)] = [:]
    // By position, each field read in place: a loop over the alerts copied each one (its
    // strings and labels retained), thousands per tick on a host with many departed peers.
    for index in alerts.indices {
      byRule[alerts[index].rule, default: (alerts[index].severity.rawValue, 0)].count += 1
    }
    for (rule, entry) in byRule.sorted(by: { $0.key < $1.key }) {
      out.sample(
        .alertsByRule, [("alertname", rule), ("severity", entry.severity)], Double(entry.count))
    }
    out.family(.alertsFiring)
    // The shown ones first, then sorted: a host whose thousands of departed peers each have an
    // alert firing sorts a few hundred, not all of them, every tick.
    var shown = alerts
    if let shownPeers {
      shown = alerts.indices.compactMap { index in
        guard let peer = alerts[index].labels["peer"], !shownPeers.contains(peer) else {
          return alerts[index]
        }
        return nil
      }
    }
    for alert in shown.sorted(by: { $0.id < $1.id }) {
      var labels = [("alertname", alert.rule), ("severity", alert.severity.rawValue)]
      labels += alert.labels.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
      out.sample(.alertsFiring, labels, 1)
    }
  }
}

// MARK: The families

extension MetricFamily {
  public static let alertsByRule = gauge(
    "netquality_alerts_by_rule", labels: ["alertname", "severity"],
    "Alerts firing now, counted by rule and severity (every peer; one series per rule).")
  public static let alertsFiring = gauge(
    "netquality_alerts_firing", labels: ["alertname", "severity", "peer", "direction", "kind"],
    "Alerts firing now, by rule, peer and direction (peers with series of their own).")
}
