import NetQualityCore

/// Builds exposition text: families with HELP and TYPE, samples with escaped labels. Only
/// declared families can be written (`MetricFamily`'s constructors are this module's), so every
/// collector lives here, its families beside it.
public struct MetricsWriter {
  public private(set) var text = ""

  init() {}

  /// Text another writer rendered (a cached section).
  mutating func append(_ section: String) { text += section }

  mutating func family(_ family: MetricFamily) { text += family.header }

  mutating func sample(_ family: MetricFamily, _ labels: [(String, String)], _ value: Double) {
    sample(named: family.name, labels, value)
  }

  private mutating func sample(named name: String, _ labels: [(String, String)], _ value: Double) {
    text += name
    if !labels.isEmpty {
      text += "{"
      for (index, (key, labelValue)) in labels.enumerated() {
        if index > 0 { text += "," }
        text += "\(key)=\"\(Self.escapeLabel(labelValue))\""
      }
      text += "}"
    }
    text += " \(Self.number(value))\n"
  }

  /// A summary's samples: one per `quantile`, then `_sum` and `_count`.
  mutating func summary(
    _ family: MetricFamily, _ labels: [(String, String)],
    quantiles: [(quantile: Double, value: Double)], sum: Double, count: Int
  ) {
    for (quantile, value) in quantiles {
      sample(named: family.name, labels + [("quantile", Self.number(quantile))], value)
    }
    sample(named: family.sumName, labels, sum)
    sample(named: family.countName, labels, Double(count))
  }

  /// A histogram's samples: cumulative `_bucket`s by `le` (the last +Inf), `_sum`, `_count`.
  mutating func histogram(
    _ family: MetricFamily, _ labels: [(String, String)], _ histogram: DelayHistogram
  ) {
    let cumulative = histogram.cumulativeCounts
    for (index, count) in cumulative.enumerated() {
      let bound =
        index < histogram.boundsSeconds.count ? Self.number(histogram.boundsSeconds[index]) : "+Inf"
      sample(named: family.bucketName, labels + [("le", bound)], Double(count))
    }
    sample(named: family.sumName, labels, histogram.sumSeconds)
    sample(named: family.countName, labels, Double(cumulative.last ?? 0))
  }

  /// A histogram of `values` over `bounds`: cumulative `_bucket`s by `le` (the last +Inf),
  /// `_sum`, `_count`.
  mutating func buckets(
    _ family: MetricFamily, _ labels: [(String, String)], _ bounds: [Double], _ values: [Double]
  ) {
    var counts = [Int](repeating: 0, count: bounds.count + 1)
    var sum = 0.0
    for value in values {
      counts[bounds.firstIndex { value <= $0 } ?? bounds.count] += 1
      sum += value
    }
    var cumulative = 0
    for (index, count) in counts.enumerated() {
      cumulative += count
      let bound = index < bounds.count ? Self.number(bounds[index]) : "+Inf"
      sample(named: family.bucketName, labels + [("le", bound)], Double(cumulative))
    }
    sample(named: family.sumName, labels, sum)
    sample(named: family.countName, labels, Double(values.count))
  }

  /// A histogram kept as cumulative counts already (`counts[i]`: observations at or below
  /// `bounds[i]`), with its sum and count: `_bucket`s by `le` (the last +Inf), `_sum`, `_count`.
  mutating func cumulativeBuckets(
    _ family: MetricFamily, _ labels: [(String, String)], _ bounds: [Double], _ counts: [Int64],
    sum: Double, count: Int64
  ) {
    for (index, bound) in bounds.enumerated() {
      let cumulative = index < counts.count ? counts[index] : count
      sample(named: family.bucketName, labels + [("le", Self.number(bound))], Double(cumulative))
    }
    sample(named: family.bucketName, labels + [("le", "+Inf")], Double(count))
    sample(named: family.sumName, labels, sum)
    sample(named: family.countName, labels, Double(count))
  }

  /// Label values escape backslash, double quote and line feed (exposition format 0.0.4).
  static func escapeLabel(_ value: String) -> String {
    var escaped = ""
    for character in value {
      switch character {
      case "\\": escaped += "\\\\"
      case "\"": escaped += "\\\""
      case "\n": escaped += "\\n"
      default: escaped.append(character)
      }
    }
    return escaped
  }

  /// HELP text escapes backslash and line feed.
  static func escapeHelp(_ value: String) -> String {
    value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\n", with: "\\n")
  }

  static func number(_ value: Double) -> String {
    if value.isNaN { return "NaN" }
    if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
    if value == value.rounded() && abs(value) < 1e15 { return String(Int64(value)) }
    return String(value)
  }
}

extension String {
  fileprivate func replacingOccurrences(of target: String, with replacement: String) -> String {
    split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
  }
}
