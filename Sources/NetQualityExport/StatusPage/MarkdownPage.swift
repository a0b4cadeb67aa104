/// A Markdown document (the runbook) as an HTML page: headings with GitHub's anchors (so
/// `/runbook#peer_disconnected` lands where `docs/runbook.md#peer_disconnected` does),
/// paragraphs, bullet lists, fenced code, and inline code, emphasis and links. Everything is
/// escaped first; a link to another site is kept, one to a file of the tree (which the agent
/// does not serve) is its text alone.
public enum MarkdownPage {
  public static func render(_ markdown: String, title: String) -> String {
    var body = ""
    var paragraph: [String] = []
    var items: [String] = []
    var code: [String]?

    func flushParagraph() {
      guard !paragraph.isEmpty else { return }
      body += "<p>\(inline(paragraph.joined(separator: " ")))</p>\n"
      paragraph = []
    }
    func flushItems() {
      guard !items.isEmpty else { return }
      body += "<ul>\n" + items.map { "<li>\(inline($0))</li>\n" }.joined() + "</ul>\n"
      items = []
    }

    for rawLine in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
      let line = String(rawLine)
      let trimmed = line.trimmingLeadingSpaces
      if trimmed.hasPrefix("```") {
        if let lines = code {
          body += "<pre><code>\(HTMLText.escape(lines.joined(separator: "\n")))</code></pre>\n"
          code = nil
        } else {
          flushParagraph()
          flushItems()
          code = []
        }
        continue
      }
      if code != nil {
        code?.append(line)
        continue
      }
      if trimmed.isEmpty {
        flushParagraph()
        flushItems()
      } else if let (level, text) = heading(line) {
        flushParagraph()
        flushItems()
        body += "<h\(level) id=\"\(HTMLText.escape(anchor(text)))\">\(inline(text))</h\(level)>\n"
      } else if line.hasPrefix("* ") || line.hasPrefix("- ") {
        flushParagraph()
        items.append(String(line.dropFirst(2)))
      } else if !items.isEmpty && line.hasPrefix(" ") {
        items[items.count - 1] += " " + trimmed
      } else {
        flushItems()
        paragraph.append(trimmed)
      }
    }
    if let lines = code {
      body += "<pre><code>\(HTMLText.escape(lines.joined(separator: "\n")))</code></pre>\n"
    }
    flushParagraph()
    flushItems()
    return """
      <!doctype html>
      <html lang="en"><head><meta charset="utf-8">
      <meta name="viewport" content="width=device-width, initial-scale=1">
      <title>\(HTMLText.escape(title))</title>
      <style>body{font-family:system-ui,sans-serif;margin:1em auto;max-width:52em;padding:0 1em;\
      color:#222;line-height:1.45}code{background:#f3f3f3;padding:0 .2em}\
      pre{background:#f3f3f3;padding:.6em;overflow-x:auto}h2,h3{margin-top:1.6em}\
      :target{background:#fff3bf}</style>
      </head><body>
      \(body)</body></html>

      """
  }

  /// `### peer_disconnected` → (3, "peer_disconnected").
  static func heading(_ line: String) -> (Int, String)? {
    let level = line.prefix { $0 == "#" }.count
    guard (1...6).contains(level), line.dropFirst(level).first == " " else { return nil }
    return (level, String(line.dropFirst(level + 1)).trimmingLeadingSpaces)
  }

  /// GitHub's anchor of a heading: markup dropped, lower case, punctuation other than `-`
  /// and `_` dropped, spaces as hyphens (`NetQualityAgentDown` → `netqualityagentdown`).
  public static func anchor(_ heading: String) -> String {
    var result = ""
    for character in heading.lowercased() {
      if character == " " {
        result.append("-")
      } else if character.isLetter || character.isNumber || character == "-"
        || character == "_"
      {
        result.append(character)
      }
    }
    return result
  }

  /// Inline Markdown of one block: `code`, **strong**, *emphasis*, [text](target).
  static func inline(_ text: String) -> String {
    var result = ""
    var rest = Substring(text)
    while let first = rest.first {
      if first == "`", let end = rest.dropFirst().firstIndex(of: "`") {
        result +=
          "<code>\(HTMLText.escape(String(rest[rest.index(after: rest.startIndex)..<end])))</code>"
        rest = rest[rest.index(after: end)...]
      } else if rest.hasPrefix("**"), let end = rest.dropFirst(2).range(of: "**") {
        result += "<strong>\(inline(String(rest.dropFirst(2)[..<end.lowerBound])))</strong>"
        rest = rest[end.upperBound...]
      } else if first == "*", let end = rest.dropFirst().firstIndex(of: "*"),
        end != rest.index(after: rest.startIndex)
      {
        result += "<em>\(inline(String(rest[rest.index(after: rest.startIndex)..<end])))</em>"
        rest = rest[rest.index(after: end)...]
      } else if first == "[", let link = link(rest) {
        result += link.html
        rest = link.rest
      } else {
        result += HTMLText.escape(String(first))
        rest = rest.dropFirst()
      }
    }
    return result
  }

  /// `[text](target)` at the start of `text`: a link for another site or an anchor of this
  /// page, the text alone for a file of the tree.
  static func link(_ text: Substring) -> (html: String, rest: Substring)? {
    guard let close = text.firstIndex(of: "]"), text[close...].dropFirst().first == "(",
      let end = text[close...].firstIndex(of: ")")
    else { return nil }
    let label = inline(String(text[text.index(after: text.startIndex)..<close]))
    let target = String(text[text.index(close, offsetBy: 2)..<end])
    let rest = text[text.index(after: end)...]
    if target.hasPrefix("https://") || target.hasPrefix("http://") || target.hasPrefix("#") {
      return ("<a href=\"\(HTMLText.escape(target))\">\(label)</a>", rest)
    }
    return (label, rest)
  }
}

extension String {
  fileprivate var trimmingLeadingSpaces: String {
    String(drop { $0 == " " || $0 == "\t" })
  }
}
