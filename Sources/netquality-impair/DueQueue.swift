/// A packet waiting for its due time, with what its fate needs when it leaves.
struct QueuedPacket: Sendable {
  var dueNanoseconds: Int64
  var arrivalNanoseconds: Int64
  /// Position in its direction's arrival order (0 for the first packet received).
  var arrivalIndex: Int64
  var direction: Direction
  /// The client whose upstream socket sends it (forward) or who receives it (backward).
  var clientIndex: Int
  var isDuplicated: Bool
  /// Which payload buffer holds the bytes.
  fileprivate(set) var slot: Int = 0
  fileprivate(set) var length: Int = 0
  /// Enqueue order, the tie-break between equal due times: equal delays keep arrival order.
  fileprivate var order: UInt64 = 0

  /// A packet to queue; `DueQueue.enqueue` fills in where its bytes are.
  init(
    dueNanoseconds: Int64, arrivalNanoseconds: Int64, arrivalIndex: Int64,
    direction: Direction, clientIndex: Int, isDuplicated: Bool
  ) {
    self.dueNanoseconds = dueNanoseconds
    self.arrivalNanoseconds = arrivalNanoseconds
    self.arrivalIndex = arrivalIndex
    self.direction = direction
    self.clientIndex = clientIndex
    self.isDuplicated = isDuplicated
  }

  fileprivate func leaves(before other: QueuedPacket) -> Bool {
    dueNanoseconds != other.dueNanoseconds
      ? dueNanoseconds < other.dueNanoseconds : order < other.order
  }
}

/// The packets waiting to leave, earliest due first: a binary min-heap over a fixed number of
/// preallocated payload buffers, so the relay allocates nothing per packet and a flood is
/// refused (`enqueue` returns false) instead of growing memory without end.
final class DueQueue {
  let capacity: Int
  let payloadBytes: Int
  /// One block of `capacity × payloadBytes`; pages the kernel maps only when first touched,
  /// and `freeSlots` hands back the most recently freed first, so a quiet relay touches few.
  private let payloads: UnsafeMutableRawBufferPointer
  private var freeSlots: [Int]
  private var heap: [QueuedPacket] = []
  private var nextOrder: UInt64 = 0

  init(capacity: Int, payloadBytes: Int) {
    self.capacity = capacity
    self.payloadBytes = payloadBytes
    payloads = .allocate(byteCount: capacity * payloadBytes, alignment: 16)
    freeSlots = Array((0..<capacity).reversed())
    heap.reserveCapacity(capacity)
  }

  deinit {
    payloads.deallocate()
  }

  var count: Int { heap.count }

  /// When the earliest packet is due, nil when none waits.
  var nextDueNanoseconds: Int64? { heap.first?.dueNanoseconds }

  /// Copies `bytes` into a free buffer and queues the packet; false when every buffer is taken
  /// (or the bytes are more than a buffer holds, which the caller checks first).
  func enqueue(_ packet: QueuedPacket, bytes: UnsafeRawBufferPointer) -> Bool {
    guard bytes.count <= payloadBytes, let slot = freeSlots.popLast() else { return false }
    var packet = packet
    packet.slot = slot
    packet.length = bytes.count
    packet.order = nextOrder
    nextOrder &+= 1
    UnsafeMutableRawBufferPointer(
      rebasing: payloads[slot * payloadBytes..<(slot + 1) * payloadBytes]
    )
    .copyMemory(from: bytes)
    heap.append(packet)
    siftUp(from: heap.count - 1)
    return true
  }

  /// Removes and returns the earliest packet if it is due at `nowNanoseconds`. Its bytes stay
  /// valid until `release` is called with it.
  func popDue(nowNanoseconds: Int64) -> QueuedPacket? {
    guard let first = heap.first, first.dueNanoseconds <= nowNanoseconds else { return nil }
    let last = heap.removeLast()
    if !heap.isEmpty {
      heap[0] = last
      siftDown(from: 0)
    }
    return first
  }

  func bytes(of packet: QueuedPacket) -> UnsafeRawBufferPointer {
    let start = packet.slot * payloadBytes
    return UnsafeRawBufferPointer(rebasing: payloads[start..<start + packet.length])
  }

  func release(_ packet: QueuedPacket) {
    freeSlots.append(packet.slot)
  }

  /// Queued packets per direction (for the stats' `queued`).
  func count(direction: Direction) -> Int {
    heap.reduce(0) { $0 + ($1.direction == direction ? 1 : 0) }
  }

  private func siftUp(from start: Int) {
    var child = start
    while child > 0 {
      let parent = (child - 1) / 2
      guard heap[child].leaves(before: heap[parent]) else { return }
      heap.swapAt(child, parent)
      child = parent
    }
  }

  private func siftDown(from start: Int) {
    var parent = start
    while true {
      let left = 2 * parent + 1
      let right = left + 1
      var earliest = parent
      if left < heap.count && heap[left].leaves(before: heap[earliest]) { earliest = left }
      if right < heap.count && heap[right].leaves(before: heap[earliest]) { earliest = right }
      guard earliest != parent else { return }
      heap.swapAt(parent, earliest)
      parent = earliest
    }
  }
}
