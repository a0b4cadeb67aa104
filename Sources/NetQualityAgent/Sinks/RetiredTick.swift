import Dispatch
import NetQualityCore

/// The tick a publication replaced, freed on a thread of its own instead of the ticker's, and
/// never under the state's lock: with 100,000 peers held, freeing the tick before (its peers,
/// streams and the API's table, a release for each snapshot's name and box) was 4 % of the
/// ticker's time under churn, and requests waited on the lock while it ran (perf, issue 37).
struct RetiredTick {
  var result: Engine.TickResult?
  var table: PeerTable?

  /// One serial queue: a slow free never runs beside the next one, and never on the ticker.
  private static let queue = DispatchQueue(label: "netquality.retired-ticks", qos: .utility)

  /// Hands the values to the queue, whose release is the last: the box's only strong reference
  /// is the retained `Unmanaged` the queue takes back (a closure capturing the box could be
  /// released by the ticker after the queue ran, which would free it here).
  mutating func release() {
    guard result != nil || table != nil else { return }
    let box = Unmanaged.passRetained(Box(result: result, table: table))
    result = nil
    table = nil
    Self.queue.async { box.release() }
  }

  /// Returns once every tick handed over so far is freed (the tests).
  static func waitForReleases() { queue.sync {} }

  private final class Box: Sendable {
    let result: Engine.TickResult?
    let table: PeerTable?

    init(result: Engine.TickResult?, table: PeerTable?) {
      self.result = result
      self.table = table
    }
  }
}
