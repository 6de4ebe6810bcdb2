//! The layers of `crates/core/src` (docs/architecture.md, "Layers"): a module imports only the
//! modules listed above it there. The list is read from that file, so it is written once.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The modules in docs/architecture.md's `layers` block, lowest first.
fn layers() -> Vec<String> {
    let doc = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/architecture.md")).unwrap();
    let block = doc.split("```layers\n").nth(1).expect("docs/architecture.md has a ```layers block").split("```").next().unwrap();
    block.lines().map(str::trim).filter(|l| !l.is_empty()).map(String::from).collect()
}

/// The modules `lib.rs` declares.
fn declared() -> BTreeSet<String> {
    let lib = std::fs::read_to_string(src().join("lib.rs")).unwrap();
    lib.lines().filter_map(|l| l.trim().strip_prefix("pub mod ").or_else(|| l.trim().strip_prefix("mod "))).map(|m| m.trim_end_matches(';').to_string()).collect()
}

/// Every `crate::NAME` in `text` (a file of module `module`) that names a module above `module`
/// in `layers`: (line, NAME).
fn upward(module: &str, text: &str, layers: &[String]) -> Vec<(usize, String)> {
    let rank = |m: &str| layers.iter().position(|l| l == m);
    let Some(mine) = rank(module) else { return vec![(0, format!("{module} (not in the layers)"))] };
    let mut found = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let code = line.split("//").next().unwrap_or("");
        for (i, _) in code.match_indices("crate::") {
            let name: String = code[i + 7..].chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
            if name != module && rank(&name).is_some_and(|r| r > mine) {
                found.push((n + 1, name));
            }
        }
    }
    found
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn every_module_is_in_the_layers_once() {
    let layers = layers();
    let unique: BTreeSet<String> = layers.iter().cloned().collect();
    assert_eq!(unique.len(), layers.len(), "a module listed twice: {layers:?}");
    assert_eq!(unique, declared(), "docs/architecture.md's layers against lib.rs's modules");
}

#[test]
fn no_module_imports_one_above_it() {
    let layers = layers();
    let mut all = Vec::new();
    files(&src(), &mut all);
    let mut breaks = Vec::new();
    for path in &all {
        let rel = path.strip_prefix(src()).unwrap();
        let module = rel.components().next().unwrap().as_os_str().to_string_lossy().trim_end_matches(".rs").to_string();
        if module == "lib" {
            continue;
        }
        let text = std::fs::read_to_string(path).unwrap();
        breaks.extend(upward(&module, &text, &layers).into_iter().map(|(n, m)| format!("{}:{n} imports {m}", rel.display())));
    }
    assert!(all.len() > 80, "read {} files", all.len());
    assert!(breaks.is_empty(), "imports against the layers of docs/architecture.md:\n{}", breaks.join("\n"));
}

#[test]
fn an_import_up_the_layers_is_found() {
    // What the switch once did: name the simulation's partition layout.
    let layers = layers();
    let text = "use crate::ids::PortId;\nfn f(l: &crate::sim::partition::Layout) {}\n// crate::cc in a comment is no import\n";
    assert_eq!(upward("switch", text, &layers), [(2, "sim".to_string())]);
    assert!(upward("sim", text, &layers).is_empty());
}
