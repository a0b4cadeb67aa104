import NetQualityCore

/// Call detection (docs/calls.md): the bound on calls tracked, the masking of users, the
/// failure alerts' window: applied by a reload.
enum CallKeys {
  static let all: [ConfigurationKey] = [
    .integer("calls.max_tracked", \.engine.calls.maxTracked, in: 0...10_000_000, .live),
    .value("calls.user_masking", \.calls.userMasking, .live) { walker, node, name in
      guard let value = walker.string(node, name) else { return nil }
      guard UserMasking.names.contains(value) else {
        walker.issue(
          node, name,
          "'\(value)': expected one of \(UserMasking.names.joined(separator: ", "))")
        return nil
      }
      return value
    },
    .string("calls.user_hash_key", \.calls.userHashKey, .live),
    .integer("calls.user_last_digits", \.calls.userLastDigits, in: 0...64, .live),
    .number(
      "calls.failure_window", \.engine.calls.failureWindowSeconds, in: 10...86_400, .live),
    .integer(
      "calls.failure_min_calls", \.engine.calls.failureMinimumCalls, in: 1...1_000_000, .live),
    .number("calls.held_timeout", \.engine.calls.heldTimeoutSeconds, in: 60...604_800, .live),
    .integer(
      "calls.max_silent_per_source", \.engine.calls.maxSilentPerSource, in: 1...10_000_000,
      .live),
    .integer(
      "calls.silent_records_per_source_per_minute",
      \.engine.calls.silentRecordsPerSourcePerMinute, in: 0...10_000_000, .live),
    .integer(
      "calls.silent_records_per_minute", \.engine.calls.silentRecordsPerMinute,
      in: 0...10_000_000, .live),
  ]
}
