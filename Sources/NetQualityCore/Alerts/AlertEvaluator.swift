/// Evaluates the alert rules on every peer at every tick and keeps the alerts' lifecycles, with
/// hysteresis on both sides so that a steady condition is one alert for its whole duration:
///
/// - **Pending** while the figure as shown meets the rule (for quality levels, the damped level
///   the dashboard, the API and the status page show; for other figures, the figure itself).
///   The alert **fires** once `forTicks` of those ticks also *measured* it (the window's own
///   level or figure): one bad window, which the damped level shows for a few ticks, is not
///   an alert; a steady impairment whose windows scatter around the edge is.
/// - **Firing** until the figure as shown has not met the rule for `keepFiringForTicks` ticks
///   in a row, or — with a `clearThreshold` — until `forTicks` ticks in a row measured it well
///   clear. For quality levels that means the alert resolves exactly when the level shown
///   leaves the rule: the two tell one story on every tick.
/// - A figure that cannot be measured now (nil: a level unknown or down, a peer disconnected)
///   does not meet the rule; but a firing alert of a peer gone silent (`peerSilent`) is held,
///   not resolved: it ends when media is measured clear again, or the peer is forgotten.
public struct AlertEvaluator: Sendable {
  public private(set) var rules: [AlertRule]
  /// Each peer's pending and firing rules, kept together: a peer costs one lookup per tick
  /// (none of its rules is looked up by a (rule, peer) key), and a peer with none — a healthy
  /// fleet's every peer — costs that lookup alone.
  private var peerTracks: [String: [RuleTrack]] = [:]
  /// Firing alerts by (rule, peer).
  public private(set) var firing: [AlertKey: Alert] = [:]
  /// The firing alerts by start and id as of the last `settleOrder()`, and what fired and
  /// resolved since: the order is kept up to date in one pass, not sorted again every tick.
  public private(set) var ordered: [Alert] = []
  private var firedSinceOrdered: [Alert] = []
  private var resolvedSinceOrdered: [Alert] = []
  /// Rules a reload removed or changed: their alerts resolve at the next tick.
  private var retired: Set<String> = []

  /// A (rule, peer) pair.
  public struct AlertKey: Hashable, Sendable {
    public var rule: String
    public var peer: String
  }

  /// What one rule holds of one peer between ticks.
  struct AlertTrack: Sendable, Equatable {
    /// The ticks that measured the rule while it was pending, and their figures (what the
    /// alert's summary quotes).
    var evidence = AlertEvidence()
    /// While firing: ticks in a row the rule was clear, and measured well clear.
    var clearTicks = 0
    var wellClearTicks = 0
  }

  /// One rule's track of one peer, and whether its alert is firing (in `firing`).
  struct RuleTrack: Sendable, Equatable {
    var rule: String
    var track = AlertTrack()
    var isFiring = false
  }

  /// What a rule sees of a peer at a tick.
  public struct Observation: Sendable {
    /// The figure this tick measured (a window's own level, before damping); nil when not
    /// measured.
    public var measured: Double?
    /// The figure as shown: the damped level for quality levels, else the measured figure.
    public var shown: Double?
    /// The scored window of the figure's direction, kept as evidence.
    public var inputs: QualityModel.Inputs?
    /// The peer went silent (interrupted, disconnected, timed out): a firing alert on this
    /// figure is held as it is, neither kept nor cleared, as silence is no recovery; the
    /// connection alerts speak for the peer until media is measured again (issue 40).
    public var peerSilent: Bool

    public init(
      measured: Double?, shown: Double?, inputs: QualityModel.Inputs? = nil,
      peerSilent: Bool = false
    ) {
      self.measured = measured
      self.shown = shown
      self.inputs = inputs
      self.peerSilent = peerSilent
    }
  }

  public init(rules: [AlertRule]) {
    self.rules = rules
  }

  /// A reload's rules: a rule removed, or changed in any field, has its alerts resolved at the
  /// next tick (`resolveRetired`); a rule under the same name starts from a clean state.
  public mutating func replaceRules(_ new: [AlertRule]) {
    let kept = Set(new.map(\.name))
    for old in rules where !kept.contains(old.name) || !new.contains(old) {
      retired.insert(old.name)
    }
    rules = new
  }

  /// Resolves the alerts of the rules a reload removed or changed, and drops their pending
  /// states; called at the start of a tick, before the rules are evaluated.
  mutating func resolveRetired(at time: CaptureTime) -> [Alert] {
    guard !retired.isEmpty else { return [] }
    defer { retired = [] }
    var changes: [Alert] = []
    for (peer, tracks) in peerTracks where tracks.contains(where: { retired.contains($0.rule) }) {
      let kept = tracks.filter { !retired.contains($0.rule) }
      peerTracks[peer] = kept.isEmpty ? nil : kept
      for entry in tracks where entry.isFiring && retired.contains(entry.rule) {
        if var alert = unfire(AlertKey(rule: entry.rule, peer: peer)) {
          alert.state = .resolved
          alert.end = time
          changes.append(alert)
        }
      }
    }
    return changes.sorted { ($0.rule, $0.id) < ($1.rule, $1.id) }
  }

  /// Evaluates every rule on `peer` with `observe(metric)`.
  mutating func evaluate(
    peer: String, at time: CaptureTime, observe: (AlertRule.Metric) -> Observation,
    describe: (AlertRule, AlertEvidence) -> String
  ) -> [Alert] {
    var changes: [Alert] = []
    // The peer's tracks are moved out of the table and back (or the entry removed), so they
    // are changed in place with one lookup.
    var tracks: [RuleTrack] = []
    let index = peerTracks.index(forKey: peer)
    if let index { swap(&tracks, &peerTracks.values[index]) }
    for rule in rules {
      let observation = observe(rule.metric)
      let shownMeets = observation.shown.map { rule.comparison.holds($0, rule.threshold) } ?? false
      guard let position = tracks.firstIndex(where: { $0.rule == rule.name }) else {
        // Without a track, a peer whose figure does not meet the rule has nothing to change.
        guard shownMeets else { continue }
        var entry = RuleTrack(rule: rule.name)
        if let alert = advancePending(rule, &entry, observation, peer: peer, at: time, describe) {
          changes.append(alert)
        }
        tracks.append(entry)
        continue
      }
      if tracks[position].isFiring {
        if let alert = keepOrResolve(
          rule, &tracks[position], observation, meets: shownMeets, peer: peer, at: time)
        {
          changes.append(alert)
          tracks.remove(at: position)
        }
      } else if shownMeets {
        if let alert = advancePending(
          rule, &tracks[position], observation, peer: peer, at: time, describe)
        {
          changes.append(alert)
        }
      } else {
        tracks.remove(at: position)
      }
    }
    switch (index, tracks.isEmpty) {
    case (let index?, true): peerTracks.remove(at: index)
    case (let index?, false): swap(&tracks, &peerTracks.values[index])
    case (nil, false): peerTracks[peer] = tracks
    case (nil, true): break
    }
    return changes
  }

  /// A pending rule whose figure as shown meets it: counts the tick if it measured it too, and
  /// fires after `forTicks` such ticks.
  private mutating func advancePending(
    _ rule: AlertRule, _ entry: inout RuleTrack, _ observation: Observation, peer: String,
    at time: CaptureTime, _ describe: (AlertRule, AlertEvidence) -> String
  ) -> Alert? {
    if let measured = observation.measured, rule.comparison.holds(measured, rule.threshold) {
      entry.track.evidence.add(measured, comparison: rule.comparison, inputs: observation.inputs)
    }
    guard entry.track.evidence.ticks >= rule.forTicks else { return nil }
    // An alert about no peer (the calls' failure ratios) has no peer label.
    var labels = peer.isEmpty ? [:] : ["peer": peer]
    if let direction = rule.metric.direction { labels["direction"] = direction }
    let alert = Alert(
      id: "\(rule.name):\(peer):\(time.nanosecondsSinceEpoch / 1_000_000)", rule: rule.name,
      severity: rule.severity, labels: labels, state: .firing, start: time, end: nil,
      summary: describe(rule, entry.track.evidence))
    fire(alert, key: AlertKey(rule: rule.name, peer: peer))
    entry.isFiring = true
    return alert
  }

  /// A firing rule: stays while its figure as shown meets it; resolves after
  /// `keepFiringForTicks` clear ticks, or `forTicks` well clear ones. Returns the resolved
  /// alert (the caller drops the track).
  private mutating func keepOrResolve(
    _ rule: AlertRule, _ entry: inout RuleTrack, _ observation: Observation, meets: Bool,
    peer: String, at time: CaptureTime
  ) -> Alert? {
    if meets {
      (entry.track.clearTicks, entry.track.wellClearTicks) = (0, 0)
      return nil
    }
    // Silence is not a recovery: held until media is measured again or the peer is forgotten.
    if observation.peerSilent { return nil }
    entry.track.clearTicks += 1
    if let clear = rule.clearThreshold, let measured = observation.measured,
      !rule.comparison.holds(measured, clear)
    {
      entry.track.wellClearTicks += 1
    } else {
      entry.track.wellClearTicks = 0
    }
    let resolves =
      entry.track.clearTicks >= rule.keepFiringForTicks
      || (rule.clearThreshold != nil && entry.track.wellClearTicks >= rule.forTicks)
    guard resolves, var alert = unfire(AlertKey(rule: rule.name, peer: peer))
    else { return nil }
    alert.state = .resolved
    alert.end = time
    return alert
  }

  /// What the rules hold of `peer` (nil: nothing), to tell whether a tick changed it.
  func tracks(of peer: String) -> [RuleTrack]? { peerTracks[peer] }

  /// Resolves every alert of `peer` (a clean end: BYE; a peer forgotten).
  mutating func resolveAll(peer: String, at time: CaptureTime) -> [Alert] {
    guard let tracks = peerTracks.removeValue(forKey: peer) else { return [] }
    var changes: [Alert] = []
    for entry in tracks where entry.isFiring {
      if var alert = unfire(AlertKey(rule: entry.rule, peer: peer)) {
        alert.state = .resolved
        alert.end = time
        changes.append(alert)
      }
    }
    return changes.sorted { $0.rule < $1.rule }
  }

  private mutating func fire(_ alert: Alert, key: AlertKey) {
    firing[key] = alert
    firedSinceOrdered.append(alert)
  }

  private mutating func unfire(_ key: AlertKey) -> Alert? {
    guard let alert = firing.removeValue(forKey: key) else { return nil }
    resolvedSinceOrdered.append(alert)
    return alert
  }

  /// Brings `ordered` up to date (at the end of a tick): the resolved ones leave, and the new
  /// ones, which started at this tick, go after the rest; sorted again only when a new one
  /// does not start after them (a replay's clock is monotonic, so never in practice).
  mutating func settleOrder() {
    guard !firedSinceOrdered.isEmpty || !resolvedSinceOrdered.isEmpty else { return }
    let before = { (a: Alert, b: Alert) in (a.start, a.id) < (b.start, b.id) }
    // The resolved ones are found by binary search (the order is by start and id) and the
    // rest moved up in one pass: no alert's labels looked up or key hashed per tick.
    var drop: [Int] = []
    for alert in resolvedSinceOrdered {
      var (low, high) = (0, ordered.count)
      while low < high {
        let middle = (low + high) / 2
        // The fields compared in place: passing `ordered[middle]` to `before` copied the whole
        // alert, a retain of each of its references (2 % of a tick under churn, issue 37).
        let isBefore =
          ordered[middle].start < alert.start
          || (ordered[middle].start == alert.start && ordered[middle].id < alert.id)
        if isBefore { low = middle + 1 } else { high = middle }
      }
      if low < ordered.count, ordered[low].id == alert.id { drop.append(low) }
    }
    if !drop.isEmpty {
      drop.sort()
      var (kept, next) = (drop[0], 0)
      // Swapped in the buffer: the array's `swapAt` copied both alerts (a retain of each of
      // their references), and under churn the oldest alerts resolve, so the whole order moves
      // up at every tick: 5 % of a tick at 100,000 alerts (perf, issue 37).
      ordered.withUnsafeMutableBufferPointer { buffer in
        for position in drop[0]..<buffer.count {
          if next < drop.count, drop[next] == position {
            next += 1
            continue
          }
          buffer.swapAt(kept, position)
          kept += 1
        }
      }
      ordered.removeLast(ordered.count - kept)
    }
    // Fired and resolved since the last settling: never in the order.
    var fired = firedSinceOrdered.filter { alert in
      firing[AlertKey(rule: alert.rule, peer: alert.labels["peer"] ?? "")]?.id == alert.id
    }
    fired.sort(by: before)
    if let last = ordered.last, let first = fired.first, !before(last, first) {
      ordered = firing.values.sorted(by: before)
    } else {
      ordered += fired
    }
    firedSinceOrdered = []
    resolvedSinceOrdered = []
  }

  /// Rebuilds the tables at the size of what is left once most entries are gone (see
  /// `Scorer.shrinkAfterChurn`).
  mutating func shrinkAfterChurn() {
    if peerTracks.capacity > 4 * max(peerTracks.count, 1024) {
      peerTracks = Dictionary(uniqueKeysWithValues: peerTracks.map { ($0.key, $0.value) })
    }
    if firing.capacity > 4 * max(firing.count, 1024) {
      firing = Dictionary(uniqueKeysWithValues: firing.map { ($0.key, $0.value) })
    }
    if ordered.capacity > 4 * max(ordered.count, 1024) {
      // A new buffer of the size left (`Array(ordered)` would share the old one).
      var smaller: [Alert] = []
      smaller.reserveCapacity(ordered.count)
      smaller.append(contentsOf: ordered)
      ordered = smaller
    }
  }
}
