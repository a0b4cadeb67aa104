import Foundation
import PackagePlugin

/// Writes `BuildRevision.swift` into the target before every build: the git commit the sources
/// were built from (`git rev-parse HEAD`), "unknown" outside a git checkout (a source tarball).
/// What `netquality_build_info{revision}` says, as Prometheus' own build_info does.
///
/// A prebuild command, not a build command: its input (the checkout's HEAD) is not a file the
/// build system can watch. The script rewrites the file only when the revision changed, so an
/// unchanged checkout rebuilds nothing.
@main
struct BuildRevision: BuildToolPlugin {
  func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
    let output = context.pluginWorkDirectoryURL.appending(path: "generated")
    let script = """
      set -u
      revision=$(git -C "$0" rev-parse HEAD 2>/dev/null) || revision=unknown
      mkdir -p "$1"
      temporary="$1/.BuildRevision.swift.new"
      printf '/// Written by the BuildRevision plugin.\\nlet buildRevision = "%s"\\n' "$revision" > "$temporary"
      if cmp -s "$temporary" "$1/BuildRevision.swift"; then rm -f "$temporary"; else mv "$temporary" "$1/BuildRevision.swift"; fi
      """
    return [
      .prebuildCommand(
        displayName: "Reading the git revision",
        executable: URL(fileURLWithPath: "/bin/sh"),
        arguments: ["-c", script, context.package.directoryURL.path, output.path],
        outputFilesDirectory: output)
    ]
  }
}
