/// Text from the wire, a configuration file or the agent's API made safe to print on a
/// terminal: every control character becomes a visible `\xNN`.
///
/// A terminal acts on control characters instead of showing them: ESC and the C1 CSI (U+009B)
/// start sequences that clear the screen, move the cursor, set the window title or, with OSC 52
/// (`ESC ] 52 ; c ; base64 BEL`), write the reader's clipboard (ECMA-48 sections 5.3 and 8.3;
/// xterm's "Control Sequences", Operating System Commands); CR returns to the line's start and
/// lets what follows overwrite what came before. An SDP `rtpmap` encoding name, a peer name
/// from the API or an alert's summary can carry any of them, so every table, the dashboard and
/// `top` pass such strings through here.
///
/// The replacement is `\x` and two hex digits of the code point (ESC is `\x1B`, DEL `\x7F`,
/// CSI `\x9B`) rather than U+FFFD: it says which character was there, so an operator can tell
/// a hostile name from a merely unprintable one, it is plain ASCII in any locale, and it is the
/// form Python's `repr` and C string literals use. It is for display only: a name that already
/// contains the text `\x1B` reads the same, which matters to no one reading a table.
public enum TerminalText {
  /// `text` with C0 controls (U+0000–U+001F), DEL (U+007F) and C1 controls (U+0080–U+009F)
  /// replaced by `\xNN`; `text` itself when it has none (no copy).
  public static func sanitized(_ text: String) -> String {
    guard text.unicodeScalars.contains(where: isControl) else { return text }
    var result = ""
    result.reserveCapacity(text.utf8.count + 8)
    for scalar in text.unicodeScalars {
      if isControl(scalar) {
        result += "\\x" + hexDigits(scalar.value)
      } else {
        result.unicodeScalars.append(scalar)
      }
    }
    return result
  }

  /// C0, DEL and C1: the code points ECMA-48 (section 5) reserves for control functions.
  @inline(__always)
  public static func isControl(_ scalar: Unicode.Scalar) -> Bool {
    scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
  }

  private static func hexDigits(_ value: UInt32) -> String {
    let digits = Array("0123456789ABCDEF".unicodeScalars)
    return String(digits[Int(value >> 4 & 0xF)]) + String(digits[Int(value & 0xF)])
  }
}
