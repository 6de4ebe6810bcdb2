//! docs/config.md's sections on the plug-ins (congestion-control mechanisms, input-queue
//! organizations, routing algorithms) are generated from their registries: each plug-in's `DOC`, whose settings
//! table must list every key with its default. After editing a `DOC`, regenerate them with
//! `LOSSLESS_BLESS=1 cargo test --test docs`.

use lossless_core::plugin::Entry;
use std::path::Path;

/// (marker, section of the config, entries)
fn registries() -> Vec<(&'static str, &'static str, Vec<Entry>)> {
    vec![
        ("mechanisms", "cc", lossless_core::cc::registry::entries()),
        ("input_queues", "switch", lossless_core::switch::queues::entries()),
        ("routing", "routing", lossless_core::routing::entries()),
    ]
}

fn section(config_section: &str, entries: &[Entry]) -> String {
    let mut out = String::from("<!-- generated from each plug-in's DOC (crates/core/src/): edit it there -->\n\n");
    for e in entries {
        out += &format!("### `[{config_section}.{}]`\n\n{}\n\n{}\n\n", e.name, e.about, e.doc.trim_end());
    }
    out
}

/// The (key, default) cells of the settings table in a plug-in's DOC.
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

#[test]
fn every_plugin_documents_every_setting_with_its_default() {
    for (_, config_section, entries) in registries() {
        for e in entries {
            let rows = table_rows(e.doc);
            let name = format!("[{config_section}.{}]", e.name);
            for (key, default) in &e.defaults {
                let row = rows.iter().find(|(k, _)| k == key).unwrap_or_else(|| panic!("{name}'s DOC has no row for `{key}`"));
                assert!(same(default, &row.1), "{name}.{key}: DOC says `{}`, the default is `{default}`", row.1);
            }
            // A setting without a default (an option left unset) is documented as `none`.
            for (key, default) in &rows {
                assert!(e.defaults.contains_key(key) || default == "none", "{name}'s DOC documents `{key}`, which is not a setting with a default");
            }
        }
    }
}

#[test]
fn config_md_has_the_generated_plugin_sections() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/config.md");
    let mut text = std::fs::read_to_string(&path).unwrap();
    let bless = std::env::var_os("LOSSLESS_BLESS").is_some();
    for (marker, config_section, entries) in registries() {
        let (begin, end) = (format!("<!-- BEGIN {marker} -->\n"), format!("<!-- END {marker} -->\n"));
        let start = text.find(&begin).unwrap_or_else(|| panic!("docs/config.md has no {begin}")) + begin.len();
        let stop = text.find(&end).unwrap_or_else(|| panic!("docs/config.md has no {end}"));
        let want = section(config_section, &entries);
        if bless {
            text = format!("{}{want}{}", &text[..start], &text[stop..]);
        } else {
            assert!(text[start..stop] == want, "docs/config.md's {marker} section is stale: run LOSSLESS_BLESS=1 cargo test --test docs");
        }
    }
    if bless {
        std::fs::write(&path, text).unwrap();
    }
}

/// Every file docs/architecture.md names (`switch/credits.rs`, `voq.rs`, `sweeps/`) exists, as a
/// path or a file name somewhere in the repository.
#[test]
fn architecture_names_only_files_that_exist() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let doc = std::fs::read_to_string(root.join("docs/architecture.md")).unwrap();
    let mut names = std::collections::BTreeSet::new();
    let mut stack = vec![root.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().to_string();
            if name.starts_with('.') || name == "target" {
                continue;
            }
            let rel = path.strip_prefix(&root).unwrap().to_string_lossy().to_string();
            if path.is_dir() {
                names.insert(format!("{name}/"));
                names.insert(format!("{rel}/"));
                stack.push(path);
            } else {
                names.insert(name);
                names.insert(rel);
            }
        }
    }
    let cited = doc.split(|c: char| !(c.is_ascii_alphanumeric() || "_./-".contains(c))).filter(|w| w.ends_with(".rs") || w.ends_with(".py"));
    let missing: Vec<&str> = cited.filter(|w| !names.contains(*w) && !names.iter().any(|n| n.ends_with(&format!("/{w}")))).collect();
    assert!(missing.is_empty(), "docs/architecture.md names files that do not exist: {missing:?}");
}

/// docs/config.md says what `routing.algorithm = "auto"` picks in the words of the rule the code
/// applies (`routing::AUTO_RULE`, beside `routing::selected`).
#[test]
fn config_md_gives_the_auto_routing_rule_the_code_applies() {
    let doc = std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/config.md")).unwrap();
    let row = doc.lines().find(|l| l.starts_with("| `algorithm` |")).expect("a row for routing.algorithm");
    assert!(row.contains(lossless_core::routing::AUTO_RULE), "{row}");
}
