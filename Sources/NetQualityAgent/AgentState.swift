import NetQualityConfig
import NetQualityCore
import NetQualityExport
import NetQualityProbe
import NetQualityStore
import Synchronization

/// What the agent shares between its capture threads, its ticker and its HTTP server: the
/// engine's two halves behind locks of their own — the analyzer, which the captures feed and
/// the ticker harvests (a copy of its counters, the only moment a tick holds the captures up),
/// and the scorer, which the ticker scores harvests with and the probes feed — and what the
/// last tick published (read by scrapes and the JSON API without touching either).
public final class AgentState: Sendable {
  public let capture: Mutex<StreamAnalyzer>
  public let scorer: Mutex<Scorer>
  /// What the last tick published. Requests read it and never wait for the ticker: while a
  /// tick is harvested and scored they get the previous one (issue 37: 3,000 peers made ticks
  /// of 20 s and more, and every API request and status page waited for them). The cost is two
  /// ticks' peers in memory during a tick, the published and the one being scored (37 MB at
  /// 100,000 peers).
  let published = Mutex(Published())
  /// Where the ticker appends dashboard frames; a reload may swap it.
  let dashboard = Mutex<DashboardOutput?>(nil)
  /// What the dashboard's files did, kept across the reloads that replace `dashboard`.
  let dashboardCounters = DashboardOutput.Counters()
  /// The history recorder, when storage is on (set once at start).
  let history: HistoryRecorder?
  /// The HTTP server's readers of the history, when storage is on.
  let historyReaders: HistoryReaders?
  /// The status page's charts kept in memory for the peers it shows.
  let statusCharts = StatusCharts()
  /// The Alertmanager notifier, when `alertmanager.url(s)` is set (set once at start).
  let alertmanager: AlertmanagerNotifier?
  /// The threads of `GET /probe`'s one-off measurements: two at a time, four waiting.
  let oneShotProbes = BoundedWorkQueue(
    name: "netquality-probe", threads: 2, queueLimit: 4, timeoutSeconds: 15)

  /// The latest tick and the capture side's figures, as the HTTP server renders them.
  struct Published: Sendable {
    var lastTick: Engine.TickResult?
    /// The last tick's peers in the API's orders, made by the HTTP sink with the tick.
    var peerTable: PeerTable?
    /// The peers the status page shows, chosen at the tick (`StatusPageSink`).
    var statusRows = StatusPageRows()
    var alerts: [Alert] = []
    /// The latest events, newest last, at most `recentEventLimit`: what the status page lists.
    var recentEvents: [EngineEvent] = []
    /// The latest ended calls, newest last: `/api/v1/calls` and the status page. The merge of
    /// the latest `recentCallLimit` that something answered and the latest
    /// `recentSilentCallLimit` that nothing did (`CallRecord.noResponse`).
    var recentCalls: [CallRecord] = []
    var recentAnsweredCalls: [CallRecord] = []
    var recentSilentCalls: [CallRecord] = []
    var interfaces: [String: CaptureInterfacesCollector.Interface] = [:]
    var capture = CaptureCounters()
    var trackedStreams = 0
    var streamSlots = 0
    var tickTiming = TickTiming()
    var ready = false
    var status = AgentStatus()
    var metrics = TickMetrics.Settings()
    /// The tick's part of the exposition, rendered once per tick (`PublishedStateSink`).
    var tickMetrics: String?
    /// The peers with series of their own at the last tick, when not all have them: they keep
    /// them against peers at the same level (`PeerCollector.seriesPeers`).
    var seriesPeers: Set<String> = []
    var lastRenderSeconds: Double?
    /// Answers the probe senders refused, by target; what the reflector did.
    var probeSenders: [String: STAMPSender.Counters] = [:]
    /// How late the probes left after their scheduled times (nil before the first pass).
    var probeSendLateness: DelayHistogram?
    var reflector: ReflectorCounters?
  }

  /// Events the status page can list: a screenful.
  static let recentEventLimit = 20
  /// Ended calls `/api/v1/calls` answers from (a record is about 2 KB).
  static let recentCallLimit = 1000
  static let recentSilentCallLimit = 100

  /// Takes over `engine`'s two halves.
  public init(
    engine: Engine, history: HistoryRecorder? = nil, alertmanager: AlertmanagerNotifier? = nil
  ) {
    capture = Mutex(engine.analyzer)
    scorer = Mutex(engine.scorer)
    self.history = history
    historyReaders = history.map { HistoryReaders(path: $0.settings.path) }
    self.alertmanager = alertmanager
  }

  /// Applies reloaded settings to both halves (see `Engine.reconfigure`).
  func reconfigure(_ configuration: EngineConfiguration) {
    scorer.withLock { $0.reconfigure(configuration) }
    capture.withLock { $0.reconfigure(Scorer.analyzerConfiguration(configuration)) }
  }

  func update(_ body: (inout Published) -> Void) {
    published.withLock { body(&$0) }
  }

  func read<T>(_ body: (Published) -> T) -> T {
    published.withLock { body($0) }
  }

}
