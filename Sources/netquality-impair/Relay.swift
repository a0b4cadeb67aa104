import Glibc

/// The relay's settings, checked: what `ImpairCommand` hands to `Relay`.
struct RelayConfiguration {
  var listen: SocketAddress
  var target: SocketAddress
  var seed: UInt64
  var forward: ImpairmentParameters
  var backward: ImpairmentParameters
  var statsPath: String?
  var logPath: String?
}

/// The socket loop: one thread, non-blocking sockets, one wait until the next packet is due,
/// a datagram comes or a signal asks to stop.
final class Relay {
  /// 65,536 packets: over 10 minutes of 50 packet/s media both ways, far more than any delay a
  /// test asks for; a flood beyond it is counted as overflow, not queued without end.
  static let queueCapacity = 65_536
  /// Above a 1,500-byte MTU's largest UDP payload (1,472 bytes over IPv4), with room to spare.
  static let payloadBytes = 2_048
  /// Datagrams read from one socket per wake before due packets are sent again, so a flood on
  /// one socket cannot hold back the packets already due.
  static let receiveBatch = 64
  static let statsIntervalNanoseconds: Int64 = 1_000_000_000

  /// Everything the relay keeps per direction.
  private struct DirectionState {
    var decider: ImpairmentDecider
    var stats = DirectionStats()
    var reorder = ReorderTracker(capacity: Relay.queueCapacity)
  }

  let boundAddress: SocketAddress
  private let configuration: RelayConfiguration
  private let listenSocket: UDPSocket
  private var clients: ClientTable
  private let queue = DueQueue(capacity: Relay.queueCapacity, payloadBytes: Relay.payloadBytes)
  private var directions: [DirectionState]
  private var clientLimitDropped: Int64 = 0
  private var strayDropped: Int64 = 0
  private var hasWarnedAboutClients = false
  private let output: OutputWriter
  /// Nil without `--log`: then no lines are gathered at all.
  private var log: PacketLog?
  /// What the loop waits on: the listening socket and every client's upstream socket.
  private var descriptors: [Int32]
  private let startNanoseconds = monotonicNanoseconds()
  /// Where every datagram lands first (a queue buffer is taken only by a packet that is
  /// queued). A longer one is cut here, but MSG_TRUNC reports its full length, so it is counted
  /// as oversize instead of being forwarded cut.
  private let receiveBuffer = UnsafeMutableRawBufferPointer.allocate(
    byteCount: Relay.payloadBytes, alignment: 16)

  /// Binds the listening socket, opens the packet log and writes the first stats, so every
  /// failure a user can cause shows before `listening on` does.
  init(configuration: RelayConfiguration) throws(RelayError) {
    self.configuration = configuration
    listenSocket = try UDPSocket(family: configuration.listen.family)
    guard listenSocket.descriptor < DescriptorSet.limit else {
      throw RelayError(
        "descriptor \(listenSocket.descriptor) is too high to wait on; start with fewer open files")
    }
    try listenSocket.bind(to: configuration.listen)
    boundAddress = try listenSocket.localAddress()
    clients = ClientTable(targetFamily: configuration.target.family)
    directions = Direction.allCases.map { direction in
      DirectionState(
        decider: ImpairmentDecider(
          parameters: direction == .forward ? configuration.forward : configuration.backward,
          seed: configuration.seed, direction: direction))
    }
    descriptors = [listenSocket.descriptor]
    output = try OutputWriter(statsPath: configuration.statsPath, logPath: configuration.logPath)
    log = configuration.logPath == nil ? nil : PacketLog()
    try output.writeNow(report(isFinal: false))
  }

  deinit {
    receiveBuffer.deallocate()
  }

  /// Relays until SIGINT or SIGTERM, then writes the final stats.
  func run(signals: StopSignals) throws(RelayError) {
    var nextStatsNanoseconds = startNanoseconds + Self.statsIntervalNanoseconds
    while !signals.isStopRequested {
      sendDuePackets()
      let wakeNanoseconds = min(queue.nextDueNanoseconds ?? .max, nextStatsNanoseconds)
      let readable = waitForReadable(
        descriptors, timeoutNanoseconds: wakeNanoseconds - monotonicNanoseconds(),
        signals: signals)
      if readable.contains(listenSocket.descriptor) { receiveFromClients() }
      for (index, client) in clients.clients.enumerated()
      where readable.contains(client.upstream.descriptor) {
        receiveFromTarget(clientIndex: index)
      }
      sendDuePackets()
      let now = monotonicNanoseconds()
      if now >= nextStatsNanoseconds {
        writeStats()
        // After a long stall, the next write is a whole interval away, not a burst of them.
        while nextStatsNanoseconds <= now { nextStatsNanoseconds += Self.statsIntervalNanoseconds }
      }
    }
    try output.finish(report(isFinal: true), logLines: log?.take() ?? [])
  }

  private func receiveFromClients() {
    for _ in 0..<Self.receiveBatch {
      guard let (length, source) = listenSocket.receive(into: receiveBuffer) else { return }
      let arrivalNanoseconds = monotonicNanoseconds()
      let (clientIndex, problem) = clients.index(of: source)
      if let problem, !hasWarnedAboutClients {
        hasWarnedAboutClients = true
        warn("cannot add client \(source): \(problem); its datagrams are dropped")
      }
      guard let clientIndex else {
        clientLimitDropped += 1
        continue
      }
      if clientIndex == descriptors.count - 1 {
        descriptors.append(clients.clients[clientIndex].upstream.descriptor)
      }
      arrived(
        direction: .forward, clientIndex: clientIndex, length: length,
        arrivalNanoseconds: arrivalNanoseconds)
    }
  }

  private func receiveFromTarget(clientIndex: Int) {
    let upstream = clients.clients[clientIndex].upstream
    for _ in 0..<Self.receiveBatch {
      guard let (length, source) = upstream.receive(into: receiveBuffer) else { return }
      let arrivalNanoseconds = monotonicNanoseconds()
      guard source.isSamePeer(as: configuration.target) else {
        strayDropped += 1
        continue
      }
      arrived(
        direction: .backward, clientIndex: clientIndex, length: length,
        arrivalNanoseconds: arrivalNanoseconds)
    }
  }

  /// Decides the fate of the datagram in `receiveBuffer` and queues it unless it is dropped.
  private func arrived(
    direction: Direction, clientIndex: Int, length: Int, arrivalNanoseconds: Int64
  ) {
    let arrivalIndex = directions[direction.rawValue].stats.received
    directions[direction.rawValue].stats.received += 1
    // Drawn for every packet, dropped or not, so the n-th packet's fate depends on n alone.
    let decision = directions[direction.rawValue].decider.decide()
    func record(_ fate: PacketFate) {
      log?.record(
        direction: direction, arrivalIndex: arrivalIndex, arrivalNanoseconds: arrivalNanoseconds,
        fate: fate)
    }
    if length > Self.payloadBytes {
      directions[direction.rawValue].stats.oversize += 1
      record(.oversize)
      return
    }
    if decision.isDropped {
      directions[direction.rawValue].stats.dropped += 1
      record(.dropped)
      return
    }
    let packet = QueuedPacket(
      dueNanoseconds: arrivalNanoseconds + decision.delayNanoseconds,
      arrivalNanoseconds: arrivalNanoseconds, arrivalIndex: arrivalIndex, direction: direction,
      clientIndex: clientIndex, isDuplicated: decision.isDuplicated)
    guard queue.enqueue(packet, bytes: UnsafeRawBufferPointer(rebasing: receiveBuffer[..<length]))
    else {
      directions[direction.rawValue].stats.overflow += 1
      record(.overflow)
      return
    }
    directions[direction.rawValue].reorder.queued(arrivalIndex: arrivalIndex)
    if decision.isHeldForReorder { directions[direction.rawValue].stats.reorderHeld += 1 }
  }

  private func sendDuePackets() {
    while let packet = queue.popDue(nowNanoseconds: monotonicNanoseconds()) {
      send(packet)
      queue.release(packet)
    }
  }

  private func send(_ packet: QueuedPacket) {
    let (socket, destination) =
      packet.direction == .forward
      ? (clients.clients[packet.clientIndex].upstream, configuration.target)
      : (listenSocket, clients.clients[packet.clientIndex].address)
    let bytes = queue.bytes(of: packet)
    let index = packet.direction.rawValue
    // Measured just before the send: the delay the packet really got, however late the relay
    // woke up, is what the stats and the log report.
    let sendNanoseconds = monotonicNanoseconds()
    guard socket.send(bytes, to: destination) else {
      directions[index].stats.sendErrors += 1
      directions[index].reorder.abandoned(arrivalIndex: packet.arrivalIndex)
      log?.record(
        direction: packet.direction, arrivalIndex: packet.arrivalIndex,
        arrivalNanoseconds: packet.arrivalNanoseconds, fate: .sendError)
      return
    }
    let appliedNanoseconds = sendNanoseconds - packet.arrivalNanoseconds
    directions[index].stats.recordForwarded(
      appliedDelayNanoseconds: appliedNanoseconds,
      overdueNanoseconds: sendNanoseconds - packet.dueNanoseconds)
    directions[index].reorder.sent(arrivalIndex: packet.arrivalIndex)
    log?.record(
      direction: packet.direction, arrivalIndex: packet.arrivalIndex,
      arrivalNanoseconds: packet.arrivalNanoseconds, fate: .sent,
      appliedDelayNanoseconds: appliedNanoseconds)
    guard packet.isDuplicated else { return }
    // The copy leaves right behind its original, so it never changes the order of originals.
    let copyNanoseconds = monotonicNanoseconds()
    guard socket.send(bytes, to: destination) else {
      directions[index].stats.sendErrors += 1
      log?.record(
        direction: packet.direction, arrivalIndex: packet.arrivalIndex,
        arrivalNanoseconds: packet.arrivalNanoseconds, fate: .sendError)
      return
    }
    directions[index].stats.duplicated += 1
    log?.record(
      direction: packet.direction, arrivalIndex: packet.arrivalIndex,
      arrivalNanoseconds: packet.arrivalNanoseconds, fate: .duplicated,
      appliedDelayNanoseconds: copyNanoseconds - packet.arrivalNanoseconds)
  }

  private func writeStats() {
    output.submit(report(isFinal: false), logLines: log?.take() ?? [])
  }

  private func report(isFinal: Bool) -> RelayReport {
    func direction(_ direction: Direction) -> DirectionReport {
      let state = directions[direction.rawValue]
      return DirectionReport(
        stats: state.stats, reordered: state.reorder.reordered,
        overtaken: state.reorder.overtaken, queued: queue.count(direction: direction),
        parameters: state.decider.parameters)
    }
    return RelayReport(
      listen: boundAddress.description, target: configuration.target.description,
      seed: configuration.seed, isFinal: isFinal,
      elapsedNanoseconds: monotonicNanoseconds() - startNanoseconds,
      clients: clients.clients.count, clientLimitDropped: clientLimitDropped,
      strayDropped: strayDropped, forward: direction(.forward), backward: direction(.backward))
  }
}
