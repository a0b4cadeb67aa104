import NetQualityExport

/// The notifications waiting for Alertmanager, oldest first, bounded: when full, the oldest is
/// dropped and counted (as Prometheus' notifier does with its queue). One entry per alert: a
/// newer notification of an alert still waiting (a resend, its resolution) replaces the older
/// one and moves to the back, so a long outage costs one entry per alert, not one per resend.
struct AlertmanagerQueue: Sendable {
  /// A notification and when it arrived (increasing): what tells a delivered entry from the
  /// newer one that replaced it while it was on its way.
  struct Entry: Sendable, Equatable {
    var sequence: Int64
    var notification: AlertNotification
  }

  let capacity: Int
  /// Entries in order of arrival; removed ones are nil until squeezed out.
  private var slots: [Entry?] = []
  /// Slots before this are all nil.
  private var head = 0
  /// Each alert's waiting entry: its sequence number and slot.
  private var places: [String: (sequence: Int64, slot: Int)] = [:]
  private var nextSequence: Int64 = 0
  private(set) var count = 0
  /// Notifications dropped because the queue was full.
  private(set) var dropped: Int64 = 0

  init(capacity: Int) {
    self.capacity = max(1, capacity)
  }

  var isEmpty: Bool { count == 0 }

  /// Slots held, holes included (what the squeezing bounds).
  var storedSlots: Int { slots.count }

  /// Adds `notification` at the back, replacing the alert's waiting one; drops the oldest
  /// when full.
  mutating func push(_ notification: AlertNotification) {
    if let place = places[notification.key] { removeSlot(place.slot) }
    if count >= capacity, let oldest = first(1).first {
      remove(oldest)
      dropped += 1
    }
    // Holes left by replaced entries are squeezed out once they are most of the array, so a
    // long outage with resends never grows it past about twice what is queued.
    if slots.count >= 2 * count + 1024 { squeeze() }
    let entry = Entry(sequence: nextSequence, notification: notification)
    nextSequence += 1
    places[notification.key] = (entry.sequence, slots.count)
    slots.append(entry)
    count += 1
  }

  /// The oldest `limit` entries, still queued: a batch to send, removed once delivered.
  func first(_ limit: Int) -> [Entry] {
    var batch: [Entry] = []
    var index = head
    while batch.count < limit && index < slots.count {
      if let entry = slots[index] { batch.append(entry) }
      index += 1
    }
    return batch
  }

  /// Removes the entries of a delivered batch, except those replaced by newer notifications
  /// meanwhile (which stay, to be sent).
  mutating func remove(_ batch: [Entry]) {
    for entry in batch { remove(entry) }
  }

  private mutating func remove(_ entry: Entry) {
    guard let place = places[entry.notification.key], place.sequence == entry.sequence else {
      return
    }
    removeSlot(place.slot)
  }

  private mutating func removeSlot(_ slot: Int) {
    guard let entry = slots[slot] else { return }
    slots[slot] = nil
    places[entry.notification.key] = nil
    count -= 1
    while head < slots.count && slots[head] == nil { head += 1 }
    if head == slots.count {
      slots.removeAll(keepingCapacity: true)
      head = 0
    }
  }

  /// Rebuilds the array without holes, in the same order.
  private mutating func squeeze() {
    let entries = slots.compactMap { $0 }
    slots = []
    slots.reserveCapacity(2 * entries.count)
    for entry in entries {
      places[entry.notification.key] = (entry.sequence, slots.count)
      slots.append(entry)
    }
    head = 0
  }
}
