import Foundation
import PackagePlugin

/// Writes `RunbookMarkdown.swift` into the target: docs/runbook.md as a string, so the agent
/// serves its own runbook (`GET /runbook`) from the binary, wherever it is installed. A build
/// command with the file as its input: rebuilt when the runbook changes, not otherwise.
@main
struct EmbeddedRunbook: BuildToolPlugin {
  func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
    let input = context.package.directoryURL.appending(path: "docs/runbook.md")
    let output = context.pluginWorkDirectoryURL.appending(path: "RunbookMarkdown.swift")
    // A raw string (#"""..."""#): the Markdown's backslashes and quotes are kept as they are.
    let script = #"""
      set -eu
      {
        printf '/// Written by the EmbeddedRunbook plugin from docs/runbook.md.\n'
        printf 'let runbookMarkdown = %s"""\n' '#'
        cat "$0"
        printf '\n"""%s\n' '#'
      } > "$1"
      """#
    return [
      .buildCommand(
        displayName: "Embedding docs/runbook.md",
        executable: URL(fileURLWithPath: "/bin/sh"),
        arguments: ["-c", script, input.path, output.path],
        inputFiles: [input],
        outputFiles: [output])
    ]
  }
}
