/// Durations written as Go writes them (https://pkg.go.dev/time#ParseDuration): a sequence
/// of decimal numbers each with a unit, `ns`, `us` (or `µs`), `ms`, `s`, `m`, `h`, as in
/// `1s`, `1.5h`, `2m30s`; `0` alone is zero. exporter-toolkit's `rate_limit.interval` is one.
public enum GoDuration {
  /// The seconds `text` stands for, or nil if it is not a Go duration (negative ones are not
  /// accepted: no key here takes one).
  public static func seconds(_ text: String) -> Double? {
    if text == "0" { return 0 }
    var rest = Substring(text)
    guard !rest.isEmpty else { return nil }
    var total = 0.0
    while !rest.isEmpty {
      let number = rest.prefix { $0.isASCII && ($0.isNumber || $0 == ".") }
      guard !number.isEmpty, let value = Double(number) else { return nil }
      rest = rest.dropFirst(number.count)
      let unit = rest.prefix { !($0.isASCII && ($0.isNumber || $0 == ".")) }
      guard let scale = units[String(unit)] else { return nil }
      rest = rest.dropFirst(unit.count)
      total += value * scale
    }
    return total
  }

  private static let units: [String: Double] = [
    "ns": 1e-9, "us": 1e-6, "µs": 1e-6, "μs": 1e-6, "ms": 1e-3, "s": 1, "m": 60, "h": 3600,
  ]
}
