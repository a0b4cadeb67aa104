import ArgumentParser

@main
struct NetQualityCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "netquality",
    abstract: "Network quality of RTP media: per-stream loss, jitter and round trip from the wire.",
    version: "0.1.0",
    subcommands: [
      AnalyzeCommand.self, RunCommand.self, TopCommand.self, CheckConfigCommand.self,
      GenerateCommand.self,
    ]
  )
}
