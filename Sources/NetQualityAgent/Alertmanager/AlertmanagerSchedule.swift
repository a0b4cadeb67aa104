import NetQualityCore
import NetQualityExport

/// What to tell Alertmanager at each tick, as Prometheus' rule manager does
/// (https://github.com/prometheus/prometheus/blob/main/rules/alerting.go, `sendAlerts`):
/// a new firing alert at once; every firing alert again each `resendIntervalSeconds`, its end
/// set `validFor` resend intervals ahead so that Alertmanager keeps it while the agent lives
/// and resolves it on its own a few intervals after the agent is gone; an alert that stopped
/// firing once, resolved, with its resolution time as its end — and with the labels and
/// annotations it was last sent with, so that an alert whose rule a reload removed or changed
/// (resolved at the next tick) is still described by the rule that raised it.
struct AlertmanagerSchedule: Sendable {
  /// 4: Prometheus' `ValidUntil = ts + 4 * resendDelay` (rules/alerting.go), so that three
  /// resends in a row may be lost before Alertmanager resolves the alert.
  static let validForResendIntervals = 4.0

  var resendIntervalSeconds: Double
  var context: AlertmanagerPayload.Context

  /// The firing alerts Alertmanager was told of, by id: what was last sent and when.
  private var active: [String: (sent: AlertNotification, sentAt: CaptureTime)] = [:]

  init(resendIntervalSeconds: Double, context: AlertmanagerPayload.Context) {
    self.resendIntervalSeconds = resendIntervalSeconds
    self.context = context
  }

  /// Alerts Alertmanager is being told are firing.
  var activeCount: Int { active.count }

  /// The notifications due at `time`, given the alerts firing then and the resolution times
  /// the engine reported (an alert gone without one, such as the agent's own, is resolved at
  /// `time`).
  mutating func due(
    firing: [Alert], resolvedAt: [String: CaptureTime], at time: CaptureTime
  ) -> [AlertNotification] {
    var notifications: [AlertNotification] = []
    var firingIDs = Set<String>()
    firingIDs.reserveCapacity(firing.count)
    let resend = CaptureTime.nanoseconds(resendIntervalSeconds)
    let validUntil = time.advanced(bySeconds: resendIntervalSeconds * Self.validForResendIntervals)
    for alert in firing where alert.state == .firing {
      firingIDs.insert(alert.id)
      if let known = active[alert.id],
        time.nanosecondsSinceEpoch - known.sentAt.nanosecondsSinceEpoch < resend
      {
        continue
      }
      let notification = AlertmanagerPayload.notification(
        alert, endsAt: validUntil, context: context)
      active[alert.id] = (notification, time)
      notifications.append(notification)
    }
    if active.count > firingIDs.count {
      for (id, known) in active where !firingIDs.contains(id) {
        active[id] = nil
        var resolved = known.sent
        // Alertmanager refuses an alert that ends before it starts.
        resolved.endsAt = max(resolvedAt[id] ?? time, resolved.startsAt)
        notifications.append(resolved)
      }
    }
    return notifications
  }
}
