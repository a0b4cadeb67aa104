/// The `status_page:` section: what the page at `/` shows. Applied by a reload.
public struct StatusPageSettings: Sendable, Equatable {
  /// Peer rows: the worst this many, then the configured peer groups (as many again at
  /// most), and a line counting the others. 20 rows with their charts is a screen and about
  /// 60 KB of HTML at any fleet size.
  public var maxPeers = 20
  /// The span of each row's chart, seconds: the last hour, in at most `chartPoints` points.
  public var chartSeconds = 3600.0

  public init() {}

  public static let maxPeersRange = 1...500
  /// A minute to six hours: beyond, a chart read from the history costs a scan of many ticks
  /// per page (Grafana and `netquality history` are for longer spans).
  public static let chartSecondsRange: ClosedRange<Double> = 60...21_600
  /// Points per chart: a point per 30 s over an hour, a point per tick over 4 minutes.
  public static let chartPoints = 120
}
