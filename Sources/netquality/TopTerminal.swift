import ArgumentParser
import Foundation
import Glibc
import NetQualityAgent
import NetQualityCore
import NetQualityExport

/// The terminal in raw mode on the alternate screen, restored on exit.
final class RawTerminal {
  private var original = termios()
  private let interactive: Bool

  init() throws {
    interactive = isatty(STDIN_FILENO) == 1
    if interactive {
      tcgetattr(STDIN_FILENO, &original)
      var raw = original
      raw.c_lflag &= ~tcflag_t(ECHO | ICANON)
      tcsetattr(STDIN_FILENO, TCSANOW, &raw)
    }
    write("\u{1B}[?1049h\u{1B}[?25l")
  }

  func restore() {
    write("\u{1B}[?25h\u{1B}[?1049l")
    if interactive { tcsetattr(STDIN_FILENO, TCSANOW, &original) }
  }

  func size() -> (rows: Int, columns: Int) {
    var window = winsize()
    if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &window) == 0 && window.ws_col > 0 {
      return (Int(window.ws_row), Int(window.ws_col))
    }
    return (24, 80)
  }

  func draw(_ lines: [String]) {
    write("\u{1B}[H\u{1B}[2J" + lines.joined(separator: "\r\n"))
  }

  func readKey(timeoutMilliseconds: Int32) -> UInt8? {
    var request = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
    guard poll(&request, 1, timeoutMilliseconds) > 0 else { return nil }
    var byte: UInt8 = 0
    guard read(STDIN_FILENO, &byte, 1) == 1 else { return UInt8(ascii: "q") }
    return byte
  }

  private func write(_ text: String) {
    var bytes = Array(text.utf8)
    _ = Glibc.write(STDOUT_FILENO, &bytes, bytes.count)
  }
}
