/// The engine's clock, its stream table and its connection timers: applied by a reload.
enum EngineKeys {
  static let all: [ConfigurationKey] = [
    .number(
      "tick_interval", \.engine.tickIntervalSeconds,
      in: AgentConfiguration.tickIntervalRangeSeconds,
      .live),
    .integer("max_streams", \.engine.analyzer.maxStreams, in: 1...10_000_000, .live),
    // Half a second to an hour (a day for the timeout): shorter than a packet time is noise,
    // longer says nothing a tick could act on.
    .number("timers.interrupted", \.engine.timers.interruptedAfterSeconds, in: 0.5...3600, .live),
    .number(
      "timers.disconnected", \.engine.timers.disconnectedAfterSeconds, in: 0.5...3600, .live),
    .number("timers.timeout", \.engine.timers.timeoutAfterSeconds, in: 0.5...86_400, .live),
  ]

  static let checks: [ConfigurationCheck] = [
    ConfigurationCheck(key: "timers") { configuration in
      let timers = configuration.engine.timers
      return timers.interruptedAfterSeconds < timers.disconnectedAfterSeconds
        && timers.disconnectedAfterSeconds < timers.timeoutAfterSeconds
        ? nil : "must grow: interrupted < disconnected < timeout"
    }
  ]
}
