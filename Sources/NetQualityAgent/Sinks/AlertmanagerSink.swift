/// Alertmanager: the alerts firing after the tick and its events (for resolution times) left
/// in the notifier's mailbox, posted by the notifier's thread.
struct AlertmanagerSink: TickSink {
  let notifier: AlertmanagerNotifier
  var name: String { "alertmanager" }

  func publish(_ tick: TickPublication) {
    notifier.publish(
      firing: tick.alerts, events: tick.result.events, at: tick.result.snapshot.time)
  }
}
