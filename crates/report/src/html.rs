//! Assembles the viewer page: one HTML file with the stylesheet, the scripts
//! and (for the report) the data inlined, so it needs no server and makes no
//! request.

use serde_json::Value;

const TEMPLATE: &str = include_str!("../assets/index.html");
const STYLE: &str = include_str!("../assets/viewer.css");
/// The viewer's scripts, in load order.
const SCRIPTS: [&str; 7] = [
    include_str!("../assets/core.js"),
    include_str!("../assets/sources.js"),
    include_str!("../assets/timeline.js"),
    include_str!("../assets/cpus.js"),
    include_str!("../assets/tables.js"),
    include_str!("../assets/hints.js"),
    include_str!("../assets/problems.js"),
];

/// Where the page gets its data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PageMode {
    /// Everything is inlined (the self-contained report).
    Embedded,
    /// The page asks the server it came from (`tracekit ui`).
    Server,
}

pub(crate) fn escape_html(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// JSON that is safe inside a `<script>` element: `</` cannot close it.
pub(crate) fn script_safe_json(v: &Value) -> String {
    serde_json::to_string(v)
        .expect("JSON values serialise")
        .replace("</", "<\\/")
        .replace("<!--", "<\\!--")
}

/// The complete page. `data` is the inlined report data (`null` in server mode).
pub fn page(mode: PageMode, title: &str, data: &Value) -> String {
    let mode = match mode {
        PageMode::Embedded => "embedded",
        PageMode::Server => "server",
    };
    let script: String = SCRIPTS.join("\n;\n");
    // Substitute the data last: it may contain anything, including `{{`.
    TEMPLATE
        .replace("{{TITLE}}", &escape_html(title))
        .replace("{{MODE}}", mode)
        .replace("{{STYLE}}", STYLE)
        .replace("{{SCRIPT}}", &script.replace("</script", "<\\/script"))
        .replace("{{DATA}}", &script_safe_json(data))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_cannot_break_out_of_its_script() {
        let p = page(
            PageMode::Embedded,
            "a<b",
            &serde_json::json!({"x": "</script><script>alert(1)</script>{{STYLE}}"}),
        );
        assert!(p.contains("<title>tracekit — a&lt;b</title>"));
        assert!(!p.contains("</script><script>alert"));
        assert_eq!(p.matches("{{STYLE}}").count(), 1, "substituted data is not re-expanded");
        assert!(!p.contains("src=\"http"), "no external scripts");
    }
}
