import NetQualityConfig
import NetQualityCore
import NetQualityExport
import NetQualityProbe
import NetQualityStore
import Synchronization

/// What the agent shares between its capture threads, its ticker and its HTTP server: the
/// engine behind a lock (captures feed it, the ticker closes windows), and what the last tick
/// published (read by scrapes and the JSON API without touching the engine).
public final class AgentState: Sendable {
  public let engine: Mutex<Engine>
  let published = Mutex(Published())
  /// Where the ticker appends dashboard frames; a reload may swap it.
  let dashboard = Mutex<DashboardOutput?>(nil)
  /// The history recorder, when storage is on (set once at start).
  let history: HistoryRecorder?

  /// The latest tick and the capture side's figures, as the HTTP server renders them.
  struct Published: Sendable {
    var lastTick: Engine.TickResult?
    /// The last tick's peers in the API's orders, made by the HTTP sink with the tick.
    var peerTable: PeerTable?
    var alerts: [Alert] = []
    var interfaces: [String: PrometheusExposition.Interface] = [:]
    var capture = CaptureCounters()
    var trackedStreams = 0
    var ready = false
    var status = AgentStatus()
    var metrics = HTTPServer.MetricsSettings(perStream: false, maxStreamSeries: 1000)
    var lastRenderSeconds: Double?
    /// Answers the probe senders refused, by target; what the reflector did.
    var probeSenders: [String: ProbeSender.Counters] = [:]
    var reflector: ReflectorCounters?
  }

  public init(engine: Engine, history: HistoryRecorder? = nil) {
    self.engine = Mutex(engine)
    self.history = history
  }

  func update(_ body: (inout Published) -> Void) {
    published.withLock { body(&$0) }
  }

  func read<T>(_ body: (Published) -> T) -> T {
    published.withLock { body($0) }
  }
}
