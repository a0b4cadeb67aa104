import NetQualityCore

/// Everything `netquality run` can be told, with the defaults `config/netquality.yaml`
/// documents. Built by `ConfigurationLoader` from YAML; `init()` is the built-in defaults.
public struct AgentConfiguration: Sendable {
  /// Interfaces to capture on; empty means every interface that is up and not loopback.
  public var interfaces: [String] = []
  /// BPF filter of the captures: UDP (RTP, RTCP, STUN, TURN, DTLS, SIP) and SIP over TCP on
  /// its ports (5060, and 5061 for SIP over TLS, which is counted, not read).
  public var bpfFilter = AgentConfiguration.defaultFilter
  public static let defaultFilter = "udp or tcp port 5060 or tcp port 5061"
  /// Bytes captured per packet: RTP needs its headers, SIP/SDP a full MTU. libpcap sizes each
  /// slot of the kernel ring by this, so a large value means few slots and drops under load.
  public var snapLength = 2048
  /// Kernel capture buffer per interface, MiB.
  public var bufferMegabytes = 16
  /// Addresses of this host; empty means the addresses of the capture interfaces.
  public var localNetworks: [NetworkPrefix] = []
  /// Named groups of remote addresses: a peer is its group's name.
  public var peerGroups: [PeerGroup] = []
  public var engine = EngineConfiguration()
  /// Where the HTTP server listens (metrics, API, landing page): the first address, the one
  /// the agent names itself by (its alerts' `instance`).
  public var listenHost = "127.0.0.1"
  public var listenPort = 9470
  /// The first address's host name as written (`localhost`), nil for an IP address: the name
  /// the agent goes by (`AlertmanagerService.instance`), not resolved again.
  public var listenHostName: String?
  /// Where else it listens, each with the same endpoints and web configuration (`listen` as a
  /// list, a repeated `--web.listen-address`).
  public var moreListenAddresses: [ListenAddress] = []
  /// Where the metrics are served (`telemetry_path`, `--web.telemetry-path`).
  public var telemetryPath = TelemetryPath.defaultPath
  /// Per-stream series in /metrics (opt-in) and their cap.
  public var perStreamMetrics = false
  public var maxStreamSeries = 1000
  /// Peers with per-peer series: the configured groups, then the worst (docs/metrics.md has
  /// the series budget this gives).
  public var maxPeerSeries = 200
  /// Series of a peer that timed out disappear after this long (`forgetAfterTimeoutSeconds`
  /// of the engine says why 60 s).
  public var peerGraceSeconds = 60.0
  /// File the text dashboard is appended to every tick; empty: none.
  public var dashboardFile = ""
  /// Rows per frame and rotation of the dashboard file.
  public var dashboard = DashboardSettings()
  /// The web configuration file (TLS, basic auth, headers: exporter-toolkit's format); empty:
  /// plain HTTP without authentication.
  public var webConfigFile = ""
  /// What the status page at `/` shows.
  public var statusPage = StatusPageSettings()
  /// STAMP probe targets, each scored as a peer.
  public var probes: [ProbeTargetSettings] = []
  /// Where `GET /probe` may send beyond `probes` (`probe_endpoint.allow`).
  public var probeEndpoint = ProbeEndpointSettings()
  public var reflector = ReflectorSettings()
  /// The SQLite history (see `storage`); empty: none.
  public var storagePath = AgentConfiguration.defaultStoragePath
  public var storage = StorageSettings()
  /// The runbook (`alerts.runbook_url`): each alert's `runbook_url`, pushed or forwarded by
  /// Prometheus, is its section there.
  public var alertRunbookURL = AgentConfiguration.defaultRunbookURL
  /// Where alerts are pushed (none unless `alertmanager.url(s)` is set).
  public var alertmanager = AlertmanagerSettings()
  /// Call detection's masking of users and the calls kept in memory (the rest of `calls:` is
  /// the engine's, `engine.calls`).
  public var calls = CallsSettings()
  /// The line of each key (dotted path) in the file it was loaded from, for checks made after
  /// loading (the capture filter compiled, interfaces and directories looked up).
  public var keyLines: [String: Int] = [:]

  public init() {}

  /// Where the history goes unless told: the state directory of a system service.
  public static let defaultStoragePath = "/var/lib/netquality/history.db"

  /// The history file the agent writes, nil when storage is off.
  public var historyPath: String? {
    storage.enabled && !storagePath.isEmpty ? storagePath : nil
  }

  /// The runbook unless the file names one: empty, each agent's own page (`GET /runbook`,
  /// `AgentAlertRules.defaultRunbookURL`), which opens wherever the agent is reachable.
  public static let defaultRunbookURL = ""

  /// Whether `text` is an absolute URL: a scheme (RFC 3986 section 3.1), `://` or `:/`, and no
  /// space or control character.
  public static func isAbsoluteURL(_ text: String) -> Bool {
    guard let colon = text.firstIndex(of: ":"), colon > text.startIndex else { return false }
    let scheme = text[..<colon]
    guard let first = scheme.unicodeScalars.first,
      ("a"..."z").contains(first) || ("A"..."Z").contains(first),
      scheme.unicodeScalars.allSatisfy({
        ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0)
          || $0 == "+" || $0 == "-" || $0 == "."
      })
    else { return false }
    let rest = text[text.index(after: colon)...]
    return rest.hasPrefix("/") && rest.count > 1
      && !text.unicodeScalars.contains { $0.value <= 0x20 || $0.value == 0x7F }
  }

  /// The `alerts:` section as one key: the rules (the engine's) and the runbook.
  public struct Alerts: Equatable, Sendable {
    public var rules: [AlertRule]
    public var runbookURL = AgentConfiguration.defaultRunbookURL
  }

  /// The `alerts:` section's values, where they live (`engine.alertRules`, `alertRunbookURL`).
  public var alerts: Alerts {
    get { Alerts(rules: engine.alertRules, runbookURL: alertRunbookURL) }
    set {
      engine.alertRules = newValue.rules
      alertRunbookURL = newValue.runbookURL
    }
  }

  /// Accepted tick intervals, seconds: a tenth of a second to an hour.
  public static let tickIntervalRangeSeconds: ClosedRange<Double> = 0.1...3600

  /// Peer groups a configuration may name: 100,000, the fleet the agent is built and measured
  /// for (docs/benchmarks.md, the live agent at scale). Unbounded, a valid file of 1.1 million groups
  /// (50 MB) took `check-config` 42 s and 1.3 GB; the file itself is bounded too
  /// (`BoundedFileReader.maximumConfigurationBytes`).
  public static let maximumPeerGroups = 100_000

  public struct PeerGroup: Sendable, Equatable {
    public var name: String
    public var networks: [NetworkPrefix]

    public init(name: String, networks: [NetworkPrefix]) {
      self.name = name
      self.networks = networks
    }
  }
}
