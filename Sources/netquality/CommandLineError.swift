import ArgumentParser
import Foundation
import NetQualityCore
import NetQualityExport

/// Prints `netquality: error: MESSAGE` on stderr and exits with `code`: one line a user can act
/// on, never a stack trace. Messages quote file names, configuration values and libpcap's
/// words: their control characters are shown escaped (`TerminalText`), and the line stays one.
func fail(_ message: String, code: Int32 = 1) -> ExitCode {
  FileHandle.standardError.write(
    Data("netquality: error: \(TerminalText.sanitized(message))\n".utf8))
  return ExitCode(code)
}

func warn(_ message: String) {
  FileHandle.standardError.write(
    Data("netquality: warning: \(TerminalText.sanitized(message))\n".utf8))
}

/// The `--local` values of a command, or a usage error naming the first bad one.
func parseLocalNetworks(_ texts: [String]) throws -> [NetworkPrefix] {
  try texts.map { text in
    guard let prefix = NetworkPrefix(text) else {
      throw fail(
        "--local \(text): not an address or CIDR prefix (e.g. 10.0.0.0/8, 2001:db8::/32)", code: 2)
    }
    return prefix
  }
}
