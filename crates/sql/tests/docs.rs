//! The guide's SQL table pages list exactly the schema's tables and
//! columns: each page holds, between `<!-- table:NAME -->` and
//! `<!-- /table -->`, the block this test renders from `schema::TABLES`.
//! `TRACEKIT_BLESS=1 cargo test -p tracekit-sql --test docs` rewrites the
//! blocks after a schema change.

use std::path::PathBuf;
use tracekit_sql::schema::{Table, TABLES};

fn pages() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/guide/src/sql")
}

fn render(t: &Table) -> String {
    let mut s = format!("<!-- table:{} -->\n### `{}`\n\n{}\n\n", t.name, t.name, t.doc);
    s.push_str("| column | type | unit | null | what it holds |\n| --- | --- | --- | --- | --- |\n");
    for c in t.columns {
        s.push_str(&format!(
            "| `{}` | {} | {} | {} | {} |\n",
            c.name,
            c.kind.sql(),
            c.unit.unwrap_or(""),
            if c.nullable { "yes" } else { "" },
            c.doc.replace('|', "\\|")
        ));
    }
    s.push_str("<!-- /table -->");
    s
}

#[test]
fn every_table_is_documented_as_the_schema_says() {
    let bless = std::env::var_os("TRACEKIT_BLESS").is_some();
    let mut wrong = Vec::new();
    for t in TABLES {
        let page = pages().join(t.area.page());
        let text = std::fs::read_to_string(&page).unwrap();
        let want = render(t);
        let open = format!("<!-- table:{} -->", t.name);
        let Some(start) = text.find(&open) else {
            if bless {
                std::fs::write(&page, format!("{}\n\n{want}\n", text.trim_end())).unwrap();
            } else {
                wrong.push(format!("{}: no block for table {}", page.display(), t.name));
            }
            continue;
        };
        let end = text[start..]
            .find("<!-- /table -->")
            .map(|e| start + e + "<!-- /table -->".len());
        let end = end.unwrap_or_else(|| panic!("{}: block of {} not closed", page.display(), t.name));
        if text[start..end] != want {
            if bless {
                let new = format!("{}{}{}", &text[..start], want, &text[end..]);
                std::fs::write(&page, new).unwrap();
            } else {
                wrong.push(format!(
                    "{}: table {} differs from the schema; expected:\n{want}",
                    page.display(),
                    t.name
                ));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "{}\n(TRACEKIT_BLESS=1 rewrites the blocks)",
        wrong.join("\n\n")
    );
}
