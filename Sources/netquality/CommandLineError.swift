import ArgumentParser
import Foundation

/// Prints `netquality: error: MESSAGE` on stderr and exits with `code`: one line a user can act
/// on, never a stack trace.
func fail(_ message: String, code: Int32 = 1) -> ExitCode {
  FileHandle.standardError.write(Data("netquality: error: \(message)\n".utf8))
  return ExitCode(code)
}

func warn(_ message: String) {
  FileHandle.standardError.write(Data("netquality: warning: \(message)\n".utf8))
}
