/// A JSON value written with its keys in the order given: timeline lines read left to right
/// (`type`, `time`, then the rest), which Foundation's encoder does not promise.
public indirect enum JSONValue: Sendable, Equatable {
  case object([(String, JSONValue)])
  case array([JSONValue])
  case string(String)
  case number(Double)
  case integer(Int64)
  case bool(Bool)
  case null

  public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool { lhs.text == rhs.text }

  public static func optional(_ value: Double?) -> JSONValue {
    value.map(JSONValue.number) ?? .null
  }
  public static func optional(_ value: String?) -> JSONValue {
    value.map(JSONValue.string) ?? .null
  }

  /// Compact JSON text (RFC 8259).
  public var text: String {
    var output = ""
    write(to: &output)
    return output
  }

  func write(to output: inout String) {
    switch self {
    case .object(let members):
      output += "{"
      for (index, (key, value)) in members.enumerated() {
        if index > 0 { output += "," }
        Self.writeString(key, to: &output)
        output += ":"
        value.write(to: &output)
      }
      output += "}"
    case .array(let values):
      output += "["
      for (index, value) in values.enumerated() {
        if index > 0 { output += "," }
        value.write(to: &output)
      }
      output += "]"
    case .string(let string):
      Self.writeString(string, to: &output)
    case .number(let number):
      // JSON has no NaN or infinity.
      guard number.isFinite else {
        output += "null"
        return
      }
      if number == number.rounded(), abs(number) < 1e15 {
        output += String(Int64(number))
      } else {
        output += String(number)
      }
    case .integer(let integer):
      output += String(integer)
    case .bool(let bool):
      output += bool ? "true" : "false"
    case .null:
      output += "null"
    }
  }

  /// JSON text from Foundation's `JSONEncoder` with DEL and the C1 controls escaped as
  /// `writeString` escapes them: the encoder escapes only what RFC 8259 requires (U+0000–
  /// U+001F) and writes the rest raw. Outside its strings JSON text holds no such character
  /// (section 2: structure and whitespace are ASCII), so each one is inside a string, where
  /// `\u00XX` stands for it.
  public static func escapingDELAndC1(_ json: String) -> String {
    guard json.unicodeScalars.contains(where: { (0x7F...0x9F).contains($0.value) }) else {
      return json
    }
    var result = ""
    result.reserveCapacity(json.utf8.count + 16)
    for scalar in json.unicodeScalars {
      if (0x7F...0x9F).contains(scalar.value) {
        result += "\\u00" + String(scalar.value, radix: 16)
      } else {
        result.unicodeScalars.append(scalar)
      }
    }
    return result
  }

  /// RFC 8259 section 7: quote, backslash and control characters escaped. DEL and the C1
  /// controls (U+007F–U+009F), which JSON allows raw, are escaped too (any character may be):
  /// JSON lines are read on terminals, which act on them (see `TerminalText`).
  /// `string` as a JSON string, quotes included (`writeString`).
  public static func quoted(_ string: String) -> String {
    var output = ""
    writeString(string, to: &output)
    return output
  }

  static func writeString(_ string: String, to output: inout String) {
    output += "\""
    for scalar in string.unicodeScalars {
      switch scalar {
      case "\"": output += "\\\""
      case "\\": output += "\\\\"
      case "\n": output += "\\n"
      case "\r": output += "\\r"
      case "\t": output += "\\t"
      case _ where TerminalText.isControl(scalar):
        let hex = String(scalar.value, radix: 16)
        output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
      default: output.unicodeScalars.append(scalar)
      }
    }
    output += "\""
  }
}
