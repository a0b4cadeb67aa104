import ArgumentParser
import NetQualityAgent

@main
struct NetQualityCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "netquality",
    abstract: "Network quality of RTP media: per-stream loss, jitter and round trip from the wire.",
    version: BuildInfo.version,
    subcommands: [
      AnalyzeCommand.self, RunCommand.self, TopCommand.self, CheckConfigCommand.self,
      GenerateCommand.self, ProbeCommand.self, ReflectCommand.self, HistoryCommand.self,
      AlertsCommand.self, ReportCommand.self, CallsCommand.self,
    ]
  )
}
