import NetQualityExport
import XCTest

final class MarkdownPageTests: XCTestCase {
  func testHeadingsListsInlineAndLinks() {
    let html = MarkdownPage.render(
      """
      # Runbook

      ### peer_disconnected

      A peer **silent** for 12 s, see `top` and
      [the API](api.md), [Alertmanager](https://prometheus.io/) or [below](#storage_failing).
      * one <b>
        continued
      - two *em*

      ## NetQuality Agent Down!
      ```
      curl -s <x>
      ```
      """, title: "t")
    XCTAssertTrue(html.contains(#"<h1 id="runbook">Runbook</h1>"#), html)
    XCTAssertTrue(html.contains(#"<h3 id="peer_disconnected">peer_disconnected</h3>"#))
    XCTAssertTrue(
      html.contains(
        "<p>A peer <strong>silent</strong> for 12 s, see <code>top</code> and the API, "
          + #"<a href="https://prometheus.io/">Alertmanager</a> or "#
          + ##"<a href="#storage_failing">below</a>.</p>"##), html)
    XCTAssertTrue(
      html.contains("<ul>\n<li>one &lt;b&gt; continued</li>\n<li>two <em>em</em></li>\n</ul>"),
      html)
    XCTAssertTrue(html.contains(#"<h2 id="netquality-agent-down">"#), html)
    XCTAssertTrue(html.contains("<pre><code>curl -s &lt;x&gt;</code></pre>"), html)
    XCTAssertFalse(html.contains("<b>"))
  }
}
