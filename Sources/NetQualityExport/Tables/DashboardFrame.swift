import NetQualityCore

/// One frame of the text dashboard the agent appends every tick, for `tail -f`: a header with
/// the host levels, how many peers are at each level (per direction) and in each state, a row
/// per peer (levels, MOS, loss each way, jitter, RTT, what measured it, state and for how
/// long), and the events of the tick.
///
/// A frame stays the same size however large the fleet: at most `maxPeers` rows and
/// `maxPeers` event lines, each followed by one line for what was left out. The rows are the
/// worst peers (`PeerSnapshot.worst`), shown worst level first and by name within a level, so
/// trouble is at the top and a healthy fleet's rows stay in place from frame to frame. Every
/// column is as wide as its heading and its widest value in the frame, so headings and values
/// line up whatever the names.
public enum DashboardFrame {
  /// Rows (and event lines) per frame unless configured: a screenful of the worst peers,
  /// about 7 KB a frame instead of 1.27 MB at 10,000 peers.
  public static let defaultMaxPeers = 50

  public static func render(
    _ result: Engine.TickResult, firingAlerts: Int, maxPeers: Int = defaultMaxPeers
  ) -> String {
    let snapshot = result.snapshot
    var lines = [
      "=== \(snapshot.time.rfc3339)  host rx \(snapshot.hostRx.name)  tx \(snapshot.hostTx.name)  "
        + "peers \(snapshot.peers.count)  alerts firing \(firingAlerts)"
    ]
    let limit = max(0, maxPeers)
    let shown = PeerSnapshot.worst(snapshot.peers, limit: limit).sorted {
      ($0.worstLevel.rawValue, $1.peer) > ($1.worstLevel.rawValue, $0.peer)
    }
    if !snapshot.peers.isEmpty {
      lines += counts(snapshot.peers)
      lines += table(shown, at: snapshot.time)
    }
    if shown.count < snapshot.peers.count {
      let left = snapshot.peers.count - shown.count
      let peers = snapshot.peers
      let poorOrWorse =
        peers.indices.reduce(0) { $0 + (peers[$1].worstLevel >= .poor ? 1 : 0) }
        - shown.filter { $0.worstLevel >= .poor }.count
      lines.append("… and \(left) more peers (\(poorOrWorse) at poor or worse)")
    }
    lines += result.events.prefix(limit).map(TimelineTable.event)
    if result.events.count > limit {
      lines.append(moreEvents(result.events.dropFirst(limit)))
    }
    return lines.joined(separator: "\n") + "\n"
  }

  /// The count lines: peers at each level 0...6 per direction, and in each state.
  static func counts(_ peers: [PeerSnapshot]) -> [String] {
    var rx = [Int](repeating: 0, count: QualityLevel.allCases.count)
    var tx = rx
    var states = [Int](repeating: 0, count: ConnectionState.allCases.count)
    // By position: a loop over the snapshots copied each one (256 bytes, two retains), 100,000
    // of them a frame on a TURN host under churn.
    for index in peers.indices {
      rx[peers[index].rx.level.rawValue] += 1
      tx[peers[index].tx.level.rawValue] += 1
      states[peers[index].state.number] += 1
    }
    func levels(_ counts: [Int]) -> String {
      QualityLevel.allCases.map { "\($0.name) \(counts[$0.rawValue])" }.joined(separator: "  ")
    }
    return [
      "levels rx  \(levels(rx))",
      "levels tx  \(levels(tx))",
      "states     "
        + ConnectionState.allCases.map { "\($0.rawValue) \(states[$0.number])" }.joined(
          separator: "  "),
    ]
  }

  /// The heading and a row per peer, each column padded to its widest cell.
  static func table(_ peers: [PeerSnapshot], at time: CaptureTime) -> [String] {
    // A video column when a shown peer sends us video (docs/media.md): frames a second in the
    // tick and freezes so far.
    let video = peers.contains { ($0.media?.rx.videoStreams ?? 0) > 0 }
    var columns = Self.columns
    if video { columns.insert(videoColumn, at: videoColumnIndex) }
    let rows = peers.map { peer in
      var row = cells(peer, at: time)
      if video { row.insert(videoCell(peer), at: videoColumnIndex) }
      return row
    }
    var widths = columns.map { max($0.title.count, $0.width) }
    for row in rows {
      for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) }
    }
    func line(_ cells: [String]) -> String {
      var text = ""
      for (index, cell) in cells.enumerated() {
        if index > 0 { text += " " }
        let last = index == cells.count - 1
        text +=
          columns[index].right
          ? TimelineTable.right(cell, widths[index])
          : last ? cell : TimelineTable.pad(cell, widths[index])
      }
      return text
    }
    return [line(columns.map(\.title))] + rows.map(line)
  }

  /// The columns: heading, narrowest width (what their usual values take, so that columns
  /// stay in place from frame to frame), and whether numbers align right.
  static let columns: [(title: String, width: Int, right: Bool)] = [
    ("PEER", 15, false), ("RX", 9, false), ("TX", 9, false), ("MOS", 4, true),
    ("RX LOSS", 7, true), ("RX JITTER", 9, true), ("TX LOSS", 7, true), ("RTT", 8, true),
    ("SOURCE", 9, false), ("STATE", 12, false), ("FOR", 0, false),
  ]

  /// The video column, after RTT, when a peer shown has incoming video.
  static let videoColumn = (title: "RX VIDEO", width: 14, right: true)
  static let videoColumnIndex = 8

  /// "29.5 fps 2 frz": the rx video's frames a second in the tick and its freezes so far.
  static func videoCell(_ peer: PeerSnapshot) -> String {
    guard let media = peer.media?.rx, media.videoStreams > 0 else { return "-" }
    let fps = media.framesPerSecond.map { DecimalText.fixed($0, places: 1) } ?? "-"
    return "\(fps) fps \(media.total.freezes) frz"
  }

  static func cells(_ peer: PeerSnapshot, at time: CaptureTime) -> [String] {
    [
      TerminalText.sanitized(peer.peer),
      peer.rx.level.name,
      peer.tx.level.name,
      peer.meanOpinionScore.map { DecimalText.fixed($0, places: 2) } ?? "-",
      TimelineTable.percent(peer.rx.inputs?.lossRatio),
      DurationText.milliseconds(peer.rx.inputs?.jitterMilliseconds),
      TimelineTable.percent(peer.tx.inputs?.lossRatio),
      DurationText.milliseconds(peer.roundTripMilliseconds),
      source(peer),
      peer.state.rawValue,
      age(time.seconds(since: peer.stateSince)),
    ]
  }

  /// How long: "45s", "3m12s", "2h05m", "3d04h" (a state's age, to the frame's tick).
  public static func age(_ seconds: Double) -> String {
    let whole = Int(max(0, seconds).rounded(.down))
    func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
    switch whole {
    case ..<60: return "\(whole)s"
    case ..<3600: return "\(whole / 60)m\(two(whole % 60))s"
    case ..<86_400: return "\(whole / 3600)h\(two(whole / 60 % 60))m"
    default: return "\(whole / 86_400)d\(two(whole / 3600 % 24))h"
    }
  }

  /// "412 more events: 400 disconnected, 12 recovered": the events left out, by kind, the
  /// most frequent first.
  static func moreEvents(_ events: ArraySlice<EngineEvent>) -> String {
    var counts: [String: Int] = [:]
    for event in events { counts[event.kind.rawValue, default: 0] += 1 }
    let byKind = counts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
    return "\(events.count) more events: "
      + byKind.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
  }

  /// What measured the peer: `rtp`, `probe` or `rtp+probe`; `probe?` when the reflector
  /// answered probes we never sent within the scoring windows (possibly spoofed, docs/stamp.md).
  public static func source(_ peer: PeerSnapshot) -> String {
    let sources = peer.sources.map(\.rawValue)
    guard !sources.isEmpty else { return "-" }
    return sources.joined(separator: "+") + (peer.probe?.possiblySpoofed == true ? "?" : "")
  }
}
