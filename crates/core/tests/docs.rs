//! docs/config.md's section on the mechanisms is generated from the registry: each
//! mechanism's `DOC`, whose settings table must list every key with its default. After editing
//! a `DOC`, regenerate the section with `LOSSLESS_BLESS=1 cargo test --test docs`.

use lossless_core::cc::registry::{entries, Entry};
use std::path::Path;

const BEGIN: &str = "<!-- BEGIN mechanisms -->\n";
const END: &str = "<!-- END mechanisms -->\n";

fn section() -> String {
    let mut out = String::from("<!-- generated from each mechanism's DOC (crates/core/src/cc/): edit it there -->\n\n");
    for e in entries() {
        out += &format!("### `[cc.{}]`\n\n{}\n\n{}\n", e.name, e.about, e.doc.trim_end());
        out += "\n";
    }
    out
}

/// The (key, default) cells of the first table in a mechanism's DOC.
fn table_rows(doc: &str) -> Vec<(String, String)> {
    doc.lines()
        .filter(|l| l.starts_with("| `"))
        .map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            (cells[1].trim_matches('`').to_string(), cells[2].trim_matches('`').to_string())
        })
        .collect()
}

fn same(default: &toml::Value, documented: &str) -> bool {
    let Ok(parsed) = format!("x = {documented}").parse::<toml::Table>() else { return false };
    match (default, &parsed["x"]) {
        (toml::Value::Float(a), toml::Value::Integer(b)) => *a == *b as f64,
        (a, b) => a == b,
    }
}

fn check_table(e: &Entry) {
    let rows = table_rows(e.doc);
    for (key, default) in &e.defaults {
        let row = rows.iter().find(|(k, _)| k == key).unwrap_or_else(|| panic!("[cc.{}]'s DOC has no row for `{key}`", e.name));
        assert!(same(default, &row.1), "[cc.{}].{key}: DOC says `{}`, the default is `{default}`", e.name, row.1);
    }
    for (key, _) in &rows {
        assert!(e.defaults.contains_key(key), "[cc.{}]'s DOC documents `{key}`, which is not a setting", e.name);
    }
}

#[test]
fn every_mechanism_documents_every_setting_with_its_default() {
    for e in entries() {
        check_table(&e);
    }
}

#[test]
fn config_md_has_the_generated_mechanism_section() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/config.md");
    let text = std::fs::read_to_string(&path).unwrap();
    let (start, end) = (text.find(BEGIN).expect("BEGIN marker") + BEGIN.len(), text.find(END).expect("END marker"));
    let want = section();
    if std::env::var_os("LOSSLESS_BLESS").is_some() {
        std::fs::write(&path, format!("{}{want}{}", &text[..start], &text[end..])).unwrap();
    } else {
        assert!(text[start..end] == want, "docs/config.md's mechanism section is stale: run LOSSLESS_BLESS=1 cargo test --test docs");
    }
}
