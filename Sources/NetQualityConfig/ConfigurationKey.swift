import NetQualityCore
import Yams

/// One key of the configuration file, declared once beside its section (`Keys/`): its dotted
/// name, how it is read and checked (type, range, validation), where its value lives in
/// `AgentConfiguration` (whose property initialisers are the defaults), and what a reload does
/// with it. The loader, `check-config`, the reload (`ConfigurationKeys.keepStarted`), the list
/// of keys in `/api/v1/status` and the reload test all walk these declarations, so that what a
/// reload does with a key cannot drift from what the documentation says (issue 30: `probes`
/// and `reflector` were declared restart-only while the reload applied them to the engine).
public struct ConfigurationKey: Sendable {
  public enum Effect: String, Sendable {
    /// Applied by a reload, from the next tick (or the next scrape).
    case live
    /// Read once at start: the capture sockets, the HTTP listener, the history file, the
    /// probe and reflector sockets, the Alertmanager notifier.
    case restart
  }

  /// The key as written in the file, dotted below the top level.
  public let name: String
  public let effect: Effect
  /// Reads the key's node into the configuration, reporting what is wrong with it.
  let read: @Sendable (inout Walker, Node, inout AgentConfiguration) -> Void
  /// Whether two configurations give the key different values.
  let compare: @Sendable (AgentConfiguration, AgentConfiguration) -> Bool
  /// Sets the key's value in the second configuration to the first's (a restart key keeps
  /// the value the agent started with).
  let copy: @Sendable (AgentConfiguration, inout AgentConfiguration) -> Void

  /// A key whose value is at `keyPath`, read by `parse` (nil: an issue was reported).
  static func value<Value: Equatable & Sendable>(
    _ name: String, _ keyPath: WritableKeyPath<AgentConfiguration, Value> & Sendable,
    _ effect: Effect, parse: @escaping @Sendable (inout Walker, Node, String) -> Value?
  ) -> ConfigurationKey {
    ConfigurationKey(
      name: name, effect: effect,
      read: { walker, node, configuration in
        if let value = parse(&walker, node, name) { configuration[keyPath: keyPath] = value }
      },
      compare: { $0[keyPath: keyPath] != $1[keyPath: keyPath] },
      copy: { from, into in into[keyPath: keyPath] = from[keyPath: keyPath] })
  }

  static func integer(
    _ name: String, _ keyPath: WritableKeyPath<AgentConfiguration, Int> & Sendable,
    in range: ClosedRange<Int>, _ effect: Effect
  ) -> ConfigurationKey {
    value(name, keyPath, effect) { walker, node, name in walker.integer(node, name, in: range) }
  }

  static func number(
    _ name: String, _ keyPath: WritableKeyPath<AgentConfiguration, Double> & Sendable,
    in range: ClosedRange<Double>, _ effect: Effect
  ) -> ConfigurationKey {
    value(name, keyPath, effect) { walker, node, name in walker.number(node, name, in: range) }
  }

  static func bool(
    _ name: String, _ keyPath: WritableKeyPath<AgentConfiguration, Bool> & Sendable,
    _ effect: Effect
  ) -> ConfigurationKey {
    value(name, keyPath, effect) { walker, node, name in walker.bool(node, name) }
  }

  static func string(
    _ name: String, _ keyPath: WritableKeyPath<AgentConfiguration, String> & Sendable,
    _ effect: Effect
  ) -> ConfigurationKey {
    value(name, keyPath, effect) { walker, node, name in walker.string(node, name) }
  }

  /// Whether `a` and `b` give the key different values.
  public func differs(_ a: AgentConfiguration, _ b: AgentConfiguration) -> Bool { compare(a, b) }

  /// The name's last component, as written in its mapping.
  var leaf: Substring { name.split(separator: ".").last ?? Substring(name) }
}

/// A check across keys of a section, made once the file is read (the timers must grow).
struct ConfigurationCheck: Sendable {
  /// The key the issue is reported at (its line, when the file has it).
  var key: String
  /// The problem, or nil when the configuration is fine.
  var problem: @Sendable (AgentConfiguration) -> String?
}
