/// The text dashboard and the status page: applied by a reload (the dashboard file reopened).
enum DashboardKeys {
  static let all: [ConfigurationKey] = [
    .string("dashboard_file", \.dashboardFile, .live),
    .integer(
      "dashboard.max_peers", \.dashboard.maxPeers, in: DashboardSettings.maxPeersRange, .live),
    .integer(
      "dashboard.max_size_mb", \.dashboard.maxSizeMegabytes,
      in: DashboardSettings.maxSizeRangeMegabytes, .live),
    .integer("dashboard.keep", \.dashboard.keep, in: DashboardSettings.keepRange, .live),
    .integer(
      "status_page.max_peers", \.statusPage.maxPeers, in: StatusPageSettings.maxPeersRange, .live),
    .number(
      "status_page.chart_seconds", \.statusPage.chartSeconds,
      in: StatusPageSettings.chartSecondsRange, .live),
  ]
}
