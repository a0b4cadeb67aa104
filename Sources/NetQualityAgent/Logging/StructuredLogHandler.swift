import Foundation
import Logging
import NetQualityCore
import NetQualityExport

/// The agent's log lines as Prometheus' exporters write theirs (exporter-toolkit's promslog,
/// Go's log/slog): logfmt by default, JSON on request, each line a UTC time with milliseconds,
/// a level, the message and the metadata as keys — so that Loki, Vector or `grep level=ERROR`
/// read them like any exporter's.
///
/// Written here rather than taken from a package: the package mirror has swift-log but no
/// maintained logfmt or JSON backend for it, and swift-log's `StreamLogHandler` prints a
/// local time to the second with the metadata in brackets.
public struct StructuredLogHandler: LogHandler {
  public enum Format: String, Sendable, CaseIterable {
    case logfmt, json
  }

  public var logLevel: Logger.Level
  public var metadata: Logger.Metadata = [:]
  public var metadataProvider: Logger.MetadataProvider?
  let format: Format
  let write: @Sendable (String) -> Void

  public init(
    format: Format, level: Logger.Level,
    write: @escaping @Sendable (String) -> Void = {
      FileHandle.standardError.write(Data($0.utf8))
    }
  ) {
    self.format = format
    self.logLevel = level
    self.write = write
  }

  public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
    get { metadata[key] }
    set { metadata[key] = newValue }
  }

  public func log(event: LogEvent) {
    var merged = metadata
    if let provided = metadataProvider?.get() { merged.merge(provided) { $1 } }
    if let own = event.metadata { merged.merge(own) { $1 } }
    write(
      Self.line(
        format: format, time: Date(), level: event.level, message: "\(event.message)",
        metadata: merged))
  }

  /// One line: `time=… level=… msg=… key=value…` (logfmt) or `{"time":…,"level":…,"msg":…}`.
  static func line(
    format: Format, time: Date, level: Logger.Level, message: String, metadata: Logger.Metadata
  ) -> String {
    // To the nearest millisecond: a Double of seconds holds .123 as .12299….
    let milliseconds = Int64((time.timeIntervalSince1970 * 1000).rounded())
    let stamp = CaptureTime(nanosecondsSinceEpoch: milliseconds * 1_000_000).rfc3339
    var fields: [(String, String)] = [("time", stamp), ("level", name(level)), ("msg", message)]
    for (key, value) in metadata.sorted(by: { $0.key < $1.key }) {
      fields.append((key, "\(value)"))
    }
    switch format {
    case .logfmt:
      return fields.map { "\($0.0)=\(logfmtValue($0.1))" }.joined(separator: " ") + "\n"
    case .json:
      return "{"
        + fields.map { "\(JSONValue.quoted($0.0)):\(JSONValue.quoted($0.1))" }.joined(
          separator: ",")
        + "}\n"
    }
  }

  /// slog's level names: DEBUG, INFO, WARN, ERROR (swift-log's notice is info, critical error).
  static func name(_ level: Logger.Level) -> String {
    switch level {
    case .trace, .debug: "DEBUG"
    case .info, .notice: "INFO"
    case .warning: "WARN"
    case .error, .critical: "ERROR"
    }
  }

  /// exporter-toolkit's `--log.level` values.
  public static func level(_ text: String) -> Logger.Level? {
    switch text {
    case "debug": .debug
    case "info": .info
    case "warn": .warning
    case "error": .error
    default: nil
    }
  }

  /// A logfmt value: bare when it has no space, quote, equals sign or control character,
  /// else quoted with those escaped (the go-logfmt rules; its escapes are JSON's, so the one
  /// JSON string writer, `JSONValue.quoted`, writes both).
  static func logfmtValue(_ value: String) -> String {
    let needsQuotes =
      value.isEmpty
      || value.unicodeScalars.contains {
        $0 == " " || $0 == "=" || $0 == "\"" || TerminalText.isControl($0)
      }
    return needsQuotes ? JSONValue.quoted(value) : value
  }
}
