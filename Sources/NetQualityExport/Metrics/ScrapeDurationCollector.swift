/// How long the previous scrape took to render (none before the second scrape).
public struct ScrapeDurationCollector: MetricsCollector, Equatable {
  public static let families: [MetricFamily] = [.scrapeDurationSeconds]

  public var previousRenderSeconds: Double

  public init(previousRenderSeconds: Double) {
    self.previousRenderSeconds = previousRenderSeconds
  }

  public func collect(into out: inout MetricsWriter) {
    out.family(.scrapeDurationSeconds)
    out.sample(.scrapeDurationSeconds, [], previousRenderSeconds)
  }
}

// MARK: The families

extension MetricFamily {
  public static let scrapeDurationSeconds = gauge(
    "netquality_scrape_duration_seconds", "Time the previous scrape took to render.")
}

extension ScrapeDurationCollector {
  /// Every family with a sample, for the catalogue's checks (`MetricsCollector.example`).
  public static var example: Self? {
    ScrapeDurationCollector(previousRenderSeconds: 0.001)
  }
}
