import NetQualityCore
import Yams

/// Walks the node tree, filling the configuration and collecting issues.
struct Walker {
  var issues: [ConfigurationError.Issue] = []
  /// The line of every key seen, by dotted path.
  var keyLines: [String: Int] = [:]

  mutating func issue(_ node: Node?, _ key: String, _ message: String) {
    issues.append(.init(line: node?.mark?.line, key: key, message: message))
  }

  /// The mapping's entries by key, reporting keys not in `known`.
  mutating func entries(_ node: Node, _ path: String, known: [String]) -> [String: Node] {
    guard let mapping = node.mapping else {
      issue(node, path, "expected a mapping of keys to values")
      return [:]
    }
    var result: [String: Node] = [:]
    for (keyNode, value) in mapping {
      guard let key = keyNode.string else {
        issue(keyNode, path, "keys must be strings")
        continue
      }
      let full = path.isEmpty ? key : "\(path).\(key)"
      keyLines[full] = keyNode.mark?.line
      guard known.contains(key) else {
        issue(keyNode, full, "unknown key; known keys here: \(known.joined(separator: ", "))")
        continue
      }
      result[key] = value
    }
    return result
  }

  mutating func string(_ node: Node, _ key: String) -> String? {
    guard case .scalar = node, let value = node.string else {
      issue(node, key, "expected a string")
      return nil
    }
    return value
  }

  mutating func integer(_ node: Node, _ key: String, in range: ClosedRange<Int>) -> Int? {
    guard case .scalar = node, let value = node.int else {
      issue(node, key, "expected a whole number")
      return nil
    }
    guard range.contains(value) else {
      issue(node, key, "\(value) is out of range \(range.lowerBound)...\(range.upperBound)")
      return nil
    }
    return value
  }

  mutating func number(_ node: Node, _ key: String, in range: ClosedRange<Double>) -> Double? {
    guard case .scalar = node, let value = node.float else {
      issue(node, key, "expected a number")
      return nil
    }
    guard range.contains(value) else {
      issue(node, key, "\(value) is out of range \(range.lowerBound)...\(range.upperBound)")
      return nil
    }
    return value
  }

  mutating func bool(_ node: Node, _ key: String) -> Bool? {
    guard case .scalar = node, let value = node.bool else {
      issue(node, key, "expected true or false")
      return nil
    }
    return value
  }

  mutating func list(_ node: Node, _ key: String) -> [Node] {
    guard let sequence = node.sequence else {
      issue(node, key, "expected a list")
      return []
    }
    return Array(sequence)
  }

  mutating func prefixes(_ node: Node, _ key: String) -> [NetworkPrefix] {
    list(node, key).enumerated().compactMap { index, item in
      guard let text = string(item, "\(key)[\(index)]") else { return nil }
      guard let prefix = NetworkPrefix(text) else {
        issue(item, "\(key)[\(index)]", "'\(text)' is not an address or CIDR prefix")
        return nil
      }
      return prefix
    }
  }

  mutating func numbers(_ node: Node, _ key: String, count: Int, descending: Bool) -> [Double]? {
    let values = list(node, key).enumerated().compactMap { index, item in
      number(item, "\(key)[\(index)]", in: 0...100_000)
    }
    guard values.count == count else {
      issue(node, key, "expected \(count) numbers")
      return nil
    }
    guard values == values.sorted(by: descending ? (>) : (<)) else {
      issue(
        node, key,
        descending ? "must decrease from level to level" : "must increase from level to level")
      return nil
    }
    return values
  }

  /// Histogram bucket bounds in seconds (Prometheus `le`, +Inf implied): 1 to 64 of them, each
  /// above 0 and at most an hour, strictly increasing.
  mutating func bucketBounds(_ node: Node, _ key: String) -> [Double]? {
    let items = list(node, key)
    let values = items.enumerated().compactMap { index, item in
      number(item, "\(key)[\(index)]", in: 0...3600)
    }
    guard values.count == items.count else { return nil }
    guard (1...64).contains(values.count) else {
      issue(node, key, "expected 1 to 64 bucket bounds in seconds, e.g. [0.00005, 0.0001, 0.0002]")
      return nil
    }
    guard values[0] > 0, zip(values, values.dropFirst()).allSatisfy({ $0 < $1 }) else {
      issue(node, key, "bucket bounds must be above 0 and increase strictly")
      return nil
    }
    return values
  }
}
