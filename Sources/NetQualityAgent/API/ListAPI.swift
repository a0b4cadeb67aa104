import Hummingbird
import NetQualityCore
import NetQualityExport

extension HTTPServer {
  /// `/api/v1/peers`: a page of the last tick's peers, worst first unless `sort=` says
  /// otherwise, filtered by `min_level`, `state`, `peer` and `peer_contains`, with the counts a
  /// client summarises from (`total`, `matched`, `levels`) and `next_cursor` while more follow.
  static func peers(_ state: AgentState, query: Parameters) async -> Response {
    let request: ListQuery
    do {
      request = try ListQuery(query, for: .peers)
    } catch {
      return jsonError(error.description, .badRequest)
    }
    let (tick, table) = await peerTable(state)
    let alertsFiring = state.read(\.alerts.count)
    let answer = table.answer(request)
    return json(
      .object([
        ("time", .optional(tick?.snapshot.time.secondsSinceEpoch)),
        (
          "host",
          .object([
            ("tx_quality", .integer(Int64(tick?.snapshot.hostTx.rawValue ?? 0))),
            ("rx_quality", .integer(Int64(tick?.snapshot.hostRx.rawValue ?? 0))),
          ])
        ),
        ("sort", .string(request.sort.rawValue)),
        ("total", .integer(Int64(table.peers.count))),
        ("matched", .integer(Int64(answer.page.matched))),
        ("offset", .integer(Int64(answer.page.offset))),
        ("limit", .integer(Int64(request.limit))),
        ("next_cursor", .optional(answer.nextCursor?.text)),
        ("levels", answer.levels.json),
        ("alerts_firing", .integer(Int64(alertsFiring))),
        ("peers", .array(answer.peers.map(TimelineJSON.peer))),
      ]))
  }

  /// `/api/v1/streams`: a page of the last tick's streams in the engine's order, filtered by
  /// the stream's peer (its remote address: `peer`, `peer_contains`) and `state`.
  static func streams(_ state: AgentState, query: Parameters) async -> Response {
    let request: ListQuery
    do {
      request = try ListQuery(query, for: .streams)
    } catch {
      return jsonError(error.description, .badRequest)
    }
    let tick = state.read(\.lastTick)
    let streams = tick?.snapshot.streams ?? []
    var start = 0
    if case .streams(let position) = request.cursor { start = position }
    let filter = request.filter
    let page = Page(
      order: streams.indices, start: start, skip: request.offset, limit: request.limit,
      matches: filter.isEmpty
        ? nil
        : { index in
          filter.matches(name: remoteAddress(streams[index]), state: streams[index].state)
        })
    let next = page.hasMore ? page.rows.last.map { PageCursor.streams(from: $0 + 1) } : nil
    // Media experience by stream (docs/media.md), for the page's streams only.
    let media = tick?.snapshot.media.streams ?? []
    var mediaByKey: [StreamKey: StreamMediaSnapshot] = [:]
    if !media.isEmpty {
      let wanted = Set(page.rows.map { streams[$0].key })
      for entry in media where wanted.contains(entry.key) { mediaByKey[entry.key] = entry }
    }
    return json(
      .object([
        ("time", .optional(tick?.snapshot.time.secondsSinceEpoch)),
        ("total", .integer(Int64(streams.count))),
        ("matched", .integer(Int64(page.matched))),
        ("offset", .integer(Int64(page.offset))),
        ("limit", .integer(Int64(request.limit))),
        ("next_cursor", .optional(next?.text)),
        (
          "streams",
          .array(
            page.rows.map { TimelineJSON.stream(streams[$0], media: mediaByKey[streams[$0].key]) })
        ),
      ]))
  }

  /// The last tick and its peer table: the one the HTTP sink made with the tick, or one made
  /// here (and kept) when the tick was published without it.
  static func peerTable(_ state: AgentState) async -> (Engine.TickResult?, PeerTable) {
    let (tick, table) = state.read { ($0.lastTick, $0.peerTable) }
    guard let tick else { return (nil, PeerTable(time: nil, peers: [])) }
    if let table, table.time == tick.snapshot.time { return (tick, table) }
    let made = PeerTable(tick.snapshot)
    state.update { published in
      if published.lastTick?.snapshot.time == made.time { published.peerTable = made }
    }
    return (tick, made)
  }

  /// The address at the stream's far end, which the engine names its peer by (a configured
  /// peer group's name is not in the stream's window).
  static func remoteAddress(_ stream: StreamWindow) -> String {
    (stream.direction == .rx ? stream.key.source : stream.key.destination).address.description
  }
}
