import NetQualityExport

extension HTTPServer {
  /// docs/runbook.md, built into the binary (the EmbeddedRunbook plugin), as the page
  /// `GET /runbook` serves: rendered once, each alert's section at its own anchor
  /// (`/runbook#peer_disconnected`), so an alert's runbook_url can be the agent itself.
  static let runbookPage = MarkdownPage.render(runbookMarkdown, title: "netquality runbook")
}
